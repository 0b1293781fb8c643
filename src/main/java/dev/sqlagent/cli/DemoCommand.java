package dev.sqlagent.cli;

import dev.sqlagent.db.PgUrl;
import dev.sqlagent.demo.DemoShop;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code sql-agent demo --into URL}: the demo shop's tables and data in a database of the user's choosing. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Build the demo shop's 15 tables and their data in the database of --into (which must have none "
        + "of them: nothing is replaced). Creates no role: make a read-only one with 'sql-agent grant'.")
public final class DemoCommand implements Callable<Integer> {

  @Option(names = "--into", required = true, paramLabel = "URL",
      description = "postgresql://user[:password]@host:port/database of a user who may create tables there")
  String into;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PgUrl url;
    try {
      url = PgUrl.parse(into);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--into: " + e.getMessage());
    }
    long t0 = System.nanoTime();
    DemoShop.buildInto(url);
    var out = spec.commandLine().getOut();
    out.printf("demo shop built in %s in %d ms (%d tables)%n", url, (System.nanoTime() - t0) / 1_000_000,
        DemoShop.SHOP_TABLES.size());
    out.println("next: SQLAGENT_DB_URL=" + url + " sql-agent grant --apply   (creates a read-only role and prints its URL)");
    out.flush();
    return 0;
  }
}

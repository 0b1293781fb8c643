package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Database;
import dev.sqlagent.db.Setup;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Builds (or rebuilds) the shop database and the agent roles, then proves each role. */
@Command(name = "setup", mixinStandardHelpOptions = true,
    description = "Create the shop database, its deterministic data and the agent roles, then prove the roles "
        + "by attempting what they must not do. Re-running rebuilds the same data row for row.")
public final class SetupCommand implements Callable<Integer> {

  @Override
  public Integer call() throws Exception {
    AppConfig config = AppConfig.fromEnvironment();
    try (Database db = Database.open(config, false)) {
      Setup setup = new Setup(db.target());
      long t0 = System.nanoTime();
      setup.ensureDatabase();
      setup.rebuild();
      setup.grantRoles();
      var proofs = setup.prove();
      System.out.printf("setup of %s done in %d ms%n", db.target().admin(), (System.nanoTime() - t0) / 1_000_000);
      proofs.forEach(p -> System.out.println("  proved: " + p));
      return 0;
    }
  }
}

package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Database;
import dev.sqlagent.db.Status;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** What is true of the database now, attempted rather than assumed. Exit 1 when any check fails. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Attempt the admin and agent connections, a write as the agent role, a read as the log role, "
        + "and count tables and rows. Exits 1 if any check fails.")
public final class StatusCommand implements Callable<Integer> {

  @Override
  public Integer call() throws Exception {
    AppConfig config = AppConfig.fromEnvironment();
    try (Database db = Database.open(config, false)) {
      var checks = Status.run(db.target());
      System.out.print(Status.table(checks));
      return checks.stream().allMatch(Status.Check::ok) ? 0 : 1;
    }
  }
}

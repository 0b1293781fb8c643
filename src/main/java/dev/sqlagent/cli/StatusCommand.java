package dev.sqlagent.cli;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** What is true of the target and the state store now, attempted rather than assumed. Exit 1 when any check fails. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Connect to the target as the agent role and prove from its catalogue that it cannot write, count "
        + "the relations it can read, then connect to the state store and try the log role's limits. Exits 1 if any "
        + "check fails. Writes nothing to the target.")
public final class StatusCommand implements Callable<Integer> {

  @Override
  public Integer call() throws Exception {
    AppConfig config = AppConfig.fromEnvironment();
    try (Databases db = Databases.open(config, false)) {
      var checks = Status.run(db.target(), db.state(), config.schemas());
      System.out.print(Status.table(checks));
      return checks.stream().allMatch(Status.Check::ok) ? 0 : 1;
    }
  }
}

package dev.sqlagent.cli;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** What is true of the target and the state store now, attempted rather than assumed. Exit 1 when any check fails. */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Connect to the target as the agent role and prove from its catalogue that it cannot write, count "
        + "the relations it can read, check the notes file's metrics through the gate, then connect to the state store and "
        + "try the log role's limits. Exits 1 if any "
        + "check fails. Writes nothing to the target.")
public final class StatusCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> configuration;

  public StatusCommand() {
    this(AppConfig::fromEnvironment);
  }

  /** With the configuration from elsewhere than the process environment (tests). */
  StatusCommand(Supplier<AppConfig> configuration) {
    this.configuration = configuration;
  }

  @Override
  public Integer call() throws Exception {
    AppConfig config = configuration.get();
    PrintWriter out = spec.commandLine().getOut();
    try (Databases db = Databases.open(config, false)) {
      var checks = new java.util.ArrayList<>(Status.run(db.target(), db.state(), config.schemas(), config::acceptsExecutable));
      checks.addAll(Status.policy(db.target(), config, Status.provenReadOnly(checks)));
      checks.addAll(MetricChecks.run(db.target(), config));
      out.print(Status.table(checks));
      out.flush();
      return checks.stream().allMatch(Status.Check::ok) ? 0 : 1;
    }
  }
}

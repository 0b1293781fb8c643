package dev.sqlagent.cli;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.LearnedMessages.Join;
import dev.sqlagent.contract.LearnedMessages.Report;
import dev.sqlagent.contract.LearnedMessages.Source;
import dev.sqlagent.contract.LearnedMessages.Suggestion;
import dev.sqlagent.learn.Learner;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sql-agent learn}: what the workload teaches, with its evidence; {@code --write} a notes-file fragment. */
@Command(name = "learn", mixinStandardHelpOptions = true,
    description = "Read the workload (pg_stat_statements in the target when the agent role may read it, the answered "
        + "questions of the query log, the verified queries) and print what it teaches: the joins people run (which "
        + "complete join paths where no foreign key is declared) and suggested conventions, each with its evidence. "
        + "Nothing reaches the model's prompt from here: --write FILE writes the suggestions as a notes-file fragment "
        + "for a person to edit and merge into SQLAGENT_NOTES. Writes nothing to the target.")
public final class LearnCommand implements Callable<Integer> {

  @Option(names = "--write", paramLabel = "FILE", description = "write the suggestions as a notes-file fragment (YAML)")
  Path write;

  @Option(names = "--json", description = "print everything learned as JSON (the same as GET /api/learned)")
  boolean json;

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> configuration;

  public LearnCommand() {
    this(AppConfig::fromEnvironment);
  }

  /** With the configuration from elsewhere than the process environment (tests). */
  public LearnCommand(Supplier<AppConfig> configuration) {
    this.configuration = configuration;
  }

  @Override
  public Integer call() throws Exception {
    AppConfig config = configuration.get();
    PrintWriter out = spec.commandLine().getOut();
    try (Databases db = Databases.open(config)) {
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      try {
        TargetReader target = TargetReader.open(vertx, db.target(),
            new TargetReader.Timeouts(config.statementTimeoutMs(), config.lockTimeoutMs()), 1, "sql-agent-learn");
        StateDatabase state = StateDatabase.open(vertx, db.state(), 1);
        Catalogue catalogue = CatalogueHolder.open(vertx, db.target(), config.schemas()).current()
            .await(2, TimeUnit.MINUTES).catalogue();
        Report report = new Learner(target, state.owner(), db.target().key()).learn(vertx, catalogue)
            .await(5, TimeUnit.MINUTES);
        if (json) {
          out.println(report.toJson().encodePrettily());
        } else {
          out.print(text(report));
        }
        if (write != null) {
          Files.writeString(write, report.notes());
          out.println("wrote " + report.suggestions().size() + " suggested convention(s) to " + write
              + ": edit it, then merge what is right into your notes file (SQLAGENT_NOTES)");
        }
        return 0;
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);  // and the pools with it
        out.flush();
      }
    }
  }

  /** The report for a person: where the workload came from, the joins, the suggestions, each with its evidence. */
  static String text(Report report) {
    StringBuilder b = new StringBuilder("workload:\n");
    for (Source s : report.sources()) {
      b.append(String.format("  %-19s %-4s %s%n", s.name(), s.read() ? "ok" : "no", s.detail()));
    }
    b.append("learned joins (").append(report.joins().size()).append("):\n");
    for (Join j : report.joins()) b.append("  ").append(j.describe()).append("  [").append(Learner.describe(j.evidence())).append("]\n");
    b.append("suggested conventions (").append(report.suggestions().size()).append("), not used until you add them to the notes file:\n");
    for (Suggestion s : report.suggestions()) {
      b.append("  ").append(s.table()).append(": ").append(s.predicate()).append("  [").append(s.count()).append(" of ")
          .append(s.of()).append(" queries; ").append(Learner.describe(s.evidence())).append("]\n    ").append(s.text()).append('\n');
    }
    return b.toString();
  }
}

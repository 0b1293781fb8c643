package dev.sqlagent.cli;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.eval.FaultInjector;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.Databases;
import dev.sqlagent.eval.EvalRun;
import dev.sqlagent.eval.EvalRunner;
import dev.sqlagent.eval.GradingGate;
import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.eval.RunStore;
import dev.sqlagent.eval.TableColumns;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.eval.Summary;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.execution.Gate;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Runs the evaluation against the configured model, or re-grades a saved run without it. */
@Command(name = "eval", mixinStandardHelpOptions = true,
    description = "Ask every question of the evaluation set through the agent, grade the answers by executing them "
        + "against gold SQL, print the summary and save the run in the state store, named by its start time "
        + "(never overwriting; --out also exports its files). Evaluation runs are not written to the query log.")
public final class EvalCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--mode", paramLabel = "agent|baseline|both",
      description = "agent (the repair loop), baseline (single shot) or both, back to back on the same model. "
          + "Default: both.")
  String mode;

  @Option(names = "--runs", paramLabel = "N", description = "Ask each question N times (default 1).")
  Integer runs;

  @Option(names = "--candidates", paramLabel = "N[,N...]", split = ",",
      description = "Ask the agent with N SQL candidates voted by their results; several counts are compared side "
          + "by side (agent, agent@3, ...). Default: 1.")
  List<Integer> candidates;

  @Option(names = "--regrade", paramLabel = "RUN",
      description = "Re-score a saved run (its name in the state store, or a directory of its exported files) "
          + "without calling the model; saves a new <timestamp>-regrade run.")
  String regrade;

  @Option(names = "--inject-faults",
      description = "Break the model's first SQL of each answerable question in a recorded way, and report the "
          + "repair loop's rescue rate per fault type.")
  boolean injectFaults;

  @Option(names = "--questions", paramLabel = "FILE",
      description = "A question file in the JSON-lines format of the shipped set (default: the shipped set; with "
          + "--regrade: the questions saved with the run).")
  Path questions;

  @Option(names = "--database", paramLabel = "NAME",
      description = "Ask against database NAME on the server of SQLAGENT_DB_URL, as the same role (a benchmark's "
          + "question file against its own database: --questions bench/questions/sales.jsonl --database bench_sales).")
  String database;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Also export the run's files (run.json, questions.jsonl, answers.jsonl, verdicts.jsonl, "
          + "summary.json) into DIR/<run>/, as it progresses. Runs are always saved in the state store.")
  Path out;

  /** The configuration, from the environment with these settings put over it. */
  private final Function<Map<String, String>, AppConfig> configuration;

  public EvalCommand() {
    this(EvalCommand::fromEnvironment);
  }

  /** With the configuration from elsewhere than the process environment (tests); it takes the overrides. */
  EvalCommand(Function<Map<String, String>, AppConfig> configuration) {
    this.configuration = configuration;
  }

  /** The eval process needs no public HTTP port; any free one keeps it clear of a running service. */
  private static AppConfig fromEnvironment(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("SQLAGENT_HTTP_PORT", "0");
    env.putAll(overrides);
    return AppConfig.load(env);
  }

  /** The configuration, its target moved to {@code --database} when that is given. */
  private AppConfig config() {
    AppConfig config = configuration.apply(Map.of());
    if (database == null) return config;
    if (database.isBlank()) throw new ParameterException(spec.commandLine(), "--database needs a database name");
    if (config.dbUrl().isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--database names a database on the server of SQLAGENT_DB_URL, "
          + "and SQLAGENT_DB_URL is not set");
    }
    return configuration.apply(Map.of("SQLAGENT_DB_URL", config.dbUrl().get().withDatabase(database).withSecret()));
  }

  @Override
  public Integer call() throws Exception {
    List<String> modes = modes();
    if (runs != null && runs < 1) throw new ParameterException(spec.commandLine(), "--runs must be at least 1");
    if (candidates != null && candidates.stream().anyMatch(n -> n == null || n < 1 || n > 16)) {
      throw new ParameterException(spec.commandLine(), "--candidates takes whole numbers from 1 to 16, like 1,3");
    }
    if (regrade != null && candidates != null) {
      throw new ParameterException(spec.commandLine(), "--regrade re-scores the answers a run saved; --candidates does not apply to it");
    }
    if (regrade != null && (mode != null || runs != null || injectFaults)) {
      throw new ParameterException(spec.commandLine(),
          "--regrade re-scores the answers a run saved; --mode, --runs and --inject-faults do not apply to it");
    }
    // Checked before anything starts: a bad question file is reported by line at once.
    List<Question> qs = questions != null ? QuestionSet.load(questions) : regrade == null ? QuestionSet.shipped() : null;

    AppConfig configured = config();
    // A re-grade needs no model; a run is served the local model as serve and ask are, and waits for it to load.
    try (LocalModel localModel = regrade == null ? LocalModel.start(configured) : LocalModel.none(configured)) {
      return evaluate(localModel, modes, qs);
    }
  }

  private int evaluate(LocalModel localModel, List<String> modes, List<Question> qs) throws Exception {
    AppConfig config = localModel.config();
    PrintWriter stdout = spec.commandLine().getOut();
    EvalRunner.Options options = new EvalRunner.Options(modes, runs == null ? 1 : runs, injectFaults, out,
        questions != null ? questions.toString() : QuestionSet.SHIPPED, config.deadlines().outerMs(), null,
        line -> {
          stdout.println(line);
          stdout.flush();
        }, candidates);

    try (Databases db = Databases.open(config)) {
      localModel.awaitLoaded();
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      try {
        RunStore store = new RunStore(db.state());
        // Gold SQL and truncated answers run through the gate's grading mode: no second route to the database.
        GradingGate gate = new GradingGate(vertx, config.deadlines().queryMs());
        EvalRunner runner = new EvalRunner(vertx, gate, store, options);
        EvalRun run;
        if (regrade != null) {
          // No model and no agent: the gate alone.
          vertx.deployVerticle(new ExecutionVerticle(db.target(), Gate.Settings.from(config), config.users().dbRoles()))
              .await(5, TimeUnit.MINUTES);
          run = runner.regrade(regrade, qs).await();
        } else {
          vertx.deployVerticle(new MainVerticle(config, db.target(), db.state(), false,
              injectFaults ? new FaultInjector(TableColumns.of(
                  Discovery.readBlocking(db.target(), config.schemas()))).mutator() : null)).await(5, TimeUnit.MINUTES);
          stdout.printf("evaluating %d questions, mode %s, %d run(s)%s%s, model %s at %s, database %s%n", qs.size(),
              String.join("+", modes), options.runs(), injectFaults ? ", with injected faults" : "",
              options.candidates().equals(List.of(1)) ? "" : ", candidates " + options.candidates(),
              config.llmModel(), config.llmBaseUrl(), db.target().url().database());
          run = runner.run(qs).await();
        }
        stdout.println();
        stdout.print(Summary.table(run.summary()));
        stdout.println("saved: run " + run.id() + " in " + store.where());
        if (run.exportDir() != null) stdout.println("exported: " + run.exportDir());
        stdout.flush();
        return 0;
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  private List<String> modes() {
    String m = mode == null ? "both" : mode;
    return switch (m) {
      case "agent" -> List.of("agent");
      case "baseline" -> List.of("baseline");
      case "both" -> List.of("agent", "baseline");
      default -> throw new ParameterException(spec.commandLine(), "--mode must be agent, baseline or both, not " + m);
    };
  }
}

package dev.sqlagent.cli;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.intake.Door;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.intake.Owner;
import dev.sqlagent.intake.Taken;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.MetricDefinition;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.display.ResultText;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.export.ExportFormat;
import dev.sqlagent.export.ExportStream;
import java.util.List;
import dev.sqlagent.Databases;
import io.vertx.core.Vertx;
import dev.sqlagent.contract.StepData;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sql-agent ask "question"}: one question through the whole agent, each attempt printed live. */
@Command(name = "ask", mixinStandardHelpOptions = true,
    description = "Ask one question; prints each attempt with its error type and repair strategy, then the answer and the SQL.")
public final class AskCommand implements Callable<Integer> {

  @Parameters(index = "0", paramLabel = "QUESTION", description = "the question, in quotes")
  String question;

  @Option(names = "--baseline", description = "one attempt, no repair (the single-shot baseline)")
  boolean baseline;

  @Option(names = "--json", description = "print the answer JSON instead of the readable summary (as --format json)")
  boolean json;

  @Option(names = "--reading", paramLabel = "N",
      description = "when the question has several readings and is asked back, answer from reading N without asking")
  Integer reading;
  @Option(names = "--format", paramLabel = "FORMAT", description = "table (the default): the attempts and a readable "
      + "summary; json: the answer JSON; csv: the answer's whole result as CSV (RFC 4180) on standard output, its SQL "
      + "run again through the gate with the export's row cap (SQLAGENT_EXPORT_MAX_ROWS), the attempts on standard error")
  String format = "table";

  @Spec
  CommandSpec spec;

  /** The exit code of a question asked back that nobody answered (not interactive, no --reading). */
  static final int NEEDS_CLARIFICATION = 3;

  private final Supplier<AppConfig> configuration;
  private final java.util.function.BooleanSupplier interactive;
  private final java.io.BufferedReader input;

  public AskCommand() {
    this(AppConfig::fromEnvironment, () -> System.console() != null,
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8)));
  }

  AskCommand(Supplier<AppConfig> configuration) {
    this(configuration, () -> false, null);
  }

  /** @param interactive whether a person at a terminal can answer a question asked back, on {@code input} */
  AskCommand(Supplier<AppConfig> configuration, java.util.function.BooleanSupplier interactive,
      java.io.BufferedReader input) {
    this.configuration = configuration;
    this.interactive = interactive;
    this.input = input;
  }

  @Override
  public Integer call() throws Exception {
    AppConfig config = configuration.get();
    PrintWriter out = spec.commandLine().getOut();
    String shape = json ? "json" : format.toLowerCase(java.util.Locale.ROOT);
    if (!List.of("table", "json", "csv").contains(shape)) {
      spec.commandLine().getErr().println("sql-agent ask: unknown --format '" + format + "': use table, json or csv");
      return 2;
    }
    PrintWriter progress = shape.equals("csv") ? spec.commandLine().getErr() : out;
    try (LocalModel localModel = LocalModel.start(config)) {
      return ask(localModel, out, shape, progress);
    }
  }

  private int ask(LocalModel localModel, PrintWriter out, String shape, PrintWriter progress) throws Exception {
    AppConfig config = localModel.config();
    try (Databases db = Databases.open(config)) {
      localModel.awaitLoaded();
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      try {
        vertx.deployVerticle(new MainVerticle(config, db.target(), db.state(), false)).await(5, TimeUnit.MINUTES);
        if (!shape.equals("json")) {
          vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> printEvent(progress, GraphEvent.fromJson(m.body())));
        }
        AgentClient agent = new AgentClient(vertx, config.deadlines().askMs());
        Intake intake = new Intake(agent);
        // This process is the connection that asks: Ctrl-C (its end) stops its run.
        Owner process = intake.owner(null);
        Taken taken = intake.take(new JsonObject().put("question", question).put("mode", baseline ? "baseline" : "agent"),
            new Door("cli", null, null), process);
        String runId = taken.runId();
        io.vertx.core.Future<Answer> asked = intake.ask(taken);
        Thread stop = new Thread(() -> cancelOnInterrupt(process, asked, spec.commandLine().getErr()), "sql-agent-ask-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        Answer answer;
        try {
          answer = asked.await();
        } catch (BusError e) {
          spec.commandLine().getErr().println("sql-agent ask: " + e.getMessage());
          return 2;
        } finally {
          try {
            Runtime.getRuntime().removeShutdownHook(stop);
          } catch (IllegalStateException shuttingDown) {
            // Ctrl-C came: the hook is running and stops the question.
          }
        }
        if (shape.equals("csv")) return csv(vertx, config, answer, out, spec.commandLine().getErr());
        out.println(shape.equals("json") ? answer.toJson().encodePrettily() : summary(answer));
        out.flush();
        if (answer.needsClarification()) {
          Integer chosen = choose(answer, out);
          if (chosen == null) {
            spec.commandLine().getErr().println("sql-agent ask: the question has " + answer.clarification().readings().size()
                + " readings (above); ask again with --reading N to be answered from one, without the model");
            return NEEDS_CLARIFICATION;
          }
          try {
            answer = agent.rerun(RerunRequest.chosen(runId, chosen, null, "cli", null)).await();
          } catch (BusError e) {
            spec.commandLine().getErr().println("sql-agent ask: " + e.getMessage());
            return 2;
          }
          out.println(json ? answer.toJson().encodePrettily() : summary(answer));
          out.flush();
        }
        return answer.gaveUp() ? 1 : 0;
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * The answer's whole result as CSV on {@code out}: its SQL through the gate again, with the export's cap in place of
   * the row cap that cut it (ExportStream); the summary goes to {@code err}. 1 when there is no answered SQL.
   */
  static int csv(Vertx vertx, AppConfig config, Answer answer, PrintWriter out, PrintWriter err) {
    if (!answer.answered() || answer.sql() == null) {
      err.println(summary(answer));
      err.flush();
      return 1;
    }
    ExportStream.Output stdout = new ExportStream.Output() {
      @Override
      public void begin() { }

      @Override
      public io.vertx.core.Future<Void> write(io.vertx.core.buffer.Buffer bytes) {
        return vertx.executeBlocking(() -> {
          out.write(bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
          out.flush();
          return null;
        });
      }
    };
    ExportStream.Outcome outcome = ExportStream.run(vertx, new GateClient(vertx, config.deadlines().queryMs()),
        ExportFormat.CSV, answer.sql(), answer.truncated(), null,
        new ExportStream.Limits(config.exportMaxRows(), config.exportMaxBytes()), stdout).await();
    if (!outcome.began()) {
      err.println("sql-agent ask: the export was refused: " + outcome.reply().error().message());
      err.flush();
      return 1;
    }
    err.println(summary(answer));
    err.flush();
    return 0;
  }

  /**
   * Ctrl-C while the question runs: the run is cancelled (its model call aborted, its statement cancelled in the
   * database) and its end awaited briefly, so nothing is left running when the command exits.
   */
  static void cancelOnInterrupt(Owner process, io.vertx.core.Future<?> asked, PrintWriter err) {
    if (asked.isComplete()) return;
    err.println("sql-agent ask: stopping the question...");
    err.flush();
    try {
      process.gone("Ctrl-C").transform(v -> asked).await(5, TimeUnit.SECONDS);
      err.println("sql-agent ask: stopped; nothing is left running.");
    } catch (Exception e) {
      err.println("sql-agent ask: the question could not be confirmed stopped: " + e.getMessage());
    }
    err.flush();
  }

  /**
   * The reading to answer from: {@code --reading}, else the one a person at the terminal types; null when nobody can
   * choose (not interactive) or the input ends.
   */
  private Integer choose(Answer answer, PrintWriter out) throws java.io.IOException {
    int n = answer.clarification().readings().size();
    if (reading != null) return reading;
    if (!json && interactive.getAsBoolean() && input != null) {
      while (true) {
        out.print("Which reading did you mean? [1-" + n + "] ");
        out.flush();
        String line = input.readLine();
        if (line == null) return null;
        try {
          int r = Integer.parseInt(line.strip());
          if (r >= 1 && r <= n) return r;
        } catch (NumberFormatException notANumber) {
          // asked again
        }
        out.println("Type a number from 1 to " + n + ".");
      }
    }
    return null;
  }

  /** One line for the events a person follows, read as their records ({@link StepData}); the rest print nothing. */
  static void printEvent(PrintWriter out, GraphEvent e) {
    StepData d;
    try {
      d = StepData.of(e);
    } catch (IllegalArgumentException notOneOfOurs) {
      return;
    }
    if (d instanceof StepData.SchemaSelected s) {
      out.println("tables: " + s.tableNames());
    } else if (d instanceof StepData.SqlWritten w) {
      out.println("attempt " + e.attempt() + ": " + w.sql());
    } else if (d instanceof StepData.CandidatesWritten c) {
      out.println("attempt " + e.attempt() + ": " + c.candidates().size() + " candidates");
    } else if (d instanceof StepData.ReplyUnusable u) {
      out.println("  failed: " + u.errorType() + ": " + u.message());
    } else if (d instanceof StepData.ModelFailed m) {
      out.println("  failed: " + m.errorType() + ": " + m.message());
    } else if (d instanceof StepData.SqlFailed f) {
      out.println("  failed: " + f.errorType() + ": " + f.message());
    } else if (d instanceof StepData.SqlRan r) {
      out.println("  ran: " + r.rowCount() + " rows" + (r.truncated() ? " (truncated)" : ""));
    } else if (d instanceof StepData.Probed p && "filter_too_strict".equals(p.verdict())) {
      out.println("  no rows; a case-insensitive probe found " + p.probeRows() + ": " + new io.vertx.core.json.JsonArray(p.filters()));
    } else if (d instanceof StepData.RepairPrepared r) {
      out.println("  repair strategy: " + r.strategy() + (r.widened() ? " (retrieval widened)" : ""));
    } else if (d instanceof Answer a && a.needsClarification()) {
      out.println("asked back: no reading has a majority");
    } else {
      return;
    }
    out.flush();
  }

  static String summary(Answer a) {
    StringBuilder b = new StringBuilder("\n");
    if (a.needsClarification()) {
      return b.append("ASKED BACK: ").append(a.answer()).append('\n')
          .append(ResultText.readings(a.clarification().toJson())).toString();
    }
    b.append(a.cancelled() ? "CANCELLED: " : a.refused() ? "REFUSED: " : a.gaveUp() ? "GAVE UP: " : "ANSWER: ").append(a.answer()).append('\n');
    if (a.editedFrom() != null && a.chosenReading() != null) {
      b.append("(from reading ").append(a.chosenReading()).append(", without the model)\n");
    }
    if (a.sql() != null) b.append("SQL: ").append(a.sql()).append('\n');
    if (a.metrics() != null) {
      for (MetricDefinition m : a.metrics()) b.append("METRIC: ").append(m.render()).append('\n');
    }
    if (a.answered()) b.append(ResultText.table(a.toJson()));
    b.append("attempts: ").append(a.attempts()).append(", rows: ").append(a.rowCount())
        .append(a.truncated() ? " (truncated)" : "").append(", tokens: ")
        .append(a.tokens().prompt()).append('+').append(a.tokens().completion())
        .append(", ").append(a.latencyMs()).append(" ms");
    return b.toString();
  }
}

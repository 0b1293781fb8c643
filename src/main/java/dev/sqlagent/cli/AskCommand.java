package dev.sqlagent.cli;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.display.ResultText;
import dev.sqlagent.Databases;
import io.vertx.core.Vertx;
import dev.sqlagent.contract.Node;
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

  @Option(names = "--json", description = "print the answer JSON instead of the readable summary")
  boolean json;

  @Option(names = "--reading", paramLabel = "N",
      description = "when the question has several readings and is asked back, answer from reading N without asking")
  Integer reading;

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
    try (Databases db = Databases.open(config)) {
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      try {
        vertx.deployVerticle(new MainVerticle(config, db.target(), db.state(), false)).await(5, TimeUnit.MINUTES);
        if (!json) vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> printEvent(out, GraphEvent.fromJson(m.body())));
        String runId = java.util.UUID.randomUUID().toString();
        AgentClient agent = new AgentClient(vertx, config.deadlines().askMs());
        AskRequest request = new AskRequest(question, baseline ? "baseline" : "agent", "cli", runId, null, null,
            RunOptions.ASKED);
        io.vertx.core.Future<Answer> asked = agent.ask(request);
        Thread stop = new Thread(() -> cancelOnInterrupt(agent, runId, asked, spec.commandLine().getErr()), "sql-agent-ask-stop");
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
        out.println(json ? answer.toJson().encodePrettily() : summary(answer));
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
   * Ctrl-C while the question runs: the run is cancelled (its model call aborted, its statement cancelled in the
   * database) and its end awaited briefly, so nothing is left running when the command exits.
   */
  static void cancelOnInterrupt(AgentClient agent, String runId, io.vertx.core.Future<?> asked, PrintWriter err) {
    if (asked.isComplete()) return;
    err.println("sql-agent ask: stopping the question...");
    err.flush();
    try {
      agent.cancel(RunRequest.cancel(runId, null, "Ctrl-C"))
          .transform(v -> asked).await(5, TimeUnit.SECONDS);
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

  private static void printEvent(PrintWriter out, GraphEvent e) {
    Node node = Node.fromWireName(e.node()).orElse(null);
    if (node == null) return;
    JsonObject d = e.data();
    boolean finished = e.status().equals(GraphEvent.FINISHED);
    boolean failed = e.status().equals(GraphEvent.FAILED);
    switch (node) {
      case SELECT_SCHEMA -> {
        if (finished) out.println("tables: " + d.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name")).toList());
      }
      case GENERATE_SQL, VALIDATE_SQL, EXECUTE_SQL -> {
        if (failed) out.println("  failed: " + d.getString("error_type") + ": " + d.getString("message"));
        else if (finished && node == Node.GENERATE_SQL) out.println("attempt " + e.attempt() + ": " + d.getString("sql"));
        else if (finished && node == Node.EXECUTE_SQL) {
          out.println("  ran: " + d.getInteger("row_count") + " rows" + (d.getBoolean("truncated", false) ? " (truncated)" : ""));
        }
      }
      case INSPECT_RESULT -> {
        if ("filter_too_strict".equals(d.getString("verdict"))) {
          out.println("  no rows; a case-insensitive probe found " + d.getInteger("probe_rows") + ": " + d.getJsonArray("filters"));
        }
      }
      case CLARIFY -> {
        if (finished) out.println("asked back: no reading has a majority");
      }
      case PREPARE_REPAIR -> {
        if (finished) out.println("  repair strategy: " + d.getString("strategy") + (d.getBoolean("widened", false) ? " (retrieval widened)" : ""));
      }
      default -> { }
    }
    out.flush();
  }

  private static String summary(Answer a) {
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
    if (a.answered()) b.append(ResultText.table(a.toJson()));
    b.append("attempts: ").append(a.attempts()).append(", rows: ").append(a.rowCount())
        .append(a.truncated() ? " (truncated)" : "").append(", tokens: ")
        .append(a.tokens().prompt()).append('+').append(a.tokens().completion())
        .append(", ").append(a.latencyMs()).append(" ms");
    return b.toString();
  }
}

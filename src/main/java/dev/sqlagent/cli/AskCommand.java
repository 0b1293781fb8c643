package dev.sqlagent.cli;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.Databases;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
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

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> configuration;

  public AskCommand() {
    this(AppConfig::fromEnvironment);
  }

  AskCommand(Supplier<AppConfig> configuration) {
    this.configuration = configuration;
  }

  @Override
  public Integer call() throws Exception {
    AppConfig config = configuration.get();
    PrintWriter out = spec.commandLine().getOut();
    try (Databases db = Databases.open(config)) {
      Vertx vertx = Vertx.vertx();
      try {
        vertx.deployVerticle(new MainVerticle(config, db.target(), db.state(), false)).await(5, TimeUnit.MINUTES);
        if (!json) vertx.eventBus().<JsonObject>consumer(Addresses.EVENTS, m -> printEvent(out, m.body()));
        JsonObject request = new JsonObject().put("question", question).put("mode", baseline ? "baseline" : "agent")
            .put("source", "cli");
        JsonObject answer;
        try {
          answer = vertx.eventBus().<JsonObject>request(Addresses.ASK, request,
              new DeliveryOptions().setSendTimeout(config.deadlines().askMs())).await().body();
        } catch (ReplyException e) {
          spec.commandLine().getErr().println("sql-agent ask: " + BusError.of(e, "the agent").getMessage());
          return 2;
        }
        out.println(json ? answer.encodePrettily() : summary(answer));
        out.flush();
        return answer.getBoolean("gave_up") ? 1 : 0;
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  private static void printEvent(PrintWriter out, JsonObject e) {
    JsonObject d = e.getJsonObject("data", new JsonObject());
    String node = e.getString("node");
    String status = e.getString("status");
    int attempt = e.getInteger("attempt", 0);
    if (node.equals("select_schema") && status.equals("finished")) {
      out.println("tables: " + d.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name")).toList());
    } else if (node.equals("generate_sql") && status.equals("finished")) {
      out.println("attempt " + attempt + ": " + d.getString("sql"));
    } else if ((node.equals("validate_sql") || node.equals("execute_sql") || node.equals("generate_sql")) && status.equals("failed")) {
      out.println("  failed: " + d.getString("error_type") + ": " + d.getString("message"));
    } else if (node.equals("execute_sql") && status.equals("finished")) {
      out.println("  ran: " + d.getInteger("row_count") + " rows" + (d.getBoolean("truncated", false) ? " (truncated)" : ""));
    } else if (node.equals("inspect_result") && "filter_too_strict".equals(d.getString("verdict"))) {
      out.println("  no rows; a case-insensitive probe found " + d.getInteger("probe_rows") + ": " + d.getJsonArray("filters"));
    } else if (node.equals("prepare_repair") && status.equals("finished")) {
      out.println("  repair strategy: " + d.getString("strategy") + (d.getBoolean("widened", false) ? " (retrieval widened)" : ""));
    }
    out.flush();
  }

  private static String summary(JsonObject a) {
    StringBuilder b = new StringBuilder("\n");
    b.append(a.getBoolean("refused") ? "REFUSED: " : a.getBoolean("gave_up") ? "GAVE UP: " : "ANSWER: ").append(a.getString("answer")).append('\n');
    if (a.getString("sql") != null) b.append("SQL: ").append(a.getString("sql")).append('\n');
    b.append("attempts: ").append(a.getInteger("attempts")).append(", rows: ").append(a.getInteger("row_count"))
        .append(a.getBoolean("truncated", false) ? " (truncated)" : "").append(", tokens: ")
        .append(a.getJsonObject("tokens").getLong("prompt")).append('+').append(a.getJsonObject("tokens").getLong("completion"))
        .append(", ").append(a.getLong("latency_ms")).append(" ms");
    return b.toString();
  }
}

package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.Databases;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.execution.Gate;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sql-agent check [--run] --jsonl FILE}: every line {"id": ..., "sql": ...} through the same gate
 * the service uses, one JSON line out per line in, in order, with the same id: {@code {"ok": true, "sql":
 * <bounded SQL>, ...}} or the structured error. A line that is not such an object gets a structured error
 * of its own; nothing in the input stops the run. Exit 0 when every line passed, 1 when any did not.
 */
@Command(name = "check", mixinStandardHelpOptions = true,
    description = "Check SQL through the gate, one JSON line in ({\"id\": ..., \"sql\": ...}), one JSON line out. "
        + "Without --run nothing is executed (the plan is read with EXPLAIN); with --run each query runs "
        + "read-only and the result is included. Exits 1 if any line was refused or failed.")
public final class CheckCommand implements Callable<Integer> {

  @Option(names = "--jsonl", required = true, paramLabel = "FILE", description = "JSON lines to check; - reads standard input")
  String file;

  @Option(names = "--run", description = "Execute each query through the whole gate and include the rows.")
  boolean run;

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> config;

  public CheckCommand() {
    this(AppConfig::fromEnvironment);
  }

  CheckCommand(Supplier<AppConfig> config) {
    this.config = config;
  }

  @Override
  public Integer call() throws Exception {
    AppConfig cfg = config.get();
    PrintWriter out = spec.commandLine().getOut();
    int failed = 0;
    try (Databases db = Databases.open(cfg); BufferedReader in = reader()) {
      Vertx vertx = Vertx.vertx(cfg.vertxOptions());
      try {
        Gate gate = Gate.start(vertx, Gate.Database.of(db.target()), Gate.Settings.from(cfg)).await(2, TimeUnit.MINUTES);
        try {
          int lineNo = 0;
          for (String line; (line = in.readLine()) != null; ) {
            lineNo++;
            if (line.isBlank()) continue;
            JsonObject result = checkLine(gate, line, lineNo);
            if (!result.getBoolean("ok", false)) failed++;
            out.println(result.encode());
            out.flush();
          }
        } finally {
          gate.close().await(30, TimeUnit.SECONDS);
        }
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
    return failed == 0 ? 0 : 1;
  }

  /** Undecodable bytes become U+FFFD rather than ending the run. */
  private BufferedReader reader() throws java.io.IOException {
    InputStream stream = file.equals("-") ? System.in : Files.newInputStream(Path.of(file));
    return new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE)));
  }

  private JsonObject checkLine(Gate gate, String line, int lineNo) {
    JsonObject input;
    try {
      input = new JsonObject(line);
    } catch (DecodeException | ClassCastException e) {
      return inputError(null, lineNo, "line " + lineNo + " is not a JSON object: " + firstLine(e.getMessage()));
    }
    Object id = input.getValue("id");
    if (!(input.getValue("sql") instanceof String sql)) {
      return inputError(id, lineNo, "line " + lineNo + " has no string \"sql\"");
    }
    JsonObject head = new JsonObject().put("id", id).put("line", lineNo);
    try {
      return head.mergeIn(gate.submit(GateRequest.of(sql, run)).await(5, TimeUnit.MINUTES).toJson());
    } catch (Exception e) {
      return head.mergeIn(error(ErrorType.UNKNOWN, "the gate did not answer: " + firstLine(e.getMessage()), sql));
    }
  }

  private static JsonObject inputError(Object id, int lineNo, String message) {
    return new JsonObject().put("id", id).put("line", lineNo)
        .mergeIn(error(ErrorType.REJECTED, message, null).put("hint", "Each line must be {\"id\": ..., \"sql\": \"SELECT ...\"}."));
  }

  private static JsonObject error(ErrorType type, String message, String sql) {
    return new JsonObject().put("ok", false).put("error_type", type.wireName()).put("message", message)
        .put("hint", null).put("sqlstate", null).put("position", null).put("repairable", type.repairable()).put("sql", sql);
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}

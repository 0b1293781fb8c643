package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The gate's reply, the one contract of {@link dev.sqlagent.bus.Addresses#EXECUTE} for every caller (the
 * agent, the SQL console, MCP's run_query, the CLI). On the wire:
 * <ul>
 *   <li>ran: {@code {ok: true, sql, columns, rows, row_count, truncated, elapsed_ms, plan_cost, static_check}};
 *   <li>checked only ({@code run: false}): {@code {ok: true, sql, static_check, plan_cost}};
 *   <li>refused or failed: {@link GateError}'s {@code {ok: false, error_type, message, hint, sqlstate,
 *       position, repairable, sql}};
 * </ul>
 * each with {@code stages} (every stage reached, in order, with its verdict; see {@link Stage}) and
 * {@code write_refused} (the statement asked for a change and was refused for it).
 *
 * @param sql the bounded SQL that ran or would run (on success), the submitted SQL (on failure)
 * @param staticCheck "parsed" or "fallback" (on success)
 * @param planCost the planner's estimate (on success)
 * @param result the rows, when the query ran
 * @param error why it did not pass, or null
 */
public record GateReply(String sql, String staticCheck, Double planCost, Result result, GateError error,
    List<Stage> stages, boolean writeRefused) {

  public static final String STATIC_CHECK = "static_check";
  public static final String LIMIT = "limit";
  public static final String PLAN = "plan";
  public static final String EXECUTION = "execution";

  /**
   * The rows of a query that ran: columns {@code [{name, type}]}, rows as arrays of cells, the row count,
   * whether the cap cut rows off, and the whole gate's time.
   */
  public record Result(JsonArray columns, JsonArray rows, int rowCount, boolean truncated, long elapsedMs) {}

  /**
   * One stage's verdict: {@code {ok, ...facts}}, and {@code error_type} when it failed. Stages: static_check
   * ({@code verdict}: parsed or fallback), limit ({@code row_cap}, {@code capped}, the bounded {@code sql}),
   * plan ({@code cost}),
   * execution ({@code row_count}, {@code elapsed_ms}).
   */
  public record Stage(String name, boolean ok, JsonObject facts) {
    JsonObject toJson() {
      return new JsonObject().put("ok", ok).mergeIn(facts);
    }
  }

  public GateReply {
    stages = stages == null ? List.of() : List.copyOf(stages);
  }

  public static GateReply checked(String sql, String staticCheck, double planCost, List<Stage> stages) {
    return new GateReply(sql, staticCheck, planCost, null, null, stages, false);
  }

  public static GateReply ran(String sql, String staticCheck, double planCost, Result result, List<Stage> stages) {
    return new GateReply(sql, staticCheck, planCost, result, null, stages, false);
  }

  public static GateReply failed(GateError error, List<Stage> stages, boolean writeRefused) {
    return new GateReply(error.sql(), null, null, null, error, stages, writeRefused);
  }

  /** The same failed reply with another error (the gate's words for it). */
  public GateReply withError(GateError newError) {
    return new GateReply(newError.sql(), staticCheck, planCost, result, newError, stages, writeRefused);
  }

  public boolean ok() {
    return error == null;
  }

  /** The stage that refused or failed, if any. */
  public Optional<String> failedStage() {
    return stages.stream().filter(s -> !s.ok()).map(Stage::name).findFirst();
  }

  /** The SQL as the gate bounds it (the limit stage's), or null when the static check refused it. */
  public String boundedSql() {
    return stage(LIMIT).map(s -> s.facts().getString("sql")).orElse(null);
  }

  /** "parsed" or "fallback" once the static check passed, else null. */
  public String staticCheckVerdict() {
    return stage(STATIC_CHECK).filter(Stage::ok).map(s -> s.facts().getString("verdict")).orElse(null);
  }

  public Optional<Stage> stage(String name) {
    return stages.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** Whether the query got past the static check, the limit and the plan (whatever its execution did). */
  public boolean passedChecks() {
    return ok() || failedStage().map(EXECUTION::equals).orElse(false);
  }

  public JsonObject toJson() {
    JsonObject j;
    if (error != null) {
      j = error.toJson();
    } else {
      j = new JsonObject().put("ok", true).put("sql", sql);
      if (result != null) {
        j.put("columns", result.columns()).put("rows", result.rows()).put("row_count", result.rowCount())
            .put("truncated", result.truncated()).put("elapsed_ms", result.elapsedMs());
      }
      j.put("plan_cost", planCost).put("static_check", staticCheck);
    }
    JsonObject s = new JsonObject();
    for (Stage stage : stages) s.put(stage.name(), stage.toJson());
    return j.put("stages", s).put("write_refused", writeRefused);
  }

  /** Reads a reply (of this or an older gate: missing stages are none, a missing flag is false). */
  public static GateReply fromJson(JsonObject j) {
    List<Stage> stages = new ArrayList<>();
    JsonObject s = j.getJsonObject("stages", new JsonObject());
    for (String name : s.fieldNames()) {
      JsonObject facts = s.getJsonObject(name).copy();
      boolean ok = Boolean.TRUE.equals(facts.remove("ok"));
      stages.add(new Stage(name, ok, facts));
    }
    boolean writeRefused = j.getBoolean("write_refused", false);
    if (!j.getBoolean("ok", false)) {
      GateError error = new GateError(ErrorType.fromWireName(j.getString("error_type")), j.getString("message"),
          j.getString("hint"), j.getString("sqlstate"), j.getInteger("position"), j.getString("sql"));
      return failed(error, stages, writeRefused);
    }
    Result result = j.containsKey("rows")
        ? new Result(j.getJsonArray("columns", new JsonArray()), j.getJsonArray("rows"), j.getInteger("row_count", 0),
            j.getBoolean("truncated", false), j.getLong("elapsed_ms", 0L))
        : null;
    Number cost = j.getNumber("plan_cost");
    return new GateReply(j.getString("sql"), j.getString("static_check"), cost == null ? null : cost.doubleValue(),
        result, null, stages, writeRefused);
  }
}

package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;

/**
 * A statement for the gate ({@code Addresses.EXECUTE}): {@code {sql, run, run_id?, row_cap?, db_role?, progress?,
 * see_sensitive?}}; the
 * grading mode ({@link GateClient#grade}) reads only {@code sql}.
 *
 * @param run run it (true, the default) or only check it
 * @param runId the run it belongs to, so that stopping the run cancels the statement
 * @param rowCap most rows returned (at least 1), null for the configured cap
 * @param dbRole the asking user's database role the statement runs as, null for the gate's own
 * @param progress where the gate reports that the statement passed its checks ({@link GateProgress}) and waits for the
 *     reply before it sends it, so the caller's steps are published as they happen; null for no report
 * @param seeSensitive true: the asking user may see the notes file's sensitive columns unmasked; null or false: masked
 */
public record GateRequest(String sql, boolean run, @OmitWhenNull String runId, @OmitWhenNull Integer rowCap,
    @OmitWhenNull String dbRole, @OmitWhenNull String progress, @OmitWhenNull Boolean seeSensitive) {

  public GateRequest(String sql, boolean run, String runId, Integer rowCap, String dbRole) {
    this(sql, run, runId, rowCap, dbRole, null, null);
  }

  public GateRequest(String sql, boolean run, String runId, Integer rowCap, String dbRole, String progress) {
    this(sql, run, runId, rowCap, dbRole, progress, null);
  }

  /**
   * The same asked by {@code user} (null: no users file): as their database role, and with the notes file's sensitive
   * columns unmasked only when they are granted {@code see_sensitive}.
   */
  public static GateRequest by(dev.sqlagent.users.User user, String sql, boolean run, String runId, Integer rowCap,
                               String progress) {
    return new GateRequest(sql, run, runId, rowCap, user == null ? null : user.dbRole(), progress,
        dev.sqlagent.users.User.seesSensitive(user) ? Boolean.TRUE : null);
  }

  /** Whether the values of sensitive columns are shown unmasked (a user granted see_sensitive); else masked. */
  public boolean showsSensitive() {
    return Boolean.TRUE.equals(seeSensitive);
  }

  /** Run {@code sql}, as the gate's own role, with the configured cap. */
  public static GateRequest run(String sql) {
    return new GateRequest(sql, true, null, null, null);
  }

  /** Only check {@code sql}: every stage but the execution. */
  public static GateRequest check(String sql) {
    return new GateRequest(sql, false, null, null, null);
  }

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  /** Throws IllegalArgumentException, its message for the caller, for a request of the wrong shape. */
  public static GateRequest fromJson(Object body) {
    if (!(body instanceof JsonObject json)) throw new IllegalArgumentException("the request must be a JSON object");
    Object sql = json.getValue("sql");
    if (!(sql instanceof String s)) throw new IllegalArgumentException("\"sql\" must be a string");
    Object run = json.getValue("run", Boolean.TRUE);
    if (!(run instanceof Boolean r)) throw new IllegalArgumentException("\"run\" must be true or false");
    Object cap = json.getValue("row_cap");
    if (cap != null && !(cap instanceof Integer || cap instanceof Long)) {
      throw new IllegalArgumentException("\"row_cap\" must be a whole number");
    }
    Integer rowCap = cap == null ? null : (int) Math.min(Integer.MAX_VALUE, ((Number) cap).longValue());
    if (rowCap != null && rowCap < 1) throw new IllegalArgumentException("\"row_cap\" must be at least 1");
    Object runId = json.getValue("run_id");
    if (runId != null && !(runId instanceof String)) throw new IllegalArgumentException("\"run_id\" must be a string");
    Object role = json.getValue("db_role");
    if (role != null && !(role instanceof String)) throw new IllegalArgumentException("\"db_role\" must be a string");
    Object progress = json.getValue("progress");
    if (progress != null && !(progress instanceof String)) throw new IllegalArgumentException("\"progress\" must be an address");
    Object sees = json.getValue("see_sensitive");
    if (sees != null && !(sees instanceof Boolean)) throw new IllegalArgumentException("\"see_sensitive\" must be true or false");
    return new GateRequest(s, r, (String) runId, rowCap, (String) role, (String) progress, (Boolean) sees);
  }
}

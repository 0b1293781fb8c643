package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import dev.sqlagent.users.User;
import io.vertx.core.json.JsonObject;

/**
 * One statement for the gate ({@code Addresses.EXECUTE}): {@code {sql, run, run_id?, row_cap?, db_role?,
 * see_sensitive?, settings?, hold?}}. A check ({@code run: false}) goes through every stage but the execution and its reply says
 * whether the statement passed; a run checks it again and reads its rows. The grading mode
 * ({@link GateClient#grade}) reads only {@code sql}.
 *
 * @param run run it (true, the default) or only check it
 * @param runId the run it belongs to, so that stopping the run cancels the statement
 * @param rowCap most rows returned (at least 1), null for the configured cap
 * @param dbRole the asking user's database role the statement runs as, null for the gate's own
 * @param seeSensitive true: the asking user may see the notes file's sensitive columns unmasked; null or false: masked
 * @param settings the asking user's row settings ({@code {name: value}}), set for the statement in its transaction;
 *     null for none
 * @param hold a check in a run (true): once passed, its transaction waits a moment for the run of the same statement,
 *     which then continues there; null or false: the check's transaction ends with it
 */
public record GateRequest(String sql, boolean run, @OmitWhenNull String runId, @OmitWhenNull Integer rowCap,
    @OmitWhenNull String dbRole, @OmitWhenNull Boolean seeSensitive, @OmitWhenNull JsonObject settings,
    @OmitWhenNull Boolean hold) {

  public GateRequest(String sql, boolean run, String runId, Integer rowCap, String dbRole, Boolean seeSensitive) {
    this(sql, run, runId, rowCap, dbRole, seeSensitive, null, null);
  }

  /** Run {@code sql}, as the gate's own role, with the configured cap. */
  public static GateRequest run(String sql) {
    return new GateRequest(sql, true, null, null, null, null);
  }

  /** Only check {@code sql}: every stage but the execution. */
  public static GateRequest check(String sql) {
    return new GateRequest(sql, false, null, null, null, null);
  }

  /** Run ({@code run}) or only check {@code sql}. */
  public static GateRequest of(String sql, boolean run) {
    return new GateRequest(sql, run, null, null, null, null);
  }

  /** The same statement to run: what a check passed, asked again with its rows. */
  public GateRequest toRun() {
    return new GateRequest(sql, true, runId, rowCap, dbRole, seeSensitive, settings, null);
  }

  /** The same check, its transaction kept a moment once it passed, for the run of the same statement in the same run. */
  public GateRequest holding() {
    return new GateRequest(sql, run, runId, rowCap, dbRole, seeSensitive, settings, Boolean.TRUE);
  }

  /** Whether this check is held for its run ({@link #holding}). */
  public boolean holds() {
    return !run && Boolean.TRUE.equals(hold);
  }

  /** The same with at most {@code cap} rows (null: the configured cap). */
  public GateRequest withRowCap(Integer cap) {
    return new GateRequest(sql, run, runId, cap, dbRole, seeSensitive, settings, hold);
  }

  /** The same belonging to run {@code id}: stopping that run cancels the statement. */
  public GateRequest inRun(String id) {
    return new GateRequest(sql, run, id, rowCap, dbRole, seeSensitive, settings, hold);
  }

  /** The same as database role {@code role} (null: the gate's own). */
  public GateRequest asRole(String role) {
    return new GateRequest(sql, run, runId, rowCap, role, seeSensitive, settings, hold);
  }

  /**
   * The same asked by {@code user} (null: no users file): as their database role, with their row settings, and with
   * the notes file's sensitive columns unmasked only when they are granted {@code see_sensitive}.
   */
  public GateRequest by(User user) {
    return new GateRequest(sql, run, runId, rowCap, user == null ? null : user.dbRole(),
        User.seesSensitive(user) ? Boolean.TRUE : null, settingsJson(User.settingsOf(user)), hold);
  }

  /** Row settings as the request carries them: null for none. */
  public static JsonObject settingsJson(java.util.Map<String, String> settings) {
    return settings == null || settings.isEmpty() ? null : new JsonObject(new java.util.LinkedHashMap<>(settings));
  }

  /** The row settings to set for the statement, by name (empty: none). */
  public java.util.Map<String, String> settingsByName() {
    return settingsMap(settings);
  }

  /** {@code {name: value}} as a sorted map of texts; a value that is not a text is ignored (the gate's readers check). */
  public static java.util.Map<String, String> settingsMap(JsonObject settings) {
    if (settings == null || settings.isEmpty()) return java.util.Map.of();
    java.util.Map<String, String> out = new java.util.TreeMap<>();
    for (String name : settings.fieldNames()) {
      if (settings.getValue(name) instanceof String v) out.put(name, v);
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  /** The same shown ({@code sees}) or not shown the sensitive columns' values. */
  public GateRequest seeingSensitive(boolean sees) {
    return new GateRequest(sql, run, runId, rowCap, dbRole, sees ? Boolean.TRUE : null, settings, hold);
  }

  /** Whether the values of sensitive columns are shown unmasked (a user granted see_sensitive); else masked. */
  public boolean showsSensitive() {
    return Boolean.TRUE.equals(seeSensitive);
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
    Object sees = json.getValue("see_sensitive");
    if (sees != null && !(sees instanceof Boolean)) throw new IllegalArgumentException("\"see_sensitive\" must be true or false");
    Object settings = json.getValue("settings");
    if (settings != null && !(settings instanceof JsonObject o && o.stream().allMatch(e -> e.getValue() instanceof String))) {
      throw new IllegalArgumentException("\"settings\" must be an object of setting names to texts");
    }
    Object hold = json.getValue("hold");
    if (hold != null && !(hold instanceof Boolean)) throw new IllegalArgumentException("\"hold\" must be true or false");
    return new GateRequest(s, r, (String) runId, rowCap, (String) role, (Boolean) sees, (JsonObject) settings, (Boolean) hold);
  }
}

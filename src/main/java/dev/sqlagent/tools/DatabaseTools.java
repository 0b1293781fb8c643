package dev.sqlagent.tools;

import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.FeedbackRequest;
import dev.sqlagent.contract.StateMessages.VerifiedPromote;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.export.ExportFormat;
import dev.sqlagent.export.ExportSlots;
import dev.sqlagent.export.ExportSource;
import dev.sqlagent.export.ExportStream;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.Deadlines;
import dev.sqlagent.display.ResultText;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.users.User;
import dev.sqlagent.intake.Door;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.intake.Taken;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nine tools over the database as plain functions over the event bus: the MCP server registers them, tests call them
 * directly. Each validates its arguments, calls the service that owns the work (retrieval for the schema,
 * the gate for SQL, the agent for questions; there is no other route to the database) and returns a
 * {@link ToolResult}. The returned future never fails: every failure becomes a tool error with a message.
 */
public final class DatabaseTools {

  public static final String LIST_TABLES = "list_tables";
  public static final String DESCRIBE_TABLE = "describe_table";
  public static final String SAMPLE_ROWS = "sample_rows";
  public static final String RUN_QUERY = "run_query";
  public static final String ASK = "ask";
  public static final String FEEDBACK = "feedback";
  public static final String VERIFY = "verify";
  public static final String CHOOSE_READING = "choose_reading";
  public static final String EXPORT = "export";
  /** An export returned to an MCP client is held whole in its reply: at most this many rows and bytes of CSV. */
  public static final int MCP_EXPORT_MAX_ROWS = 10_000;
  public static final long MCP_EXPORT_MAX_BYTES = 4L * 1024 * 1024;

  /** The tools and their arguments, in the order they are listed. */
  public static final Map<String, List<String>> ARGUMENTS = arguments();

  public static final int DEFAULT_SAMPLE_ROWS = 3;
  public static final int MAX_SAMPLE_ROWS = 10;
  public static final int MAX_QUESTION_CHARS = AskRules.MAX_QUESTION_CHARS;
  /** Longest table name worth sending on (PostgreSQL's limit is 63, leave room for quotes and a schema). */
  static final int MAX_NAME_CHARS = 140;

  private static Map<String, List<String>> arguments() {
    Map<String, List<String>> a = new LinkedHashMap<>();
    a.put(LIST_TABLES, List.of());
    a.put(DESCRIBE_TABLE, List.of("name"));
    a.put(SAMPLE_ROWS, List.of("name", "n"));
    a.put(RUN_QUERY, List.of("sql"));
    a.put(ASK, List.of("question", "conversation_id"));
    a.put(FEEDBACK, List.of("run_id", "rating", "comment"));
    a.put(VERIFY, List.of("run_id", "question"));
    a.put(CHOOSE_READING, List.of("run_id", "reading"));
    a.put(EXPORT, List.of("run_id", "sql"));
    return java.util.Collections.unmodifiableMap(a);
  }

  private final RetrievalClient catalogue;
  private final GateClient gate;
  private final AgentClient agent;
  private final Intake intake;
  private final StateClient state;
  private final Vertx vertx;
  private final ExportStream.Limits exportLimits;
  private final ExportSlots exportSlots;
  /** Whether one MCP reply's own cap, not the export settings', bounds an export's rows, and its bytes. */
  private final boolean ownRowCap;
  private final boolean ownByteCap;

  /** @param deadlines how long the quick tools and {@code ask} wait, as every edge waits */
  public DatabaseTools(Vertx vertx, Deadlines deadlines) {
    this(vertx, deadlines, new ExportStream.Limits(MCP_EXPORT_MAX_ROWS, MCP_EXPORT_MAX_BYTES));
  }

  /** @param exportLimits the export's cap, the process's exports per user at their default */
  public DatabaseTools(Vertx vertx, Deadlines deadlines, ExportStream.Limits exportLimits) {
    this(vertx, deadlines, exportLimits, ExportSlots.of(vertx, AppConfig.load(Map.of()).exportsPerUser()));
  }

  /**
   * @param exportLimits the export's cap ({@code SQLAGENT_EXPORT_MAX_ROWS}), lowered to what one reply holds
   * @param exportSlots the exports each user has running, counted with the HTTP exports' ({@link ExportSlots#of})
   */
  public DatabaseTools(Vertx vertx, Deadlines deadlines, ExportStream.Limits exportLimits, ExportSlots exportSlots) {
    this.vertx = vertx;
    this.exportSlots = exportSlots;
    this.exportLimits = new ExportStream.Limits(Math.min(exportLimits.maxRows(), MCP_EXPORT_MAX_ROWS),
        Math.min(exportLimits.maxBytes(), MCP_EXPORT_MAX_BYTES));
    this.ownRowCap = exportLimits.maxRows() >= MCP_EXPORT_MAX_ROWS;
    this.ownByteCap = exportLimits.maxBytes() >= MCP_EXPORT_MAX_BYTES;
    this.catalogue = new RetrievalClient(vertx, deadlines.queryMs());
    this.gate = new GateClient(vertx, deadlines.queryMs());
    this.agent = new AgentClient(vertx, deadlines.askMs());
    this.intake = new Intake(agent);
    this.state = new StateClient(vertx, deadlines.queryMs());
  }

  /** Calls a tool by name with JSON arguments, checking that only its own arguments are given. */
  public Future<ToolResult> call(String tool, JsonObject arguments) {
    return call(tool, arguments, null, null);
  }

  /**
   * The same on behalf of {@code user} (null: no users file), whose database role then applies; an ask runs as
   * {@code runId} when given, so the caller can cancel it.
   */
  public Future<ToolResult> call(String tool, JsonObject arguments, User user, String runId) {
    return call(tool, arguments, user, runId, null);
  }

  /** The same from the client at {@code client} (an address, kept in the query log), null when there is none. */
  public Future<ToolResult> call(String tool, JsonObject arguments, User user, String runId, String client) {
    List<String> known = ARGUMENTS.get(tool);
    if (known == null) {
      return Future.succeededFuture(badArgument("no tool '" + tool + "'; the tools are: " + String.join(", ", ARGUMENTS.keySet())));
    }
    JsonObject args = arguments == null ? new JsonObject() : arguments;
    for (String name : args.fieldNames()) {
      if (!known.contains(name)) {
        return Future.succeededFuture(badArgument("unknown argument '" + name + "'; " + tool
            + (known.isEmpty() ? " takes no arguments" : " takes: " + String.join(", ", known))));
      }
    }
    return switch (tool) {
      case LIST_TABLES -> listTables(role(user));
      case DESCRIBE_TABLE -> describeTable(args.getValue("name"), role(user));
      case SAMPLE_ROWS -> User.settingsOf(user).isEmpty() ? sampleRows(args.getValue("name"), args.getValue("n"), role(user))
          : Future.succeededFuture(SAMPLES_UNDER_ROW_RULES);
      case RUN_QUERY -> runQuery(args.getValue("sql"), user);
      case FEEDBACK -> feedback(args.getValue("run_id"), args.getValue("rating"), args.getValue("comment"), user);
      case VERIFY -> verify(args.getValue("run_id"), args.getValue("question"), user);
      case CHOOSE_READING -> chooseReading(args.getValue("run_id"), args.getValue("reading"), user, runId, client);
      case EXPORT -> export(args.getValue("run_id"), args.getValue("sql"), user, client);
      default -> ask(args.getValue("question"), args.getValue("conversation_id"), user, runId, client);
    };
  }

  /**
   * Sample rows are read without a user's row settings, so for a user who has them they could show rows of others:
   * the tool refuses and points to {@code run_query}, which the gate runs with them.
   */
  private static final ToolResult SAMPLES_UNDER_ROW_RULES = ToolResult.error("forbidden", "your rows are filtered by row "
      + "settings from your sign-on, and sample_rows does not apply them: use run_query (SELECT * FROM the_table LIMIT 5), "
      + "which does");

  /** Every visible table with its one-line note and approximate row count. */
  public Future<ToolResult> listTables() {
    return listTables(null);
  }

  private static String role(User user) {
    return user == null ? null : user.dbRole();
  }

  private Future<ToolResult> listTables(String dbRole) {
    return catalogue.tables(new RetrievalMessages.SchemaRequest(dbRole))
        .map(reply -> {
          JsonArray tables = new JsonArray();
          for (TableInfo t : reply.tables()) {
            tables.add(new JsonObject().put("name", t.name()).put("note", t.note()).put("row_count", t.rowCount()));
          }
          return ToolResult.ok(new JsonObject().put("tables", tables));
        })
        .otherwise(DatabaseTools::failure);
  }

  /** One table as CREATE TABLE: columns, types, nullability, keys and comments. */
  public Future<ToolResult> describeTable(Object name) {
    return describeTable(name, null);
  }

  private Future<ToolResult> describeTable(Object name, String dbRole) {
    String problem = tableNameProblem(name);
    if (problem != null) return Future.succeededFuture(badArgument(problem));
    return catalogue.describe(new RetrievalMessages.DescribeRequest((String) name, dbRole))
        .map(reply -> ToolResult.ok(reply.toJson(), reply.ddl()))
        .otherwise(DatabaseTools::tableFailure);
  }

  /** A few real rows of one table (values clipped), so value formats are learned rather than guessed. */
  public Future<ToolResult> sampleRows(Object name, Object n) {
    return sampleRows(name, n, null);
  }

  private Future<ToolResult> sampleRows(Object name, Object n, String dbRole) {
    String problem = tableNameProblem(name);
    if (problem == null) problem = rowCountProblem(n);
    if (problem != null) return Future.succeededFuture(badArgument(problem));
    int rows = n == null ? DEFAULT_SAMPLE_ROWS : ((Number) n).intValue();
    return catalogue.sample(new RetrievalMessages.SampleRequest((String) name, rows, dbRole))
        .map(reply -> ToolResult.ok(reply.toJson()))
        .otherwise(DatabaseTools::tableFailure);
  }

  /**
   * One SELECT through the whole gate: the rows, or the gate's structured error. Any string goes to the gate,
   * blank ones too, so every refusal (an empty statement is {@code rejected}) is the gate's, exactly as
   * through the HTTP API; only a missing or non-string sql is refused here.
   */
  public Future<ToolResult> runQuery(Object sql) {
    return runQuery(sql, null);
  }

  private Future<ToolResult> runQuery(Object sql, User user) {
    if (!(sql instanceof String s)) {
      return Future.succeededFuture(badArgument("sql must be one SELECT statement, as a string"));
    }
    return gate.execute(GateRequest.run(s).by(user))
        .map(GateReply::toJson)
        .map(reply -> GateReply.fromJson(reply).ok() ? ToolResult.ok(reply, ResultText.query(reply)) : ToolResult.error(reply))
        .otherwise(DatabaseTools::failure);
  }

  /**
   * An answer's result ({@code run_id}, its owner's or, for an admin, anyone's) or one SELECT ({@code sql}) as CSV
   * (RFC 4180, a header line), run again through the whole gate with the export's cap: every row up to
   * {@link #MCP_EXPORT_MAX_ROWS}, the last line saying so when the cap cut it.
   */
  private Future<ToolResult> export(Object runId, Object sql, User user, String client) {
    if ((runId == null) == (sql == null)) {
      return Future.succeededFuture(badArgument("give run_id (an answer to export) or sql (one SELECT), not both"));
    }
    if (sql != null && !(sql instanceof String)) return Future.succeededFuture(badArgument("sql must be one SELECT statement, as a string"));
    Future<ExportSource> source;
    if (runId != null) {
      AskRules.Refusal badId = AskRules.runId(runId);
      if (badId != null) return Future.succeededFuture(ToolResult.error(badId.toJson()));
      source = ExportSource.ofRun(state, (String) runId, user);
    } else {
      source = Future.succeededFuture(ExportSource.ofQuery((String) sql));
    }
    Runnable release = exportSlots.take(user, client);
    if (release == null) return Future.succeededFuture(ToolResult.error("too_many_requests", exportSlots.refusal()));
    io.vertx.core.buffer.Buffer csv = io.vertx.core.buffer.Buffer.buffer();
    ExportStream.Output collect = new ExportStream.Output() {
      @Override
      public void begin() { }

      @Override
      public Future<Void> write(io.vertx.core.buffer.Buffer bytes) {
        csv.appendBuffer(bytes);
        return Future.succeededFuture();
      }
    };
    return source.compose(s -> ExportStream.run(vertx, gate, ExportFormat.CSV, s.sql(), s.liftCap(), user,
            exportLimits, collect))
        .map(outcome -> {
          if (!outcome.began()) return ToolResult.error(outcome.reply().toJson());
          GateReply.Result r = outcome.reply().result();
          String text = mcpNote(csv.toString(java.nio.charset.StandardCharsets.UTF_8));
          return ToolResult.ok(new JsonObject().put("format", ExportFormat.CSV.wireName())
              .put("row_count", r == null ? 0 : r.rowCount()).put("truncated", r != null && r.truncated())
              .put("csv", text), text);
        })
        .otherwise(err -> err instanceof ExportSource.NoAnsweredSql none
            ? ToolResult.error("conflict", none.getMessage()) : failure(err))
        .onComplete(done -> release.run());
  }

  /** The export's last line, when one reply's own cap cut it, names that cap rather than a setting that cannot lift it. */
  private String mcpNote(String csv) {
    int last = csv.lastIndexOf("sql-agent: truncated: ");
    if (last < 0 || (last > 0 && csv.charAt(last - 1) != '\n')) return csv;
    String note = csv.substring(last);
    if (ownRowCap && note.contains("(SQLAGENT_EXPORT_MAX_ROWS)")) {
      note = note.replace("(SQLAGENT_EXPORT_MAX_ROWS)", "(one MCP reply holds at most " + MCP_EXPORT_MAX_ROWS
          + " rows; POST /api/query/export streams more)");
    } else if (ownByteCap && note.contains("(SQLAGENT_EXPORT_MAX_BYTES)")) {
      note = note.replace("(SQLAGENT_EXPORT_MAX_BYTES)", "(one MCP reply holds at most " + MCP_EXPORT_MAX_BYTES
          + " bytes; POST /api/query/export streams more)");
    }
    return csv.substring(0, last) + note;
  }

  /** The whole agent: the answer JSON, with the SQL that produced it and the history of every attempt. */
  public Future<ToolResult> ask(Object question) {
    return ask(question, null, null, null, null);
  }

  /** The same, as a turn of the conversation {@code conversationId} (null: a new conversation). */
  public Future<ToolResult> ask(Object question, Object conversationId) {
    return ask(question, conversationId, null, null, null);
  }

  private Future<ToolResult> ask(Object question, Object conversationId, User user, String runId, String client) {
    // The question's rules and refusals are every door's (the intake's), not the tools' own argument errors. The run
    // is named by the MCP session that asked, which stops it when it ends.
    JsonObject fields = new JsonObject().put("question", question);
    if (conversationId != null) fields.put("conversation_id", conversationId);
    if (runId != null) fields.put("run_id", runId);
    Taken taken = intake.take(fields, new Door("mcp", user, client), null);
    if (taken.refused()) return Future.succeededFuture(ToolResult.error(taken.refusal().toJson()));
    return intake.ask(taken)
        .map(reply -> {
          JsonObject answer = reply.toJson();
          return ToolResult.ok(answer, ResultText.answer(answer));
        })
        .otherwise(DatabaseTools::failure);
  }

  /**
   * Answers a question that was asked back ({@code needs_clarification}) from the reading chosen, by its number: that
   * reading's SQL through the gate again, without the model, as the next turn of its conversation.
   */
  public Future<ToolResult> chooseReading(Object runId, Object reading, User user, String newRunId, String client) {
    AskRules.Refusal refused = AskRules.runId(runId);
    if (refused == null) refused = AskRules.reading(reading);
    if (refused != null) return Future.succeededFuture(ToolResult.error(refused.toJson()));
    return agent.rerun(RerunRequest.chosen((String) runId, reading, newRunId, "mcp", user).withClient(client))
        .map(reply -> {
          JsonObject answer = reply.toJson();
          return ToolResult.ok(answer, ResultText.answer(answer));
        })
        .otherwise(DatabaseTools::failure);
  }

  /** 👍 or 👎 on an answer, by its run id, with an optional comment, given by {@code user} (its owner or an admin). */
  public Future<ToolResult> feedback(Object runId, Object rating, Object comment, User user) {
    AskRules.Refusal badId = AskRules.runId(runId);
    if (badId != null) return Future.succeededFuture(ToolResult.error(badId.toJson()));
    return state.feedback(new FeedbackRequest(runId, rating, comment, user))
        .map(f -> ToolResult.ok(f.toJson()))
        .otherwise(DatabaseTools::failure);
  }

  /** Promotes an answer rated up to a verified query, once the gate passes its SQL again (its owner or an admin). */
  public Future<ToolResult> verify(Object runId, Object question, User user) {
    AskRules.Refusal badId = AskRules.runId(runId);
    if (badId != null) return Future.succeededFuture(ToolResult.error(badId.toJson()));
    return state.promote(new VerifiedPromote(runId, question, user))
        .map(ToolResult::ok)
        .otherwise(DatabaseTools::failure);
  }

  static String tableNameProblem(Object name) {
    if (!(name instanceof String s) || s.isBlank()) return "name must be a table name (list_tables shows them)";
    if (s.length() > MAX_NAME_CHARS) return "name is " + s.length() + " characters; no table name is that long";
    return null;
  }

  static String rowCountProblem(Object n) {
    if (n == null) return null;
    boolean whole = n instanceof Integer || n instanceof Long || n instanceof Short
        || (n instanceof Number num && num.doubleValue() == Math.rint(num.doubleValue()) && !Double.isInfinite(num.doubleValue()));
    if (!whole || ((Number) n).doubleValue() < 1 || ((Number) n).doubleValue() > MAX_SAMPLE_ROWS) {
      return "n must be a whole number from 1 to " + MAX_SAMPLE_ROWS + ", got " + (n instanceof String ? "\"" + n + "\"" : n);
    }
    return null;
  }

  private static ToolResult badArgument(String message) {
    return ToolResult.error("bad_argument", message);
  }

  /** A service that refused the request, failed or did not answer, as a tool error (the edges' error_type). */
  private static ToolResult failure(Throwable err) {
    return ToolResult.error(BusError.of(err, "the service").toJson());
  }

  /** The same, except that the catalogue's "not found" is a table the database does not show. */
  private static ToolResult tableFailure(Throwable err) {
    BusError e = BusError.of(err, "the service");
    return e.failure() == BusFailure.NOT_FOUND ? ToolResult.error("unknown_table", e.getMessage()) : failure(e);
  }
}

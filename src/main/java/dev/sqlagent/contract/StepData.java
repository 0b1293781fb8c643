package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code data} of a graph event ({@link GraphEvent}): one record per thing a node reports, written to JSON in one
 * place ({@link #toJson}: the components in snake_case, see {@link RecordJson}) and read back with {@link #of}. Which
 * records each node's started, finished, failed and progress events carry is declared here ({@link #allows}); the
 * agent publishes nothing else. A run's end (answer, give_up, clarify, cancelled) carries its {@link Answer}.
 */
public sealed interface StepData permits StepData.VerifiedAsked, StepData.VerifiedFound, StepData.SchemaAsked,
    StepData.SchemaSelected, StepData.RetrievalFailed, StepData.SqlAsked, StepData.CandidatesAsked, StepData.SqlDelta,
    StepData.SqlWritten, StepData.CandidatesWritten, StepData.ReplyUnusable, StepData.ModelFailed,
    StepData.FaultInjected, StepData.CandidateChecking, StepData.CandidateRan, StepData.CandidateFailed,
    StepData.Voted, StepData.SqlStarted, StepData.SqlChecked, StepData.SqlRan, StepData.SqlFailed,
    StepData.Inspected, StepData.ProbeStarted, StepData.ProbeSkipped, StepData.Probed, StepData.Decided,
    StepData.RepairStarted, StepData.RepairPrepared, StepData.AnswerStarted, StepData.SqlExplained, Answer {

  /** The event's data. */
  default JsonObject toJson() {
    return RecordJson.toJson((Record) this);
  }

  /** lookup_verified started: the question compared with the verified queries. */
  record VerifiedAsked(String question) implements StepData {}

  /** One verified query's closeness to the question. */
  record VerifiedScore(long verifiedId, String question, double score, boolean sameValues) {}

  /**
   * lookup_verified finished.
   *
   * @param direct the verified query close enough to answer with, tried first; null when none is
   */
  record VerifiedFound(double threshold, int candidates, List<VerifiedScore> matches, Long direct) implements StepData {}

  /** select_schema started. */
  record SchemaAsked(String question, boolean widen) implements StepData {}

  /**
   * select_schema finished.
   *
   * @param tables each chosen table as {@link ScoredTable#toJson} writes it
   * @param valueLinks "table: why" for each table a stored value the question names links
   */
  record SchemaSelected(JsonArray tables, int topK, JsonArray valueMatches, List<String> valueLinks) implements StepData {
    public List<String> tableNames() {
      return tables.stream().map(t -> ScoredTable.fromJson((JsonObject) t).name()).toList();
    }
  }

  /** select_schema failed. */
  record RetrievalFailed(String message) implements StepData {}

  /** generate_sql started, one SQL asked for. */
  record SqlAsked(String model, boolean repair) implements StepData {}

  /** generate_sql started, several candidates asked for. */
  record CandidatesAsked(String model, boolean repair, int candidates, double temperature) implements StepData {}

  /** generate_sql progress: a piece of the model's reply as it streams. */
  record SqlDelta(String delta) implements StepData {}

  /**
   * generate_sql finished with one SQL (null when the model declined).
   *
   * @param readings how many readings of the question the model listed, when it listed several
   */
  record SqlWritten(String model, int promptTokens, int completionTokens, long latencyMs, String sql, String explanation,
      @OmitWhenNull Integer readings) implements StepData {}

  /** One candidate's SQL as the model wrote it (null when its reply was not usable). */
  record CandidateSql(int index, String sql) {}

  /** generate_sql finished with several candidates. */
  record CandidatesWritten(List<CandidateSql> candidates) implements StepData {}

  /** generate_sql failed: the model answered with something that is not a usable reply. */
  record ReplyUnusable(String model, int promptTokens, int completionTokens, long latencyMs, String errorType,
      String message) implements StepData {}

  /** generate_sql failed: the model did not answer (down, out of quota, too slow). */
  record ModelFailed(String errorType, String message) implements StepData {}

  /** inject_fault finished. */
  record FaultInjected(String fault, String originalSql, String mutatedSql) implements StepData {}

  /** candidate started: one candidate's SQL sent through the gate. */
  record CandidateChecking(int index, String sql) implements StepData {}

  /** candidate finished: it ran; {@code fingerprint} identifies its result among the others'. */
  record CandidateRan(int index, String sql, int rowCount, String fingerprint, String staticCheck) implements StepData {}

  /** candidate failed. */
  record CandidateFailed(int index, String errorType, String message, String sql) implements StepData {}

  /** The candidates whose results share one fingerprint. */
  record VoteGroup(String fingerprint, int votes) {}

  /**
   * vote finished.
   *
   * @param winner the winning candidate's index; null when none succeeded
   * @param changed the winner is not the first candidate
   */
  record Voted(Integer winner, List<VoteGroup> groups, int candidates, boolean changed) implements StepData {}

  /** validate_sql or execute_sql started, with the SQL it checks or runs. */
  record SqlStarted(String sql) implements StepData {}

  /** validate_sql finished: the SQL as bounded by the row cap, and the static check's verdict. */
  record SqlChecked(String sql, String staticCheck) implements StepData {}

  /** execute_sql finished. */
  record SqlRan(String sql, int rowCount, boolean truncated, long elapsedMs, JsonArray columns) implements StepData {}

  /** validate_sql or execute_sql failed: the gate's refusal or the database's error. */
  record SqlFailed(String errorType, String message, String hint, Integer position, String sql) implements StepData {}

  /** inspect_result finished without a probe. */
  record Inspected(boolean ok, Integer rowCount) implements StepData {}

  /** inspect_result started a probe ({@code empty_result} or {@code empty_aggregate}). */
  record ProbeStarted(String probe) implements StepData {}

  /** inspect_result's probe found no text filter to relax. */
  record ProbeSkipped(String probe, String verdict, int rowCount) implements StepData {}

  /** inspect_result's probe ran the relaxed query: {@code empty_confirmed} or {@code filter_too_strict}. */
  record Probed(String probe, String relaxedSql, List<String> filters, int probeRows, String verdict)
      implements StepData {}

  /** decide finished: {@code next} is answer, repair, give_up or refuse. */
  record Decided(String next, String errorType, int attemptsLeft) implements StepData {}

  /** prepare_repair started. */
  record RepairStarted(String errorType, String strategy) implements StepData {}

  /** prepare_repair finished; {@code widened}: the tables are chosen again, wider. */
  record RepairPrepared(String errorType, String strategy, String instruction, boolean widened) implements StepData {}

  /** answer started (a refusal announces nothing). */
  record AnswerStarted() implements StepData {}

  /**
   * explain_sql finished, after the answer went out: what the answer's SQL does in plain words (the tables it reads
   * and how they are joined, the rows it keeps, how it groups, what it returns, how it sorts, how many rows at most),
   * from its parse and without a model; {@code explanation} is null when the SQL could not be parsed.
   */
  record SqlExplained(String sql, String explanation) implements StepData {

    /** Whether explain_sql follows this answer: a result with its SQL (not a refusal, give-up, cancel or choice). */
    public static boolean follows(Answer answer) {
      return answer.sql() != null && "answered".equals(answer.outcome());
    }
  }

  /** Which records each node's events carry, by status. */
  private static Map<Node, Map<String, List<Class<? extends StepData>>>> declared() {
    Map<Node, Map<String, List<Class<? extends StepData>>>> m = new EnumMap<>(Node.class);
    on(m, Node.LOOKUP_VERIFIED, GraphEvent.STARTED, VerifiedAsked.class);
    on(m, Node.LOOKUP_VERIFIED, GraphEvent.FINISHED, VerifiedFound.class);
    on(m, Node.SELECT_SCHEMA, GraphEvent.STARTED, SchemaAsked.class);
    on(m, Node.SELECT_SCHEMA, GraphEvent.FINISHED, SchemaSelected.class);
    on(m, Node.SELECT_SCHEMA, GraphEvent.FAILED, RetrievalFailed.class);
    on(m, Node.GENERATE_SQL, GraphEvent.STARTED, SqlAsked.class, CandidatesAsked.class);
    on(m, Node.GENERATE_SQL, GraphEvent.PROGRESS, SqlDelta.class);
    on(m, Node.GENERATE_SQL, GraphEvent.FINISHED, SqlWritten.class, CandidatesWritten.class);
    on(m, Node.GENERATE_SQL, GraphEvent.FAILED, ReplyUnusable.class, ModelFailed.class);
    on(m, Node.INJECT_FAULT, GraphEvent.FINISHED, FaultInjected.class);
    on(m, Node.CANDIDATE, GraphEvent.STARTED, CandidateChecking.class);
    on(m, Node.CANDIDATE, GraphEvent.FINISHED, CandidateRan.class);
    on(m, Node.CANDIDATE, GraphEvent.FAILED, CandidateFailed.class);
    on(m, Node.VOTE, GraphEvent.FINISHED, Voted.class);
    on(m, Node.VALIDATE_SQL, GraphEvent.STARTED, SqlStarted.class);
    on(m, Node.VALIDATE_SQL, GraphEvent.FINISHED, SqlChecked.class);
    on(m, Node.VALIDATE_SQL, GraphEvent.FAILED, SqlFailed.class);
    on(m, Node.EXECUTE_SQL, GraphEvent.STARTED, SqlStarted.class);
    on(m, Node.EXECUTE_SQL, GraphEvent.FINISHED, SqlRan.class);
    on(m, Node.EXECUTE_SQL, GraphEvent.FAILED, SqlFailed.class);
    on(m, Node.INSPECT_RESULT, GraphEvent.STARTED, ProbeStarted.class);
    on(m, Node.INSPECT_RESULT, GraphEvent.FINISHED, Inspected.class, ProbeSkipped.class, Probed.class);
    on(m, Node.DECIDE, GraphEvent.FINISHED, Decided.class);
    on(m, Node.PREPARE_REPAIR, GraphEvent.STARTED, RepairStarted.class);
    on(m, Node.PREPARE_REPAIR, GraphEvent.FINISHED, RepairPrepared.class);
    on(m, Node.ANSWER, GraphEvent.STARTED, AnswerStarted.class);
    on(m, Node.ANSWER, GraphEvent.FINISHED, Answer.class);
    on(m, Node.EXPLAIN_SQL, GraphEvent.FINISHED, SqlExplained.class);
    on(m, Node.GIVE_UP, GraphEvent.FINISHED, Answer.class);
    on(m, Node.CLARIFY, GraphEvent.FINISHED, Answer.class);
    on(m, Node.CANCELLED, GraphEvent.FINISHED, Answer.class);
    return m;
  }

  @SafeVarargs
  private static void on(Map<Node, Map<String, List<Class<? extends StepData>>>> m, Node node, String status,
      Class<? extends StepData>... records) {
    m.computeIfAbsent(node, n -> new java.util.HashMap<>()).put(status, List.of(records));
  }

  /** The records {@code node}'s events of {@code status} may carry (none: an empty list). */
  static List<Class<? extends StepData>> records(Node node, String status) {
    return Shapes.DECLARED.getOrDefault(node, Map.of()).getOrDefault(status, List.of());
  }

  /** Whether {@code node}'s events of {@code status} may carry {@code data}. */
  static boolean allows(Node node, String status, StepData data) {
    return records(node, status).contains(data.getClass());
  }

  /**
   * The event's data as its record: the one declared for its node and status whose keys the data has (every key
   * always written, no key the record lacks). IllegalArgumentException when none is.
   */
  static StepData of(GraphEvent event) {
    Node node = Node.fromWireName(event.node())
        .orElseThrow(() -> new IllegalArgumentException("no node " + event.node()));
    Set<String> keys = event.data().fieldNames();
    for (Class<? extends StepData> type : records(node, event.status())) {
      if (type == Answer.class) return Answer.fromJson(event.data());
      Class<? extends Record> record = type.asSubclass(Record.class);
      List<String> all = RecordJson.keys(record);
      if (all.containsAll(keys) && keys.containsAll(Shapes.alwaysWritten(record))) {
        return (StepData) RecordJson.fromJson(record, event.data());
      }
    }
    throw new IllegalArgumentException(event.node() + " " + event.status() + " data " + keys
        + " is none of " + records(node, event.status()).stream().map(Class::getSimpleName).toList());
  }

  /** The declaration, built once. */
  final class Shapes {
    private static final Map<Node, Map<String, List<Class<? extends StepData>>>> DECLARED = declared();

    private Shapes() {}

    /** The keys written even when their value is null. */
    static List<String> alwaysWritten(Class<? extends Record> type) {
      List<String> keys = RecordJson.keys(type);
      RecordComponent[] components = type.getRecordComponents();
      List<String> out = new ArrayList<>();
      Set<String> omitted = new HashSet<>();
      for (int i = 0; i < components.length; i++) {
        if (components[i].isAnnotationPresent(OmitWhenNull.class)) omitted.add(keys.get(i));
      }
      for (String k : keys) if (!omitted.contains(k)) out.add(k);
      return out;
    }
  }
}

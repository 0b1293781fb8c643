package dev.sqlagent.conversation;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.state.StoredText;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Conversations, their turns and the runs' feedback in the state store (db/state/conversations.sql), through the
 * state store's shared owner pool. Every statement the conversation service runs is here.
 */
final class ConversationRepository {

  /** A run's turn, by run id, with the user it belongs to. */
  static final String RUN_OWNER = "SELECT user_name FROM conversation_turns WHERE run_id = $1";
  /** A run's turn, by run id, with its user and the feedback's rating. */
  static final String RUN_TURN = """
      SELECT t.*, f.rating FROM conversation_turns t LEFT JOIN run_feedback f USING (run_id)
      WHERE t.run_id = $1""";

  /** A turn, numbered after the conversation's last. */
  private static final String TURN_INSERT = """
      INSERT INTO conversation_turns (conversation_id, turn, run_id, question, final_sql, outcome, answer, summary,
        verified_id, user_name, readings, edited_from, chosen_reading)
      SELECT $1, coalesce(max(turn), 0) + 1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
      FROM conversation_turns WHERE conversation_id = $1
      RETURNING turn""";

  private final Pool pool;
  /** The turn's write as a span of the run it records (tracing on). */
  private final dev.sqlagent.db.StatementSpans spans;

  ConversationRepository(Pool pool, dev.sqlagent.db.StatementSpans spans) {
    this.pool = pool;
    this.spans = spans;
  }

  /** Deletes the conversations whose last turn is older than {@code days} (their turns go with them). */
  Future<Integer> expire(int days) {
    return pool.preparedQuery("DELETE FROM conversations WHERE last_turn_at < now() - make_interval(days => $1)")
        .execute(Tuple.of(days)).map(RowSet::rowCount);
  }

  /** A live conversation: who started it (null without a users file). */
  record Started(String userName) {}

  /** The conversation; empty when it does not exist or its last turn is older than {@code days}. */
  Future<Optional<Started>> started(String id, int days) {
    return pool.preparedQuery("SELECT user_name FROM conversations WHERE conversation_id = $1"
            + " AND last_turn_at >= now() - make_interval(days => $2)").execute(Tuple.of(id, days))
        .map(found -> found.size() == 0 ? Optional.empty()
            : Optional.of(new Started(found.iterator().next().getString("user_name"))));
  }

  /** The conversation's turns, oldest first. */
  Future<List<Turn>> turns(String id) {
    return pool.preparedQuery("SELECT * FROM conversation_turns WHERE conversation_id = $1 ORDER BY turn")
        .execute(Tuple.of(id)).map(rows -> {
          List<Turn> out = new ArrayList<>();
          for (Row r : rows) out.add(Turn.fromRow(r));
          return out;
        });
  }

  /**
   * Adds the turn, the conversation started by {@code asker} if it is new; null (nothing written) when it is
   * someone else's than the caller may reach.
   */
  Future<Integer> record(String id, Answer answer, String asker, User caller) {
    // The model's words and error messages are stored without NUL (StoredText); the question was refused with one.
    Tuple turn = Tuple.of(id, answer.runId(), StoredText.of(answer.question() == null ? "" : answer.question()),
        StoredText.of(answer.sql()), answer.outcome(), StoredText.of(answer.answer()))
        .addValue(StoredText.of(ResultSummary.of(answer))).addValue(answer.verifiedId()).addValue(asker)
        .addValue(answer.clarification() == null ? null : StoredText.of(answer.clarification().toJson()))
        .addValue(answer.editedFrom()).addValue(answer.chosenReading());
    return spans.traced(TURN_INSERT, () -> pool.withTransaction(conn -> conn.preparedQuery("""
            INSERT INTO conversations (conversation_id, user_name) VALUES ($1, $2)
            ON CONFLICT (conversation_id) DO UPDATE SET last_turn_at = now()
            RETURNING user_name""").execute(Tuple.of(id, asker))
        .compose(owner -> {
          if (!User.mayReach(caller, owner.iterator().next().getString("user_name"))) {
            return Future.<Integer>failedFuture(new NotTheCallers());  // rolls the transaction back
          }
          return conn.preparedQuery(TURN_INSERT).execute(turn).map(rows -> rows.iterator().next().getInteger(0));
        })))
        .recover(e -> e instanceof NotTheCallers ? Future.succeededFuture(null) : Future.failedFuture(e));
  }

  /** A turn for a conversation that belongs to another user: nothing is written. */
  private static final class NotTheCallers extends RuntimeException {
    NotTheCallers() {
      super("another user's conversation", null, false, false);
    }
  }

  /** The conversation (started_by, its times) joined with each turn and its feedback; no rows when unknown or expired. */
  Future<RowSet<Row>> conversation(String id, int days) {
    return pool.preparedQuery("""
        SELECT c.started_at, c.last_turn_at, c.last_turn_at + make_interval(days => $2) AS expires_at,
          c.user_name AS started_by, t.*, f.rating, f.comment
        FROM conversations c
        LEFT JOIN conversation_turns t USING (conversation_id)
        LEFT JOIN run_feedback f ON f.run_id = t.run_id
        WHERE c.conversation_id = $1 AND c.last_turn_at >= now() - make_interval(days => $2)
        ORDER BY t.turn""").execute(Tuple.of(id, days));
  }

  /** Keeps (or replaces) the run's feedback; no row when the run is in no conversation. */
  Future<RowSet<Row>> feedback(String runId, Object rating, Object comment, String giver) {
    return pool.preparedQuery("""
        INSERT INTO run_feedback (run_id, rating, comment, user_name)
        SELECT run_id, $2, $3, $4 FROM conversation_turns WHERE run_id = $1
        ON CONFLICT (run_id) DO UPDATE SET rating = EXCLUDED.rating, comment = EXCLUDED.comment,
          user_name = EXCLUDED.user_name, given_at = now()
        RETURNING given_at""").execute(Tuple.of(runId, rating, comment, giver));
  }

  /** {@code query} ({@link #RUN_OWNER} or {@link #RUN_TURN}) for one run. */
  Future<RowSet<Row>> byRun(String query, String runId) {
    return pool.preparedQuery(query).execute(Tuple.of(runId));
  }
}

package dev.sqlagent.verified;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** One target's verified queries in the state store's {@code verified_queries}, through its shared owner pool. */
final class VerifiedRepository {

  private static final String COLUMNS = "verified_id, question, sql, array_to_string(vector, ',') AS vector_text, "
      + "from_run_id, created_at, checked_at, retired_reason, retired_at, verified_by";

  private final Pool pool;
  /** The target's key: every statement is about its queries only. */
  private final String target;

  VerifiedRepository(Pool pool, String target) {
    this.pool = pool;
    this.target = target;
  }

  /**
   * The library's stamp: every write stamps checked_at, so the count and the newest stamp tell, in one cheap
   * query, whether another process changed it.
   */
  Future<String> version() {
    return pool.preparedQuery("SELECT count(*) || '/' || coalesce(max(checked_at)::text, '') FROM verified_queries"
            + " WHERE target = $1").execute(Tuple.of(target))
        .map(rows -> rows.iterator().next().getString(0));
  }

  /** Every verified query of the target, by id. */
  Future<List<VerifiedQuery>> all() {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM verified_queries WHERE target = $1 ORDER BY verified_id")
        .execute(Tuple.of(target))
        .map(rows -> {
          List<VerifiedQuery> out = new ArrayList<>();
          for (Row r : rows) out.add(VerifiedQuery.fromRow(r));
          return out;
        });
  }

  /** Saves the question's SQL (replacing the SQL of the same question, and any retirement). */
  Future<VerifiedQuery> save(String question, String sql, float[] vector, Object fromRunId, String verifiedBy) {
    return pool.preparedQuery("""
            INSERT INTO verified_queries (target, question, sql, vector, from_run_id, checked_at, verified_by)
            VALUES ($1, $2, $3, $4::text::real[], $5, now(), $6)
            ON CONFLICT (target, question) DO UPDATE SET sql = EXCLUDED.sql, vector = EXCLUDED.vector,
              from_run_id = EXCLUDED.from_run_id, checked_at = now(), retired_reason = NULL, retired_at = NULL,
              verified_by = EXCLUDED.verified_by
            """ + " RETURNING " + COLUMNS)
        .execute(Tuple.of(target, question, sql, VerifiedQuery.arrayText(vector), fromRunId, verifiedBy))
        .map(rows -> VerifiedQuery.fromRow(rows.iterator().next()));
  }

  /** Whether there was such a query to delete. */
  Future<Boolean> remove(long id) {
    return pool.preparedQuery("DELETE FROM verified_queries WHERE target = $1 AND verified_id = $2")
        .execute(Tuple.of(target, id)).map(rs -> rs.rowCount() > 0);
  }

  /** The query retired for {@code reason}; empty when it is no longer stored. */
  Future<Optional<VerifiedQuery>> retire(long id, String reason) {
    return pool.preparedQuery("UPDATE verified_queries SET retired_reason = $3, retired_at = now(), checked_at = now()"
            + " WHERE target = $1 AND verified_id = $2 RETURNING " + COLUMNS)
        .execute(Tuple.of(target, id, reason)).map(VerifiedRepository::first);
  }

  /** The query in use again; empty when it is no longer stored. */
  Future<Optional<VerifiedQuery>> restore(long id) {
    return pool.preparedQuery("UPDATE verified_queries SET retired_reason = NULL, retired_at = NULL, checked_at = now()"
            + " WHERE target = $1 AND verified_id = $2 RETURNING " + COLUMNS)
        .execute(Tuple.of(target, id)).map(VerifiedRepository::first);
  }

  private static Optional<VerifiedQuery> first(RowSet<Row> rows) {
    return rows.size() == 0 ? Optional.empty() : Optional.of(VerifiedQuery.fromRow(rows.iterator().next()));
  }
}

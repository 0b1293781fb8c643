package dev.sqlagent.values;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Stored values kept in the state store (never the target), per target and schema shape, through the state
 * store's shared owner pool.
 */
final class StoredValuesRepository {

  private static final String LOAD = "SELECT relation, column_name, low_cardinality, source, vals FROM stored_values"
      + " WHERE target = $1 AND shape = $2 ORDER BY relation, column_name";
  private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext('stored_values ' || $1))";
  private static final String DELETE = "DELETE FROM stored_values WHERE target = $1";
  private static final String INSERT = "INSERT INTO stored_values"
      + " (target, relation, column_name, shape, low_cardinality, source, vals) VALUES ($1, $2, $3, $4, $5, $6, $7)";

  private final Pool pool;

  StoredValuesRepository(Pool pool) {
    this.pool = pool;
  }

  /** The values read under this shape, if any were kept. */
  Future<Optional<List<ColumnValues>>> load(String target, String shape) {
    return pool.preparedQuery(LOAD).execute(Tuple.of(target, shape)).map(rows -> {
      List<ColumnValues> out = new ArrayList<>();
      for (Row r : rows) {
        out.add(new ColumnValues(r.getString(0), r.getString(1), r.getBoolean(2), r.getString(3),
            List.of(r.getArrayOfStrings(4))));
      }
      return out.isEmpty() ? Optional.empty() : Optional.of(out);
    });
  }

  /**
   * Replaces what is kept for the target. One save of a target at a time (a transaction-scoped advisory lock):
   * clustered, every worker reads and saves the values at once on a schema refresh, and two interleaved
   * delete-then-insert transactions would collide on the primary key.
   */
  Future<Void> save(String target, String shape, List<ColumnValues> columns) {
    List<Tuple> rows = columns.stream().map(v -> Tuple.of(target, v.table(), v.column(), shape, v.lowCardinality(),
        v.source(), v.values().toArray(new String[0]))).toList();
    return pool.withTransaction(conn -> conn.preparedQuery(LOCK).execute(Tuple.of(target))
        .compose(locked -> conn.preparedQuery(DELETE).execute(Tuple.of(target)))
        .compose(deleted -> rows.isEmpty() ? Future.succeededFuture()
            : conn.preparedQuery(INSERT).executeBatch(rows).mapEmpty()))
        .mapEmpty();
  }
}

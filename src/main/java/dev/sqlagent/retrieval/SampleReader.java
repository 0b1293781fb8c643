package dev.sqlagent.retrieval;

import dev.sqlagent.db.OneAfterAnother;
import dev.sqlagent.db.Identifiers;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.ReadOnly;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the first rows of a table for the prompt and the sample tool.
 *
 * <p>This reads directly as {@code sql_agent_ro}, not through the execution gate: the statement is fixed and
 * ours (a column list and a table name taken from the catalogue, always quoted, and a bound LIMIT), it runs
 * inside a READ ONLY transaction that is rolled back, under the role's own timeouts. No text from a user or
 * a model ever reaches this SQL.
 */
final class SampleReader {
  private SampleReader() {}

  static Future<SampleRows> read(SqlConnection conn, TableInfo table, int n) {
    if (table.columns().isEmpty()) return Future.succeededFuture(new SampleRows(table.name(), List.of(), List.of()));
    // left(): a 1,000-character address never leaves the server whole; one more than the clip shows it was cut.
    List<String> cells = table.columns().stream()
        .map(c -> "left(" + Identifiers.quote(c.name()) + "::text, " + (SampleRows.CLIP + 1) + ")")
        .toList();
    String sql = "SELECT " + String.join(", ", cells) + " FROM " + Identifiers.qualified(table.schema(), table.relname()) + " LIMIT $1";
    return conn.preparedQuery(sql).execute(Tuple.of(n)).map(rs -> {
      List<List<String>> rows = new ArrayList<>();
      for (Row r : rs) {
        List<String> row = new ArrayList<>(r.size());
        for (int i = 0; i < r.size(); i++) row.add(SampleRows.clip(r.getString(i)));
        rows.add(row);
      }
      return new SampleRows(table.name(), table.columns(), rows);
    });
  }

  /**
   * The samples of several tables, read as {@code role} (null: the agent role) inside one read-only transaction
   * ({@link ReadOnly#runAs}), rolled back. Everything is sent at once (the connection pipelines it: BEGIN, the
   * role, every read and the ROLLBACK in one round trip, rather than three per table and three more); the rows are
   * used only when the transaction and the role were in place (after a failed BEGIN or SET ROLE the reads are
   * thrown away, and the whole fails as {@link ReadOnly#runAs} would). A table that cannot be read now (its grant
   * was revoked since discovery) gets no rows rather than failing the retrieval: when any read fails, the tables
   * are read again one by one in a new transaction, each behind a savepoint, so one refusal does not abort the
   * others.
   */
  static Future<List<SampleRows>> readAll(Pool pool, String role, List<TableInfo> tables, int n) {
    if (tables.isEmpty()) return Future.succeededFuture(new ArrayList<>());
    return pool.withConnection(conn -> {
      List<Future<?>> setUp = new ArrayList<>();
      setUp.add(conn.query(ReadOnly.BEGIN).execute());
      if (role != null) setUp.add(conn.query(ReadOnly.setRole(role)).execute());
      List<Future<SampleRows>> reads = new ArrayList<>(tables.size());
      for (TableInfo t : tables) reads.add(read(conn, t, n));
      Future<?> ended = conn.query("ROLLBACK").execute();
      List<Future<?>> all = new ArrayList<>(setUp);
      all.addAll(reads);
      all.add(ended);
      return Future.join(all).transform(done -> {
        for (Future<?> f : setUp) if (f.failed()) return Future.failedFuture(f.cause());
        if (ended.failed()) return Future.failedFuture(ended.cause());
        if (done.succeeded()) {
          List<SampleRows> out = new ArrayList<>(reads.size());
          for (Future<SampleRows> r : reads) out.add(r.result());
          return Future.succeededFuture(out);
        }
        return ReadOnly.runAs(conn, role, c -> oneByOne(c, tables, n));
      });
    });
  }

  /** The same, one table after another, each read behind a savepoint. */
  static Future<List<SampleRows>> oneByOne(SqlConnection conn, List<TableInfo> tables, int n) {
    List<SampleRows> out = new ArrayList<>(tables.size());
    return OneAfterAnother.each(tables, t -> conn.query("SAVEPOINT sample").execute()
            .compose(v -> read(conn, t, n))
            .compose(rows -> conn.query("RELEASE SAVEPOINT sample").execute().map(rows))
            .recover(e -> conn.query("ROLLBACK TO SAVEPOINT sample").execute()
                .map(new SampleRows(t.name(), t.columns(), List.of())))
            .map(out::add))
        .map(v -> out);
  }
}

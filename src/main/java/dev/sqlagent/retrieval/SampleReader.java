package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.ReadOnly;

import io.vertx.core.Future;
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
        .map(c -> "left(" + ReadOnly.quote(c.name()) + "::text, " + (SampleRows.CLIP + 1) + ")")
        .toList();
    String sql = "SELECT " + String.join(", ", cells) + " FROM " + ReadOnly.quote(table.schema()) + "." + ReadOnly.quote(table.relname()) + " LIMIT $1";
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
   * Samples of several tables, one after another on the same connection (and snapshot). A table that cannot
   * be read now (its grant was revoked since discovery) gets no rows rather than failing the retrieval: each
   * read sits behind a savepoint, so one refusal does not abort the others.
   */
  static Future<List<SampleRows>> readAll(SqlConnection conn, List<TableInfo> tables, int n) {
    Future<List<SampleRows>> chain = Future.succeededFuture(new ArrayList<>());
    for (TableInfo t : tables) {
      chain = chain.compose(acc -> conn.query("SAVEPOINT sample").execute()
          .compose(v -> read(conn, t, n))
          .compose(rows -> conn.query("RELEASE SAVEPOINT sample").execute().map(rows))
          .recover(e -> conn.query("ROLLBACK TO SAVEPOINT sample").execute()
              .map(new SampleRows(t.name(), t.columns(), List.of())))
          .map(s -> {
            acc.add(s);
            return acc;
          }));
    }
    return chain;
  }
}

package dev.sqlagent.values;

import dev.sqlagent.db.OneAfterAnother;
import dev.sqlagent.db.Identifiers;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.ReadOnly;
import dev.sqlagent.catalogue.TableInfo;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the stored values of the target's text columns as the agent role (so nothing it cannot read), inside
 * a read-only transaction that is rolled back. The planner's statistics first ({@code pg_stats}, which shows
 * only columns the role may SELECT): a column whose most common values are all its values costs no query.
 * Otherwise a bounded {@code SELECT DISTINCT … LIMIT n} under the statement timeout, each behind a savepoint
 * so a refused or slow column does not stop the others. Fixed SQL over catalogue names, always quoted.
 */
final class ValueReader {

  /** Text-like types by their catalogue name; enums already show their labels in the schema text. */
  private static final Set<String> TEXT_TYPES = Set.of("text", "varchar", "bpchar", "citext", "name");

  private static final String STATS = """
      SELECT s.schemaname, s.tablename, s.attname, s.n_distinct, s.avg_width,
             CASE WHEN s.most_common_vals IS NULL THEN NULL ELSE s.most_common_vals::text::text[] END AS mcv
        FROM pg_stats s
        JOIN pg_namespace n ON n.nspname = s.schemaname
        JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = s.attname
        JOIN pg_type t ON t.oid = a.atttypid
       WHERE t.typcategory = 'S'
       ORDER BY s.inherited DESC""";

  /** What was read, and what was left out and why. */
  record Read(List<ColumnValues> columns, int skippedWide, int skippedBudget, int skippedTotal, int failed) {}

  private record Stats(double nDistinct, int avgWidth, List<String> mcv) {}

  private final Pool pool;
  private final ValueLimits limits;

  ValueReader(Pool pool, ValueLimits limits) {
    this.pool = pool;
    this.limits = limits;
  }

  Future<Read> read(Catalogue catalogue) {
    long deadline = System.currentTimeMillis() + limits.budgetMs();
    return ReadOnly.run(pool, conn -> conn.query("SET LOCAL statement_timeout = " + Math.max(1, limits.statementTimeoutMs()))
        .execute()
        .compose(v -> stats(conn))
        .compose(stats -> {
          List<ColumnValues> out = new ArrayList<>();
          int[] counts = new int[5];  // indexed values, wide, budget, total, failed
          List<Map.Entry<TableInfo, TableInfo.Column>> columns = new ArrayList<>();
          for (TableInfo t : catalogue.tables()) {
            // Reading a view that calls a function acting outside the transaction would run it: never read.
            if (catalogue.functions().unsafe(t.schema(), t.relname()).isPresent()) continue;
            for (TableInfo.Column c : t.columns()) {
              if (TEXT_TYPES.contains(c.base()) && c.enumLabels().isEmpty()) columns.add(Map.entry(t, c));
            }
          }
          return OneAfterAnother.each(columns, tc -> {
            TableInfo t = tc.getKey();
            TableInfo.Column c = tc.getValue();
            Stats s = stats.get(t.schema() + "\u0000" + t.relname() + "\u0000" + c.name());
            return column(conn, t, c, s, deadline, counts).map(cv -> {
              if (cv != null) {
                out.add(cv);
                counts[0] += cv.values().size();
              }
              return (Void) null;
            });
          }).map(v -> new Read(out, counts[1], counts[2], counts[3], counts[4]));
        }));
  }

  private Future<Map<String, Stats>> stats(SqlConnection conn) {
    return conn.query(STATS).execute().map(rows -> {
      Map<String, Stats> out = new HashMap<>();
      for (Row r : rows) {
        String[] mcv = r.getArrayOfStrings("mcv");
        out.putIfAbsent(r.getString("schemaname") + "\u0000" + r.getString("tablename") + "\u0000" + r.getString("attname"),
            new Stats(r.getFloat("n_distinct"), r.getInteger("avg_width"), mcv == null ? null : List.of(mcv)));
      }
      return out;
    });
  }

  /** One column's values, or null when it is skipped (counted in {@code counts}). */
  private Future<ColumnValues> column(SqlConnection conn, TableInfo t, TableInfo.Column c, Stats s, long deadline,
      int[] counts) {
    int low = limits.lowCardinality();
    if (s != null && s.nDistinct() > 0 && s.nDistinct() <= low && s.mcv() != null && s.mcv().size() == (int) s.nDistinct()) {
      return Future.succeededFuture(new ColumnValues(t.name(), c.name(), true, "pg_stats", s.mcv()));
    }
    if (s != null && s.avgWidth() > limits.maxAvgWidth()) {
      counts[1]++;
      return Future.succeededFuture(null);
    }
    if (System.currentTimeMillis() > deadline) {
      counts[2]++;
      return Future.succeededFuture(null);
    }
    int room = limits.total() - counts[0];
    if (room <= low) {
      counts[3]++;
      return Future.succeededFuture(null);
    }
    // Statistics that say "few" are checked with LIMIT low + 1; otherwise up to the per-column cap.
    boolean probablyLow = s != null && s.nDistinct() > 0 && s.nDistinct() <= low;
    int limit = probablyLow ? low + 1 : Math.min(limits.perColumn(), room);
    String col = Identifiers.quote(c.name());
    String sql = "SELECT DISTINCT left(" + col + "::text, " + (limits.maxValueChars() + 1) + ") FROM "
        + Identifiers.qualified(t.schema(), t.relname()) + " WHERE " + col + " IS NOT NULL LIMIT $1";
    return conn.query("SAVEPOINT stored_values").execute()
        .compose(v -> conn.preparedQuery(sql).execute(Tuple.of(limit)))
        .compose(rows -> conn.query("RELEASE SAVEPOINT stored_values").execute().map(rows))
        .map(rows -> {
          List<String> values = new ArrayList<>();
          for (Row r : rows) {
            String v = r.getString(0);
            // A value with a line break could not be quoted on one line of the prompt: left out.
            if (v != null && v.length() <= limits.maxValueChars() && !v.isBlank() && v.chars().noneMatch(ch -> ch < 32)) {
              values.add(v);
            }
          }
          values.sort(null);
          return values.isEmpty() ? null
              : new ColumnValues(t.name(), c.name(), rows.size() <= low, "distinct", values);
        })
        .recover(e -> {
          counts[4]++;
          return conn.query("ROLLBACK TO SAVEPOINT stored_values").execute().map((ColumnValues) null);
        });
  }
}

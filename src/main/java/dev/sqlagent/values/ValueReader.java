package dev.sqlagent.values;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the stored values of the target's text columns through the one door to its data ({@link TargetReader}): as
 * the agent role (so nothing it cannot read), read-only, under the timeouts, never a relation the catalogue names
 * unsafe. The planner's statistics first ({@code pg_stats}, which shows only columns the role may SELECT): a column
 * whose most common values are all its values costs no query. Otherwise a bounded {@code SELECT DISTINCT … LIMIT n},
 * each behind a savepoint so a refused or slow column does not stop the others, a batch at a time so the budget and
 * the total are checked as the values come in.
 */
final class ValueReader {

  /** Text-like types by their catalogue name; enums already show their labels in the schema text. */
  private static final Set<String> TEXT_TYPES = Set.of("text", "varchar", "bpchar", "citext", "name");

  /** Columns read in one transaction before the budget and the total are looked at again. */
  static final int BATCH = 16;

  /**
   * What was read, and what was left out and why ({@code skipped}: relations the catalogue names unsafe, each with
   * why).
   */
  record Read(List<ColumnValues> columns, int skippedWide, int skippedBudget, int skippedTotal, int failed,
              Map<String, String> skipped) {}

  private final TargetReader reader;
  private final ValueLimits limits;

  ValueReader(TargetReader reader, ValueLimits limits) {
    this.reader = reader;
    this.limits = limits;
  }

  Future<Read> read(Catalogue catalogue) {
    long deadline = System.currentTimeMillis() + limits.budgetMs();
    return reader.columnStats().compose(list -> {
      Map<String, TargetReader.ColumnStats> stats = new HashMap<>();
      for (TargetReader.ColumnStats s : list) stats.putIfAbsent(key(s.schema(), s.relname(), s.column()), s);
      List<ColumnValues> out = new ArrayList<>();
      int[] counts = new int[5];  // indexed values, wide, budget, total, failed
      Map<String, String> skipped = new LinkedHashMap<>();
      List<TargetReader.Distinct> reads = new ArrayList<>();
      for (TableInfo t : catalogue.tables()) {
        // The reader would skip it too; said here once per relation rather than once per column.
        var refusal = TargetReader.refusal(catalogue, t);
        if (refusal.isPresent()) {
          skipped.put(t.name(), refusal.get());
          continue;
        }
        for (TableInfo.Column c : t.columns()) {
          if (!TEXT_TYPES.contains(c.base()) || !c.enumLabels().isEmpty()) continue;
          TargetReader.ColumnStats s = stats.get(key(t.schema(), t.relname(), c.name()));
          int low = limits.lowCardinality();
          if (s != null && s.nDistinct() > 0 && s.nDistinct() <= low && s.mostCommon() != null
              && s.mostCommon().size() == (int) s.nDistinct()) {
            ColumnValues cv = new ColumnValues(t.name(), c.name(), true, "pg_stats", s.mostCommon());
            out.add(cv);
            counts[0] += cv.values().size();
          } else if (s != null && s.avgWidth() > limits.maxAvgWidth()) {
            counts[1]++;
          } else {
            // Statistics that say "few" are checked with LIMIT low + 1; otherwise up to the per-column cap.
            boolean probablyLow = s != null && s.nDistinct() > 0 && s.nDistinct() <= low;
            reads.add(new TargetReader.Distinct(t, c.name(), probablyLow ? low + 1 : limits.perColumn(),
                limits.maxValueChars()));
          }
        }
      }
      return batches(catalogue, reads, 0, deadline, out, counts)
          .map(v -> new Read(out, counts[1], counts[2], counts[3], counts[4], skipped));
    });
  }

  private Future<Void> batches(Catalogue catalogue, List<TargetReader.Distinct> reads, int from, long deadline,
      List<ColumnValues> out, int[] counts) {
    if (from >= reads.size()) return Future.succeededFuture();
    int low = limits.lowCardinality();
    List<TargetReader.Distinct> batch = new ArrayList<>();
    int room = limits.total() - counts[0];
    int next = from;
    for (; next < reads.size() && batch.size() < BATCH; next++) {
      TargetReader.Distinct d = reads.get(next);
      if (System.currentTimeMillis() > deadline) {
        counts[2]++;
      } else if (room <= low && batch.isEmpty()) {
        counts[3]++;
      } else if (room <= low) {
        break;  // what the batch reads decides whether there is room for more: the next batch knows
      } else {
        int limit = Math.min(d.limit(), room);
        batch.add(new TargetReader.Distinct(d.table(), d.column(), limit, d.clip()));
        room -= limit;
      }
    }
    int after = next;
    return reader.read(catalogue, null, batch).compose(outcomes -> {
      for (TargetReader.Outcome o : outcomes) {
        if (!o.ok()) {
          counts[4]++;
          continue;
        }
        TargetReader.Distinct d = (TargetReader.Distinct) o.read();
        List<String> values = new ArrayList<>();
        for (List<String> row : o.rows()) {
          String v = row.get(0);
          // A value with a line break could not be quoted on one line of the prompt: left out.
          if (v != null && v.length() <= limits.maxValueChars() && !v.isBlank() && v.chars().noneMatch(ch -> ch < 32)) {
            values.add(v);
          }
        }
        values.sort(null);
        if (!values.isEmpty()) {
          out.add(new ColumnValues(d.table().name(), d.column(), o.rows().size() <= low, "distinct", values));
          counts[0] += values.size();
        }
      }
      return batches(catalogue, reads, after, deadline, out, counts);
    });
  }

  private static String key(String schema, String relname, String column) {
    return schema + "\u0000" + relname + "\u0000" + column;
  }
}

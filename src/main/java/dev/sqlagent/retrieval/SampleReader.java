package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.contract.SampleRows;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the first rows of a table for the prompt and the sample tool, through the one door to the target's data
 * ({@link TargetReader}), not through the execution gate: the statement is the reader's (a column list and a table
 * name taken from the catalogue, always quoted, and a bound LIMIT), read-only and rolled back, under the timeouts,
 * never a relation the catalogue names unsafe. No text from a user or a model ever reaches this SQL. Each value is
 * cut on the server ({@code left()}: a 1,000-character address never leaves it whole) and clipped for the prompt.
 */
final class SampleReader {
  private SampleReader() {}

  /**
   * The samples of several tables, read as {@code role} (null: the agent role) in one read-only transaction. A table
   * that cannot be read now (its grant was revoked since discovery) or that the catalogue names unsafe gets no rows
   * rather than failing the retrieval; the whole fails only when the transaction or the role could not be had.
   */
  static Future<List<SampleRows>> readAll(TargetReader reader, Catalogue catalogue, String role, List<TableInfo> tables,
      int n) {
    List<TargetReader.Read> reads = new ArrayList<>();
    for (TableInfo t : tables) if (!t.columns().isEmpty()) reads.add(rows(t, n));
    return reader.read(catalogue, role, reads).map(outcomes -> {
      List<SampleRows> out = new ArrayList<>(tables.size());
      int i = 0;
      for (TableInfo t : tables) {
        if (t.columns().isEmpty()) {
          out.add(new SampleRows(t.name(), List.of(), List.of()));
          continue;
        }
        TargetReader.Outcome o = outcomes.get(i++);
        out.add(new SampleRows(t.name(), t.columns(), o.ok() ? clipped(o.rows()) : List.of()));
      }
      return out;
    });
  }

  /** One table's sample, or a failure that says why it was not read (the catalogue's verdict, or PostgreSQL's). */
  static Future<SampleRows> read(TargetReader reader, Catalogue catalogue, String role, TableInfo table, int n) {
    if (table.columns().isEmpty()) return Future.succeededFuture(new SampleRows(table.name(), List.of(), List.of()));
    return reader.read(catalogue, role, List.of(rows(table, n))).compose(outcomes -> {
      TargetReader.Outcome o = outcomes.get(0);
      if (o.skipped() != null) return Future.failedFuture(new Skipped(o.skipped()));
      if (o.failed() != null) return Future.failedFuture(new IllegalStateException(o.failed()));
      return Future.succeededFuture(new SampleRows(table.name(), table.columns(), clipped(o.rows())));
    });
  }

  /** A read the catalogue refused: a request about it is the asker's to change, not a failure of the service. */
  static final class Skipped extends RuntimeException {
    Skipped(String why) {
      super(why, null, false, false);
    }
  }

  private static TargetReader.Rows rows(TableInfo t, int n) {
    return new TargetReader.Rows(t, t.columns().stream().map(TableInfo.Column::name).toList(), n, SampleRows.CLIP);
  }

  private static List<List<String>> clipped(List<List<String>> rows) {
    List<List<String>> out = new ArrayList<>(rows.size());
    for (List<String> r : rows) out.add(r.stream().map(SampleRows::clip).toList());
    return out;
  }
}

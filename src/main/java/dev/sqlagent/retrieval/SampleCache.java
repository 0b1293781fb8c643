package dev.sqlagent.retrieval;

import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.catalogue.TableInfo;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The prompt's sample rows, kept a few minutes per role and table (and the columns shown): they show the model
 * what the values look like, not today's data, so a question reads only the tables it has no rows for yet (on a
 * small schema that is every question after the first few: one round trip less). Kept per database role, since
 * row-level security decides which rows a role sees. Forgotten when the catalogue changes. Touched only on the
 * retrieval verticle's context.
 */
final class SampleCache {

  /** How long sample rows are kept. */
  static final long KEEP_MS = 300_000;
  /** Beyond this many kept tables the expired ones go, and if that is not enough, all. */
  static final int MAX_KEPT = 4_096;

  /** Reads the samples of the tables given, as a role (null: the agent role). */
  @FunctionalInterface
  interface Reader {
    Future<List<SampleRows>> read(String role, List<TableInfo> tables);
  }

  private record Kept(SampleRows rows, long readAt) {}

  private final Reader reader;
  private final LongSupplier clockMs;
  private final Map<String, Kept> kept = new HashMap<>();
  private Object about;

  SampleCache(Reader reader, LongSupplier clockMs) {
    this.reader = reader;
    this.clockMs = clockMs;
  }

  /** The samples of {@code tables} in their order, read only where none are kept; {@code catalogue} as of now. */
  Future<List<SampleRows>> samples(Object catalogue, String role, List<TableInfo> tables) {
    if (catalogue != about) {
      kept.clear();
      about = catalogue;
    }
    long now = clockMs.getAsLong();
    // What is kept is taken now: the map may change before the read is back.
    SampleRows[] out = new SampleRows[tables.size()];
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < tables.size(); i++) {
      Kept k = kept.get(key(role, tables.get(i)));
      if (k != null && now - k.readAt() < KEEP_MS) out[i] = k.rows();
      else missing.add(i);
    }
    if (missing.isEmpty()) return Future.succeededFuture(List.of(out));
    return reader.read(role, missing.stream().map(tables::get).toList()).map(rows -> {
      for (int j = 0; j < missing.size(); j++) {
        int i = missing.get(j);
        out[i] = rows.get(j);
        // A table that could not be read now (no rows) is asked again next time rather than kept empty.
        if (!rows.get(j).rows().isEmpty() && catalogue == about) keep(key(role, tables.get(i)), new Kept(rows.get(j), now));
      }
      return List.of(out);
    });
  }

  private void keep(String key, Kept k) {
    if (kept.size() >= MAX_KEPT && !kept.containsKey(key)) {
      long now = clockMs.getAsLong();
      kept.values().removeIf(v -> now - v.readAt() >= KEEP_MS);
      if (kept.size() >= MAX_KEPT) kept.clear();
    }
    kept.put(key, k);
  }

  /** The role, the table and the columns shown (the prompt budget may shorten a table's column list). */
  private static String key(String role, TableInfo t) {
    StringBuilder b = new StringBuilder(role == null ? "" : role).append('\u0000').append(t.name());
    for (TableInfo.Column c : t.columns()) b.append('\u0000').append(c.name());
    return b.toString();
  }
}

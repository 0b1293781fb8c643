package dev.sqlagent.values;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the model is told of the values the target stores: the few values of each low-cardinality text
 * column, in the schema text ({@link #annotate}), and the phrases of a question that match stored values, with
 * their exact stored form and column ({@link #match}).
 *
 * <p>Read in the background, off the event loop, never delaying a question (until the first read is done
 * questions simply get no values): at start from the state store when the schema's shape is the one the
 * values were read under, else from the target; again from the target at every schema refresh (drift).
 */
public final class StoredValues {

  private static final Logger LOG = LoggerFactory.getLogger(StoredValues.class);

  /** One read: low-cardinality values by table and column, the index over all values, what the read did. */
  private record Snapshot(Map<String, List<String>> low, ValueIndex index, JsonObject status) {}

  private final Vertx vertx;
  private final ValueReader reader;
  private final StoredValuesRepository store;
  private final String target;
  private volatile Snapshot current;
  /** The words of every name of the catalogue last asked about ({@link #prepare}). */
  private volatile SchemaWords allWords;
  private Future<Void> refreshing = Future.succeededFuture();

  /**
   * @param reader the door to the target's data (its own connection, so reads never wait behind questions)
   * @param state where the values are kept (its shared owner pool); null: nowhere, always read from the target
   * @param target the target's key in the state store
   */
  public StoredValues(Vertx vertx, TargetReader reader, StateDatabase state, String target, ValueLimits limits) {
    this.vertx = vertx;
    this.reader = new ValueReader(reader, limits);
    this.store = state == null ? null : new StoredValuesRepository(state.owner());
    this.target = target;
  }

  /**
   * Reads the values again (after the one in progress): from the state store when {@code fromStore} and it
   * holds values for this catalogue's shape, else from the target (then kept). Never fails: a read that cannot
   * be done is logged and the values read before stay.
   */
  public Future<Void> refresh(Catalogue catalogue, boolean fromStore) {
    refreshing = refreshing.transform(ignored -> load(catalogue, fromStore)).onFailure(e ->
        LOG.warn("stored values could not be read; questions go on without them: {}", e.toString())).otherwiseEmpty();
    return refreshing;
  }

  private Future<Void> load(Catalogue catalogue, boolean fromStore) {
    long t0 = System.nanoTime();
    String shape = shape(catalogue);
    Future<Optional<List<ColumnValues>>> kept = fromStore && store != null
        ? store.load(target, shape)
        : Future.succeededFuture(Optional.empty());
    return kept.compose(found -> {
      if (found.isPresent()) return Future.succeededFuture(new Loaded(found.get(), "state_store", null));
      return reader.read(catalogue).map(read -> new Loaded(read.columns(), "target", read));
    }).compose(loaded -> (loaded.read() != null && store != null
        ? store.save(target, shape, loaded.columns())
            // The values read are good: only keeping them for the next start failed.
            .onFailure(e -> LOG.warn("stored values read but not kept in the state store (the next start reads them "
                + "again): {}", e.toString()))
            .otherwiseEmpty()
        : Future.<Void>succeededFuture()).map(loaded))
    .compose(loaded -> vertx.executeBlocking(() -> {
      long t1 = System.nanoTime();
      ValueIndex index = ValueIndex.build(loaded.columns());
      long indexMs = (System.nanoTime() - t1) / 1_000_000;
      Map<String, List<String>> low = new HashMap<>();
      // In text order whatever their source (pg_stats lists the most common first): the same schema text every read.
      loaded.columns().stream().filter(ColumnValues::lowCardinality)
          .forEach(c -> low.put(key(c.table(), c.column()), c.values().stream().sorted().toList()));
      JsonObject status = new JsonObject().put("ready", true).put("from", loaded.from())
          .put("columns", loaded.columns().size()).put("low_cardinality_columns", low.size())
          .put("indexed_values", index.size()).put("index_bytes", index.indexBytes()).put("index_ms", indexMs)
          .put("elapsed_ms", (System.nanoTime() - t0) / 1_000_000).put("read_at", java.time.Instant.now().toString());
      if (loaded.read() != null) {
        status.put("skipped_wide", loaded.read().skippedWide()).put("skipped_budget", loaded.read().skippedBudget())
            .put("skipped_total", loaded.read().skippedTotal()).put("failed", loaded.read().failed())
            .put("skipped_unsafe", new JsonObject(new java.util.LinkedHashMap<>(loaded.read().skipped())));
      }
      current = new Snapshot(low, index, status);
      LOG.info("stored values ready: {}", status.encode());
      return (Void) null;
    }, false));
  }

  private record SchemaWords(Catalogue catalogue, Set<String> words) {}

  private record Loaded(List<ColumnValues> columns, String from, ValueReader.Read read) {}

  /** Whether values are ready, how many, from where and what was skipped. */
  public JsonObject status() {
    Snapshot s = current;
    return s == null ? new JsonObject().put("ready", false) : s.status().copy();
  }

  /** Which stored values may be shown to the one asking. */
  @FunctionalInterface
  public interface Visible {
    Visible ALL = (table, column, value) -> true;

    boolean test(String table, String column, String value);
  }

  /** The tables with every low-cardinality column's values at the head of its comment. */
  public List<TableInfo> annotate(List<TableInfo> tables) {
    return annotate(tables, Visible.ALL);
  }

  /** The same, with only the values {@code shown} lets through (a column with none left gets no list). */
  public List<TableInfo> annotate(List<TableInfo> tables, Visible shown) {
    Snapshot s = current;
    if (s == null || s.low().isEmpty()) return tables;
    List<TableInfo> out = new ArrayList<>(tables.size());
    for (TableInfo t : tables) {
      List<TableInfo.Column> cols = new ArrayList<>(t.columns().size());
      for (TableInfo.Column c : t.columns()) {
        List<String> all = s.low().get(key(t.name(), c.name()));
        List<String> values = all == null ? null
            : all.stream().filter(v -> shown.test(t.name(), c.name(), v)).toList();
        if (values == null || values.isEmpty()) {
          cols.add(c);
          continue;
        }
        String list = "stored values: " + values.stream().map(Identifiers::literal)
            .collect(Collectors.joining(", "));
        cols.add(c.withComment(c.comment() == null || c.comment().isBlank() ? list : list + "; " + c.comment()));
      }
      out.add(new TableInfo(t.name(), t.schema(), t.relname(), t.kind(), t.onSearchPath(), t.comment(), t.note(),
          t.rowCount(), cols, t.primaryKey(), t.foreignKeys()));
    }
    return out;
  }

  /** The low-cardinality values of a column (none: empty), of the values read last. */
  public List<String> lowValues(String table, String column) {
    Snapshot s = current;
    return s == null ? List.of() : s.low().getOrDefault(key(table, column), List.of());
  }

  /** The values read last (a new object after every read): what is known about them holds until it changes. */
  public Object version() {
    return current;
  }

  /** The question's phrases that name stored values of the offered tables. BLOCKING (Lucene): on a worker. */
  public List<ValueMatch> match(String question, List<TableInfo> offered) {
    return match(null, question, offered);
  }

  /**
   * The question's lookups in every table of the catalogue, made while its tables are still being chosen
   * ({@link ValueMatcher#prepare}); null while no values are read. BLOCKING (Lucene): on a worker.
   */
  public ValueMatcher.Prepared prepare(String question, Catalogue catalogue) {
    Snapshot s = current;
    if (s == null || s.index().size() == 0) return null;
    return ValueMatcher.prepare(s.index(), question, schemaWords(catalogue));
  }

  /**
   * The whole stored values the question names in any table of {@code catalogue} (see {@link
   * ValueMatcher#wholeValues}), from the lookups made before; none when values are not read yet or were read again
   * since. BLOCKING (Lucene): on a worker.
   */
  public List<ValueMatch> wholeValues(ValueMatcher.Prepared prepared, Catalogue catalogue) {
    Snapshot s = current;
    if (prepared == null || s == null || prepared.index() != s.index()) return List.of();
    return ValueMatcher.wholeValues(prepared, schemaWords(catalogue));
  }

  /** The words of every table's and column's name, of the catalogue last asked about (kept while it is current). */
  private Set<String> schemaWords(Catalogue catalogue) {
    if (catalogue == null) return Set.of();
    SchemaWords w = allWords;
    if (w == null || w.catalogue() != catalogue) {
      Set<String> words = new HashSet<>();
      for (TableInfo t : catalogue.tables()) {
        words(t.relname(), words);
        t.columns().forEach(c -> words(c.name(), words));
      }
      allWords = w = new SchemaWords(catalogue, Set.copyOf(words));
    }
    return w.words();
  }

  /**
   * {@link #match(String, List)} from the lookups made before ({@link #prepare}), the same matches; made anew
   * when there are none, or they were made on values read since. BLOCKING (Lucene): on a worker.
   */
  public List<ValueMatch> match(ValueMatcher.Prepared prepared, String question, List<TableInfo> offered) {
    Snapshot s = current;
    if (s == null || s.index().size() == 0) return List.of();
    Set<String> names = new HashSet<>();
    Set<String> schemaWords = new HashSet<>();
    for (TableInfo t : offered) {
      names.add(t.name());
      words(t.relname(), schemaWords);
      t.columns().forEach(c -> words(c.name(), schemaWords));
    }
    if (prepared != null && prepared.index() == s.index() && prepared.question().equals(question)) {
      return prepared.match(names, schemaWords);
    }
    return ValueMatcher.match(s.index(), question, names, schemaWords);
  }

  /** The block appended to the schema text: one line per matched phrase. */
  public static String schemaText(List<ValueMatch> matches) {
    if (matches.isEmpty()) return "";
    StringBuilder b = new StringBuilder("\n-- Stored values that match words of the question (compare with these exact forms):\n");
    for (ValueMatch m : matches) b.append("-- ").append(m.line().replaceAll("[\\r\\n]+", " ")).append('\n');
    return b.toString();
  }

  private static void words(String identifier, Set<String> into) {
    String lower = identifier.toLowerCase(Locale.ROOT);
    into.add(lower);
    for (String w : lower.split("[^\\p{L}\\p{N}]+")) {
      if (!w.isEmpty()) {
        into.add(w);
        if (w.endsWith("s")) into.add(w.substring(0, w.length() - 1)); else into.add(w + "s");
      }
    }
  }

  private static String key(String table, String column) {
    return table + "\u0000" + column;
  }

  /** The catalogue's relations and text columns: values read under another shape are read again. */
  static String shape(Catalogue catalogue) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (TableInfo t : catalogue.tables()) {
        sha.update((t.name() + "\u0001").getBytes(StandardCharsets.UTF_8));
        for (TableInfo.Column c : t.columns()) sha.update((c.name() + ":" + c.type() + "\u0002").getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest(), 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

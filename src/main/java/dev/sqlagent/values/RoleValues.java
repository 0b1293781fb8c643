package dev.sqlagent.values;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stored values a user's database role may be shown. Values are read as the agent role, which may see rows
 * the user's role may not (row-level security, a view that filters on {@code current_user}); a value in the
 * prompt, or in the {@code select_schema} event the user watches, would tell them such a row exists. So for a
 * user with a {@code db_role}, every value about to be shown is first looked for as that role, in a read-only
 * transaction, and only the values found are shown. What was found is kept per role until the values are read
 * again, so a role pays once per column. A look that fails (a timeout, a revoked grant) shows nothing of that
 * column this time and is tried again next time.
 *
 * <p>The looks go through the one door to the target's data ({@link TargetReader}), as the role: never a relation
 * the catalogue names unsafe, each column behind a savepoint so one refusal spares the rest. Touched only on the
 * retrieval verticle's context.
 */
public final class RoleValues {

  /** The offered tables with the role's low-cardinality values in their comments, and the role's matches. */
  public record Shown(List<TableInfo> tables, List<ValueMatch> matches) {}

  /** One column's values: those looked for as the role, and those found. */
  private record Seen(Set<String> looked, Set<String> found) {}

  private final TargetReader reader;
  private final StoredValues values;
  /** The values read ({@link StoredValues#version}) the answers below are about. */
  private Object about;
  /** By role, by table and column. */
  private final Map<String, Map<String, Seen>> seen = new HashMap<>();

  public RoleValues(TargetReader reader, StoredValues values) {
    this.reader = reader;
    this.values = values;
  }

  /**
   * What {@code role} may be shown of the stored values of {@code offered} and of the question's
   * {@code matches}; {@code role} null (the agent role's own rights) shows everything.
   */
  public Future<Shown> shownTo(Catalogue catalogue, String role, List<TableInfo> offered, List<ValueMatch> matches) {
    if (role == null) return Future.succeededFuture(new Shown(values.annotate(offered), matches));
    if (values.version() != about) {
      seen.clear();
      about = values.version();
    }
    Map<String, Seen> known = seen.computeIfAbsent(role, r -> new HashMap<>());
    Map<String, TableInfo> byName = new HashMap<>();
    offered.forEach(t -> byName.put(t.name(), t));
    // What is not known yet, by table and column.
    Map<Column, Set<String>> wanted = new LinkedHashMap<>();
    for (TableInfo t : offered) {
      for (TableInfo.Column c : t.columns()) {
        for (String v : values.lowValues(t.name(), c.name())) want(wanted, known, t, c.name(), v);
      }
    }
    for (ValueMatch m : matches) {
      for (ValueMatch.Stored s : m.stored()) {
        TableInfo t = byName.get(s.table());
        if (t != null && t.columns().stream().anyMatch(c -> c.name().equals(s.column()))) {
          want(wanted, known, t, s.column(), s.value());
        }
      }
    }
    Future<Void> looked = wanted.isEmpty() ? Future.succeededFuture()
        : lookAll(catalogue, role, wanted, known);
    return looked.otherwiseEmpty().map(v -> {
      StoredValues.Visible shown = (table, column, value) -> {
        Seen s = known.get(key(table, column));
        return s != null && s.found().contains(value);
      };
      List<ValueMatch> kept = new ArrayList<>();
      for (ValueMatch m : matches) {
        List<ValueMatch.Stored> left = m.stored().stream().filter(s -> shown.test(s.table(), s.column(), s.value())).toList();
        if (!left.isEmpty()) kept.add(new ValueMatch(m.phrase(), left));
      }
      return new Shown(values.annotate(offered, shown), kept);
    });
  }

  private record Column(TableInfo table, String column) {}

  private static void want(Map<Column, Set<String>> wanted, Map<String, Seen> known, TableInfo t, String column, String value) {
    Seen s = known.get(key(t.name(), column));
    if (s == null || !s.looked().contains(value)) {
      wanted.computeIfAbsent(new Column(t, column), c -> new HashSet<>()).add(value);
    }
  }

  /** Each column's values looked for as the role, each column behind a savepoint, so one refusal spares the rest. */
  private Future<Void> lookAll(Catalogue catalogue, String role, Map<Column, Set<String>> wanted,
      Map<String, Seen> known) {
    List<TargetReader.Present> reads = new ArrayList<>();
    for (Map.Entry<Column, Set<String>> e : wanted.entrySet()) {
      reads.add(new TargetReader.Present(e.getKey().table(), e.getKey().column(), List.copyOf(e.getValue())));
    }
    return reader.read(catalogue, role, reads).map(outcomes -> {
      for (TargetReader.Outcome o : outcomes) {
        if (!o.ok()) continue;  // tried again next time
        TargetReader.Present p = (TargetReader.Present) o.read();
        Seen s = known.computeIfAbsent(key(p.table().name(), p.column()), k -> new Seen(new HashSet<>(), new HashSet<>()));
        s.looked().addAll(p.values());
        for (List<String> row : o.rows()) s.found().add(row.get(0));
      }
      return (Void) null;
    });
  }

  private static String key(String table, String column) {
    return table + "\u0000" + column;
  }
}

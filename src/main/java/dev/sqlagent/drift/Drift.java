package dev.sqlagent.drift;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What moved between the snapshot taken when the index was built and the live schema.
 *
 * <p><b>Drift</b> is a change that makes what the index (and so the prompt) says about the schema wrong, or
 * that changes stored values: a table or column dropped or renamed, a type changed in a way that does not
 * keep every existing value as it was. <b>Compatible</b> changes are reported but are not drift: a
 * value-preserving widening, an added table or column (the index merely does not know it yet) and a
 * nullability change.
 */
public record Drift(List<Change> drift, List<Change> compatible) {

  /** One difference: kind (table_dropped, column_renamed, type_changed, type_widened, ...), where, from, to. */
  public record Change(String kind, String table, String column, String from, String to) {
    public String describe() {
      String where = column == null ? table : table + "." + column;
      return switch (kind) {
        case "table_dropped", "column_dropped" -> kind.replace('_', ' ') + ": " + where + (from == null ? "" : " (" + from + ")");
        case "table_added", "column_added" -> kind.replace('_', ' ') + ": " + where + (to == null ? "" : " (" + to + ")");
        case "table_renamed" -> "table renamed: " + from + " -> " + to;
        case "column_renamed" -> "column renamed: " + table + "." + from + " -> " + to;
        default -> kind.replace('_', ' ') + ": " + where + ": " + from + " -> " + to;
      };
    }

    public JsonObject toJson() {
      return new JsonObject().put("kind", kind).put("table", table).put("column", column).put("from", from)
          .put("to", to).put("text", describe());
    }
  }

  public boolean drifted() {
    return !drift.isEmpty();
  }

  public JsonObject toJson() {
    return new JsonObject().put("drifted", drifted())
        .put("differences", new JsonArray(drift.stream().map(Change::toJson).toList()))
        .put("compatible", new JsonArray(compatible.stream().map(Change::toJson).toList()));
  }

  public static Drift between(SchemaShape snapshot, SchemaShape live) {
    List<Change> drift = new ArrayList<>();
    List<Change> compatible = new ArrayList<>();
    Map<String, SchemaShape.Table> before = snapshot.byName();
    Map<String, SchemaShape.Table> after = live.byName();

    List<SchemaShape.Table> gone = before.values().stream().filter(t -> !after.containsKey(t.name())).toList();
    List<SchemaShape.Table> added = new ArrayList<>(after.values().stream().filter(t -> !before.containsKey(t.name())).toList());
    for (SchemaShape.Table t : gone) {
      SchemaShape.Table renamed = added.stream().filter(a -> sameColumns(a, t)).findFirst().orElse(null);
      if (renamed != null) {
        added.remove(renamed);
        drift.add(new Change("table_renamed", t.name(), null, t.name(), renamed.name()));
      } else {
        drift.add(new Change("table_dropped", t.name(), null, t.columns().size() + " columns", null));
      }
    }
    for (SchemaShape.Table t : added) compatible.add(new Change("table_added", t.name(), null, null, t.columns().size() + " columns"));

    for (SchemaShape.Table b : before.values()) {
      SchemaShape.Table a = after.get(b.name());
      if (a != null) columns(b, a, drift, compatible);
    }
    return new Drift(drift, compatible);
  }

  private static void columns(SchemaShape.Table before, SchemaShape.Table after, List<Change> drift, List<Change> compatible) {
    Map<String, SchemaShape.Column> b = before.byName();
    Map<String, SchemaShape.Column> a = after.byName();
    List<SchemaShape.Column> added = new ArrayList<>(a.values().stream().filter(c -> !b.containsKey(c.name())).toList());
    for (SchemaShape.Column old : b.values()) {
      SchemaShape.Column now = a.get(old.name());
      if (now == null) {
        // A rename keeps the column's position (and type): the same slot under a new name.
        SchemaShape.Column renamed = added.stream().filter(c -> c.position() == old.position()).findFirst().orElse(null);
        if (renamed != null) {
          added.remove(renamed);
          drift.add(new Change("column_renamed", before.name(), old.name(), old.name(), renamed.name()));
          compareTypes(before.name(), renamed.name(), old, renamed, drift, compatible);
        } else {
          drift.add(new Change("column_dropped", before.name(), old.name(), old.type(), null));
        }
        continue;
      }
      compareTypes(before.name(), old.name(), old, now, drift, compatible);
    }
    for (SchemaShape.Column c : added) compatible.add(new Change("column_added", after.name(), c.name(), null, c.type()));
  }

  private static void compareTypes(String table, String column, SchemaShape.Column old, SchemaShape.Column now,
      List<Change> drift, List<Change> compatible) {
    if (!sameType(old, now)) {
      boolean widening = Widening.preservesValues(old, now);
      (widening ? compatible : drift).add(new Change(widening ? "type_widened" : "type_changed", table, column, old.type(), now.type()));
    }
    if (old.nullable() != now.nullable()) {
      compatible.add(new Change("nullability_changed", table, column, old.nullable() ? "NULL" : "NOT NULL",
          now.nullable() ? "NULL" : "NOT NULL"));
    }
  }

  static boolean sameType(SchemaShape.Column x, SchemaShape.Column y) {
    return x.type().equals(y.type()) && x.base().equals(y.base());
  }

  private static boolean sameColumns(SchemaShape.Table x, SchemaShape.Table y) {
    if (x.columns().size() != y.columns().size()) return false;
    for (int i = 0; i < x.columns().size(); i++) {
      SchemaShape.Column a = x.columns().get(i);
      SchemaShape.Column b = y.columns().get(i);
      if (!a.name().equals(b.name()) || !sameType(a, b) || !Objects.equals(a.nullable(), b.nullable())) return false;
    }
    return true;
  }
}

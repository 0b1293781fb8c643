package dev.sqlagent.execution;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The tables a query may use: every relation of the database that the agent's role can read, as the
 * catalogue says when the gate starts (read as that role, so it is true of whatever database the service
 * points at), with their columns for hints. Tables the role cannot read (the query log, for one) are
 * remembered as hidden, so a query naming one is told plainly that it is not available.
 */
public final class VisibleSchema {

  public record Column(String name, String type) {}

  public record Table(String schema, String name, boolean onSearchPath, List<Column> columns) {
    /** How the table is written in a hint: bare when the search path finds it, else schema-qualified. */
    public String displayName() {
      return onSearchPath ? name : schema + "." + name;
    }
  }

  /** Relations in user schemas, with SELECT visibility and column names and types; system schemas excluded. */
  static final String CATALOGUE_QUERY = """
      SELECT n.nspname, c.relname, pg_table_is_visible(c.oid),
             has_schema_privilege(n.oid, 'USAGE') AND has_any_column_privilege(c.oid, 'SELECT'),
             coalesce((SELECT json_agg(json_build_array(a.attname, format_type(a.atttypid, a.atttypmod))
                                       ORDER BY a.attnum)
                       FROM pg_attribute a
                       WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                         AND has_column_privilege(c.oid, a.attnum, 'SELECT')), '[]'::json)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f')
        AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY 1, 2""";

  private final List<Table> tables;
  private final Map<String, Table> byQualified = new HashMap<>();
  private final Map<String, Table> byName = new HashMap<>();
  private final Set<String> hidden;
  private final long loadedAtNanos = System.nanoTime();

  private VisibleSchema(List<Table> tables, Set<String> hidden) {
    this.tables = List.copyOf(tables);
    for (Table t : tables) {
      byQualified.put(t.schema() + "." + t.name(), t);
      if (t.onSearchPath()) byName.putIfAbsent(t.name(), t);
    }
    this.hidden = Set.copyOf(hidden);
  }

  /** A schema from known tables, for tests and tools; {@code hidden} holds bare or qualified names. */
  public static VisibleSchema of(List<Table> tables, Set<String> hidden) {
    return new VisibleSchema(tables, hidden);
  }

  /** Reads the catalogue through {@code client}, which must be connected as the agent's role. */
  public static Future<VisibleSchema> load(SqlClient client) {
    return client.query(CATALOGUE_QUERY).execute().map(rows -> {
      List<Table> visible = new ArrayList<>();
      Set<String> hidden = new HashSet<>();
      for (Row r : rows) {
        String schema = r.getString(0);
        String name = r.getString(1);
        boolean onPath = Boolean.TRUE.equals(r.getBoolean(2));
        if (!Boolean.TRUE.equals(r.getBoolean(3))) {
          hidden.add(schema + "." + name);
          if (onPath) hidden.add(name);
          continue;
        }
        List<Column> columns = new ArrayList<>();
        Object json = r.getValue(4);
        JsonArray cols = json instanceof JsonArray a ? a : new JsonArray(String.valueOf(json));
        for (int i = 0; i < cols.size(); i++) {
          JsonArray c = cols.getJsonArray(i);
          columns.add(new Column(c.getString(0), c.getString(1)));
        }
        visible.add(new Table(schema, name, onPath, columns));
      }
      return new VisibleSchema(visible, hidden);
    });
  }

  public List<Table> tables() {
    return tables;
  }

  /** The table a (normalised) reference names, if the agent may read it; {@code schema} may be null. */
  public Optional<Table> resolve(String schema, String name) {
    if (schema == null) return Optional.ofNullable(byName.get(name));
    return Optional.ofNullable(byQualified.get(schema + "." + name));
  }

  /** A table that exists but is not the agent's to read. */
  public boolean isHidden(String schema, String name) {
    return schema == null ? hidden.contains(name) : hidden.contains(schema + "." + name);
  }

  public double ageSeconds() {
    return (System.nanoTime() - loadedAtNanos) / 1e9;
  }

  /** "Tables you can query: a, b, c." */
  public String tablesHint() {
    return "Tables you can query: " + tables.stream().map(Table::displayName).sorted()
        .collect(Collectors.joining(", ")) + ".";
  }

  /** The visible tables a query names, judged from its identifiers (works whether or not it parsed). */
  public List<Table> tablesMentioned(List<PgLexer.Token> tokens) {
    Set<Table> found = new LinkedHashSet<>();
    for (int i = 0; i < tokens.size(); i++) {
      PgLexer.Token t = tokens.get(i);
      if (!t.isIdentifier()) continue;
      boolean qualified = i + 2 < tokens.size() && tokens.get(i + 1).isPunct(".") && tokens.get(i + 2).isIdentifier();
      if (qualified) {
        resolve(t.name(), tokens.get(i + 2).name()).ifPresent(found::add);
      }
      resolve(null, t.name()).ifPresent(found::add);
    }
    return new ArrayList<>(found);
  }

  /** "Columns that exist: bills(bill_id integer, ...); ..." for the given tables, or null if none. */
  public String columnsHint(Collection<Table> of) {
    if (of.isEmpty()) return null;
    return "Columns that exist: " + of.stream()
        .map(t -> t.displayName() + "(" + t.columns().stream().map(c -> c.name() + " " + c.type())
            .collect(Collectors.joining(", ")) + ")")
        .collect(Collectors.joining("; ")) + ".";
  }

  /** Normalises a name as JSqlParser returns it: "Quoted" keeps its case, anything else is lower-cased. */
  static String normalise(String raw) {
    if (raw == null) return null;
    String s = raw.trim();
    if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
      return s.substring(1, s.length() - 1).replace("\"\"", "\"");
    }
    return s.toLowerCase(Locale.ROOT);
  }
}

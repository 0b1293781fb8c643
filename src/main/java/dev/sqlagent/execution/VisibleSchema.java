package dev.sqlagent.execution;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Functions;
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
 * The tables a query may use: what one catalogue snapshot holds (read as the agent's role, so it is true of
 * whatever database the service points at, or narrowed to a user's role), with their columns for hints. Relations the role
 * cannot read are remembered as hidden, so a query naming one is told plainly that it is not available.
 */
public final class VisibleSchema {

  public record Column(String name, String type) {}

  public record Table(String schema, String name, boolean onSearchPath, List<Column> columns) {
    /**
     * How the table is written in a hint, as SQL must write it: bare when the search path finds it, else
     * schema-qualified; each part quoted where PostgreSQL needs it ({@code sales."LineItems"}).
     */
    public String displayName() {
      return onSearchPath ? Identifiers.name(name) : Identifiers.name(schema) + "." + Identifiers.name(name);
    }
  }

  private final List<Table> tables;
  private final Map<String, Table> byQualified = new HashMap<>();
  private final Map<String, Table> byName = new HashMap<>();
  private final Set<String> hidden;
  private final Set<String> underlying;
  private final Functions functions;
  private final Set<String> escapeNames;

  private VisibleSchema(List<Table> tables, Set<String> hidden, Set<String> underlying, Functions functions) {
    this.tables = List.copyOf(tables);
    for (Table t : tables) {
      byQualified.put(t.schema() + "." + t.name(), t);
      if (t.onSearchPath()) byName.putIfAbsent(t.name(), t);
    }
    this.hidden = Set.copyOf(hidden);
    this.underlying = Set.copyOf(underlying);
    this.functions = functions;
    this.escapeNames = functions.escapeNames();
  }

  /** A schema from known tables, for tests and tools; {@code hidden} holds bare or qualified names. */
  public static VisibleSchema of(List<Table> tables, Set<String> hidden) {
    return new VisibleSchema(tables, hidden, Set.of(), Functions.NONE);
  }

  /** The gate's view of what discovery found. */
  public static VisibleSchema from(Catalogue catalogue) {
    List<Table> visible = catalogue.tables().stream().map(t -> new Table(t.schema(), t.relname(), t.onSearchPath(),
        t.columns().stream().map(c -> new Column(c.name(), c.type())).toList())).toList();
    return new VisibleSchema(visible, catalogue.hidden(), catalogue.underlying(), catalogue.functions());
  }

  public List<Table> tables() {
    return tables;
  }

  /** What the catalogue says of the functions a query could reach. */
  public Functions functions() {
    return functions;
  }

  /** Lower-case names of the escape-capable functions: refused wherever a plan shows one. */
  Set<String> escapeNames() {
    return escapeNames;
  }

  /** The table a (normalised) reference names, if the agent may read it; {@code schema} may be null. */
  public Optional<Table> resolve(String schema, String name) {
    if (schema == null) return Optional.ofNullable(byName.get(name));
    return Optional.ofNullable(byQualified.get(schema + "." + name));
  }

  /**
   * A relation a plan may scan although the query cannot name it: a partition of a visible partitioned table,
   * or a relation a visible view reads (PostgreSQL checks the parent's or the view's privilege only).
   */
  public boolean underlies(String schema, String name) {
    return schema != null && underlying.contains(schema + "." + name);
  }

  /** A table that exists but is not the agent's to read. */
  public boolean isHidden(String schema, String name) {
    return schema == null ? hidden.contains(name) : hidden.contains(schema + "." + name);
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
        .map(t -> t.displayName() + "(" + t.columns().stream().map(c -> Identifiers.name(c.name()) + " " + c.type())
            .collect(Collectors.joining(", ")) + ")")
        .collect(Collectors.joining("; ")) + ".";
  }

  // PostgreSQL's 42703: column "x" does not exist / column t.x does not exist / column "x" of relation "t" does not exist.
  private static final java.util.regex.Pattern MISSING_COLUMN =
      java.util.regex.Pattern.compile("column (?:\"?[\\w$]+\"?\\.)?\"?([^\"\\s.]+)\"? (?:of relation \"[^\"]+\" )?does not exist");

  /**
   * Where a missing column lives: "title is a column of books, editions: join the table that has it." for the
   * visible tables the query did not name that have a column of that name; null when none has (or no name is in the
   * message). A small model writes the column it needs on the table it has; this says which table holds it.
   */
  public String columnHomeHint(String message, Collection<Table> mentioned) {
    if (message == null) return null;
    java.util.regex.Matcher m = MISSING_COLUMN.matcher(message);
    if (!m.find()) return null;
    String column = m.group(1);
    List<String> homes = tables.stream().filter(t -> !mentioned.contains(t))
        .filter(t -> t.columns().stream().anyMatch(c -> c.name().equalsIgnoreCase(column)))
        .map(Table::displayName).sorted().limit(5).toList();
    if (homes.isEmpty()) return null;
    return Identifiers.name(column.toLowerCase(Locale.ROOT)) + " is a column of " + String.join(", ", homes)
        + ": join the table that has it.";
  }

  private static final java.util.regex.Pattern MISSING_FROM =
      java.util.regex.Pattern.compile("missing FROM-clause entry for table \"([^\"]+)\"");

  /**
   * For PostgreSQL's "missing FROM-clause entry for table x": when x is a table the agent may read, the query names its
   * columns without joining it (a small model's habit); says so. Null otherwise (an alias used out of scope).
   */
  public String missingFromHint(String message) {
    if (message == null) return null;
    java.util.regex.Matcher m = MISSING_FROM.matcher(message);
    if (!m.find()) return null;
    String name = m.group(1);
    return tables.stream().filter(t -> t.name().equalsIgnoreCase(name)).findFirst()
        .map(t -> t.displayName() + " is used but not joined: add it to FROM with a JOIN on its key, or use the alias "
            + "the query gave it.")
        .orElse(null);
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

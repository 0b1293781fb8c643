package dev.sqlagent.notes;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.notes.TableNames.QualifiedName;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The hand-written knowledge of one notes file (see {@link NotesFile} for the format): table and column
 * descriptions, business terms and conventions. Immutable and safe to share between threads.
 *
 * <p>Every lookup takes table names as the catalogue writes them ({@code customers}, {@code sales.orders},
 * {@code "Sales"."Orders"}) and matches them to the file's names with {@link TableNames}, forgiving case
 * and quoting. Run {@link #validate} against the target once, so that a name that matches nothing (or
 * more than one table) is reported instead of silently ignored.
 */
public final class Notes {

  /** No notes: every table is described by its COMMENT alone. */
  public static final Notes EMPTY = new Notes("(no notes file)", List.of(), List.of(), List.of());

  /**
   * A note on one column of a table ({@code note} null when the entry only marks it sensitive); {@code mask} is how a
   * sensitive column's values are masked ({@code redact}, {@code hash} or {@code last4}), null when it is not sensitive.
   */
  public record Column(String name, String note, int line, String mask) {
    public Column {
      Objects.requireNonNull(name);
      if (note == null && mask == null) throw new NullPointerException("a column entry without a note must be sensitive");
    }

    public Column(String name, String note, int line) {
      this(name, Objects.requireNonNull(note), line, null);
    }

    public boolean sensitive() {
      return mask != null;
    }
  }

  /** The masks a sensitive column may have; the first is the default. */
  public static final List<String> MASKS = List.of("redact", "hash", "last4");

  /**
   * A pattern of sensitive columns ({@code sensitive:} at the top of the file): {@code column}, {@code table.column}
   * or {@code schema.table.column}, each part a name or a pattern with {@code *} (any characters), matched without
   * regard to case or quotes; {@code *.email} is every column named email.
   */
  public record SensitivePattern(String pattern, String mask, int line) {
    public SensitivePattern {
      Objects.requireNonNull(pattern);
      Objects.requireNonNull(mask);
    }

    /** Whether the column {@code column} of {@code schema.relname} matches (names unquoted, as the catalogue has them). */
    public boolean matches(String schema, String relname, String column) {
      List<String> parts = parts(pattern);
      int n = parts.size();
      if (!glob(parts.get(n - 1), column)) return false;
      if (n >= 2 && !glob(parts.get(n - 2), relname)) return false;
      return n < 3 || glob(parts.get(0), schema);
    }

    /** The dot-separated parts, quotes taken off ("a.b" inside quotes stays one part). */
    static List<String> parts(String pattern) {
      List<String> out = new ArrayList<>();
      StringBuilder part = new StringBuilder();
      boolean quoted = false;
      for (int i = 0; i < pattern.length(); i++) {
        char c = pattern.charAt(i);
        if (c == '"') {
          if (quoted && i + 1 < pattern.length() && pattern.charAt(i + 1) == '"') {
            part.append('"');
            i++;
          } else {
            quoted = !quoted;
          }
        } else if (c == '.' && !quoted) {
          out.add(part.toString().strip());
          part.setLength(0);
        } else {
          part.append(c);
        }
      }
      out.add(part.toString().strip());
      return out;
    }

    private static boolean glob(String pattern, String name) {
      if (name == null) return false;
      StringBuilder re = new StringBuilder();
      String[] pieces = pattern.toLowerCase(java.util.Locale.ROOT).split("\\*", -1);
      for (int i = 0; i < pieces.length; i++) {
        if (i > 0) re.append(".*");
        re.append(java.util.regex.Pattern.quote(pieces[i]));
      }
      return name.toLowerCase(java.util.Locale.ROOT).matches(re.toString());
    }
  }

  /**
   * A table's entry: its description (null when the entry only describes columns), column notes, and the
   * dates its rows cover (null when not written down).
   */
  public record Table(String name, String description, List<Column> columns, DateRange dates, int line) {
    public Table {
      Objects.requireNonNull(name);
      columns = List.copyOf(columns);
    }

    public Table(String name, String description, List<Column> columns, int line) {
      this(name, description, columns, null, line);
    }
  }

  /** A table named by a term or a convention, with the line it is written on. */
  public record TableRef(String name, int line) {
    public TableRef {
      Objects.requireNonNull(name);
    }
  }

  /** A business term; it is offered when any of its tables is in the prompt, or always if it has none. */
  public record Term(String term, String means, List<TableRef> tables, int line) {
    public Term {
      Objects.requireNonNull(term);
      Objects.requireNonNull(means);
      tables = List.copyOf(tables);
    }

    /** {@code "active customer" means: a customer with an invoice in the last 12 months}. */
    public String render() {
      return "\"" + term + "\" means: " + means;
    }
  }

  /** A convention (a pointer or a rule); offered when any of its tables is in the prompt, or always. */
  public record Convention(List<TableRef> tables, String text, int line) {
    public Convention {
      Objects.requireNonNull(text);
      tables = List.copyOf(tables);
    }
  }

  /**
   * A governed metric: a named measure with the one SQL expression that computes it, the tables it needs, the
   * filters that always go with it and the terms that also name it ({@code sales}, {@code turnover} for revenue).
   * A question that names it is given this definition as the one to use.
   */
  public record Metric(String name, String sql, List<TableRef> tables, List<String> filters, String description,
      List<String> terms, int line) {
    public Metric {
      Objects.requireNonNull(name);
      Objects.requireNonNull(sql);
      tables = List.copyOf(tables);
      filters = List.copyOf(filters);
      terms = List.copyOf(terms);
    }

    /** Its name and every term, each as written. */
    public List<String> words() {
      List<String> out = new ArrayList<>(terms.size() + 1);
      out.add(name);
      out.addAll(terms);
      return out;
    }

    /**
     * A statement that reads nothing but makes PostgreSQL check the definition: its expression over its tables
     * ({@code fromTables}, as the catalogue names them), with its filters and {@code false}, so the plan is empty
     * whatever the tables hold.
     */
    public String probe(List<String> fromTables) {
      StringBuilder b = new StringBuilder("SELECT ").append(sql).append(" FROM ").append(String.join(", ", fromTables))
          .append(" WHERE ");
      for (String f : filters) b.append('(').append(f).append(") AND ");
      return b.append("false").toString();
    }

    /** Whether {@code question} uses its name or one of its terms (whole words, any case, punctuation ignored). */
    public boolean namedIn(String question) {
      String q = QuestionWords.normalise(question);
      return words().stream().anyMatch(w -> QuestionWords.pattern(w).matcher(q).find());
    }
  }

  private final String source;
  private final List<Table> tables;
  private final List<QualifiedName> tableNames;
  private final List<Term> terms;
  private final List<Convention> conventions;
  private final List<String> allowFunctions;
  private final List<SensitivePattern> sensitive;
  private final List<Metric> metrics;

  Notes(String source, List<Table> tables, List<Term> terms, List<Convention> conventions) {
    this(source, tables, terms, conventions, List.of());
  }

  Notes(String source, List<Table> tables, List<Term> terms, List<Convention> conventions, List<String> allowFunctions) {
    this(source, tables, terms, conventions, allowFunctions, List.of());
  }

  /** The names must parse as SQL table names (the loader has checked them). */
  Notes(String source, List<Table> tables, List<Term> terms, List<Convention> conventions, List<String> allowFunctions,
        List<SensitivePattern> sensitive) {
    this(source, tables, terms, conventions, allowFunctions, sensitive, List.of());
  }

  Notes(String source, List<Table> tables, List<Term> terms, List<Convention> conventions, List<String> allowFunctions,
        List<SensitivePattern> sensitive, List<Metric> metrics) {
    this.metrics = List.copyOf(metrics);
    this.sensitive = List.copyOf(sensitive);
    this.source = Objects.requireNonNull(source);
    this.tables = List.copyOf(tables);
    this.tableNames = this.tables.stream().map(t -> QualifiedName.parse(t.name())).toList();
    this.terms = List.copyOf(terms);
    this.conventions = List.copyOf(conventions);
    this.allowFunctions = List.copyOf(allowFunctions);
  }

  /** User functions (schema.name, as written) a query may call: the file's {@code allow_functions}. */
  public List<String> allowFunctions() {
    return allowFunctions;
  }

  /** The file's {@code sensitive:} patterns, in file order (columns marked in {@code tables} are not among them). */
  public List<SensitivePattern> sensitivePatterns() {
    return sensitive;
  }

  /** Whether the file marks any column sensitive, by name or by pattern. */
  public boolean marksSensitive() {
    return !sensitive.isEmpty() || tables.stream().anyMatch(t -> t.columns().stream().anyMatch(Column::sensitive));
  }

  /**
   * How the column {@code column} of {@code schema.relname} (unquoted, as the catalogue has them) is masked when the
   * file marks it sensitive: its own entry under {@code tables} first, then the first {@code sensitive:} pattern that
   * matches it. Empty: not sensitive.
   */
  public Optional<String> sensitiveMask(String schema, String relname, String column) {
    String ref = Identifiers.qualified(schema, relname);
    Optional<String> own = entryFor(ref).flatMap(t -> {
      for (Column c : t.columns()) {
        if (c.sensitive() && TableNames.columnRank(c.name(), column) >= 0) return Optional.of(c.mask());
      }
      return Optional.empty();
    });
    if (own.isPresent()) return own;
    for (SensitivePattern p : sensitive) {
      if (p.matches(schema, relname, column)) return Optional.of(p.mask());
    }
    return Optional.empty();
  }

  /** The file these notes came from, as given. */
  public String source() {
    return source;
  }

  public boolean isEmpty() {
    return tables.isEmpty() && terms.isEmpty() && conventions.isEmpty() && sensitive.isEmpty() && metrics.isEmpty();
  }

  /** The governed metrics in file order. */
  public List<Metric> metrics() {
    return metrics;
  }

  /** The metrics {@code question} names by their name or one of their terms, in file order. */
  public List<Metric> metricsIn(String question) {
    if (metrics.isEmpty() || question == null) return List.of();
    return metrics.stream().filter(m -> m.namedIn(question)).toList();
  }

  /** The table entries in file order. */
  public List<Table> tables() {
    return tables;
  }

  /** The business terms in file order. */
  public List<Term> terms() {
    return terms;
  }

  /** The conventions in file order. */
  public List<Convention> conventions() {
    return conventions;
  }

  /** The description written for table {@code ref} (a catalogue name), if any. */
  public Optional<String> tableNote(String ref) {
    return entryFor(ref).map(Table::description);
  }

  /** The dates the rows of table {@code ref} (a catalogue name) cover, if the file says. */
  public Optional<DateRange> tableDates(String ref) {
    return entryFor(ref).map(Table::dates);
  }

  /** The note written for column {@code column} of table {@code ref}, if any. */
  public Optional<String> columnNote(String ref, String column) {
    return entryFor(ref).flatMap(t -> {
      // Which of the notes' column names stands for this column: the reverse of matchColumn.
      Column best = null;
      int bestRank = Integer.MAX_VALUE;
      for (Column c : t.columns()) {
        int r = TableNames.columnRank(c.name(), column);
        if (r >= 0 && r < bestRank) {
          best = c;
          bestRank = r;
        }
      }
      return Optional.ofNullable(best).map(Column::note).filter(n -> !n.isBlank());
    });
  }

  /** The terms offered for a prompt that shows {@code tableRefs}, rendered, in file order. */
  public List<String> termsFor(Collection<String> tableRefs) {
    List<QualifiedName> refs = parseAll(tableRefs);
    return terms.stream().filter(t -> applies(t.tables(), refs)).map(Term::render).toList();
  }

  /** The conventions offered for a prompt that shows {@code tableRefs}, in file order. */
  public List<String> conventionsFor(Collection<String> tableRefs) {
    List<QualifiedName> refs = parseAll(tableRefs);
    return conventions.stream().filter(c -> applies(c.tables(), refs)).map(Convention::text).toList();
  }

  /**
   * Checks every table and column the file names against the target. Each problem is one message with
   * the file and line, e.g. {@code notes.yaml line 12: unknown table 'custmers' (did you mean customers?)}.
   * An empty list means every name matched exactly one table (or column).
   */
  public List<String> validate(KnownTables known) {
    List<String> names = known.names();
    List<String> problems = new ArrayList<>();
    Map<String, Integer> described = new HashMap<>();
    for (Table t : tables) {
      Optional<String> table = check(t.name(), t.line(), "", names, problems);
      if (table.isEmpty()) continue;
      Integer first = described.putIfAbsent(table.get(), t.line());
      if (first != null) {
        problems.add(at(t.line()) + "table " + table.get() + " is already described at line " + first);
      }
      Optional<Set<String>> columns = known.columns(table.get());
      if (columns.isEmpty()) continue;
      for (Column c : t.columns()) {
        if (TableNames.matchColumn(c.name(), columns.get()).isPresent()) continue;
        problems.add(at(c.line()) + "table " + table.get() + " has no column '" + c.name() + "'"
            + TableNames.suggestColumn(c.name(), columns.get()).map(s -> " (did you mean " + s + "?)").orElse(""));
      }
    }
    for (Term term : terms) {
      for (TableRef r : term.tables()) check(r.name(), r.line(), " in term '" + term.term() + "'", names, problems);
    }
    for (Convention c : conventions) {
      for (TableRef r : c.tables()) check(r.name(), r.line(), " in a convention", names, problems);
    }
    for (Metric m : metrics) {
      for (TableRef r : m.tables()) check(r.name(), r.line(), " in metric '" + m.name() + "'", names, problems);
    }
    return problems;
  }

  private Optional<String> check(String name, int line, String where, List<String> names, List<String> problems) {
    TableNames.Match m = TableNames.match(name, names);
    if (m instanceof TableNames.Found f) return Optional.of(f.name());
    if (m instanceof TableNames.Ambiguous a) {
      problems.add(at(line) + "table '" + name + "'" + where + " could be any of " + String.join(", ", a.names())
          + ": write it as the catalogue does (schema-qualified, quoted)");
    } else if (m instanceof TableNames.NotFound nf) {
      problems.add(at(line) + "unknown table '" + name + "'" + where
          + nf.suggestion().map(s -> " (did you mean " + s + "?)").orElse(""));
    }
    return Optional.empty();
  }

  private String at(int line) {
    return source + " line " + line + ": ";
  }

  private Optional<Table> entryFor(String ref) {
    Optional<QualifiedName> r = QualifiedName.tryParse(ref);
    if (r.isEmpty()) return Optional.empty();
    Table best = null;
    int bestScore = Integer.MAX_VALUE;
    for (int i = 0; i < tables.size(); i++) {
      int s = TableNames.score(tableNames.get(i), r.get());
      Table t = tables.get(i);
      if (s >= 0 && s < bestScore && (t.description() != null || !t.columns().isEmpty() || t.dates() != null)) {
        best = tables.get(i);
        bestScore = s;
      }
    }
    return Optional.ofNullable(best);
  }

  private static boolean applies(List<TableRef> tables, List<QualifiedName> refs) {
    if (tables.isEmpty()) return true;
    for (TableRef t : tables) {
      Optional<QualifiedName> n = QualifiedName.tryParse(t.name());
      if (n.isEmpty()) continue;
      for (QualifiedName r : refs) {
        if (TableNames.score(n.get(), r) >= 0) return true;
      }
    }
    return false;
  }

  private static List<QualifiedName> parseAll(Collection<String> refs) {
    List<QualifiedName> out = new ArrayList<>();
    for (String r : refs) QualifiedName.tryParse(r).ifPresent(out::add);
    return out;
  }

  @Override
  public String toString() {
    return "Notes[" + source + ": " + tables.size() + " tables, " + terms.size() + " terms, "
        + conventions.size() + " conventions, " + metrics.size() + " metrics]";
  }
}

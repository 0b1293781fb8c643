package dev.sqlagent.notes;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads a notes file ({@code SQLAGENT_NOTES}): what a person knows about their database that its
 * COMMENTs do not say. YAML, or JSON of the same shape:
 *
 * <pre>{@code
 * tables:
 *   customers:                      # a table's name as written in SQL: customers, sales.orders, '"Sales"."Orders"'
 *     description: People who bought at least once.
 *     columns:
 *       status: "Upper case: ACTIVE, CHURNED"
 *   sales.orders: One row per order.  # shorthand: just the description
 *   invoices_legacy:
 *     description: Invoices of the old system.
 *     dates: {from: 2019, to: 2023-12-31}  # what the rows cover: a year, month or day at each end; either may be left out
 * terms:                            # business terms: definitions the model should follow
 *   - term: active customer
 *     means: a customer with an invoice in the last 12 months
 *     tables: [customers, invoices]  # optional: offered when any of these tables is in the prompt; none = always
 * conventions:                      # pointers and rules, tied to tables (none = always)
 *   - tables: [invoices, invoices_legacy]
 *     text: invoices starts on 2024-01-01; use invoices_legacy before that (issued_on, total_eur).
 * }</pre>
 *
 * <ul>
 *   <li>Every top-level key is optional; an empty file is no notes. Unknown keys are errors, so a typo
 *       never silently drops a note.
 *   <li>{@code tables}: a map from table name to either a description (text) or a map with
 *       {@code description}, {@code columns} (a map from column name to its note) and {@code dates} (the
 *       dates its rows cover: {@code from} and/or {@code to}). Table choice lowers a table whose dates miss
 *       every period a question names.
 *   <li>{@code terms}: a list of maps with {@code term} and {@code means} (required) and {@code tables}; a
 *       question that uses a term raises its tables in table choice.
 *   <li>{@code conventions}: a list of maps with {@code text} (required) and {@code tables}.
 *   <li>{@code metrics}: governed metrics, a list of maps with {@code name}, {@code sql} (one expression) and
 *       {@code tables} (required), {@code filters}, {@code description} and {@code terms}; a question that uses a
 *       metric's name or term is given its definition as the one to use.
 *   <li>{@code tables} of a term or convention is a list of table names, or one name.
 *   <li>Table names match the catalogue's forgiving case and quoting (see {@link TableNames}); check them
 *       with {@link Notes#validate}. In YAML, a name with SQL quotes goes inside single quotes
 *       ({@code '"Sales"."Orders"':}); in JSON its quotes are escaped.
 * </ul>
 *
 * <p>The format is chosen by the extension ({@code .json}, {@code .yaml}, {@code .yml}); any other
 * file is JSON when it starts with <code>{</code>, else YAML. Any error is a {@link NotesException} naming
 * the file, the line and the problem. The whole format, with an example, is in {@code docs/notes-file.md}.
 */
public final class NotesFile {

  /** The largest notes file read, so a wrong path (a dump, a log) fails fast instead of eating memory. */
  static final long MAX_BYTES = 4L * 1024 * 1024;

  private static final int MAX_DEPTH = 32;

  private NotesFile() {}

  /** Which syntax a notes file is written in. */
  public enum Format { YAML, JSON }

  /** Reads and checks the notes file at {@code path}. Blocking: call it off the event loop. */
  public static Notes load(Path path) {
    String source = path.toString();
    String text = read(path, source);
    return parse(source, text, formatOf(path, text));
  }

  /** Reads a notes file from the classpath (e.g. the demo's). Blocking. */
  public static Notes loadResource(String resource) {
    try (InputStream in = NotesFile.class.getResourceAsStream(resource)) {
      if (in == null) throw new NotesException(resource, 0, "no such resource");
      String text = decode(in.readAllBytes(), resource);
      return parse(resource, text, formatOf(Path.of(resource), text));
    } catch (IOException e) {
      throw new NotesException(resource, 0, "cannot be read");
    }
  }

  /** Parses notes from {@code text}; {@code source} names it in messages. */
  public static Notes parse(String source, String text, Format format) {
    Node root = format == Format.JSON ? JsonReader.read(source, text) : YamlReader.read(source, text);
    return new Interpreter(source).notes(root);
  }

  /** The format by extension, else by content. */
  public static Format formatOf(Path path, String text) {
    Path name = path.getFileName();
    String file = name == null ? "" : name.toString().toLowerCase(Locale.ROOT);
    if (file.endsWith(".json")) return Format.JSON;
    if (file.endsWith(".yaml") || file.endsWith(".yml")) return Format.YAML;
    String t = text.startsWith("\uFEFF") ? text.substring(1) : text;
    return t.stripLeading().startsWith("{") ? Format.JSON : Format.YAML;
  }

  private static String read(Path path, String source) {
    try {
      if (Files.isDirectory(path)) throw new NotesException(source, 0, "is a directory, not a notes file");
      if (Files.size(path) > MAX_BYTES) {
        throw new NotesException(source, 0, "is larger than " + MAX_BYTES / (1024 * 1024) + " MB: is it the right file?");
      }
      return decode(Files.readAllBytes(path), source);
    } catch (NoSuchFileException e) {
      throw new NotesException(source, 0, "no such file");
    } catch (AccessDeniedException e) {
      throw new NotesException(source, 0, "cannot be read: permission denied");
    } catch (IOException e) {
      throw new NotesException(source, 0, "cannot be read" + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }
  }

  private static String decode(byte[] bytes, String source) {
    try {
      String s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes))
          .toString();
      return s.startsWith("\uFEFF") ? s.substring(1) : s;
    } catch (CharacterCodingException e) {
      throw new NotesException(source, 0, "is not UTF-8 text");
    }
  }

  // -- one tree for both syntaxes, every node with its line ---------------------------------------------

  sealed interface Node permits MapNode, ListNode, Scalar {
    int line();
  }

  record Entry(String key, int line, Node value) {}

  record MapNode(int line, List<Entry> entries) implements Node {}

  record ListNode(int line, List<Node> items) implements Node {}

  /** {@code value} is null for YAML's null (an empty value, {@code ~}) and JSON's {@code null}. */
  record Scalar(int line, String value) implements Node {}

  static final class YamlReader {

    static Node read(String source, String text) {
      LoaderOptions options = new LoaderOptions();
      options.setAllowRecursiveKeys(false);
      options.setMaxAliasesForCollections(50);
      options.setCodePointLimit((int) MAX_BYTES);
      Yaml yaml = new Yaml(new SafeConstructor(options));
      org.yaml.snakeyaml.nodes.Node root;
      try {
        root = yaml.compose(new StringReader(text));
      } catch (MarkedYAMLException e) {
        Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        int line = mark == null ? 0 : mark.getLine() + 1;
        String problem = e.getProblem() == null ? e.getContext()
            : e.getContext() == null ? e.getProblem()
            : plain(e.getContext()) + ": " + e.getProblem();
        throw new NotesException(source, line, "not valid YAML: " + plain(problem) + quotingHint(text, line));
      } catch (YAMLException e) {
        throw new NotesException(source, 0, "not valid YAML: " + plain(e.getMessage()));
      }
      return root == null ? null : convert(source, root, 0);
    }

    private static Node convert(String source, org.yaml.snakeyaml.nodes.Node node, int depth) {
      int line = node.getStartMark().getLine() + 1;
      if (depth > MAX_DEPTH) throw new NotesException(source, line, "nested too deeply");
      if (node instanceof ScalarNode s) {
        return new Scalar(line, s.getTag().equals(Tag.NULL) ? null : s.getValue());
      }
      if (node instanceof SequenceNode s) {
        List<Node> items = new ArrayList<>();
        for (org.yaml.snakeyaml.nodes.Node item : s.getValue()) items.add(convert(source, item, depth + 1));
        return new ListNode(line, items);
      }
      MappingNode m = (MappingNode) node;
      List<Entry> entries = new ArrayList<>();
      for (NodeTuple t : m.getValue()) {
        org.yaml.snakeyaml.nodes.Node k = t.getKeyNode();
        int keyLine = k.getStartMark().getLine() + 1;
        if (!(k instanceof ScalarNode ks) || ks.getTag().equals(Tag.NULL)) {
          throw new NotesException(source, keyLine, "a key must be a name, not a list, a map or nothing");
        }
        entries.add(new Entry(ks.getValue(), keyLine, convert(source, t.getValueNode(), depth + 1)));
      }
      return new MapNode(line, entries);
    }

    private static final java.util.regex.Pattern SQL_QUOTED_KEY = java.util.regex.Pattern.compile("^\\s*\"[^\"]*\"\\s*\\.");

    /** The usual cause of a YAML error on a line that starts with "Schema"."Table": YAML took the quotes. */
    private static String quotingHint(String text, int line) {
      if (line < 1) return "";
      String l = text.lines().skip(line - 1).findFirst().orElse("");
      if (!SQL_QUOTED_KEY.matcher(l).find()) return "";
      return " (a name with SQL quotes must be in single quotes in YAML: '" + l.strip().replaceAll(":.*$", "") + "':)";
    }

    /** A parser's problem text, first line only, for a person. */
    private static String plain(String problem) {
      if (problem == null || problem.isBlank()) return "cannot be parsed";
      String first = problem.strip().lines().findFirst().orElse("").strip();
      return first.isEmpty() ? "cannot be parsed" : first;
    }
  }

  static final class JsonReader {

    private static final JsonFactory FACTORY = new JsonFactory();

    static Node read(String source, String text) {
      try (JsonParser p = FACTORY.createParser(text)) {
        JsonToken first = p.nextToken();
        if (first == null) return null;
        Node root = value(source, p, 0);
        if (p.nextToken() != null) {
          throw new NotesException(source, line(p), "not valid JSON: more after the end of the document");
        }
        return root;
      } catch (JsonProcessingException e) {
        int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
        throw new NotesException(source, Math.max(line, 0), "not valid JSON: " + plain(e.getOriginalMessage()));
      } catch (IOException e) {
        throw new NotesException(source, 0, "not valid JSON");
      }
    }

    private static Node value(String source, JsonParser p, int depth) throws IOException {
      int line = line(p);
      if (depth > MAX_DEPTH) throw new NotesException(source, line, "nested too deeply");
      JsonToken t = p.currentToken();
      switch (t) {
        case START_OBJECT -> {
          List<Entry> entries = new ArrayList<>();
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = p.currentName();
            int keyLine = line(p);
            p.nextToken();
            entries.add(new Entry(key, keyLine, value(source, p, depth + 1)));
          }
          return new MapNode(line, entries);
        }
        case START_ARRAY -> {
          List<Node> items = new ArrayList<>();
          while (p.nextToken() != JsonToken.END_ARRAY) items.add(value(source, p, depth + 1));
          return new ListNode(line, items);
        }
        case VALUE_NULL -> {
          return new Scalar(line, null);
        }
        default -> {
          return new Scalar(line, p.getText());
        }
      }
    }

    private static int line(JsonParser p) {
      return p.currentTokenLocation().getLineNr();
    }

    /**
     * Jackson's message without its source excerpt and the Java details it adds in parentheses
     * ("(code 125)", "(start marker at [Source: ...])"), so a person sees only what is wrong.
     */
    static String plain(String message) {
      if (message == null || message.isBlank()) return "cannot be parsed";
      String m = message.strip().lines().findFirst().orElse("");
      int source = m.indexOf(" (start marker at");
      if (source >= 0) m = m.substring(0, source);
      m = m.replaceAll(" \\(code \\d+\\)", "");
      m = m.replaceAll(" \\(for [^)]*\\)", "");
      m = m.replaceAll(" \\(JSON String, Number[^)]*\\)", " a value (text, number, list, map, true, false or null)");
      m = m.replace("close marker for Object", "a closing }").replace("close marker for Array", "a closing ]");
      m = m.replace("Unexpected end-of-input", "the file ends too early");
      return m.strip();
    }
  }

  // -- from the tree to Notes ----------------------------------------------------------------------------

  private static final class Interpreter {

    private final String source;

    Interpreter(String source) {
      this.source = source;
    }

    Notes notes(Node root) {
      if (root == null) return new Notes(source, List.of(), List.of(), List.of(), List.of());
      MapNode top = map(root, "the file", "a map with tables, terms and conventions");
      Map<String, Entry> keys = keys(top, Set.of("tables", "terms", "conventions", "allow_functions", "sensitive",
          "metrics"), "at the top of the file");
      List<Notes.Table> tables = keys.containsKey("tables") ? tables(keys.get("tables").value()) : List.of();
      List<Notes.Term> terms = keys.containsKey("terms") ? terms(keys.get("terms").value()) : List.of();
      List<Notes.Convention> conventions =
          keys.containsKey("conventions") ? conventions(keys.get("conventions").value()) : List.of();
      List<String> allow = keys.containsKey("allow_functions") ? names(keys.get("allow_functions"), "allow_functions") : List.of();
      List<Notes.SensitivePattern> sensitive = keys.containsKey("sensitive") ? sensitive(keys.get("sensitive").value()) : List.of();
      List<Notes.Metric> metrics = keys.containsKey("metrics") ? metrics(keys.get("metrics").value()) : List.of();
      return new Notes(source, tables, terms, conventions, allow, sensitive, metrics);
    }

    /**
     * {@code metrics:} a list of maps with {@code name}, {@code sql} and {@code tables} (required), {@code filters},
     * {@code description} and {@code terms}. A name or term may stand for one metric only.
     */
    private List<Notes.Metric> metrics(Node node) {
      if (isNull(node)) return List.of();
      ListNode l = list(node, "'metrics'", "a list of metrics, each with name, sql and tables");
      List<Notes.Metric> out = new ArrayList<>();
      Map<String, String> named = new HashMap<>();
      for (Node item : l.items()) {
        MapNode m = map(item, "a metric", "a map with name, sql, tables, filters, description and terms");
        Map<String, Entry> keys = keys(m, Set.of("name", "sql", "tables", "filters", "description", "terms"),
            "in a metric");
        if (!keys.containsKey("name")) throw error(m.line(), "a metric has no 'name' (what people call it: revenue)");
        String name = text(keys.get("name").value(), "'name' of a metric");
        String what = "metric '" + name + "'";
        if (!keys.containsKey("sql")) {
          throw error(m.line(), what + " has no 'sql' (the expression that computes it: sum(orders.total))");
        }
        String sql = text(keys.get("sql").value(), "'sql' of " + what);
        if (sql.contains(";")) throw error(keys.get("sql").line(), "'sql' of " + what + " must be one expression, without ';'");
        List<Notes.TableRef> tables = tableRefs(keys.get("tables"), what);
        if (tables.isEmpty()) throw error(m.line(), what + " has no 'tables' (the tables its sql and filters read)");
        List<String> filters = texts(keys.get("filters"), "'filters' of " + what, "SQL conditions");
        for (String f : filters) {
          if (f.contains(";")) throw error(keys.get("filters").line(), "a filter of " + what + " must be one condition, without ';'");
        }
        String description = keys.containsKey("description")
            ? text(keys.get("description").value(), "'description' of " + what) : null;
        List<String> terms = texts(keys.get("terms"), "'terms' of " + what, "words or phrases");
        for (String word : new Notes.Metric(name, sql, tables, filters, description, terms, m.line()).words()) {
          String key = QuestionWords.normalise(word).strip();
          String first = named.putIfAbsent(key, name);
          if (first != null) {
            throw error(m.line(), "'" + word + "' of " + what + " already names metric '" + first + "'");
          }
        }
        out.add(new Notes.Metric(name, sql, tables, filters, description, terms, m.line()));
      }
      return out;
    }

    /** A list of non-empty texts, or one text; nothing when the entry is absent or empty. */
    private List<String> texts(Entry entry, String what, String expected) {
      if (entry == null || isNull(entry.value())) return List.of();
      Node v = entry.value();
      List<Node> items = v instanceof ListNode l ? l.items() : List.of(v);
      List<String> out = new ArrayList<>();
      for (Node item : items) {
        if (!(item instanceof Scalar)) throw error(item.line(), what + " must be a list of " + expected + "; found " + describe(item));
        out.add(text(item, what));
      }
      return out;
    }

    /**
     * {@code sensitive:} a list whose items are a pattern ({@code "*.email"}) or a map with {@code columns} (a pattern or
     * a list of them) and {@code mask}.
     */
    private List<Notes.SensitivePattern> sensitive(Node node) {
      if (isNull(node)) return List.of();
      ListNode l = node instanceof ListNode ln ? ln : new ListNode(node.line(), List.of(node));
      List<Notes.SensitivePattern> out = new ArrayList<>();
      for (Node item : l.items()) {
        if (item instanceof Scalar s) {
          out.add(new Notes.SensitivePattern(pattern(s), Notes.MASKS.get(0), s.line()));
          continue;
        }
        MapNode m = map(item, "an entry of 'sensitive'", "a pattern such as '*.email', or a map with columns and mask");
        Map<String, Entry> keys = keys(m, Set.of("columns", "mask"), "in an entry of 'sensitive'");
        if (!keys.containsKey("columns")) throw error(m.line(), "an entry of 'sensitive' has no 'columns' (a pattern such as '*.email')");
        String mask = keys.containsKey("mask") ? mask(keys.get("mask").value(), "an entry of 'sensitive'") : Notes.MASKS.get(0);
        Node cols = keys.get("columns").value();
        List<Node> items = cols instanceof ListNode cl ? cl.items() : List.of(cols);
        for (Node c : items) {
          if (!(c instanceof Scalar cs)) throw error(c.line(), "'columns' of 'sensitive' must be patterns; found " + describe(c));
          out.add(new Notes.SensitivePattern(pattern(cs), mask, cs.line()));
        }
      }
      return out;
    }

    private String pattern(Scalar s) {
      String p = s.value() == null ? "" : s.value().strip();
      List<String> parts = Notes.SensitivePattern.parts(p);
      if (p.isEmpty() || parts.size() > 3 || parts.stream().anyMatch(String::isEmpty)) {
        throw error(s.line(), "'" + p + "' in 'sensitive' is not a column pattern: write column, table.column or "
            + "schema.table.column, each part a name or a pattern with * ('*.email', 'hr.*.salary')");
      }
      return p;
    }

    private String mask(Node node, String where) {
      String m = text(node, "'mask' of " + where).strip().toLowerCase(Locale.ROOT);
      if (!Notes.MASKS.contains(m)) {
        throw error(node.line(), "'mask' of " + where + " must be one of " + String.join(", ", Notes.MASKS) + "; found '" + m + "'");
      }
      return m;
    }

    /** A column's entry: its note (text), or a map with note, sensitive and mask. */
    private Notes.Column column(Entry c, String table) {
      String what = "column " + c.key() + " of table " + table;
      if (!(c.value() instanceof MapNode m)) return new Notes.Column(c.key().strip(), text(c.value(), "the note of " + what), c.line());
      Map<String, Entry> keys = keys(m, Set.of("note", "sensitive", "mask"), "in " + what);
      String note = keys.containsKey("note") ? text(keys.get("note").value(), "'note' of " + what) : null;
      boolean sensitive = false;
      if (keys.containsKey("sensitive")) {
        Node v = keys.get("sensitive").value();
        String t = v instanceof Scalar sv && sv.value() != null ? sv.value().strip().toLowerCase(Locale.ROOT) : "";
        if (!t.equals("true") && !t.equals("false")) throw error(v.line(), "'sensitive' of " + what + " must be true or false");
        sensitive = t.equals("true");
      }
      if (!sensitive && keys.containsKey("mask")) {
        throw error(keys.get("mask").line(), "'mask' of " + what + " needs 'sensitive: true'");
      }
      if (!sensitive && note == null) throw error(m.line(), what + " has neither a note nor 'sensitive: true'");
      String mask = !sensitive ? null : keys.containsKey("mask") ? mask(keys.get("mask").value(), what) : Notes.MASKS.get(0);
      return new Notes.Column(c.key().strip(), note, c.line(), mask);
    }

    /** A list of names (or one name), each a non-empty text. */
    private List<String> names(Entry entry, String what) {
      if (isNull(entry.value())) return List.of();
      Node v = entry.value();
      List<Node> items = v instanceof ListNode l ? l.items() : List.of(v);
      List<String> out = new ArrayList<>();
      for (Node item : items) {
        if (!(item instanceof Scalar s) || s.value() == null || s.value().isBlank()) {
          throw error(item.line(), "'" + what + "' must be a list of schema.function names; found " + describe(item));
        }
        out.add(s.value().strip());
      }
      return out;
    }

    private List<Notes.Table> tables(Node node) {
      if (isNull(node)) return List.of();
      MapNode m = map(node, "'tables'", "a map from table name to its notes");
      noDuplicates(m);
      List<Notes.Table> out = new ArrayList<>();
      for (Entry e : m.entries()) {
        String name = tableName(e.key(), e.line());
        if (e.value() instanceof Scalar s) {
          out.add(new Notes.Table(name, text(s, "the description of table " + name), List.of(), e.line()));
          continue;
        }
        MapNode t = map(e.value(), "table " + name, "a description, or a map with description, columns and dates");
        Map<String, Entry> keys = keys(t, Set.of("description", "columns", "dates"), "in table " + name);
        String description = keys.containsKey("description")
            ? text(keys.get("description").value(), "'description' of table " + name) : null;
        List<Notes.Column> columns = new ArrayList<>();
        if (keys.containsKey("columns") && !isNull(keys.get("columns").value())) {
          MapNode cm = map(keys.get("columns").value(), "'columns' of table " + name,
              "a map from column name to its note");
          noDuplicates(cm);
          for (Entry c : cm.entries()) {
            if (c.key().isBlank()) throw error(c.line(), "a column name is empty in table " + name);
            columns.add(column(c, name));
          }
        }
        DateRange dates = keys.containsKey("dates") ? dates(keys.get("dates").value(), name) : null;
        if (description == null && columns.isEmpty() && dates == null) {
          throw error(e.line(), "table " + name + " has neither a description, columns nor dates");
        }
        out.add(new Notes.Table(name, description, columns, dates, e.line()));
      }
      return out;
    }

    /** {@code dates: {from: 2023-01-01, to: 2024-12-31}}: either end may be left out (open), each a year, month or day. */
    private DateRange dates(Node node, String table) {
      String what = "'dates' of table " + table;
      MapNode m = map(node, what, "a map with from and/or to (a year 2024, a month 2024-03 or a day 2024-03-31)");
      Map<String, Entry> keys = keys(m, Set.of("from", "to"), "in " + what);
      if (keys.isEmpty()) throw error(m.line(), what + " needs from, to or both");
      DateRange from = keys.containsKey("from") ? period(keys.get("from"), what) : null;
      DateRange to = keys.containsKey("to") ? period(keys.get("to"), what) : null;
      try {
        return new DateRange(from == null ? null : from.from(), to == null ? null : to.to());
      } catch (IllegalArgumentException e) {
        throw error(m.line(), what + " " + e.getMessage());
      }
    }

    private DateRange period(Entry e, String what) {
      String text = text(e.value(), "'" + e.key() + "' of " + what);
      return DateRange.period(text).orElseThrow(() -> error(e.line(), "'" + e.key() + "' of " + what
          + " must be a year (2024), a month (2024-03) or a day (2024-03-31); found '" + text + "'"));
    }

    private List<Notes.Term> terms(Node node) {
      if (isNull(node)) return List.of();
      ListNode l = list(node, "'terms'", "a list of terms, each with term and means");
      List<Notes.Term> out = new ArrayList<>();
      for (Node item : l.items()) {
        MapNode m = map(item, "a term", "a map with term, means and tables");
        Map<String, Entry> keys = keys(m, Set.of("term", "means", "tables"), "in a term");
        if (!keys.containsKey("term")) throw error(m.line(), "a term has no 'term' (the word or phrase it defines)");
        String term = text(keys.get("term").value(), "'term'");
        if (!keys.containsKey("means")) throw error(m.line(), "term '" + term + "' has no 'means'");
        String means = text(keys.get("means").value(), "'means' of term '" + term + "'");
        out.add(new Notes.Term(term, means, tableRefs(keys.get("tables"), "term '" + term + "'"), m.line()));
      }
      return out;
    }

    private List<Notes.Convention> conventions(Node node) {
      if (isNull(node)) return List.of();
      ListNode l = list(node, "'conventions'", "a list of conventions, each with text and tables");
      List<Notes.Convention> out = new ArrayList<>();
      for (Node item : l.items()) {
        MapNode m = map(item, "a convention", "a map with text and tables");
        Map<String, Entry> keys = keys(m, Set.of("text", "tables"), "in a convention");
        if (!keys.containsKey("text")) throw error(m.line(), "a convention has no 'text'");
        String text = text(keys.get("text").value(), "'text' of a convention");
        out.add(new Notes.Convention(tableRefs(keys.get("tables"), "a convention"), text, m.line()));
      }
      return out;
    }

    private List<Notes.TableRef> tableRefs(Entry entry, String owner) {
      if (entry == null || isNull(entry.value())) return List.of();
      Node v = entry.value();
      List<Node> items = v instanceof ListNode l ? l.items() : List.of(v);
      List<Notes.TableRef> out = new ArrayList<>();
      for (Node item : items) {
        if (!(item instanceof Scalar s) || s.value() == null) {
          throw error(item.line(), "'tables' of " + owner + " must be a list of table names; found " + describe(item));
        }
        out.add(new Notes.TableRef(tableName(s.value(), s.line()), s.line()));
      }
      return out;
    }

    private String tableName(String name, int line) {
      try {
        TableNames.QualifiedName.parse(name);
        return name.strip();
      } catch (IllegalArgumentException e) {
        throw error(line, e.getMessage());
      }
    }

    private Map<String, Entry> keys(MapNode m, Set<String> allowed, String where) {
      Map<String, Entry> out = new HashMap<>();
      for (Entry e : m.entries()) {
        if (!allowed.contains(e.key())) {
          String expected = String.join(", ", allowed.stream().sorted().toList());
          String hint = TableNames.suggestColumn(e.key(), allowed).map(s -> "; did you mean " + s + "?").orElse("");
          throw error(e.line(), "unknown key '" + e.key() + "' " + where + " (expected " + expected + hint + ")");
        }
        Entry first = out.putIfAbsent(e.key(), e);
        if (first != null) throw error(e.line(), "'" + e.key() + "' appears twice (first at line " + first.line() + ")");
      }
      return out;
    }

    private void noDuplicates(MapNode m) {
      Map<String, Integer> seen = new HashMap<>();
      for (Entry e : m.entries()) {
        Integer first = seen.putIfAbsent(e.key().strip(), e.line());
        if (first != null) throw error(e.line(), "'" + e.key() + "' appears twice (first at line " + first + ")");
      }
    }

    private MapNode map(Node node, String what, String expected) {
      if (node instanceof MapNode m) return m;
      throw error(node.line(), what + " must be " + expected + "; found " + describe(node));
    }

    private ListNode list(Node node, String what, String expected) {
      if (node instanceof ListNode l) return l;
      throw error(node.line(), what + " must be " + expected + "; found " + describe(node));
    }

    private String text(Node node, String what) {
      if (node instanceof Scalar s) {
        if (s.value() == null || s.value().isBlank()) throw error(node.line(), what + " is empty");
        return s.value().strip();
      }
      throw error(node.line(), what + " must be text; found " + describe(node));
    }

    private static boolean isNull(Node node) {
      return node instanceof Scalar s && s.value() == null;
    }

    private static String describe(Node node) {
      if (node instanceof MapNode) return "a map";
      if (node instanceof ListNode) return "a list";
      return ((Scalar) node).value() == null ? "nothing" : "text";
    }

    private NotesException error(int line, String problem) {
      return new NotesException(source, line, problem);
    }
  }
}

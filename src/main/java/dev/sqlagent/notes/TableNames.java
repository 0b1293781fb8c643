package dev.sqlagent.notes;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Matches a table name as a person writes it in a notes file against the names the catalogue knows, the
 * way PostgreSQL reads names but forgiving of case and quoting.
 *
 * <p>A name is one or two SQL identifiers separated by a dot: {@code customers}, {@code sales.orders},
 * {@code "Sales"."Orders"}, {@code sales."Orders"}. An unquoted identifier folds to lower case, a quoted
 * one is exact ({@code ""} inside quotes is one quote). A name with spaces may leave out its quotes
 * ({@code Web Orders} is read as {@code "Web Orders"}). Known names are written the same way.
 *
 * <p>Matching, best first (the best tier wins; two known names in the best tier are ambiguous):
 * <ol>
 *   <li>the same table as PostgreSQL reads it ({@code Customers} = {@code customers} = {@code "customers"});
 *   <li>the same table name, the schema left out on one side: a bare notes name matches a table of any
 *       schema, and {@code public.x} matches a known bare {@code x}; a known bare name never matches a notes
 *       name qualified with another schema;
 *   <li>equal ignoring case: {@code Orders} matches {@code "Orders"}, {@code sales.orders} matches
 *       {@code "Sales"."Orders"}.
 * </ol>
 */
public final class TableNames {

  private TableNames() {}

  /** The result of matching one notes name against the known names. */
  public sealed interface Match permits Found, Ambiguous, NotFound {}

  /** Exactly one known name is the best match. */
  public record Found(String name) implements Match {}

  /** Several known names match equally well: the notes name should be qualified or quoted. */
  public record Ambiguous(List<String> names) implements Match {
    public Ambiguous {
      names = List.copyOf(names);
    }
  }

  /** No known name matches; {@code suggestion} is a close one, if any (a likely typo). */
  public record NotFound(Optional<String> suggestion) implements Match {}

  /** Matches {@code notesName} against {@code knownNames} (names that do not parse are skipped). */
  public static Match match(String notesName, List<String> knownNames) {
    QualifiedName wanted = QualifiedName.parse(notesName);
    int best = Integer.MAX_VALUE;
    List<String> winners = new ArrayList<>();
    for (String known : knownNames) {
      Optional<QualifiedName> k = QualifiedName.tryParse(known);
      if (k.isEmpty()) continue;
      int s = score(wanted, k.get());
      if (s < 0 || s > best) continue;
      if (s < best) {
        best = s;
        winners.clear();
      }
      if (!winners.contains(known)) winners.add(known);
    }
    if (winners.size() == 1) return new Found(winners.get(0));
    if (winners.size() > 1) return new Ambiguous(winners);
    return new NotFound(suggestTable(wanted, knownNames));
  }

  /** The known table {@code notesName} stands for, when exactly one matches best. */
  public static Optional<String> resolve(String notesName, List<String> knownNames) {
    return match(notesName, knownNames) instanceof Found f ? Optional.of(f.name()) : Optional.empty();
  }

  /** Whether {@code notesName} may stand for {@code knownName} (at any tier). */
  public static boolean matches(String notesName, String knownName) {
    Optional<QualifiedName> n = QualifiedName.tryParse(notesName);
    Optional<QualifiedName> k = QualifiedName.tryParse(knownName);
    return n.isPresent() && k.isPresent() && score(n.get(), k.get()) >= 0;
  }

  /**
   * The column of {@code columns} that the notes column name stands for: the same name, else the same
   * ignoring case. Notes column names may be quoted ({@code "Order Id"}); known column names may be the
   * stored names ({@code Order Id}) or quoted SQL identifiers.
   */
  public static Optional<String> matchColumn(String notesColumn, Collection<String> columns) {
    String caseless = null;
    for (String c : columns) {
      int r = columnRank(notesColumn, c);
      if (r == 0) return Optional.of(c);
      if (r == 1 && caseless == null) caseless = c;
    }
    return Optional.ofNullable(caseless);
  }

  /** A column name close to {@code notesColumn} (a likely typo), if any. */
  public static Optional<String> suggestColumn(String notesColumn, Collection<String> columns) {
    return closest(unquote(notesColumn), columns, TableNames::unquote);
  }

  // -- scoring ---------------------------------------------------------------------------------------

  /** Lower is better; -1 when {@code notes} cannot stand for {@code known}. */
  static int score(QualifiedName notes, QualifiedName known) {
    int name;
    if (notes.table().folded().equals(known.table().folded())) name = 0;
    else if (notes.table().text().equalsIgnoreCase(known.table().text())) name = 1;
    else return -1;
    int schema;
    Ident ns = notes.schema();
    Ident ks = known.schema();
    if (ns == null && ks == null) schema = 0;
    else if (ns == null) schema = 1;
    else if (ks == null) {
      if (ns.folded().equals("public")) schema = 1;
      else if (ns.text().equalsIgnoreCase("public")) schema = 2;
      else return -1;
    } else if (ns.folded().equals(ks.folded())) schema = 0;
    else if (ns.text().equalsIgnoreCase(ks.text())) schema = 2;
    else return -1;
    return name * 3 + schema;
  }

  static int columnRank(String notesColumn, String column) {
    Ident n = Ident.parseColumn(notesColumn);
    String c = unquote(column);
    if (n.text().equals(c) || (!n.quoted() && n.folded().equals(c))) return 0;
    if (n.text().equalsIgnoreCase(c)) return 1;
    return -1;
  }

  private static Optional<String> suggestTable(QualifiedName wanted, List<String> knownNames) {
    // A table of the same name in a schema the notes did not mean is the best suggestion of all.
    for (String known : knownNames) {
      Optional<QualifiedName> k = QualifiedName.tryParse(known);
      if (k.isPresent() && k.get().table().text().equalsIgnoreCase(wanted.table().text())) {
        return Optional.of(known);
      }
    }
    boolean qualified = wanted.schema() != null;
    return closest(wanted.plain(qualified), knownNames,
        known -> QualifiedName.tryParse(known).map(k -> k.plain(qualified)).orElse(known));
  }

  private static Optional<String> closest(String word, Collection<String> candidates,
      java.util.function.Function<String, String> plain) {
    String w = word.toLowerCase(Locale.ROOT);
    int allowed = Math.max(1, Math.min(3, w.length() / 3));
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String c : candidates) {
      int d = distance(w, plain.apply(c).toLowerCase(Locale.ROOT));
      if (d <= allowed && d < bestDistance) {
        best = c;
        bestDistance = d;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Edit distance counting a swap of two neighbours as one edit (optimal string alignment). */
  public static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) d[i][0] = i;
    for (int j = 0; j <= b.length(); j++) d[0][j] = j;
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }

  private static String unquote(String name) {
    String s = name.strip();
    if (s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"")) {
      return s.substring(1, s.length() - 1).replace("\"\"", "\"");
    }
    return s;
  }

  // -- parsing ---------------------------------------------------------------------------------------

  /** One SQL identifier: its text (unquoted) and whether it was quoted. */
  record Ident(String text, boolean quoted) {
    /** The name PostgreSQL reads: unquoted identifiers fold to lower case. */
    String folded() {
      return quoted ? text : text.toLowerCase(Locale.ROOT);
    }

    static Ident parseColumn(String s) {
      String t = s.strip();
      if (t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")) {
        return new Ident(t.substring(1, t.length() - 1).replace("\"\"", "\""), true);
      }
      return new Ident(t, false);
    }
  }

  /** {@code [schema.]table}; schema is null when the name is bare. */
  record QualifiedName(Ident schema, Ident table) {

    String plain(boolean withSchema) {
      return withSchema && schema != null ? schema.text() + "." + table.text() : table.text();
    }

    static Optional<QualifiedName> tryParse(String s) {
      try {
        return Optional.of(parse(s));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }

    /** Parses a name as written in SQL; the exception's message says plainly what is wrong. */
    static QualifiedName parse(String s) {
      List<Ident> parts = new ArrayList<>();
      int i = 0;
      int n = s.length();
      while (true) {
        while (i < n && Character.isWhitespace(s.charAt(i))) i++;
        if (i < n && s.charAt(i) == '"') {
          StringBuilder b = new StringBuilder();
          i++;
          boolean closed = false;
          while (i < n) {
            char c = s.charAt(i);
            if (c == '"') {
              if (i + 1 < n && s.charAt(i + 1) == '"') {
                b.append('"');
                i += 2;
                continue;
              }
              i++;
              closed = true;
              break;
            }
            b.append(c);
            i++;
          }
          if (!closed) throw new IllegalArgumentException("'" + s + "' has a quote that is never closed");
          if (b.length() == 0) throw new IllegalArgumentException("'" + s + "' has an empty quoted name");
          parts.add(new Ident(b.toString(), true));
        } else {
          int start = i;
          while (i < n && s.charAt(i) != '.' && s.charAt(i) != '"') i++;
          String part = s.substring(start, i).strip();
          if (part.isEmpty()) throw new IllegalArgumentException("'" + s + "' is not a table name");
          // SQL would need quotes around a name with spaces; a person writing notes may forget them, and
          // such a name can only mean itself.
          parts.add(new Ident(part, part.chars().anyMatch(Character::isWhitespace)));
        }
        while (i < n && Character.isWhitespace(s.charAt(i))) i++;
        if (i == n) break;
        if (s.charAt(i) != '.') throw new IllegalArgumentException("'" + s + "' is not a table name");
        i++;
      }
      if (parts.size() > 2) {
        throw new IllegalArgumentException("'" + s + "' is not a table name: write table or schema.table");
      }
      return parts.size() == 1 ? new QualifiedName(null, parts.get(0)) : new QualifiedName(parts.get(0), parts.get(1));
    }
  }
}

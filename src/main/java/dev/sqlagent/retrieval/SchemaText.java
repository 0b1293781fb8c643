package dev.sqlagent.retrieval;

import dev.sqlagent.db.Identifiers;
import dev.sqlagent.catalogue.TableInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The schema as the model (and an MCP client) reads it: one CREATE TABLE per table with its note, row count
 * and comments. Notes and comments are flattened to one line so none can break out of its SQL comment.
 */
public final class SchemaText {
  /** Runs of white space, compiled once: every note and comment of every table offered is flattened. */
  private static final Pattern SPACES = Pattern.compile("\\s+");

  private SchemaText() {}

  /** The CREATE TABLE-style description of one table. */
  public static String ddl(TableInfo t) {
    return ddl(t, null, true, true);
  }

  /**
   * One table with only some of its columns (in their own order), the others summed up in a last comment
   * line: {@code -- … 23 more columns: a, b, c} when {@code nameHidden}, else {@code -- 23 more columns not
   * shown}. The keys are written in full whichever columns are shown.
   *
   * @param shown the columns to write; null: all
   * @param columnComments whether the shown columns keep their comments
   */
  public static String ddl(TableInfo t, Set<String> shown, boolean nameHidden, boolean columnComments) {
    StringBuilder b = new StringBuilder();
    String note = oneLine(t.note());
    String comment = oneLine(t.comment());
    // A view or a materialized view reads like a table in a query; the model is told what it is all the same.
    String kind = t.kind() == null || t.kind().equals("table") ? "" : " (" + t.kind() + ")";
    if (note != null) b.append("-- ").append(t.name()).append(kind).append(": ").append(note).append('\n');
    else if (!kind.isEmpty()) b.append("-- ").append(t.name()).append(kind).append('\n');
    if (comment != null && !comment.equals(note)) b.append("-- COMMENT: ").append(comment).append('\n');
    b.append("-- ").append(t.rowCount() == null ? "row count unknown" : "about " + t.rowCount() + " rows").append('\n');
    b.append("CREATE TABLE ").append(t.name()).append(" (\n");  // the name is already as SQL writes it
    List<String[]> lines = new ArrayList<>();  // {definition, comment or null}
    List<String> hidden = new ArrayList<>();
    for (TableInfo.Column c : t.columns()) {
      if (shown != null && !shown.contains(c.name())) {
        hidden.add(oneLine(Identifiers.name(c.name())));  // inside a comment: a newline in a name must not end it
        continue;
      }
      lines.add(new String[] {Identifiers.name(c.name()) + " " + c.type() + (c.nullable() ? "" : " NOT NULL"),
          columnComment(c, columnComments)});
    }
    if (!t.primaryKey().isEmpty()) lines.add(new String[] {"PRIMARY KEY (" + identifiers(t.primaryKey()) + ")", null});
    for (TableInfo.ForeignKey fk : t.foreignKeys()) {
      lines.add(new String[] {"FOREIGN KEY (" + identifiers(fk.columns()) + ") REFERENCES "
          + fk.refTable() + " (" + identifiers(fk.refColumns()) + ")", null});
    }
    for (int i = 0; i < lines.size(); i++) {
      b.append("  ").append(lines.get(i)[0]);
      if (i < lines.size() - 1) b.append(',');
      if (lines.get(i)[1] != null) b.append("  -- ").append(lines.get(i)[1]);
      b.append('\n');
    }
    if (!hidden.isEmpty()) {
      b.append("  -- ");
      if (nameHidden) {
        b.append("… ").append(hidden.size()).append(hidden.size() == 1 ? " more column: " : " more columns: ")
            .append(String.join(", ", hidden));
      } else {
        b.append(hidden.size()).append(hidden.size() == 1 ? " more column" : " more columns").append(" not shown");
      }
      b.append('\n');
    }
    return b.append(");\n").toString();
  }

  /**
   * A column's comment, and what its type does not say by itself: an enum's values (the model must not guess
   * 'shipped' from 'SHIPPED') and a domain's base type. Kept even when comments are shortened away.
   */
  private static String columnComment(TableInfo.Column c, boolean withComment) {
    List<String> parts = new ArrayList<>();
    if (!c.enumLabels().isEmpty()) {
      parts.add("one of " + String.join(", ", c.enumLabels().stream().map(Identifiers::literal).toList()));
    }
    if (c.domainBase() != null) parts.add("domain over " + c.domainBase());
    if (withComment && oneLine(c.comment()) != null) parts.add(oneLine(c.comment()));
    return parts.isEmpty() ? null : oneLine(String.join("; ", parts));
  }

  /** The descriptions of several tables, separated by a blank line. */
  public static String ddl(List<TableInfo> tables) {
    return String.join("\n", tables.stream().map(SchemaText::ddl).toList());
  }

  private static String identifiers(List<String> names) {
    return String.join(", ", names.stream().map(Identifiers::name).toList());
  }

  static String oneLine(String text) {
    if (text == null) return null;
    String s = SPACES.matcher(text).replaceAll(" ").strip();
    return s.isEmpty() ? null : s;
  }
}

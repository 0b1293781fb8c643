package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The hand-written knowledge the catalogue lacks: a note per shop table (what it is for, what it is not for)
 * and the business conventions, each tied to the tables it concerns. A table without a note (a user's own
 * database) is described by its COMMENT.
 */
public final class TableNotes {

  static final String NOTES_RESOURCE = "/retrieval/table-notes.json";
  static final String CONVENTIONS_RESOURCE = "/retrieval/conventions.txt";

  /** A convention and the tables whose presence in a prompt makes it relevant. */
  record Convention(Set<String> tables, String text) {}

  private final Map<String, String> notes;
  private final List<Convention> conventions;

  /** No hand-written notes: tables are described by their COMMENTs. */
  public static final TableNotes EMPTY = new TableNotes(Map.of(), List.of());

  TableNotes(Map<String, String> notes, List<Convention> conventions) {
    this.notes = Map.copyOf(notes);
    this.conventions = List.copyOf(conventions);
  }

  /** Reads both resources from the classpath. Blocking: call it off the event loop. */
  public static TableNotes load() {
    JsonObject json = new JsonObject(resource(NOTES_RESOURCE));
    Map<String, String> notes = new HashMap<>();
    json.forEach(e -> notes.put(e.getKey(), String.valueOf(e.getValue())));
    List<Convention> conventions = new ArrayList<>();
    for (String line : resource(CONVENTIONS_RESOURCE).split("\n")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) continue;
      int bar = l.indexOf('|');
      if (bar < 0) throw new IllegalStateException(CONVENTIONS_RESOURCE + ": no '|' in line: " + l);
      Set<String> tables = Set.copyOf(Arrays.stream(l.substring(0, bar).split(","))
          .map(String::strip).filter(s -> !s.isEmpty()).toList());
      conventions.add(new Convention(tables, l.substring(bar + 1).strip()));
    }
    return new TableNotes(notes, conventions);
  }

  private static String resource(String path) {
    try (InputStream in = TableNotes.class.getResourceAsStream(path)) {
      if (in == null) throw new IllegalStateException("missing resource " + path);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The catalogue with each table's note: the hand-written one, else the table's COMMENT (may be null). */
  public Catalogue annotate(Catalogue catalogue) {
    return catalogue.withTables(catalogue.tables().stream()
        .map(t -> t.withNote(notes.getOrDefault(t.name(), t.comment())))
        .toList());
  }

  /** The conventions that concern any of the given tables, in file order. */
  public List<String> conventionsFor(Collection<String> tables) {
    return conventions.stream()
        .filter(c -> tables.stream().anyMatch(c.tables()::contains))
        .map(Convention::text)
        .toList();
  }
}

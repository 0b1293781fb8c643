package dev.sqlagent.retrieval;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.notes.KnownTables;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.notes.NotesFile;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the catalogue lacks, laid over it: table and column notes (the notes file's, else the COMMENTs), and the
 * business terms and conventions that concern the tables in a prompt. The notes come from
 * {@code SQLAGENT_NOTES}, or from the notes the target's builder handed in (the embedded demo's own).
 */
public final class TableNotes {

  /** No notes file: tables are described by their COMMENTs. */
  public static final TableNotes EMPTY = new TableNotes(Notes.EMPTY);

  private final Notes notes;
  private final NotesRanking ranking;

  public TableNotes(Notes notes) {
    this.notes = notes;
    this.ranking = new NotesRanking(notes);
  }

  /** The notes of a classpath resource. Blocking: call it off the event loop. */
  public static TableNotes fromResource(String resource) {
    return new TableNotes(NotesFile.loadResource(resource));
  }

  /**
   * The notes for a target: the notes file as {@code config} read it at start, else the ones the target's builder
   * handed in ({@code notesResource}, the demo's for the demo), else none. Blocking (a resource is read).
   */
  public static TableNotes forTarget(AppConfig config, String notesResource) {
    if (config.notesFile().isPresent()) return new TableNotes(config.notes());
    return notesResource != null ? fromResource(notesResource) : EMPTY;
  }

  /** The notes themselves (their sensitive columns, for the data policy). */
  public Notes notes() {
    return notes;
  }

  /** Problems of the notes against what discovery found (unknown tables or columns), with the file's lines. */
  public List<String> validate(Catalogue catalogue) {
    Map<String, Set<String>> columns = new HashMap<>();
    for (TableInfo t : catalogue.tables()) {
      columns.put(t.name(), new LinkedHashSet<>(t.columns().stream().map(TableInfo.Column::name).toList()));
    }
    return notes.validate(KnownTables.of(columns));
  }

  /** The catalogue with each table's note (the file's, else its COMMENT) and the file's column notes. */
  public Catalogue annotate(Catalogue catalogue) {
    return catalogue.withTables(catalogue.tables().stream().map(t -> {
      Map<String, String> cols = new HashMap<>();
      for (TableInfo.Column c : t.columns()) notes.columnNote(t.name(), c.name()).ifPresent(n -> cols.put(c.name(), n));
      return t.withNote(notes.tableNote(t.name()).orElse(t.comment())).withColumnNotes(cols);
    }).toList());
  }

  /** The conventions that concern any of the given tables, in file order. */
  public List<String> conventionsFor(Collection<String> tables) {
    return new ArrayList<>(notes.conventionsFor(tables));
  }

  /** The business terms that concern any of the given tables, in file order (they sit with the worked examples). */
  public List<String> termsFor(Collection<String> tables) {
    return new ArrayList<>(notes.termsFor(tables));
  }

  /**
   * The similarity ranking moved by the notes: tables whose documented dates miss the periods the question
   * names go down, those of a business term it uses go up (see {@link NotesRanking}). {@code today} anchors
   * "last year".
   */
  public List<ScoredTable> rerank(List<ScoredTable> ranked, String question, java.time.LocalDate today) {
    return ranking.rerank(ranked, question, today);
  }

  /** What the notes read in the question for {@link #rerank(List, NotesRanking.Reading)}: needs no ranking. */
  NotesRanking.Reading readForRanking(String question, java.time.LocalDate today) {
    return ranking.read(question, today);
  }

  /** {@link #rerank(List, String, java.time.LocalDate)} with the question already read. */
  List<ScoredTable> rerank(List<ScoredTable> ranked, NotesRanking.Reading reading) {
    return ranking.rerank(ranked, reading);
  }

  public boolean isEmpty() {
    return notes.isEmpty();
  }
}

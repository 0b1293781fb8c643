package dev.sqlagent.retrieval;

import dev.sqlagent.contract.ScoredTable;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.notes.NotesFile;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The notes' dates and terms move a similarity ranking; a library's notes, not the demo's. */
class NotesRankingTest {

  static final LocalDate TODAY = LocalDate.of(2026, 11, 30);

  static final TableNotes LIBRARY = new TableNotes(NotesFile.parse("library.yaml", """
      tables:
        lending.loans:
          description: Loans since the new system went live.
          dates: {from: 2022-03-01}
        lending.loans_archive:
          description: Loans of the old system, one row per loan.
          dates: {from: 2015, to: 2022-02}
        members: People with a library card.
      terms:
        - term: overdue fine
          means: the fee charged for a book returned after its due date
          tables: [fines]
        - term: dormant member
          means: a member without a loan in the last two years
          tables: [members, lending.loans]
      """, NotesFile.Format.YAML));

  /** Similarity put the archive first: its name and note say "loans" as well as the live table's do. */
  static final List<ScoredTable> SIMILARITY = List.of(
      new ScoredTable("lending.loans_archive", 0.71), new ScoredTable("lending.loans", 0.68),
      new ScoredTable("members", 0.60), new ScoredTable("fines", 0.58), new ScoredTable("branches", 0.50));

  static List<String> names(List<ScoredTable> ranked) {
    return ranked.stream().map(ScoredTable::name).toList();
  }

  @Test
  void aYearOutsideATablesDatesLowersIt() {
    List<ScoredTable> r = LIBRARY.rerank(SIMILARITY, "How many books were lent in 2025?", TODAY);
    assertThat(names(r)).startsWith("lending.loans", "lending.loans_archive");
    ScoredTable archive = r.get(1);
    assertThat(archive.score()).isCloseTo(0.71 - NotesRanking.OUTSIDE_DATES, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(archive.ranking()).isEqualTo("-0.10: 2025-01-01 to 2025-12-31 is outside its dates (2015-01-01 to 2022-02-28)");
    assertThat(r.get(0).ranking()).isEqualTo("+0.03: 2025-01-01 to 2025-12-31 is within its dates (from 2022-03-01)");
    assertThat(r.get(0).toJson().getString("ranking")).isEqualTo(r.get(0).ranking());
    // Tables the notes give no dates keep their similarity, and say nothing.
    assertThat(r.subList(2, 5)).containsExactly(SIMILARITY.get(2), SIMILARITY.get(3), SIMILARITY.get(4));
    assertThat(r.get(2).toJson().containsKey("ranking")).isFalse();
  }

  @Test
  void aYearInsideTheArchiveKeepsItFirst() {
    List<ScoredTable> r = LIBRARY.rerank(SIMILARITY, "How many books were lent in 2019?", TODAY);
    assertThat(names(r)).startsWith("lending.loans_archive", "members", "lending.loans");
    assertThat(r.get(2).ranking()).contains("outside its dates (from 2022-03-01)");
  }

  @Test
  void aPeriodSpanningBothKeepsBoth() {
    List<ScoredTable> r = LIBRARY.rerank(SIMILARITY, "Loans per month from 2021 to 2023", TODAY);
    assertThat(names(r)).startsWith("lending.loans_archive", "lending.loans");
    assertThat(r.get(0).ranking()).startsWith("+0.03").contains("within");
    assertThat(r.get(1).ranking()).startsWith("+0.03").contains("within");
  }

  @Test
  void aBusinessTermRaisesItsTables() {
    List<ScoredTable> r = LIBRARY.rerank(SIMILARITY, "Which members paid an Overdue-Fines total above 10?", TODAY);
    ScoredTable fines = r.stream().filter(s -> s.name().equals("fines")).findFirst().orElseThrow();
    assertThat(fines.score()).isCloseTo(0.58 + NotesRanking.TERM, org.assertj.core.data.Offset.offset(1e-9));
    assertThat(fines.ranking()).isEqualTo("+0.04: the question uses the term 'overdue fine'");
    assertThat(names(r).indexOf("fines")).isLessThan(names(r).indexOf("members"));
  }

  @Test
  void withoutAPeriodOrATermTheSimilarityStands() {
    assertThat(LIBRARY.rerank(SIMILARITY, "Which books are most popular?", TODAY)).isSameAs(SIMILARITY);
    assertThat(TableNotes.EMPTY.rerank(SIMILARITY, "How many books were lent in 2025?", TODAY)).isEqualTo(SIMILARITY);
  }

  @Test
  void relativePeriodsAreCountedFromToday() {
    List<ScoredTable> r = LIBRARY.rerank(SIMILARITY, "How many loans were there last year?", TODAY);
    assertThat(names(r).get(0)).isEqualTo("lending.loans");
    List<ScoredTable> earlier = LIBRARY.rerank(SIMILARITY, "How many loans were there last year?", LocalDate.of(2020, 6, 1));
    assertThat(names(earlier).get(0)).isEqualTo("lending.loans_archive");
  }
}

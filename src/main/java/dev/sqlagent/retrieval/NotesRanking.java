package dev.sqlagent.retrieval;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.notes.DateRange;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.notes.QuestionWords;
import dev.sqlagent.notes.TableNames;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Moves the similarity ranking by what the notes know and an embedding does not: a table whose documented
 * dates miss every period the question names goes down (an archive of 2023-2024 for "in 2025"), one whose
 * dates hold a named period goes up a little, and the tables of a business term the question uses go up.
 * Tables without dates, and questions that name no period, are left as the similarity put them.
 *
 * <p>The weights are a fraction of the spread of similarities between the tables of one question
 * (about 0.05 to 0.25 on the demo): enough to swap a near tie, not to bring in an unrelated table. Measured
 * with {@code RetrievalBenchmark} (see the README).
 */
final class NotesRanking {

  /** Taken from a table whose dates miss every period the question names. */
  static final double OUTSIDE_DATES = 0.10;
  /** Added to a table whose dates hold a period the question names. */
  static final double INSIDE_DATES = 0.03;
  /** Added to each table of a business term the question uses (once per table, however many terms). */
  static final double TERM = 0.04;

  private record TermMatch(Pattern words, Notes.Term term) {}

  /** The tables the notes date: few, so each catalogue table is matched against these alone. */
  private final List<Notes.Table> dated;
  private final List<TermMatch> terms;

  NotesRanking(Notes notes) {
    this.dated = notes.tables().stream().filter(t -> t.dates() != null).toList();
    List<TermMatch> t = new ArrayList<>();
    for (Notes.Term term : notes.terms()) {
      if (!term.tables().isEmpty()) t.add(new TermMatch(wordsOf(term.term()), term));
    }
    this.terms = List.copyOf(t);
  }

  /**
   * What the notes read in a question: the periods it names (only when a table is dated) and the business terms it
   * uses. Apart from {@link #rerank(List, Reading)} because it needs no ranking: it is read beside the embedding.
   */
  record Reading(List<DateRange> periods, List<Notes.Term> used) {}

  /** The question's periods and terms, as {@link #rerank(List, Reading)} uses them. */
  Reading read(String question, LocalDate today) {
    List<DateRange> periods = dated.isEmpty() ? List.of() : new QuestionDates(today).in(question);
    String q = normalise(question);
    return new Reading(periods, terms.stream().filter(t -> t.words().matcher(q).find()).map(TermMatch::term).toList());
  }

  /** The ranking re-scored by the notes for this question, best first; unchanged when the notes say nothing. */
  List<ScoredTable> rerank(List<ScoredTable> ranked, String question, LocalDate today) {
    return rerank(ranked, read(question, today));
  }

  /** The ranking re-scored by what the notes read in the question ({@link #read}). */
  List<ScoredTable> rerank(List<ScoredTable> ranked, Reading reading) {
    List<DateRange> periods = reading.periods();
    List<Notes.Term> used = reading.used();
    if (periods.isEmpty() && used.isEmpty()) return ranked;
    List<ScoredTable> out = new ArrayList<>(ranked.size());
    for (ScoredTable s : ranked) {
      double delta = 0;
      List<String> why = new ArrayList<>();
      Optional<DateRange> dates = periods.isEmpty() ? Optional.empty()
          : dated.stream().filter(t -> TableNames.matches(t.name(), s.name())).findFirst().map(Notes.Table::dates);
      if (dates.isPresent()) {
        List<DateRange> inside = periods.stream().filter(dates.get()::overlaps).toList();
        if (inside.isEmpty()) {
          delta -= OUTSIDE_DATES;
          why.add(describe(periods) + " outside its dates (" + dates.get() + ")");
        } else {
          delta += INSIDE_DATES;
          why.add(describe(inside) + " within its dates (" + dates.get() + ")");
        }
      }
      Optional<Notes.Term> term = used.stream().filter(t -> names(t, s.name())).findFirst();
      if (term.isPresent()) {
        delta += TERM;
        why.add("the question uses the term '" + term.get().term() + "'");
      }
      out.add(delta == 0 && why.isEmpty() ? s : new ScoredTable(s.name(), s.score() + delta, s.via(),
          String.format(Locale.ROOT, "%+.2f: %s", delta, String.join("; ", why))));
    }
    out.sort(Comparator.comparingDouble(ScoredTable::score).reversed());
    return out;
  }

  private static boolean names(Notes.Term term, String table) {
    return term.tables().stream().anyMatch(r -> TableNames.matches(r.name(), table));
  }

  private static String describe(List<DateRange> periods) {
    return periods.size() == 1 ? periods.get(0) + " is" : "the periods " + periods + " are";
  }

  /** Lower case, words separated by single spaces: "Walk-in" and "walk in" read the same. */
  static String normalise(String text) {
    return QuestionWords.normalise(text);
  }

  /** A term's words as whole words of the question, the last one also in the plural ("walk-ins"). */
  static Pattern wordsOf(String term) {
    return QuestionWords.pattern(term);
  }
}

package dev.sqlagent.notes;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * How a question is said to use a phrase of the notes (a term, a metric's name): as whole words, in any case, with
 * punctuation ignored and the last word also in the plural ("Active-Customers" uses "active customer").
 */
public final class QuestionWords {
  private QuestionWords() {}

  /** Lower case, words separated by single spaces, padded with one space: "Walk-in" and "walk in" read the same. */
  public static String normalise(String text) {
    return " " + text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]+", " ").strip() + " ";
  }

  /** A phrase's words as whole words of a {@link #normalise normalised} question, the last one also in the plural. */
  public static Pattern pattern(String phrase) {
    String words = normalise(phrase).strip();
    return Pattern.compile(" " + Pattern.quote(words) + "(?:s|es)? ");
  }
}

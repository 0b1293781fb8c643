package dev.sqlagent.verified;

import dev.sqlagent.contract.VerifiedMessages;
import java.util.List;

/**
 * The prompt section of what people taught the service: the closest verified queries as worked examples (a
 * question and the SQL a person vouched for) and the notes file's business terms for the chosen tables.
 */
public final class WorkedExamples {

  private WorkedExamples() {}

  /** The section's text, or "" when there is nothing to teach. */
  public static String render(List<VerifiedMessages.Match> matches, List<String> terms) {
    StringBuilder b = new StringBuilder();
    int shown = 0;
    for (VerifiedMessages.Match m : matches == null ? List.<VerifiedMessages.Match>of() : matches) {
      if (m.score() < VerifiedVerticle.EXAMPLE_MIN_SCORE) continue;
      if (shown++ == 0) b.append("Worked examples (questions with the SQL a person verified on this database):\n");
      b.append("Q: ").append(oneLine(m.question())).append('\n')
          .append("SQL: ").append(oneLine(m.sql())).append('\n');
    }
    if (terms != null && !terms.isEmpty()) {
      b.append("Business terms of this database:\n");
      for (String t : terms) b.append("- ").append(t).append('\n');
    }
    return b.toString();
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replaceAll("\\s+", " ").strip();
  }
}

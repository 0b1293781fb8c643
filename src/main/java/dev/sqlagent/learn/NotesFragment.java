package dev.sqlagent.learn;

import dev.sqlagent.contract.LearnedMessages.Evidence;
import dev.sqlagent.contract.LearnedMessages.Join;
import dev.sqlagent.contract.LearnedMessages.Suggestion;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The suggestions as a fragment of a notes file ({@code conventions:}, the format of {@code SQLAGENT_NOTES}), each
 * with its evidence in a comment, for a person to read, edit or delete and then merge into the notes file. The
 * learned joins are listed as comments only: they already serve join-path completion, and the notes file has no
 * place for joins.
 */
final class NotesFragment {
  private NotesFragment() {}

  static String yaml(List<Suggestion> suggestions, List<Join> joins, Instant at) {
    StringBuilder b = new StringBuilder();
    b.append("# Learned from the workload by sql-agent on ").append(at).append(".\n")
        .append("# Suggestions only: read each, edit or delete it, then merge what is right into your notes file\n")
        .append("# (SQLAGENT_NOTES). None of it reaches the model until a person puts it there.\n");
    if (!joins.isEmpty()) {
      b.append("#\n# Joins the workload runs (used to complete join paths already; listed for reference):\n");
      for (Join j : joins) b.append("#   ").append(j.describe()).append("  (").append(evidence(j.evidence())).append(")\n");
    }
    if (suggestions.isEmpty()) {
      b.append("#\n# No convention is frequent enough to suggest yet.\nconventions: []\n");
      return b.toString();
    }
    b.append("conventions:\n");
    for (Suggestion s : suggestions) {
      b.append("  # ").append(s.kind()).append(": ").append(s.predicate()).append(" in ").append(s.count()).append(" of ")
          .append(s.of()).append(" queries of ").append(s.table()).append(" (").append(evidence(s.evidence())).append(")\n");
      b.append("  - tables: [").append(single(s.table())).append("]\n");
      b.append("    text: ").append(dq(s.text())).append('\n');
    }
    return b.toString();
  }

  /** Evidence for a person: {@code query_log 3, last 2026-12-01T18:00:00Z; pg_stat_statements 40}. */
  static String evidence(List<Evidence> evidence) {
    return evidence.stream().map(e -> e.source() + " " + e.count() + (e.lastSeen() == null ? "" : ", last " + e.lastSeen()))
        .collect(Collectors.joining("; "));
  }

  /** A YAML single-quoted scalar (a table name with SQL's double quotes stays as written). */
  private static String single(String s) {
    return "'" + s.replace("'", "''") + "'";
  }

  /** A YAML double-quoted scalar. */
  private static String dq(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + "\"";
  }
}

package dev.sqlagent.execution;

import dev.sqlagent.contract.GateReply;
import java.util.List;
import java.util.Set;

/**
 * Whether a statement asks for a change to the database, read from its first keyword as PostgreSQL
 * tokenises it (comments and leading brackets skipped). A refusal of such a statement is a refusal of the
 * request ({@link GateReply#writeRefused()}), not a query to repair.
 */
final class WriteIntent {
  private WriteIntent() {}

  private static final Set<String> WRITE_WORDS = Set.of("insert", "update", "delete", "drop", "alter", "create",
      "truncate", "grant", "revoke", "merge", "copy", "call", "do", "vacuum", "comment");

  static boolean of(List<PgLexer.Token> tokens) {
    for (PgLexer.Token t : tokens) {
      if (t.isPunct("(")) continue;
      return t.kind() == PgLexer.Kind.WORD && WRITE_WORDS.contains(t.name());
    }
    return false;
  }

  /** The same for text not yet lexed; text PostgreSQL could not tokenise asks for nothing. */
  static boolean of(String sql) {
    if (sql == null) return false;
    try {
      return of(PgLexer.lex(sql).tokens());
    } catch (PgLexer.LexException e) {
      return false;
    }
  }
}

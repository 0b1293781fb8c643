package dev.sqlagent.execution;

import dev.sqlagent.catalogue.DenyList;

/** A quick scan for deny-listed names, so most of a plan's expressions are never lexed. */
final class DenyScan {
  private DenyScan() {}

  /**
   * Whether {@code text} may name a deny-listed function anywhere: false only when no identifier the lexer could
   * read in it is denied, so the caller can skip lexing it. Conservative: every run of identifier characters is
   * tried from its start (an unquoted or quoted name starts a run; a denied prefix or name is all identifier
   * characters), and a run holding a digit or '$' from every letter in it (a number or a dollar quote may end inside
   * it, a word follow: {@code 1e5pg_sleep}, {@code $t$pg_sleep}). U&amp; escapes could spell a name with other
   * characters: any '&amp;' answers true.
   */
  static boolean mayName(String text) {
    if (text.indexOf('&') >= 0) return true;
    int n = text.length();
    int i = 0;
    while (i < n) {
      if (!PgLexer.isIdentCont(text.charAt(i))) {
        i++;
        continue;
      }
      int start = i;
      boolean split = false;
      for (char c; i < n && PgLexer.isIdentCont(c = text.charAt(i)); i++) split |= c == '$' || (c >= '0' && c <= '9');
      if (!split) {
        if (DenyList.denied(text.substring(start, i))) return true;
      } else {
        for (int p = start; p < i; p++) {
          if (PgLexer.isIdentStart(text.charAt(p)) && DenyList.denied(text.substring(p, i))) return true;
        }
      }
    }
    return false;
  }
}

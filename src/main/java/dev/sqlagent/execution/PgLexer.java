package dev.sqlagent.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits SQL into tokens the way PostgreSQL's own lexer does (with standard_conforming_strings on, which
 * the gate sets for every transaction): '' strings, E'' strings with backslash escapes, $tag$ dollar
 * quotes, "quoted" and U&"unicode" identifiers (decoded), nested block comments. JSqlParser's lexer
 * disagrees with PostgreSQL's on several of these ({@code SELECT $a$--$a$; DELETE FROM t} is one harmless
 * statement to it), so every decision about statement boundaries, nesting and identifiers is made here.
 */
public final class PgLexer {

  public enum Kind {
    /** Unquoted word: keyword or identifier; {@link Token#name()} is lower-cased. */
    WORD,
    /** "Quoted" or U&"quoted" identifier; {@link Token#name()} is the decoded name, case kept. */
    QUOTED_IDENT,
    STRING,
    NUMBER,
    /** $1, $2 ... */
    PARAM,
    /** ( ) [ ] , ; . : :: */
    PUNCT,
    OPERATOR,
    OTHER
  }

  /**
   * One token. {@code start}/{@code end} index the source; {@code depth} is the bracket nesting before the
   * token (a closing bracket carries the depth it closes to).
   */
  public record Token(Kind kind, String text, String name, int start, int end, int depth) {
    public boolean isWord(String lowerCaseWord) {
      return kind == Kind.WORD && name.equals(lowerCaseWord);
    }

    public boolean isPunct(String p) {
      return kind == Kind.PUNCT && text.equals(p);
    }

    /** An identifier in either spelling (a bare word may also be a keyword). */
    public boolean isIdentifier() {
      return kind == Kind.WORD || kind == Kind.QUOTED_IDENT;
    }
  }

  /** Text PostgreSQL itself would refuse to tokenise, with the 0-based offset where the problem starts. */
  public static final class LexException extends Exception {
    private final int offset;

    LexException(String message, int offset) {
      super(message, null, false, false);
      this.offset = offset;
    }

    public int offset() {
      return offset;
    }
  }

  /** What the text contains, beyond its tokens. */
  public record Result(List<Token> tokens, int maxDepth, boolean unbalanced, int unbalancedAt,
                       boolean jsqlparserUnsafe) {}

  private final String s;
  private final int n;
  private int i;
  private int depth;
  private int maxDepth;
  private boolean unbalanced;
  private int unbalancedAt = -1;
  /** Constructs JSqlParser reads differently from PostgreSQL: its tree cannot be trusted for this text. */
  private boolean jsqlparserUnsafe;
  private final List<Token> tokens = new ArrayList<>();

  private PgLexer(String s) {
    this.s = s;
    this.n = s.length();
  }

  public static Result lex(String sql) throws LexException {
    PgLexer l = new PgLexer(sql);
    l.run();
    return new Result(List.copyOf(l.tokens), l.maxDepth, l.unbalanced, l.unbalancedAt, l.jsqlparserUnsafe);
  }

  private void run() throws LexException {
    while (i < n) {
      char c = s.charAt(i);
      if (isSpace(c)) {
        i++;
      } else if (c == '-' && peek(1) == '-') {
        while (i < n && s.charAt(i) != '\n' && s.charAt(i) != '\r') i++;
      } else if (c == '/' && peek(1) == '*') {
        blockComment();
      } else if (c == '\'') {
        quoted(i, i, false);
      } else if ((c == 'e' || c == 'E') && peek(1) == '\'') {
        jsqlparserUnsafe = true;
        quoted(i, i + 1, true);
      } else if ((c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && peek(1) == '\'') {
        quoted(i, i + 1, false);
      } else if ((c == 'u' || c == 'U') && peek(1) == '&' && (peek(2) == '\'' || peek(2) == '"')) {
        jsqlparserUnsafe = true;
        if (peek(2) == '\'') quoted(i, i + 2, false);
        else quotedIdentifier(i, i + 2, true);
      } else if (c == '"') {
        quotedIdentifier(i, i, false);
      } else if (c == '$') {
        dollar();
      } else if (isIdentStart(c)) {
        word();
      } else if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
        number();
      } else if (c == '(' || c == '[') {
        add(Kind.PUNCT, i, i + 1, null);
        depth++;
        maxDepth = Math.max(maxDepth, depth);
        i++;
      } else if (c == ')' || c == ']') {
        depth--;
        if (depth < 0 && !unbalanced) {
          unbalanced = true;
          unbalancedAt = i;
        }
        add(Kind.PUNCT, i, i + 1, null);
        i++;
      } else if (c == ':' && peek(1) == ':') {
        add(Kind.PUNCT, i, i + 2, null);
        i += 2;
      } else if (c == ',' || c == ';' || c == '.' || c == ':') {
        add(Kind.PUNCT, i, i + 1, null);
        i++;
      } else if (isOpChar(c)) {
        operator();
      } else {
        add(Kind.OTHER, i, i + 1, null);
        i++;
      }
    }
    if (depth != 0 && !unbalanced) {
      unbalanced = true;
      unbalancedAt = n;
    }
  }

  private char peek(int k) {
    return i + k < n ? s.charAt(i + k) : '\0';
  }

  private void add(Kind kind, int start, int end, String name) {
    // A closing bracket records the depth it returns to, so matching brackets share a depth.
    tokens.add(new Token(kind, s.substring(start, end), name, start, end, Math.max(depth, 0)));
  }

  private void blockComment() throws LexException {
    int start = i;
    int nest = 0;
    while (i < n) {
      if (s.charAt(i) == '/' && peek(1) == '*') {
        nest++;
        if (nest > 1) jsqlparserUnsafe = true;
        i += 2;
      } else if (s.charAt(i) == '*' && peek(1) == '/') {
        nest--;
        i += 2;
        if (nest == 0) return;
      } else {
        i++;
      }
    }
    throw new LexException("unterminated /* comment", start);
  }

  /** '...' strings; with {@code escapes} (E'...') a backslash escapes the next character. */
  private void quoted(int start, int quoteAt, boolean escapes) throws LexException {
    i = quoteAt + 1;
    while (i < n) {
      char c = s.charAt(i);
      if (escapes && c == '\\') {
        i += 2;
      } else if (c == '\'') {
        if (peek(1) == '\'') {
          i += 2;
        } else {
          i++;
          add(Kind.STRING, start, i, null);
          return;
        }
      } else {
        i++;
      }
    }
    throw new LexException("unterminated quoted string", start);
  }

  private void quotedIdentifier(int start, int quoteAt, boolean unicode) throws LexException {
    StringBuilder name = new StringBuilder();
    i = quoteAt + 1;
    while (i < n) {
      char c = s.charAt(i);
      if (c == '"') {
        if (peek(1) == '"') {
          name.append('"');
          i += 2;
        } else {
          i++;
          if (name.isEmpty()) throw new LexException("zero-length delimited identifier", start);
          int end = i;
          String decoded = unicode ? decodeUnicode(name.toString(), uescape()) : name.toString();
          tokens.add(new Token(Kind.QUOTED_IDENT, s.substring(start, end), decoded, start, end, depth));
          return;
        }
      } else {
        name.append(c);
        i++;
      }
    }
    throw new LexException("unterminated quoted identifier", start);
  }

  /** The escape character of a U& literal: '\' unless {@code UESCAPE 'c'} follows (consumed here). */
  private char uescape() {
    int j = i;
    while (j < n && isSpace(s.charAt(j))) j++;
    if (j + 7 <= n && s.regionMatches(true, j, "uescape", 0, 7)) {
      int k = j + 7;
      while (k < n && isSpace(s.charAt(k))) k++;
      if (k + 2 < n && s.charAt(k) == '\'' && s.charAt(k + 2) == '\'') {
        i = k + 3;
        return s.charAt(k + 1);
      }
    }
    return '\\';
  }

  /** Decodes \XXXX and \+XXXXXX escapes (with the given escape character) as PostgreSQL does. */
  static String decodeUnicode(String body, char esc) {
    StringBuilder out = new StringBuilder();
    for (int k = 0; k < body.length(); k++) {
      char c = body.charAt(k);
      if (c != esc) {
        out.append(c);
      } else if (k + 1 < body.length() && body.charAt(k + 1) == esc) {
        out.append(esc);
        k++;
      } else if (k + 7 < body.length() + 0 && body.charAt(k + 1) == '+' && isHex(body, k + 2, 6)) {
        out.appendCodePoint(Integer.parseInt(body.substring(k + 2, k + 8), 16));
        k += 7;
      } else if (isHex(body, k + 1, 4)) {
        out.append((char) Integer.parseInt(body.substring(k + 1, k + 5), 16));
        k += 4;
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  private static boolean isHex(String t, int from, int count) {
    if (from + count > t.length()) return false;
    for (int k = from; k < from + count; k++) {
      if (Character.digit(t.charAt(k), 16) < 0) return false;
    }
    return true;
  }

  /** $1 parameters and $tag$...$tag$ dollar quotes. */
  private void dollar() throws LexException {
    int start = i;
    if (isDigit(peek(1))) {
      i++;
      while (i < n && isDigit(s.charAt(i))) i++;
      add(Kind.PARAM, start, i, null);
      return;
    }
    int j = i + 1;
    if (j < n && isDollarTagStart(s.charAt(j))) {
      while (j < n && isDollarTagCont(s.charAt(j))) j++;
    }
    if (j < n && s.charAt(j) == '$') {
      String delimiter = s.substring(start, j + 1);
      int close = s.indexOf(delimiter, j + 1);
      if (close < 0) throw new LexException("unterminated dollar-quoted string", start);
      jsqlparserUnsafe = true;
      i = close + delimiter.length();
      add(Kind.STRING, start, i, null);
      return;
    }
    add(Kind.OTHER, start, start + 1, null);
    i = start + 1;
  }

  private void word() {
    int start = i;
    while (i < n && isIdentCont(s.charAt(i))) i++;
    String text = s.substring(start, i);
    add(Kind.WORD, start, i, text.toLowerCase(Locale.ROOT));
  }

  private void number() {
    int start = i;
    if (s.charAt(i) == '0' && (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'o' || peek(1) == 'O'
        || peek(1) == 'b' || peek(1) == 'B') && Character.digit(peek(2), 16) >= 0) {
      i += 2;
      while (i < n && (Character.digit(s.charAt(i), 16) >= 0 || s.charAt(i) == '_')) i++;
      add(Kind.NUMBER, start, i, null);
      return;
    }
    while (i < n && (isDigit(s.charAt(i)) || s.charAt(i) == '_')) i++;
    // "1..2" is not a decimal: PostgreSQL keeps ".." for its own use.
    if (i < n && s.charAt(i) == '.' && peek(1) != '.') {
      i++;
      while (i < n && (isDigit(s.charAt(i)) || s.charAt(i) == '_')) i++;
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      int k = i + 1;
      if (k < n && (s.charAt(k) == '+' || s.charAt(k) == '-')) k++;
      if (k < n && isDigit(s.charAt(k))) {
        i = k;
        while (i < n && isDigit(s.charAt(i))) i++;
      }
    }
    add(Kind.NUMBER, start, i, null);
  }

  /** Operator characters; a "--" or "/*" inside ends the operator, as in PostgreSQL. */
  private void operator() {
    int start = i;
    while (i < n && isOpChar(s.charAt(i))) {
      if ((s.charAt(i) == '-' && peek(1) == '-') || (s.charAt(i) == '/' && peek(1) == '*')) break;
      i++;
    }
    if (i == start) i++;
    add(Kind.OPERATOR, start, i, null);
  }

  static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\u000B';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  static boolean isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= '\u0080';
  }

  static boolean isIdentCont(char c) {
    return isIdentStart(c) || isDigit(c) || c == '$';
  }

  private static boolean isDollarTagStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= '\u0080';
  }

  private static boolean isDollarTagCont(char c) {
    return isDollarTagStart(c) || isDigit(c);
  }

  private static boolean isOpChar(char c) {
    return "+-*/<>=~!@#%^&|`?".indexOf(c) >= 0;
  }
}

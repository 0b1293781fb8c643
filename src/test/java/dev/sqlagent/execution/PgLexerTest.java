package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The tokens PostgreSQL would see, including where JSqlParser's lexer would see something else. */
class PgLexerTest {

  private static List<PgLexer.Token> tokens(String sql) throws Exception {
    return PgLexer.lex(sql).tokens();
  }

  private static long semicolons(String sql) throws Exception {
    return tokens(sql).stream().filter(t -> t.isPunct(";")).count();
  }

  @Test
  void dollarQuotesHideCommentMarkersAndSemicolonsOnlyInside() throws Exception {
    var t = tokens("SELECT $a$--$a$; DELETE FROM t");
    assertThat(t.get(1).kind()).isEqualTo(PgLexer.Kind.STRING);
    assertThat(t.get(1).text()).isEqualTo("$a$--$a$");
    assertThat(semicolons("SELECT $a$--$a$; DELETE FROM t")).isEqualTo(1);
    assertThat(semicolons("SELECT $$ ; $$")).isZero();
    assertThat(PgLexer.lex("SELECT $a$x$a$").jsqlparserUnsafe()).isTrue();
  }

  @Test
  void escapeStringsEndWhereBackslashEscapesSayTheyEnd() throws Exception {
    String sql = "SELECT E'\\'' ; DELETE FROM t; -- '";
    var t = tokens(sql);
    assertThat(t.get(1).text()).isEqualTo("E'\\''");
    assertThat(semicolons(sql)).isEqualTo(2);
    // Without E, a backslash is an ordinary character (standard_conforming_strings).
    assertThat(tokens("SELECT 'a\\' , 1").get(1).text()).isEqualTo("'a\\'");
  }

  @Test
  void unicodeIdentifiersAreDecoded() throws Exception {
    var t = tokens("SELECT U&\"\\0070g_sleep\"(10)");
    assertThat(t.get(1).kind()).isEqualTo(PgLexer.Kind.QUOTED_IDENT);
    assertThat(t.get(1).name()).isEqualTo("pg_sleep");
    var custom = tokens("SELECT U&\"!0070g_sleep\" UESCAPE '!' (1)");
    assertThat(custom.get(1).name()).isEqualTo("pg_sleep");
    assertThat(custom.get(2).isPunct("(")).isTrue();
    assertThat(tokens("SELECT U&\"\\+000070g\"").get(1).name()).isEqualTo("pg");
  }

  @Test
  void quotedIdentifiersKeepCaseAndUnescapeDoubledQuotes() throws Exception {
    var t = tokens("SELECT \"Pg_Sleep\", \"a\"\"b\", BiLLs");
    assertThat(t.get(1).name()).isEqualTo("Pg_Sleep");
    assertThat(t.get(3).name()).isEqualTo("a\"b");
    assertThat(t.get(5).name()).isEqualTo("bills");
  }

  @Test
  void commentsNestAndHideEverything() throws Exception {
    assertThat(tokens("SELECT /* a /* b */ ; */ 1 -- ; x\n")).extracting(PgLexer.Token::text).containsExactly("SELECT", "1");
    assertThat(PgLexer.lex("SELECT /* /* */ */ 1").jsqlparserUnsafe()).isTrue();
    assertThat(tokens("SELECT 1--2")).extracting(PgLexer.Token::text).containsExactly("SELECT", "1");
  }

  @Test
  void bracketDepthAndBalance() throws Exception {
    var r = PgLexer.lex("SELECT ((1)), (SELECT [2])");
    assertThat(r.maxDepth()).isEqualTo(2);
    assertThat(r.unbalanced()).isFalse();
    var open = PgLexer.lex("SELECT (1");
    assertThat(open.unbalanced()).isTrue();
    var stray = PgLexer.lex("SELECT 1) AS x; DELETE FROM t; SELECT (1");
    assertThat(stray.unbalanced()).isTrue();
    assertThat(stray.unbalancedAt()).isEqualTo(8);
    assertThat(PgLexer.lex("SELECT '(((' ").maxDepth()).isZero();
  }

  @Test
  void parametersNumbersAndCasts() throws Exception {
    var t = tokens("SELECT $1::int, 1.5e3, .5, 0x1F LIMIT 10");
    assertThat(t).extracting(PgLexer.Token::kind).containsExactly(PgLexer.Kind.WORD, PgLexer.Kind.PARAM,
        PgLexer.Kind.PUNCT, PgLexer.Kind.WORD, PgLexer.Kind.PUNCT, PgLexer.Kind.NUMBER, PgLexer.Kind.PUNCT,
        PgLexer.Kind.NUMBER, PgLexer.Kind.PUNCT, PgLexer.Kind.NUMBER, PgLexer.Kind.WORD, PgLexer.Kind.NUMBER);
  }

  @Test
  void unterminatedTextIsALexError() {
    assertThatThrownBy(() -> PgLexer.lex("SELECT 'abc")).isInstanceOf(PgLexer.LexException.class)
        .hasMessageContaining("unterminated quoted string");
    assertThatThrownBy(() -> PgLexer.lex("SELECT $x$ abc")).hasMessageContaining("dollar");
    assertThatThrownBy(() -> PgLexer.lex("SELECT \"abc")).hasMessageContaining("identifier");
    assertThatThrownBy(() -> PgLexer.lex("SELECT /* abc")).hasMessageContaining("comment");
  }
}

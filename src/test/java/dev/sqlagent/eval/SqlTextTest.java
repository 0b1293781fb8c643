package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.eval.SqlText.Kind;
import dev.sqlagent.eval.SqlText.Token;
import org.junit.jupiter.api.Test;

class SqlTextTest {

  @Test
  void literalsCommentsAndQuotedNamesStayWhole() {
    SqlText t = SqlText.of("SELECT 'it''s; -- no' AS \"a b\" -- done; really\nFROM x /* ; */");
    assertThat(t.sig).extracting(x -> x.text)
        .containsExactly("SELECT", "'it''s; -- no'", "AS", "\"a b\"", "FROM", "x");
    assertThat(t.sig.get(1).kind).isEqualTo(Kind.STRING);
    assertThat(t.sig.get(3).kind).isEqualTo(Kind.QUOTED);
  }

  @Test
  void everySelectIsItsOwnScopeAndFunctionParensAreNot() {
    SqlText t = SqlText.of("SELECT sum(a) FROM (SELECT a FROM t WHERE b = 1) s WHERE c IN (1, 2)");
    Token outerSum = t.sig.get(1);
    Token innerA = t.sig.stream().filter(x -> x.text.equals("a")).toList().get(1);
    Token c = t.sig.stream().filter(x -> x.text.equals("c")).findFirst().orElseThrow();
    assertThat(outerSum.scope).isNotEqualTo(innerA.scope);
    assertThat(c.scope).isEqualTo(outerSum.scope);
    assertThat(c.clause).isEqualTo("where");
    assertThat(t.sig.get(3).clause).isEqualTo("select");   // 'a' inside sum(...)
  }

  @Test
  void theGatesLimitIsRemovedButTheQuerysOwnStays() {
    assertThat(SqlText.withoutTrailingLimit("SELECT * FROM bills LIMIT 200", 200)).isEqualTo("SELECT * FROM bills");
    assertThat(SqlText.withoutTrailingLimit("SELECT * FROM bills LIMIT 201;", 200)).isEqualTo("SELECT * FROM bills");
    assertThat(SqlText.withoutTrailingLimit("SELECT * FROM bills LIMIT 5", 200)).isEqualTo("SELECT * FROM bills LIMIT 5");
    assertThat(SqlText.withoutTrailingLimit("SELECT * FROM (SELECT 1 LIMIT 200) x", 200))
        .isEqualTo("SELECT * FROM (SELECT 1 LIMIT 200) x");
  }

  @Test
  void itReadsSqlAsPostgresqlDoes() {
    // Block comments nest in PostgreSQL: this is one statement ending in a comment, not a DELETE after it.
    assertThat(SqlText.of("SELECT 1 /* a /* b */ ; DELETE FROM bills */").sig).extracting(x -> x.text)
        .containsExactly("SELECT", "1");
    SqlText t = SqlText.of("SELECT $q$it's -- $q$ AS x, E'\\'' AS y FROM t WHERE a <= 1");
    assertThat(t.sig).extracting(x -> x.text)
        .containsExactly("SELECT", "$q$it's -- $q$", "AS", "x", ",", "E'\\''", "AS", "y", "FROM", "t", "WHERE", "a", "<=", "1");
    assertThat(String.join("", t.tokens.stream().map(x -> x.text).toList())).isEqualTo(t.sql);
  }
}

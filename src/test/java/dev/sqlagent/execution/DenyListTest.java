package dev.sqlagent.execution;

import dev.sqlagent.catalogue.DenyList;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The deny-list's lookup, and the quick scan that lets the plan check skip lexing an expression. */
class DenyListTest {

  @Test
  void namesAreDeniedExactlyOrByPrefixInAnyCase() {
    assertThat(DenyList.reason("pg_sleep_for").orElseThrow()).startsWith("sleeping");
    assertThat(DenyList.reason("PG_READ_FILE").orElseThrow()).startsWith("file access");
    assertThat(DenyList.reason("pg_stat_file").orElseThrow()).startsWith("file access");
    assertThat(DenyList.reason("lo_import").orElseThrow()).startsWith("large objects");
    assertThat(DenyList.reason("nextval").orElseThrow()).startsWith("sequence changes");
    assertThat(DenyList.reason("pg_stat_reset_shared").orElseThrow()).startsWith("server administration");
    assertThat(DenyList.denied("nextvalue")).isFalse();
    assertThat(DenyList.denied("upper")).isFalse();
    assertThat(DenyList.denied("")).isFalse();
    assertThat(DenyList.denied(null)).isFalse();
  }

  @Test
  void ordinaryPlanExpressionsNeedNoLexing() {
    assertThat(DenyScan.mayName("sum((bi.qty)::numeric * bi.unit_price)")).isFalse();
    assertThat(DenyScan.mayName("CASE WHEN ((octet_length((q.c2)::text) <= 500) OR (length((q.c2)::text) <= 500)) "
        + "THEN (q.c2)::text ELSE ((left((q.c2)::text, 500) || '…[clipped, '::text) || length((q.c2)::text)) END"))
        .isFalse();
    assertThat(DenyScan.mayName("pg_sleep('1'::double precision)")).isTrue();
    assertThat(DenyScan.mayName("\"PG_SLEEP\"(1)")).isTrue();
    assertThat(DenyScan.mayName("1e5pg_sleep(1)")).isTrue();
    assertThat(DenyScan.mayName("U&\"\\0070g_sleep\"(1)")).isTrue();
    // Told by their first two letters, in any case: not denied, or possibly denied.
    assertThat(DenyScan.mayName("count(pg)")).isFalse();
    assertThat(DenyScan.mayName("x(p)")).isFalse();
    assertThat(DenyScan.mayName("Pg_Read_File('x')")).isTrue();
    assertThat(DenyScan.mayName("TXID_CURRENT()")).isTrue();
    assertThat(DenyScan.mayName("sum(\"Lo_Get\"(1))")).isTrue();
  }

  /**
   * Random texts built from pieces that trip a lexer (quotes, comments, numbers glued to words, dollar signs, U&amp;
   * escapes, denied names in any case): whenever the lexer reads a denied identifier, the quick scan says it may be
   * there. A miss here would let the plan check skip a denied call.
   */
  @Test
  void theQuickScanNeverMissesAnIdentifierTheLexerReadsAsDenied() {
    List<String> pieces = List.of("pg_sleep", "PG_LS_DIR", "lo_", "nextval", "Nextval", "set_config", "x", "q.c1", "(",
        ")", "\"", "\"\"", "'", "''", "1", "1e5", "0x1F", "1_000", ".5", "$1", "$", "$$", "$t$", "U&", "u&", "\\0070",
        " ", "/*", "*/", "--", "\n", ",", "::", "E'", "é", "_", "sleep", "pg_", "pG_SlEeP", "DbLink_exec", "Ts_Stat", "P",
        "İ", "\u212A");
    Random random = new Random(16);
    int denied = 0;
    for (int round = 0; round < 300_000; round++) {
      StringBuilder text = new StringBuilder();
      int length = 1 + random.nextInt(8);
      for (int i = 0; i < length; i++) text.append(pieces.get(random.nextInt(pieces.size())));
      String t = text.toString();
      boolean lexerDenies;
      try {
        lexerDenies = PgLexer.lex(t).tokens().stream().anyMatch(k -> k.isIdentifier() && DenyList.denied(k.name()));
      } catch (PgLexer.LexException e) {
        continue;
      }
      if (lexerDenies) {
        denied++;
        assertThat(DenyScan.mayName(t)).as(t).isTrue();
      }
    }
    assertThat(denied).as("texts the lexer read as denied").isGreaterThan(10_000);
  }
}

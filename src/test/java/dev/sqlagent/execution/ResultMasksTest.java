package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which statements read sensitive data, so that their computed columns are masked. */
class ResultMasksTest {

  static boolean reads(String sql) throws Exception {
    return ResultMasks.readsSensitive(PgLexer.lex(sql).tokens(), Set.of("email", "salary"), Set.of("customers"));
  }

  @Test
  void namingAColumnAWholeRowOrAStarReadsIt() throws Exception {
    assertThat(reads("SELECT upper(email) FROM customers")).isTrue();
    assertThat(reads("SELECT count(*) FROM customers WHERE c.\"EMAIL\" LIKE '%x'")).isTrue();
    assertThat(reads("SELECT c::text FROM customers c")).isTrue();
    assertThat(reads("SELECT row_to_json(c) FROM public.customers AS c")).isTrue();
    assertThat(reads("SELECT to_jsonb(customers) FROM customers")).isTrue();
    assertThat(reads("SELECT row_to_json(x) FROM (SELECT * FROM customers) x")).isTrue();
    assertThat(reads("SELECT json_agg(c.*) FROM customers c")).isTrue();
  }

  @Test
  void otherColumnsCountsAndOtherTablesDoNot() throws Exception {
    assertThat(reads("SELECT count(*) FROM customers")).isFalse();
    assertThat(reads("SELECT c.name, c.tier FROM customers c WHERE c.id > 3")).isFalse();
    assertThat(reads("SELECT upper(name) FROM customers JOIN orders o ON o.customer_id = customers.id")).isFalse();
    assertThat(reads("SELECT * FROM orders")).isFalse();
    assertThat(ResultMasks.readsSensitive(PgLexer.lex("SELECT upper(email) FROM customers").tokens(), Set.of(), Set.of()))
        .isFalse();
  }
}

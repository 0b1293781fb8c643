package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.policy.Mask;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.List;
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

  /**
   * An export's cells are PostgreSQL's text; a masked number or boolean is masked as the value an answer holds (the
   * client's Integer, Double, Boolean), so a hashed value reads the same in both.
   */
  @Test
  void anExportMasksANumbersTextAsAnAnswerMasksTheNumber() {
    List<ResultShape.Column> columns = List.of(new ResultShape.Column("i", "int4", ResultShape.Kind.NATIVE),
        new ResultShape.Column("f", "float8", ResultShape.Kind.NATIVE),
        new ResultShape.Column("b", "bool", ResultShape.Kind.NATIVE),
        new ResultShape.Column("big", "int8", ResultShape.Kind.NATIVE));
    Mask[] masks = {Mask.HASH, Mask.HASH, Mask.HASH, Mask.LAST4};
    // PostgreSQL's text of the values beside the values the client decodes for an answer.
    List<Object[]> exported = new ArrayList<>();
    exported.add(new Object[] {"42", "12345678.9", "true", "1000000007"});
    JsonArray answered = new JsonArray().add(new JsonArray().add(42).add(12345678.9d).add(true).add(1000000007L));
    ResultMasks.applyToExportCells(masks, columns, exported);
    ResultMasks.apply(masks, answered);
    assertThat(List.of(exported.get(0))).isEqualTo(answered.getJsonArray(0).getList());
  }
}

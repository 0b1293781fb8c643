package dev.sqlagent.display;

import static dev.sqlagent.display.ColumnFormatTest.column;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ResultTextTest {

  static JsonObject result(JsonArray columns, JsonArray rows, boolean truncated) {
    return new JsonObject().put("columns", columns).put("rows", rows).put("row_count", rows.size())
        .put("truncated", truncated).put("sql", "SELECT 1 LIMIT 200");
  }

  @Test
  void aSingleValueIsTheAnswerWithSeparators() {
    JsonObject r = result(new JsonArray().add(column("count", "int8")), new JsonArray().add(new JsonArray().add(1267)), false);
    assertThat(ResultText.summary(r)).isEqualTo("The answer is 1,267.");
  }

  @Test
  void aSingleYearStaysAYear() {
    JsonObject r = result(new JsonArray().add(column("year", "int4")), new JsonArray().add(new JsonArray().add(2025)), false);
    assertThat(ResultText.summary(r)).isEqualTo("The answer is 2025.");
  }

  @Test
  void manyRowsNameTheFirstWithFormattedValues() {
    JsonArray rows = new JsonArray();
    for (int i = 0; i < 1200; i++) rows.add(new JsonArray().add(2024).add("1234567.5"));
    JsonObject r = result(new JsonArray().add(column("year", "int4")).add(column("revenue", "numeric")), rows, true);
    assertThat(ResultText.summary(r)).isEqualTo("1,200 rows (more exist); the first: year = 2024, revenue = 1,234,567.50.");
    assertThat(ResultText.summary(result(new JsonArray().add(column("n", "int8")), new JsonArray(), false)))
        .isEqualTo("No rows match the question.");
  }

  @Test
  void theTableAlignsNumbersRightAndTextLeft() {
    JsonArray columns = new JsonArray().add(column("status", "varchar")).add(column("bill_id", "int4"))
        .add(column("bills", "int8")).add(column("billed", "numeric"));
    JsonArray rows = new JsonArray()
        .add(new JsonArray().add("PAID").add(7).add(1267).add("1234567.5"))
        .add(new JsonArray().add("CANCELLED").add(10234).add(12).add(null));
    String table = ResultText.table(result(columns, rows, false));
    assertThat(table).isEqualTo("""
        status    | bill_id | bills |       billed
        ----------+---------+-------+-------------
        PAID      |       7 | 1,267 | 1,234,567.50
        CANCELLED |   10234 |    12 |         NULL
        (2 rows)
        """);
  }

  @Test
  void aGivenUpAnswerListsEveryQueryTried() {
    JsonObject answer = new JsonObject().put("answer", "I could not answer this question after 2 attempts.")
        .put("sql", "SELECT b FROM x").put("gave_up", true).put("refused", false)
        .put("history", new JsonArray()
            .add(new JsonObject().put("attempt", 1).put("sql", "SELECT a FROM x").put("error_type", "unknown_column")
                .put("message", "column a does not exist"))
            .add(new JsonObject().put("attempt", 2).put("sql", "SELECT b FROM x").put("error_type", "unknown_column")
                .put("message", "column b does not exist")));
    assertThat(ResultText.answer(answer)).contains("Last SQL tried: SELECT b FROM x", "1. SELECT a FROM x",
        "unknown_column: column a does not exist", "2. SELECT b FROM x").doesNotContain("(0 rows)");
  }
}

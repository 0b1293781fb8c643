package dev.sqlagent.display;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ColumnFormatTest {

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource({
      // quantities
      "count, int8, number", "bills, int8, number", "n, int4, number", "units_sold, numeric, number",
      "customer_id_count, int8, number", "avg, numeric, number", "share, float8, number",
      // money: a decimal with a money word, or PostgreSQL's money type
      "revenue, numeric, money", "total_amt, numeric, money", "avgSalary, float8, money", "balance, money, money",
      "Amount Billed, numeric, money",
      // integers are never money: a salary in whole units keeps no decimals
      "salary, int4, number",
      // identifiers, years and codes stay as stored
      "id, int4, plain", "bill_id, int4, plain", "CustomerID, int8, plain", "Order Id, int4, plain",
      "year, int4, plain", "year, numeric, plain", "fiscal_year, int4, plain", "extract, numeric, plain",
      "date_part, float8, plain", "bill_no, int4, plain", "invoice_number, int8, plain", "zip, int4, plain",
      "phone, int8, plain", "version, int4, plain",
      // not numbers at all
      "bills, text, plain", "total_amt, varchar, plain", "bill_dt, timestamp, plain", "ids, int4[], plain"})
  void decidesByTypeAndName(String name, String type, String expected) {
    assertThat(ColumnFormat.of(name, type).wireName()).isEqualTo(expected);
  }

  @Test
  void quantitiesGetSeparatorsExactlyWhateverTheirSize() {
    assertThat(ColumnFormat.NUMBER.format(1267)).isEqualTo("1,267");
    assertThat(ColumnFormat.NUMBER.format(999)).isEqualTo("999");
    assertThat(ColumnFormat.NUMBER.format(-1234567L)).isEqualTo("-1,234,567");
    assertThat(ColumnFormat.NUMBER.format("123456789012345678901234.5")).isEqualTo("123,456,789,012,345,678,901,234.5");
    assertThat(ColumnFormat.NUMBER.format("1234.50")).as("a numeric keeps its scale").isEqualTo("1,234.50");
    assertThat(ColumnFormat.NUMBER.format("0.83333333333333333333")).isEqualTo("0.8333");
    assertThat(ColumnFormat.NUMBER.format(2.5)).isEqualTo("2.5");
  }

  @Test
  void moneyHasTwoDecimals() {
    assertThat(ColumnFormat.MONEY.format("1234567.5")).isEqualTo("1,234,567.50");
    assertThat(ColumnFormat.MONEY.format("999.995")).isEqualTo("1,000.00");
    assertThat(ColumnFormat.MONEY.format("-0.001")).isEqualTo("0.00");
    assertThat(ColumnFormat.MONEY.format(12)).isEqualTo("12.00");
  }

  @Test
  void whatIsNotANumberIsShownAsItIs() {
    assertThat(ColumnFormat.NUMBER.format("NaN")).isEqualTo("NaN");
    assertThat(ColumnFormat.MONEY.format("Infinity")).isEqualTo("Infinity");
    assertThat(ColumnFormat.NUMBER.format(null)).isEqualTo("NULL");
    assertThat(ColumnFormat.PLAIN.format(2025)).isEqualTo("2025");
    assertThat(ColumnFormat.PLAIN.format(new JsonArray().add(1).add(2))).isEqualTo("[1,2]");
  }

  @Test
  void annotatingAddsTheFormatAndLeavesTheColumnsAsTheyWere() {
    JsonArray columns = new JsonArray().add(column("year", "int4")).add(column("bills", "int8"))
        .add(column("revenue", "numeric"));
    JsonArray annotated = ColumnFormat.annotate(columns);
    assertThat(annotated.stream().map(c -> ((JsonObject) c).getString("format")).toList())
        .containsExactly("plain", "number", "money");
    assertThat(annotated.getJsonObject(0).getString("name")).isEqualTo("year");
    assertThat(columns.getJsonObject(0).containsKey("format")).as("the input is not changed").isFalse();
  }

  @Test
  void aDisplayRowFormatsQuantitiesAndKeepsYearsAndIds() {
    JsonArray columns = new JsonArray().add(column("year", "int4")).add(column("bill_id", "int4"))
        .add(column("bills", "int8")).add(column("revenue", "numeric")).add(column("status", "text"));
    JsonArray row = new JsonArray().add(2025).add(10234).add(1267).add("1234567.5").addNull();
    assertThat(ColumnFormat.displayRow(columns, row).encode())
        .isEqualTo("[2025,10234,\"1,267\",\"1,234,567.50\",null]");
  }

  static JsonObject column(String name, String type) {
    return new JsonObject().put("name", name).put("type", type);
  }
}

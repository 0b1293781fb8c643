package dev.sqlagent.drift;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which type changes keep every value as it reads (typmods as PostgreSQL stores them). */
class WideningTest {

  /** A column of a type given as base + typmod, the way pg_attribute holds it. */
  static SchemaShape.Column col(String base, int typmod) {
    return SchemaShape.Column.of("c", 1, base + "/" + typmod, base, typmod, true);
  }

  static int varchar(int n) {
    return n + 4;
  }

  static int numeric(int p, int s) {
    return ((p << 16) | (s & 0x7ff)) + 4;
  }

  @ParameterizedTest(name = "{0}({1}) -> {2}({3}) preserves values: {4}")
  @CsvSource({
      "varchar, 44, varchar, 84, true",     // varchar(40) -> varchar(80)
      "varchar, 84, varchar, 44, false",    // narrowing
      "varchar, 44, varchar, -1, true",     // no limit
      "varchar, 44, text, -1, true",
      "varchar, -1, varchar, 44, false",
      "text, -1, varchar, -1, true",
      "text, -1, varchar, 44, false",
      "bpchar, 7, bpchar, 11, false",       // char(3) -> char(7) pads
      "int2, -1, int4, -1, true",
      "int4, -1, int8, -1, true",
      "int8, -1, int4, -1, false",
      "int4, -1, numeric, -1, true",
      "float4, -1, float8, -1, false",
      "timestamp, 3, timestamp, -1, true",
      "timestamp, -1, timestamp, 3, false",
      "timestamp, -1, timestamptz, -1, false",
      "date, -1, timestamp, -1, false",
  })
  void simpleTypes(String fromBase, int fromMod, String toBase, int toMod, boolean preserves) {
    assertThat(Widening.preservesValues(col(fromBase, fromMod), col(toBase, toMod))).isEqualTo(preserves);
  }

  @ParameterizedTest(name = "numeric({0},{1}) -> numeric({2},{3}) preserves values: {4}")
  @CsvSource({
      "12, 2, 12, 0, false",   // rounds away the cents: the change the issue names
      "12, 2, 14, 2, true",
      "12, 2, 10, 2, false",
      "12, 2, 14, 4, false",   // 12.50 would read 12.5000
      "10, 0, 12, 0, true",
  })
  void numerics(int p, int s, int p2, int s2, boolean preserves) {
    assertThat(Widening.preservesValues(col("numeric", numeric(p, s)), col("numeric", numeric(p2, s2)))).isEqualTo(preserves);
  }

  @ParameterizedTest(name = "{0} -> numeric({1},0) preserves values: {2}")
  @CsvSource({"int4, 10, true", "int4, 9, false", "int8, 19, true", "int2, 5, true"})
  void integersIntoNumeric(String base, int p, boolean preserves) {
    assertThat(Widening.preservesValues(col(base, -1), col("numeric", numeric(p, 0)))).isEqualTo(preserves);
  }

  @ParameterizedTest
  @CsvSource({"12, 2", "10, 0", "5, -2", "1000, 1000"})
  void typmodsDecodeAsPostgresEncodesThem(int p, int s) {
    SchemaShape.Column c = col("numeric", numeric(p, s));
    assertThat(c.precision()).isEqualTo(p);
    assertThat(c.scale()).isEqualTo(s);
  }
}

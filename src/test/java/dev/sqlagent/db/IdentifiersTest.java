package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Names and values written into SQL text: what PostgreSQL reads back must be exactly what was given. */
class IdentifiersTest {

  @Test
  void aNameIsAlwaysQuotedWithItsQuotesDoubled() {
    assertThat(Identifiers.quote("Order \"Lines\"")).isEqualTo("\"Order \"\"Lines\"\"\"");
    assertThat(Identifiers.qualified("Sales", "customers")).isEqualTo("\"Sales\".\"customers\"");
  }

  @Test
  void aNameIsBareOnlyWhenPostgresqlReadsItBackUnchanged() {
    assertThat(Identifiers.name("customers")).isEqualTo("customers");
    assertThat(Identifiers.name("Customers")).isEqualTo("\"Customers\"");
    assertThat(Identifiers.name("order")).isEqualTo("\"order\"");
  }

  @Test
  void aValueDoublesItsQuotesAndABackslashMakesAnEscapeLiteral() {
    assertThat(Identifiers.literal("o'brien")).isEqualTo("'o''brien'");
    assertThat(Identifiers.literal("C:\\data's")).isEqualTo("E'C:\\\\data''s'");
  }

  @Test
  void postgresqlReadsBackExactlyWhatWasQuoted() throws Exception {
    String name = "Odd \"name\" \\ here";
    String value = "it's a C:\\path";
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT " + Identifiers.literal(value) + " AS " + Identifiers.quote(name))) {
      rs.next();
      assertThat(rs.getMetaData().getColumnName(1)).isEqualTo(name);
      assertThat(rs.getString(1)).isEqualTo(value);
    }
  }
}

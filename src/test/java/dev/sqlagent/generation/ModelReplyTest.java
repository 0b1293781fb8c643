package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.generation.ModelReply.InvalidModelOutput;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ModelReplyTest {

  @Nested
  class JsonObjects {
    @Test
    void plainObject() {
      ModelReply r = ModelReply.parse("{\"sql\": \"SELECT count(*) FROM customers\", \"explanation\": \"counts them\"}");
      assertThat(r.sql()).isEqualTo("SELECT count(*) FROM customers");
      assertThat(r.explanation()).isEqualTo("counts them");
      assertThat(r.refused()).isFalse();
    }

    @Test
    void trailingSemicolonIsStripped() {
      assertThat(ModelReply.parse("{\"sql\": \"SELECT 1;  \", \"explanation\": \"\"}").sql()).isEqualTo("SELECT 1");
      assertThat(ModelReply.parse("{\"sql\": \"SELECT 1;;\"}").sql()).isEqualTo("SELECT 1");
    }

    @Test
    void insideJsonFence() {
      ModelReply r = ModelReply.parse("```json\n{\"sql\": \"SELECT name FROM products\", \"explanation\": \"names\"}\n```");
      assertThat(r.sql()).isEqualTo("SELECT name FROM products");
      assertThat(r.explanation()).isEqualTo("names");
    }

    @Test
    void insideProse() {
      ModelReply r = ModelReply.parse("Sure! Here is the query you need:\n"
          + "{\"sql\": \"SELECT id FROM bills WHERE status = 'paid'\", \"explanation\": \"paid bills\"}\nHope it helps {:");
      assertThat(r.sql()).isEqualTo("SELECT id FROM bills WHERE status = 'paid'");
    }

    @Test
    void bracesInsideStringsDoNotConfuseTheScanner() {
      ModelReply r = ModelReply.parse("{\"sql\": \"SELECT '{not json}' AS x, '}' AS y\", \"explanation\": \"a } brace\"}");
      assertThat(r.sql()).isEqualTo("SELECT '{not json}' AS x, '}' AS y");
      assertThat(r.explanation()).isEqualTo("a } brace");
    }

    @Test
    void rawNewlinesInsideTheStringAreAccepted() {
      ModelReply r = ModelReply.parse("{\"sql\": \"SELECT id\nFROM customers\nWHERE city = 'Oslo'\", \"explanation\": \"x\"}");
      assertThat(r.sql()).isEqualTo("SELECT id\nFROM customers\nWHERE city = 'Oslo'");
    }

    @Test
    void singleQuotesAndTrailingCommaAreAccepted() {
      ModelReply r = ModelReply.parse("{'sql': 'SELECT 1', 'explanation': 'one',}");
      assertThat(r.sql()).isEqualTo("SELECT 1");
    }

    @Test
    void aFenceInsideTheSqlStringIsUnwrapped() {
      ModelReply r = ModelReply.parse("{\"sql\": \"```sql\\nSELECT 2;\\n```\", \"explanation\": \"two\"}");
      assertThat(r.sql()).isEqualTo("SELECT 2");
    }

    @Test
    void anUnrelatedObjectBeforeTheAnswerIsSkipped() {
      ModelReply r = ModelReply.parse("Context: {\"table\": \"bills\"} Answer: {\"sql\": \"SELECT 3\", \"explanation\": \"e\"}");
      assertThat(r.sql()).isEqualTo("SELECT 3");
    }

    @Test
    void alternativeKeyNames() {
      assertThat(ModelReply.parse("{\"query\": \"SELECT 4\", \"reason\": \"r\"}"))
          .isEqualTo(new ModelReply("SELECT 4", "r"));
    }

    @Test
    void keysInAnotherCase() {
      ModelReply r = ModelReply.parse("{\"SQL\": \"SELECT 6;\", \"Explanation\": \"six\"}");
      assertThat(r.sql()).isEqualTo("SELECT 6");
      assertThat(r.explanation()).isEqualTo("six");
      assertThat(ModelReply.parse("Here you go: {\"Sql\": \"SELECT 7\", \"Reason\": \"seven\"} Hope it helps.").sql())
          .isEqualTo("SELECT 7");
      assertThat(ModelReply.parse("{\"SQL_Query\": \"SELECT 8\"}").sql()).isEqualTo("SELECT 8");
    }

    @Test
    void missingExplanationIsEmpty() {
      assertThat(ModelReply.parse("{\"sql\": \"SELECT 5\"}").explanation()).isEmpty();
    }

    @Test
    void sqlAsANumberIsInvalid() {
      assertThatThrownBy(() -> ModelReply.parse("{\"sql\": 42, \"explanation\": \"x\"}"))
          .isInstanceOf(InvalidModelOutput.class).hasMessageContaining("must be a string or null");
    }
  }

  @Nested
  class Refusals {
    @Test
    void nullSqlWithAReasonIsARefusal() {
      ModelReply r = ModelReply.parse("{\"sql\": null, \"explanation\": \"The schema has no weather data.\"}");
      assertThat(r.refused()).isTrue();
      assertThat(r.sql()).isNull();
      assertThat(r.explanation()).isEqualTo("The schema has no weather data.");
      assertThat(r.toJson().getBoolean("refused")).isTrue();
    }

    @Test
    void emptySqlWithAReasonIsARefusal() {
      assertThat(ModelReply.parse("{\"sql\": \"  \", \"explanation\": \"no such data\"}").refused()).isTrue();
    }

    @Test
    void nullSqlWithoutAReasonIsInvalid() {
      assertThatThrownBy(() -> ModelReply.parse("{\"sql\": null}"))
          .isInstanceOf(InvalidModelOutput.class).hasMessageContaining("no explanation");
      assertThatThrownBy(() -> ModelReply.parse("{\"sql\": null, \"explanation\": \"\"}"))
          .isInstanceOf(InvalidModelOutput.class);
    }
  }

  @Nested
  class Fences {
    @Test
    void sqlFenceWithProse() {
      ModelReply r = ModelReply.parse("This counts the customers.\n```sql\nSELECT count(*)\nFROM customers;\n```\nDone.");
      assertThat(r.sql()).isEqualTo("SELECT count(*)\nFROM customers");
      assertThat(r.explanation()).contains("This counts the customers.").contains("Done.");
    }

    @Test
    void postgresqlLabelledFence() {
      assertThat(ModelReply.parse("```postgresql\nSELECT 1\n```").sql()).isEqualTo("SELECT 1");
    }

    @Test
    void unlabelledFenceHoldingSql() {
      assertThat(ModelReply.parse("```\nWITH t AS (SELECT 1 AS x) SELECT x FROM t\n```").sql())
          .isEqualTo("WITH t AS (SELECT 1 AS x) SELECT x FROM t");
    }

    @Test
    void unclosedSqlFence() {
      assertThat(ModelReply.parse("```sql\nSELECT name FROM products").sql()).isEqualTo("SELECT name FROM products");
    }

    @Test
    void firstSqlFenceWins() {
      assertThat(ModelReply.parse("```sql\nSELECT 1\n```\nor\n```sql\nSELECT 2\n```").sql()).isEqualTo("SELECT 1");
    }
  }

  @Nested
  class BareSql {
    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "select 1;", "  SELECT 1 ;\n", "SELECT 1;\n"})
    void select(String text) {
      assertThat(ModelReply.parse(text).sql()).isEqualTo(text.strip().replaceAll("\\s*;$", ""));
    }

    @Test
    void withCte() {
      String sql = "WITH recent AS (SELECT * FROM bills WHERE billed_on > now() - interval '7 days')\nSELECT count(*) FROM recent";
      assertThat(ModelReply.parse(sql + ";").sql()).isEqualTo(sql);
    }

    @Test
    void recursiveCteWithColumnList() {
      String sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) SELECT i FROM n";
      assertThat(ModelReply.parse(sql).sql()).isEqualTo(sql);
    }

    @Test
    void valuesAndTable() {
      assertThat(ModelReply.parse("VALUES (1), (2);").sql()).isEqualTo("VALUES (1), (2)");
      assertThat(ModelReply.parse("TABLE customers;").sql()).isEqualTo("TABLE customers");
    }

    @Test
    void proseBeforeAndAfter() {
      ModelReply r = ModelReply.parse("Here is the query:\nSELECT id FROM customers;\nIt lists every id.");
      assertThat(r.sql()).isEqualTo("SELECT id FROM customers");
      assertThat(r.explanation()).contains("Here is the query:").contains("It lists every id.");
    }

    @Test
    void semicolonInsideALiteralDoesNotEndTheStatement() {
      assertThat(ModelReply.parse("SELECT 'a;b' AS x, \"odd;name\" FROM t -- trailing; comment\n;").sql())
          .isEqualTo("SELECT 'a;b' AS x, \"odd;name\" FROM t -- trailing; comment");
    }

    @Test
    void doubledQuoteInsideALiteral() {
      assertThat(ModelReply.parse("SELECT 'it''s; fine' AS x;").sql()).isEqualTo("SELECT 'it''s; fine' AS x");
    }

    @Test
    void blankLineInsideTheStatementIsKept() {
      String sql = "WITH a AS (SELECT 1 AS x)\n\nSELECT x\n\nFROM a";
      assertThat(ModelReply.parse(sql).sql()).isEqualTo(sql);
    }

    @Test
    void blankLineThenProseEndsTheStatement() {
      ModelReply r = ModelReply.parse("SELECT x FROM a\n\nThis query returns x.");
      assertThat(r.sql()).isEqualTo("SELECT x FROM a");
      assertThat(r.explanation()).isEqualTo("This query returns x.");
    }
  }

  @Nested
  class Unusable {
    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\n"})
    void empty(String text) {
      assertThatThrownBy(() -> ModelReply.parse(text))
          .isInstanceOf(InvalidModelOutput.class).hasMessageContaining("empty");
    }

    @Test
    void nullIsEmpty() {
      assertThatThrownBy(() -> ModelReply.parse(null)).isInstanceOf(InvalidModelOutput.class);
    }

    @Test
    void proseOnly() {
      InvalidModelOutput e = org.junit.jupiter.api.Assertions.assertThrows(InvalidModelOutput.class,
          () -> ModelReply.parse("I think you should look at the bills table."));
      assertThat(e.errorType()).isEqualTo("model_output_invalid");
      assertThat(e.reason()).contains("no JSON object").contains("look at the bills table");
      assertThat(e.toJson().getString("error_type")).isEqualTo("model_output_invalid");
    }

    @Test
    void proseThatStartsWithASqlWordIsNotSql() {
      assertThatThrownBy(() -> ModelReply.parse("With the given schema I cannot answer that."))
          .isInstanceOf(InvalidModelOutput.class);
      assertThatThrownBy(() -> ModelReply.parse("Table customers is what you want."))
          .isInstanceOf(InvalidModelOutput.class);
    }

    @Test
    void truncatedJson() {
      assertThatThrownBy(() -> ModelReply.parse("{\"sql\": \"SELECT id FROM cust"))
          .isInstanceOf(InvalidModelOutput.class).hasMessageContaining("cut off or malformed");
      assertThatThrownBy(() -> ModelReply.parse("{\"sql\": \"SELECT id FROM customers\" trailing"))
          .isInstanceOf(InvalidModelOutput.class).hasMessageContaining("cut off or malformed");
    }

    /**
     * A real 0.5B model, held to the reply's schema, wrote a whole statement and then explained it until its token
     * limit cut the object off, repeating itself: the statement is whole, so it is used (the shape recorded, the
     * names the demo's).
     */
    @Test
    void aReplyCutOffWhileExplainingKeepsItsWholeStatement() {
      String explaining = "This query finds all customers that have orders from 'Paris' but not from 'Lyon'. ".repeat(12);
      ModelReply r = ModelReply.parse("{\"sql\": \"SELECT name FROM customers WHERE customer_id IN (SELECT customer_id "
          + "FROM orders WHERE city = 'Paris') EXCEPT SELECT name FROM customers WHERE city = 'Lyon'\", "
          + "\"explanation\": \"" + explaining + "The subquery is used to fi");
      assertThat(r.sql()).isEqualTo("SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM orders "
          + "WHERE city = 'Paris') EXCEPT SELECT name FROM customers WHERE city = 'Lyon'");
      assertThat(r.refused()).isFalse();
      ModelReply fenced = ModelReply.parse("```json\n{\"sql\": \"SELECT id FROM customers\\nWHERE note = 'say \\\"hi\\\"'\", \"explanation\": \"x");
      assertThat(fenced.sql()).isEqualTo("SELECT id FROM customers\nWHERE note = 'say \"hi\"'");
    }

    @Test
    void jsonWithoutAnyKnownKey() {
      assertThatThrownBy(() -> ModelReply.parse("{\"answer\": 42}")).isInstanceOf(InvalidModelOutput.class);
    }

    @Test
    void nonSqlFence() {
      assertThatThrownBy(() -> ModelReply.parse("```python\nprint('hi')\n```"))
          .isInstanceOf(InvalidModelOutput.class);
    }

    @Test
    void longGarbageIsClippedInTheReason() {
      InvalidModelOutput e = org.junit.jupiter.api.Assertions.assertThrows(InvalidModelOutput.class,
          () -> ModelReply.parse("blah ".repeat(500)));
      assertThat(e.reason().length()).isLessThan(300);
    }
  }
}

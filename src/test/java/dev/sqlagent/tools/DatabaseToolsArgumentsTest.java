package dev.sqlagent.tools;

import dev.sqlagent.config.Deadlines;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad arguments are tool errors with a message that says what to send instead, found before anything is
 * asked of a service (no consumer is registered here: a call that reached the bus would say "unavailable").
 */
class DatabaseToolsArgumentsTest {

  static Vertx vertx;
  static DatabaseTools tools;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    tools = new DatabaseTools(vertx, new Deadlines(1_000, 1_000, 1_000, 1_000));
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static ToolResult call(String tool, JsonObject args) throws Exception {
    return tools.call(tool, args).await(10, TimeUnit.SECONDS);
  }

  private static void assertBadArgument(ToolResult r, String... words) {
    assertThat(r.error()).isTrue();
    assertThat(r.errorType()).isEqualTo("bad_argument");
    assertThat(r.data().getBoolean("ok")).isFalse();
    assertThat(r.message()).contains(words);
    assertThat(new JsonObject(r.text())).isEqualTo(r.data());
  }

  @Test
  void describeTableNeedsAName() throws Exception {
    assertBadArgument(call("describe_table", new JsonObject()), "name must be a table name");
    assertBadArgument(call("describe_table", new JsonObject().put("name", "  ")), "name must be a table name");
    assertBadArgument(call("describe_table", new JsonObject().put("name", 42)), "name must be a table name");
    assertBadArgument(call("describe_table", new JsonObject().put("name", "x".repeat(500))), "500 characters");
  }

  @Test
  void sampleRowsTakesOneToTenRows() throws Exception {
    for (Object n : new Object[] {0, 11, -3, 2.5, "3", true, 1_000_000_000_000L}) {
      assertBadArgument(call("sample_rows", new JsonObject().put("name", "bills").put("n", n)),
          "n must be a whole number from 1 to 10");
    }
    assertBadArgument(call("sample_rows", new JsonObject().put("n", 3)), "name must be a table name");
  }

  @Test
  void sampleRowsAcceptsWholeNumbersInRange() {
    assertThat(DatabaseTools.rowCountProblem(null)).isNull();
    assertThat(DatabaseTools.rowCountProblem(1)).isNull();
    assertThat(DatabaseTools.rowCountProblem(10L)).isNull();
    assertThat(DatabaseTools.rowCountProblem(4.0)).isNull();
  }

  /** A string, even a blank one, is the gate's to judge (DatabaseToolsGuardrailTest); anything else is refused here. */
  @Test
  void runQueryNeedsSqlAsAString() throws Exception {
    assertBadArgument(call("run_query", new JsonObject()), "sql must be one SELECT statement, as a string");
    assertBadArgument(call("run_query", new JsonObject().put("sql", 1)), "sql must be one SELECT statement, as a string");
    assertBadArgument(call("run_query", new JsonObject().put("sql", new JsonObject())), "sql must be one SELECT statement");
  }

  @Test
  void askNeedsAQuestionOfSensibleLength() throws Exception {
    // The question's rules and refusals are the agent's edges' own (AskRules), not the tools' argument errors.
    assertRefused(call("ask", new JsonObject()), "bad_request", "question must be a non-empty string");
    assertRefused(call("ask", new JsonObject().put("question", "   ")), "bad_request", "question must be a non-empty string");
    assertRefused(call("ask", new JsonObject().put("question", "why ".repeat(600))), "question_too_long",
        "the question is 2400 characters long; the limit is 2000");
  }

  private static void assertRefused(ToolResult r, String errorType, String message) {
    assertThat(r.error()).isTrue();
    assertThat(r.errorType()).isEqualTo(errorType);
    assertThat(r.message()).contains(message);
  }

  @Test
  void unknownToolsAndArgumentsAreNamed() throws Exception {
    assertBadArgument(call("drop_table", new JsonObject()), "no tool 'drop_table'",
        "list_tables, describe_table, sample_rows, run_query, ask");
    assertBadArgument(call("describe_table", new JsonObject().put("table", "bills")),
        "unknown argument 'table'", "describe_table takes: name");
    assertBadArgument(call("list_tables", new JsonObject().put("schema", "pg_catalog")),
        "list_tables takes no arguments");
  }

  @Test
  void aServiceThatIsNotRunningIsAToolErrorNotACrash() throws Exception {
    ToolResult r = call("list_tables", new JsonObject());
    assertThat(r.error()).isTrue();
    assertThat(r.errorType()).isEqualTo("unavailable");
    assertThat(r.message()).isEqualTo("the schema catalogue is not running");
    ToolResult q = call("run_query", new JsonObject().put("sql", "SELECT 1"));
    assertThat(q.errorType()).isEqualTo("unavailable");
    assertThat(q.message()).isEqualTo("the query gate is not running");
  }
}

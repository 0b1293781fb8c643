package dev.sqlagent.verified;

import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AgentClient;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.cli.Main;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.codec.BodyCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The library of verified queries on the real service, over a copy of the shop (shop_verified: one test renames a
 * column there, never in the shared shop). Feedback and promotion through the API, MCP and the command line; a
 * paraphrase answered with no model call; a renamed column retires the query and the next question goes to the model.
 */
class VerifiedQueriesTest {

  static final String QUESTION = "How many named customers may buy on credit?";
  static final String PARAPHRASE = "How many named customers are allowed to buy on credit?";
  static final String SQL = "SELECT count(*) AS credit_customers FROM customers WHERE is_credit_customer";

  static Target copy;
  static Vertx vertx;
  static FakeModelServer model;
  static MainVerticle main;
  static RunningService service;
  static WebClient http;
  static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    // As a database given by URL (not the demo): the key the command line computes from the same URL.
    copy = new Target(DatabaseCopy.of("shop_verified").url(), false);
    model = FakeModelServer.start();
    env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_DB_URL", copy.url().withSecret());
    service = RunningService.on(copy, model, env);
    vertx = service.vertx;
    main = service.main;
    http = service.client;
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
    model.close();
    DatabaseCopy.rebuild(copy);
  }

  @BeforeEach
  void emptyLibrary() throws Exception {
    model.reset();
    for (Object v : get("/api/verified").getJsonArray("verified")) {
      long id = ((JsonObject) v).getLong("verified_id");
      assertThat(http.delete(main.httpPort(), "127.0.0.1", "/api/verified/" + id).send().await(30, TimeUnit.SECONDS)
          .statusCode()).isEqualTo(200);
    }
    assertThat(get("/api/verified").getJsonArray("verified")).isEmpty();
  }

  static HttpResponse<JsonObject> post(String path, JsonObject body) throws Exception {
    return http.post(main.httpPort(), "127.0.0.1", path).as(BodyCodec.jsonObject()).sendJsonObject(body)
        .await(120, TimeUnit.SECONDS);
  }

  static JsonObject get(String path) throws Exception {
    return http.get(main.httpPort(), "127.0.0.1", path).as(BodyCodec.jsonObject()).send().await(60, TimeUnit.SECONDS).body();
  }

  static JsonObject ask(String question) throws Exception {
    HttpResponse<JsonObject> r = post("/api/ask", new JsonObject().put("question", question));
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.body();
  }

  /** Asks the question (the model writes the SQL), rates it up and promotes it: the page's path, over the API. */
  static long verifyThroughTheApi() throws Exception {
    model.enqueue(Reply.sql(SQL));
    JsonObject answer = ask(QUESTION);
    assertThat(answer.getString("answer_source")).isEqualTo("model");
    String run = answer.getString("run_id");
    HttpResponse<JsonObject> rated = post("/api/runs/" + run + "/feedback", new JsonObject().put("rating", "up")
        .put("comment", "matches the credit report"));
    assertThat(rated.statusCode()).as(rated.bodyAsString()).isEqualTo(200);
    HttpResponse<JsonObject> verified = post("/api/runs/" + run + "/verify", new JsonObject());
    assertThat(verified.statusCode()).as(verified.bodyAsString()).isEqualTo(200);
    assertThat(verified.body().getString("sql")).startsWith(SQL);   // as it ran: the gate's row cap added
    assertThat(verified.body().getString("from_run_id")).isEqualTo(run);
    return verified.body().getLong("verified_id");
  }

  @Test
  void aParaphraseOfAVerifiedQueryIsAnsweredWithoutCallingTheModel() throws Exception {
    long id = verifyThroughTheApi();
    int calls = model.requestCount();

    JsonObject answer = ask(PARAPHRASE);

    assertThat(model.requestCount()).as("model calls").isEqualTo(calls);
    assertThat(answer.getString("answer_source")).isEqualTo("verified");
    assertThat(answer.getLong("verified_id")).isEqualTo(id);
    assertThat(answer.getString("sql")).contains("is_credit_customer");
    assertThat(answer.getJsonArray("rows").getJsonArray(0).getValue(0).toString())
        .isEqualTo(scalar("SELECT count(*) FROM customers WHERE is_credit_customer"));
    JsonArray events = get("/api/runs/" + answer.getString("run_id") + "/events").getJsonArray("events");
    JsonObject lookup = events.stream().map(e -> (JsonObject) e)
        .filter(e -> e.getString("node").equals("lookup_verified") && e.getString("status").equals("finished"))
        .findFirst().orElseThrow().getJsonObject("data");
    assertThat(lookup.getLong("direct")).isEqualTo(id);
    assertThat(lookup.getJsonArray("matches").getJsonObject(0).getDouble("score"))
        .isGreaterThanOrEqualTo(lookup.getDouble("threshold"));
    // The feedback is stored with the run, in its conversation.
    JsonObject turn = get("/api/conversations/" + answer.getString("conversation_id")).getJsonArray("turns").getJsonObject(0);
    assertThat(turn.getLong("verified_id")).isEqualTo(id);

    // A question naming another value is not answered by it, however alike the words: the model writes that one,
    // with the verified query among its worked examples.
    model.enqueue(Reply.sql("SELECT count(*) FROM customers WHERE is_credit_customer AND credit_limit > 5000"));
    JsonObject other = ask("How many named customers may buy on credit with a limit above 5000?");
    assertThat(other.getString("answer_source")).isEqualTo("model");
    assertThat(model.lastRequest().systemMessage()).contains("<<<EXAMPLES\n").contains("Q: " + QUESTION).contains(SQL);

    // An evaluation measures the model: its options say not to look the verified queries up, so the model answers.
    model.enqueue(Reply.sql(SQL));
    int before = model.requestCount();
    Answer measured = new AgentClient(vertx, 60_000)
        .ask(AskRequest.of(PARAPHRASE, "eval").withOptions(RunOptions.evaluation(null, null)))
        .await(60, TimeUnit.SECONDS);
    assertThat(measured.answerSource()).isEqualTo("model");
    assertThat(measured.conversationId()).as("it stands alone").isNull();
    assertThat(model.requestCount()).isGreaterThan(before);
    assertThat(model.lastRequest().systemMessage()).as("no block of worked examples").doesNotContain("<<<EXAMPLES\n");
  }

  @Test
  void feedbackAndVerifyRefuseWhatTheyCannotTakeWithClearMessages() throws Exception {
    model.enqueue(Reply.sql("SELECT count(*) FROM products"));
    String run = ask("How many products are there?").getString("run_id");
    HttpResponse<JsonObject> unrated = post("/api/runs/" + run + "/verify", new JsonObject());
    assertThat(unrated.statusCode()).isEqualTo(409);
    assertThat(unrated.body().getString("message")).contains("rate the answer up");
    assertThat(post("/api/runs/" + run + "/feedback", new JsonObject().put("rating", "down")).statusCode()).isEqualTo(200);
    assertThat(post("/api/runs/" + run + "/verify", new JsonObject()).statusCode()).isEqualTo(409);
    assertThat(post("/api/runs/" + run + "/feedback", new JsonObject().put("rating", "meh")).statusCode()).isEqualTo(400);
    assertThat(post("/api/runs/" + run + "/feedback", new JsonObject().put("rating", "up").put("comment", 5)).statusCode())
        .isEqualTo(400);
    HttpResponse<JsonObject> unknown = post("/api/runs/00000000-0000-0000-0000-000000000000/feedback",
        new JsonObject().put("rating", "up"));
    assertThat(unknown.statusCode()).isEqualTo(404);

    HttpResponse<JsonObject> badColumn = post("/api/verified", new JsonObject().put("question", "Credit customers?")
        .put("sql", "SELECT count(*) FROM customers WHERE on_credit"));
    assertThat(badColumn.statusCode()).isEqualTo(422);
    assertThat(badColumn.body().getString("message")).contains("gate refused").contains("unknown_column");
    HttpResponse<JsonObject> write = post("/api/verified", new JsonObject().put("question", "Wipe customers")
        .put("sql", "DELETE FROM customers"));
    assertThat(write.statusCode()).isEqualTo(422);
    assertThat(post("/api/verified", new JsonObject().put("question", "No SQL")).statusCode()).isEqualTo(400);
    assertThat(get("/api/verified").getJsonArray("verified")).isEmpty();
    assertThat(scalar("SELECT count(*) FROM customers")).isNotEqualTo("0");
  }

  @Test
  void aRenamedColumnRetiresTheVerifiedQueryAndTheNextQuestionGoesToTheModel() throws Exception {
    long id = verifyThroughTheApi();
    try {
      try (Connection c = DatabaseCopy.admin(copy); Statement s = c.createStatement()) {
        s.execute("ALTER TABLE customers RENAME COLUMN is_credit_customer TO on_credit");
      }
      HttpResponse<JsonObject> refreshed = post("/api/schema/refresh", new JsonObject());
      assertThat(refreshed.statusCode()).isEqualTo(200);
      JsonObject verified = refreshed.body().getJsonObject("verified");
      assertThat(verified.getJsonArray("newly_retired")).singleElement()
          .satisfies(r -> assertThat(((JsonObject) r).getLong("verified_id")).isEqualTo(id));

      JsonObject entry = get("/api/verified").getJsonArray("verified").getJsonObject(0);
      assertThat(entry.getString("status")).isEqualTo("retired");
      assertThat(entry.getString("retired_reason")).contains("unknown_column").contains("is_credit_customer");
      assertThat(http.get(main.httpPort(), "127.0.0.1", "/api/health").as(BodyCodec.jsonObject()).send()
          .await(30, TimeUnit.SECONDS).body().getLong("verified_retired")).isEqualTo(1L);

      int calls = model.requestCount();
      model.enqueue(Reply.sql("SELECT count(*) AS credit_customers FROM customers WHERE on_credit"));
      JsonObject answer = ask(PARAPHRASE);
      assertThat(model.requestCount()).isEqualTo(calls + 1);
      assertThat(answer.getString("answer_source")).isEqualTo("model");
      assertThat(answer.getString("sql")).contains("on_credit");
    } finally {
      try (Connection c = DatabaseCopy.admin(copy); Statement s = c.createStatement()) {
        s.execute("ALTER TABLE customers RENAME COLUMN on_credit TO is_credit_customer");
      }
    }
    // Fixed (the column is back): the next re-check restores it.
    JsonObject again = post("/api/schema/refresh", new JsonObject()).body().getJsonObject("verified");
    assertThat(again.getJsonArray("restored")).hasSize(1);
    assertThat(get("/api/verified").getLong("retired")).isZero();
  }

  @Test
  void feedbackAndVerifyThroughMcp() throws Exception {
    model.enqueue(Reply.sql(SQL));
    var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + main.httpPort()).endpoint("/mcp").build();
    McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
    try {
      client.initialize();
      var asked = client.callTool(new McpSchema.CallToolRequest("ask", Map.of("question", QUESTION)));
      String run = (String) ((Map<?, ?>) asked.structuredContent()).get("run_id");
      var early = client.callTool(new McpSchema.CallToolRequest("verify", Map.of("run_id", run)));
      assertThat(early.isError()).isTrue();
      assertThat(((Map<?, ?>) early.structuredContent()).get("error_type")).isEqualTo("conflict");
      var rated = client.callTool(new McpSchema.CallToolRequest("feedback", Map.of("run_id", run, "rating", "up")));
      assertThat(rated.isError()).isFalse();
      var verified = client.callTool(new McpSchema.CallToolRequest("verify", Map.of("run_id", run)));
      assertThat(verified.isError()).isFalse();
      assertThat((String) ((Map<?, ?>) verified.structuredContent()).get("sql")).startsWith(SQL);
      var bad = client.callTool(new McpSchema.CallToolRequest("feedback", Map.of("run_id", run, "rating", "sideways")));
      assertThat(bad.isError()).isTrue();
      // The feedback store's refusal, with the error_type every edge gives it (HTTP answers 400 bad_request).
      assertThat(((Map<?, ?>) bad.structuredContent()).get("error_type")).isEqualTo("bad_request");
    } finally {
      client.closeGracefully();
    }
    assertThat(get("/api/verified").getJsonArray("verified")).hasSize(1);
  }

  @Test
  void theCommandLineAddsListsExportsAndImports(@TempDir Path dir) throws Exception {
    Map<String, String> cliEnv = TestDatabase.get().env(env);   // the same state store as the service
    String[] out = new String[1];
    assertThat(cli(cliEnv, out, "verified", "add", "--question", QUESTION, "--sql", SQL)).isEqualTo(0);
    assertThat(out[0]).contains("saved #").contains(QUESTION);
    assertThat(cli(cliEnv, out, "verified", "add", "--question", "Wipe", "--sql", "DROP TABLE customers")).isEqualTo(1);
    assertThat(out[0]).contains("gate refused");
    Path file = dir.resolve("verified.jsonl");
    assertThat(cli(cliEnv, out, "verified", "export", file.toString())).isEqualTo(0);
    assertThat(Files.readAllLines(file)).singleElement().satisfies(l -> assertThat(new JsonObject(l).getString("sql")).startsWith(SQL));
    // The running service sees what the command line wrote.
    assertThat(get("/api/verified").getJsonArray("verified")).hasSize(1);

    Files.writeString(file, new JsonObject().put("question", "How many products are in the catalogue?")
        .put("sql", "SELECT count(*) FROM products").encode() + "\n{\"question\": \"Broken\", \"sql\": \"SELECT nope FROM products\"}\n");
    assertThat(cli(cliEnv, out, "verified", "import", file.toString())).isEqualTo(1);
    assertThat(out[0]).contains("imported 1 verified queries, 1 refused").contains("line 2");
    assertThat(cli(cliEnv, out, "verified", "list")).isEqualTo(0);
    assertThat(out[0]).contains("2 active, 0 retired");
  }

  static int cli(Map<String, String> cliEnv, String[] output, String... args) {
    StringWriter text = new StringWriter();
    CommandLine cmd = new CommandLine(new Main(), new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        for (var ctor : cls.getDeclaredConstructors()) {
          if (ctor.getParameterCount() == 1 && ctor.getParameterTypes()[0] == java.util.function.Supplier.class) {
            ctor.setAccessible(true);
            return cls.cast(ctor.newInstance((java.util.function.Supplier<AppConfig>) () -> AppConfig.load(cliEnv)));
          }
        }
        return CommandLine.defaultFactory().create(cls);
      }
    });
    cmd.setOut(new PrintWriter(text, true)).setErr(new PrintWriter(text, true));
    int code = cmd.execute(args);
    output[0] = text.toString();
    return code;
  }

  static String scalar(String sql) throws Exception {
    try (Connection c = copy.roConnection(); Statement s = c.createStatement(); var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}

package dev.sqlagent.generation;

import dev.sqlagent.contract.GenerationClient;
import dev.sqlagent.contract.ModelException;
import dev.sqlagent.contract.Completion;
import dev.sqlagent.contract.ChatRequest;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.ChatRequest.Message;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The model client behind Addresses.GENERATE, against the fake model over real HTTP. */
class GenerationVerticleTest {

  static final String PRIMARY = "sk-primary-SECRET-7f3a9c1111";
  static final String FAILOVER = "sk-failover-SECRET-2b8e4d2222";

  static Vertx vertx;
  static FakeModelServer model;

  private String deployment;
  private LogCapture logs;
  /** Everything that left the verticle in a test: replies, failure messages, deltas. */
  private final List<String> outputs = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startModel() {
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
  }

  @AfterAll
  static void stopModel() throws Exception {
    model.close();
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  @BeforeEach
  void captureLogs() {
    logs = LogCapture.root();
  }

  @AfterEach
  void keysNeverLeak() throws Exception {
    logs.close();
    if (deployment != null) vertx.undeploy(deployment).await(10, TimeUnit.SECONDS);
    model.reset();
    List<String> lines = new ArrayList<>();
    for (ILoggingEvent e : logs.events()) {
      lines.add(e.getFormattedMessage());
      for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) lines.add(t.getMessage());
    }
    lines.addAll(outputs);
    for (String line : lines) {
      assertThat(line).doesNotContain(PRIMARY).doesNotContain(FAILOVER).doesNotContain("SECRET");
    }
  }

  // ---- plumbing ----

  private JsonObject config(String... keys) {
    return model.generationConfig(keys);
  }

  private void deploy(JsonObject config) throws Exception {
    deployment = vertx.deployVerticle(new GenerationVerticle(FakeModelServer.options(config))).await(10, TimeUnit.SECONDS);
  }

  private static JsonObject request(String runId, boolean stream) {
    return ChatRequest.of(runId, stream,
        Message.system("You write one PostgreSQL SELECT."),
        Message.user("How many customers are there?")).toJson();
  }

  /** Raw on purpose: the reply and failure bodies as they cross the bus, checked for what they must never carry. */
  private JsonObject ask(JsonObject request) throws Exception {
    JsonObject body = vertx.eventBus().<JsonObject>request(Addresses.GENERATE, request).await(20, TimeUnit.SECONDS).body();
    outputs.add(body.encode());
    return body;
  }

  private ReplyException askFailing(JsonObject request) {
    try {
      Object body = vertx.eventBus().request(Addresses.GENERATE, request).await(20, TimeUnit.SECONDS).body();
      throw new AssertionError("expected a failure, got " + body);
    } catch (ReplyException e) {
      outputs.add(e.getMessage());
      return e;
    } catch (Exception e) {
      throw new AssertionError("expected a ReplyException, got " + e, e);
    }
  }

  private static JsonObject failure(ReplyException e) {
    // The failure is carried by its code, the message is plain text.
    ModelException m = ModelException.of(e);
    return new JsonObject().put("error_type", m.errorType()).put("message", m.getMessage());
  }

  private MessageConsumer<JsonObject> collectDeltas(String runId, List<JsonObject> into) throws Exception {
    MessageConsumer<JsonObject> c = vertx.eventBus().consumer(Addresses.generationDeltas(runId), m -> {
      into.add(m.body());
      outputs.add(m.body().encode());
    });
    c.completion().await(5, TimeUnit.SECONDS);
    return c;
  }

  private static String joined(List<JsonObject> deltas) {
    StringBuilder sb = new StringBuilder();
    for (JsonObject d : deltas) {
      if (d.getBoolean("reset", false)) sb.setLength(0);
      sb.append(d.getString("text"));
    }
    return sb.toString();
  }

  private static void eventually(Runnable assertion) throws InterruptedException {
    long until = System.currentTimeMillis() + 3_000;
    while (true) {
      try {
        assertion.run();
        return;
      } catch (AssertionError e) {
        if (System.currentTimeMillis() > until) throw e;
        Thread.sleep(20);
      }
    }
  }

  // ---- answers ----

  @Test
  void plainAnswerWithUsageAndCost() throws Exception {
    deploy(config(PRIMARY).put("promptPricePerMTok", 2.0).put("completionPricePerMTok", 6.0));
    model.enqueue(Reply.sql("SELECT count(*) FROM customers").usage(1000, 500));

    JsonObject reply = ask(request("run-plain", false));

    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT count(*) FROM customers");
    assertThat(reply.getString("model")).isEqualTo(FakeModelServer.MODEL);
    assertThat(reply.getInteger("prompt_tokens")).isEqualTo(1000);
    assertThat(reply.getInteger("completion_tokens")).isEqualTo(500);
    assertThat(reply.getBoolean("usage_estimated")).isFalse();
    assertThat(reply.getDouble("cost_usd")).isEqualTo(0.005);
    assertThat(reply.getInteger("retries")).isZero();
    assertThat(reply.getInteger("key_index")).isZero();
    assertThat(reply.getLong("latency_ms")).isNotNegative();
    assertThat(reply.getString("finish_reason")).isEqualTo("stop");

    FakeModelServer.Recorded sent = model.lastRequest();
    assertThat(sent.authorization()).isEqualTo("Bearer " + PRIMARY);
    assertThat(sent.body().getString("model")).isEqualTo(FakeModelServer.MODEL);
    assertThat(sent.body().getValue("temperature")).isEqualTo(0);
    assertThat(sent.stream()).isFalse();
    assertThat(sent.body().containsKey("stream_options")).isFalse();
    assertThat(sent.messages()).isEqualTo(new JsonArray()
        .add(new JsonObject().put("role", "system").put("content", "You write one PostgreSQL SELECT."))
        .add(new JsonObject().put("role", "user").put("content", "How many customers are there?")));
  }

  @Test
  void anSqlReplyIsConstrainedToTheReplySchemaAndBoundedAndOtherRepliesAreNot() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 5").streamedIn(3), Reply.content("Five customers."));
    JsonObject sqlRequest = ChatRequest.fromJson(request("run-schema", true)).asSql().toJson();

    assertThat(ModelReply.parse(ask(sqlRequest).getString("content")).sql()).isEqualTo("SELECT 5");
    JsonObject sent = model.lastRequest().body();
    JsonObject format = sent.getJsonObject("response_format");
    assertThat(format.getString("type")).isEqualTo("json_schema");
    JsonObject schema = format.getJsonObject("json_schema").getJsonObject("schema");
    assertThat(schema.getJsonArray("required")).containsExactly("sql", "explanation");
    assertThat(schema.getJsonObject("properties").fieldNames()).containsExactly("sql", "explanation", "readings");
    // Bounded, so a small model that explains on is closed by the grammar instead of cut off by the token limit.
    assertThat(schema.getJsonObject("properties").getJsonObject("explanation").getInteger("maxLength")).isEqualTo(400);
    assertThat(sent.getInteger("max_tokens")).isEqualTo(1024);

    ask(request("run-schema", false));
    assertThat(model.lastRequest().body().containsKey("response_format")).isFalse();
    assertThat(model.lastRequest().body().containsKey("max_tokens")).isFalse();
  }

  @Test
  void aServerThatCannotConstrainRepliesIsAskedAgainWithoutAndNotAskedSoAgain() throws Exception {
    deploy(config());
    model.enqueue(Reply.badRequest("response_format: json_schema is not supported by this server"),
        Reply.content("Here it is:\n```sql\nSELECT 6;\n```"), Reply.sql("SELECT 7"));
    JsonObject sqlRequest = ChatRequest.fromJson(request("run-noschema", false)).asSql().toJson();

    assertThat(ModelReply.parse(ask(sqlRequest).getString("content")).sql()).isEqualTo("SELECT 6");
    List<FakeModelServer.Recorded> sent = model.requests();
    assertThat(sent.get(sent.size() - 2).body().containsKey("response_format")).isTrue();
    assertThat(sent.get(sent.size() - 1).body().containsKey("response_format")).isFalse();

    ask(sqlRequest);
    assertThat(model.lastRequest().body().containsKey("response_format")).isFalse();
    assertThat(model.lastRequest().body().getInteger("max_tokens")).isEqualTo(1024);
  }

  @Test
  void noKeyConfiguredSendsNoAuthorization() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 1"));
    ask(request("run-nokey", false));
    assertThat(model.lastRequest().authorization()).isNull();
  }

  @Test
  void responderAnswersFromThePrompt() throws Exception {
    deploy(config());
    model.respondWith(req -> FakeModelServer.lastUserMessage(req).contains("customers")
        ? Reply.sql("SELECT count(*) FROM customers") : Reply.refusal("no such data"));
    assertThat(ModelReply.parse(ask(request("run-oracle", false)).getString("content")).sql()).contains("customers");
    JsonObject weather = ChatRequest.of("run-oracle", false, Message.user("What was the weather?")).toJson();
    assertThat(ModelReply.parse(ask(weather).getString("content")).refused()).isTrue();
  }

  @Test
  void missingUsageIsEstimatedAndMarked() throws Exception {
    deploy(config().put("promptPricePerMTok", 1.0));
    String content = new JsonObject().put("sql", "SELECT 1").put("explanation", "one").encode();
    model.enqueue(Reply.content(content).withoutUsage());
    JsonObject reply = ask(request("run-est", false));
    int promptChars = "You write one PostgreSQL SELECT.".length() + "How many customers are there?".length();
    assertThat(reply.getBoolean("usage_estimated")).isTrue();
    assertThat(reply.getInteger("prompt_tokens")).isEqualTo(ChatClient.estimate(promptChars));
    assertThat(reply.getInteger("completion_tokens")).isEqualTo(ChatClient.estimate(content.length()));
    assertThat(reply.getDouble("cost_usd")).isGreaterThan(0);
  }

  // ---- streaming ----

  @Test
  void streamingPublishesCoalescedDeltas() throws Exception {
    deploy(config(PRIMARY));
    String sql = "SELECT c.name, count(b.id) AS bills FROM customers c JOIN bills b ON b.customer_id = c.id GROUP BY c.name";
    String content = new JsonObject().put("sql", sql).put("explanation", "bills per customer").encode();
    model.enqueue(Reply.content(content).streamedIn(40).chunkDelay(15).usage(321, 54));
    List<JsonObject> deltas = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> sub = collectDeltas("run-stream", deltas);

    long t0 = System.currentTimeMillis();
    JsonObject reply = ask(request("run-stream", true));
    long elapsed = System.currentTimeMillis() - t0;

    assertThat(reply.getString("content")).isEqualTo(content);
    assertThat(reply.getInteger("prompt_tokens")).isEqualTo(321);
    assertThat(reply.getInteger("completion_tokens")).isEqualTo(54);
    assertThat(reply.getBoolean("usage_estimated")).isFalse();
    eventually(() -> assertThat(joined(deltas)).isEqualTo(content));
    // 40 chunks over ~600 ms arrive as a handful of messages: at most one per 100 ms, plus the final flush.
    assertThat(deltas.size()).isGreaterThanOrEqualTo(2).isLessThanOrEqualTo((int) (elapsed / DeltaPublisher.INTERVAL_MS) + 2);
    assertThat(deltas).allSatisfy(d -> assertThat(d.getString("run_id")).isEqualTo("run-stream"));

    FakeModelServer.Recorded sent = model.lastRequest();
    assertThat(sent.stream()).isTrue();
    assertThat(sent.body().getJsonObject("stream_options")).isEqualTo(new JsonObject().put("include_usage", true));
    assertThat(sent.headers().get("Accept")).contains("text/event-stream");
    sub.unregister();
  }

  @Test
  void streamWithoutUsageIsEstimated() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 2").streamedIn(4).withoutUsage().crlf());
    JsonObject reply = ask(request("run-stream-est", true));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 2");
    assertThat(reply.getBoolean("usage_estimated")).isTrue();
    assertThat(reply.getInteger("completion_tokens")).isEqualTo(ChatClient.estimate(reply.getString("content").length()));
  }

  @Test
  void streamRequestAnsweredWithPlainJson() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 3").plainJson().usage(10, 5));
    List<JsonObject> deltas = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> sub = collectDeltas("run-plainjson", deltas);
    JsonObject reply = ask(request("run-plainjson", true));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 3");
    assertThat(reply.getInteger("prompt_tokens")).isEqualTo(10);
    eventually(() -> assertThat(joined(deltas)).isEqualTo(reply.getString("content")));
    sub.unregister();
  }

  @Test
  void cutOffStreamIsRetriedAndWatchersAreToldToStartOver() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 'first try'").streamedIn(6).chunkDelay(150).truncated(), Reply.sql("SELECT 4").streamedIn(2));
    List<JsonObject> deltas = new CopyOnWriteArrayList<>();
    MessageConsumer<JsonObject> sub = collectDeltas("run-cut", deltas);
    JsonObject reply = ask(request("run-cut", true));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 4");
    assertThat(reply.getInteger("retries")).isEqualTo(1);
    eventually(() -> assertThat(joined(deltas)).isEqualTo(reply.getString("content")));
    assertThat(deltas).anySatisfy(d -> assertThat(d.getBoolean("reset", false)).isTrue());
    sub.unregister();
  }

  // ---- retries ----

  @Test
  void serverErrorThenSuccessIsRetried() throws Exception {
    deploy(config(PRIMARY));
    model.enqueue(Reply.serverError(), Reply.overloaded(), Reply.sql("SELECT 5"));
    JsonObject reply = ask(request("run-5xx", false));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 5");
    assertThat(reply.getInteger("retries")).isEqualTo(2);
    assertThat(model.requestCount()).isEqualTo(3);
    assertThat(model.requests()).allSatisfy(r -> assertThat(r.bearerKey()).isEqualTo(PRIMARY));
  }

  @Test
  void rateLimitHonoursRetryAfter() throws Exception {
    deploy(config(PRIMARY));
    model.enqueue(Reply.rateLimited(1), Reply.sql("SELECT 6"));
    long t0 = System.currentTimeMillis();
    JsonObject reply = ask(request("run-429", false));
    long elapsed = System.currentTimeMillis() - t0;
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 6");
    assertThat(reply.getInteger("retries")).isEqualTo(1);
    assertThat(elapsed).isGreaterThanOrEqualTo(950);
  }

  @Test
  void rateLimitWhoseWaitPassesTheDeadlineFailsAtOnce() throws Exception {
    // Waiting would take 10 s (the deadline) or 30 s (the server's wait): failing at once is far below either.
    deploy(config(PRIMARY).put("llmCallTimeoutMs", 10_000));
    model.enqueue(Reply.rateLimited(30));
    long t0 = System.currentTimeMillis();
    ReplyException e = askFailing(request("run-429-long", false));
    assertThat(System.currentTimeMillis() - t0).isLessThan(5_000);
    assertThat(e.failureCode()).isEqualTo(429);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_quota");
    assertThat(failure(e).getString("message")).contains("rate limited").contains("deadline");
  }

  @Test
  void retriesAreBounded() throws Exception {
    deploy(config().put("llmMaxAttempts", 3));
    model.respondWith(req -> Reply.serverError());
    ReplyException e = askFailing(request("run-bounded", false));
    assertThat(model.requestCount()).isEqualTo(3);
    assertThat(e.failureCode()).isEqualTo(503);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_unavailable");
    assertThat(failure(e).getString("message")).contains("HTTP 500").contains("3 attempts");
  }

  // ---- keys and quota ----

  @Test
  void dailyQuotaMovesToTheSecondKeyAtOnce() throws Exception {
    deploy(config(PRIMARY, FAILOVER));
    model.enqueue(Reply.quotaExhausted(), Reply.sql("SELECT 7"), Reply.sql("SELECT 8"));

    long t0 = System.currentTimeMillis();
    JsonObject reply = ask(request("run-quota", false));
    assertThat(System.currentTimeMillis() - t0).isLessThan(1_000);
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 7");
    assertThat(reply.getInteger("key_index")).isEqualTo(1);
    assertThat(reply.getInteger("retries")).isEqualTo(1);

    // The primary stays out of use for the rest of the day: the next call starts on the failover key.
    JsonObject next = ask(request("run-quota-2", false));
    assertThat(next.getInteger("key_index")).isEqualTo(1);
    assertThat(next.getInteger("retries")).isZero();

    assertThat(model.requests()).extracting(FakeModelServer.Recorded::authorization)
        .containsExactly("Bearer " + PRIMARY, "Bearer " + FAILOVER, "Bearer " + FAILOVER);
  }

  @Test
  void perDayRateLimitMessageCountsAsDailyQuota() throws Exception {
    deploy(config(PRIMARY, FAILOVER));
    model.enqueue(Reply.dailyLimit(), Reply.sql("SELECT 9"));
    assertThat(ask(request("run-rpd", false)).getInteger("key_index")).isEqualTo(1);
    assertThat(model.requests()).extracting(FakeModelServer.Recorded::bearerKey).containsExactly(PRIMARY, FAILOVER);
  }

  @Test
  void dailyQuotaWithoutASecondKeyIsModelQuota() throws Exception {
    deploy(config(PRIMARY));
    model.enqueue(Reply.quotaExhausted());
    ReplyException e = askFailing(request("run-quota-one", false));
    assertThat(e.failureCode()).isEqualTo(429);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_quota");
    assertThat(failure(e).getString("message")).contains("daily quota");
    assertThat(model.requestCount()).isEqualTo(1);
  }

  @Test
  void dailyQuotaOnBothKeysIsModelQuota() throws Exception {
    deploy(config(PRIMARY, FAILOVER));
    model.enqueue(Reply.quotaExhausted(), Reply.quotaExhausted());
    ReplyException e = askFailing(request("run-quota-both", false));
    assertThat(failure(e).getString("error_type")).isEqualTo("model_quota");
    assertThat(failure(e).getString("message")).contains("failover key too");
    assertThat(model.requestCount()).isEqualTo(2);
  }

  @Test
  void aRejectedKeyEchoedByTheServerIsMasked() throws Exception {
    deploy(config(PRIMARY));
    model.requireKeys("some-other-key");
    ReplyException e = askFailing(request("run-401", false));
    assertThat(e.failureCode()).isEqualTo(503);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_unavailable");
    assertThat(failure(e).getString("message")).contains("refused the API key").contains("HTTP 401").contains("****");
    assertThat(model.requestCount()).isEqualTo(1);
  }

  // ---- failures ----

  @Test
  void aModelThatNeverAnswersTimesOutWithinTheDeadline() throws Exception {
    deploy(config(PRIMARY).put("llmCallTimeoutMs", 600));
    model.enqueue(Reply.hang());
    long t0 = System.currentTimeMillis();
    ReplyException e = askFailing(request("run-hang", false));
    long elapsed = System.currentTimeMillis() - t0;
    assertThat(elapsed).isBetween(550L, 1_500L);
    assertThat(e.failureCode()).isEqualTo(504);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_timeout");
    assertThat(failure(e).getString("message")).contains("600 ms");
  }

  @Test
  void aStreamStillArrivingAtTheDeadlineGoesOnToTheEnd() throws Exception {
    // A slow model that has started talking is not cut off mid-statement: 20 pieces 100 ms apart, a 500 ms deadline.
    deploy(config().put("llmCallTimeoutMs", 500));
    model.enqueue(Reply.sql("SELECT 'slow'").streamedIn(20).chunkDelay(100));
    JsonObject reply = ask(request("run-trickle", true));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 'slow'");
  }

  @Test
  void severalChoicesInOneCallHaveTheDeadlineOfEachChoice() throws Exception {
    // A local server writes the choices one after another: 3 of them may take 3 deadlines' worth.
    deploy(config().put("llmCallTimeoutMs", 500));
    model.enqueue(Reply.sql("SELECT 'three'").delayed(900));
    JsonObject three = new ChatRequest("run-n3", ChatRequest.fromJson(request("run-n3", false)).messages(), false, 0.7, 3)
        .asSql().toJson();
    assertThat(ModelReply.parse(ask(three).getString("content")).sql()).isEqualTo("SELECT 'three'");
    model.enqueue(Reply.sql("SELECT 'one'").delayed(900));
    assertThat(failure(askFailing(request("run-n1", false))).getString("error_type")).isEqualTo("model_timeout");
  }

  @Test
  void aStreamThatStallsPastTheDeadlineTimesOut() throws Exception {
    deploy(config().put("llmCallTimeoutMs", 500));
    model.enqueue(Reply.sql("SELECT 'stalled'").streamedIn(4).chunkDelay(1_500));
    long t0 = System.currentTimeMillis();
    ReplyException e = askFailing(request("run-stall", true));
    assertThat(System.currentTimeMillis() - t0).isBetween(450L, 2_500L);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_timeout");
  }

  @Test
  void garbageBodyIsAClearModelError() throws Exception {
    deploy(config(PRIMARY));
    model.enqueue(Reply.garbage("<html><body>502 Bad Gateway</body></html>"));
    ReplyException e = askFailing(request("run-garbage", false));
    assertThat(e.failureCode()).isEqualTo(502);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_error");
    assertThat(failure(e).getString("message")).contains("not a chat completion").contains("<html>");
    assertThat(model.requestCount()).isEqualTo(1);
  }

  @Test
  void jsonThatIsNotACompletionIsAModelError() throws Exception {
    deploy(config());
    model.enqueue(Reply.garbage("{\"hello\": \"world\"}"));
    ReplyException e = askFailing(request("run-notcompletion", true));
    assertThat(failure(e).getString("error_type")).isEqualTo("model_error");
    assertThat(failure(e).getString("message")).contains("not a chat completion");
  }

  @Test
  void aBodyCutOffMidwayIsRetried() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 10").truncated(), Reply.drop(), Reply.sql("SELECT 11"));
    JsonObject reply = ask(request("run-truncated", false));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 11");
    assertThat(reply.getInteger("retries")).isEqualTo(2);
  }

  @Test
  void badRequestIsNotRetried() throws Exception {
    deploy(config(PRIMARY));
    model.enqueue(Reply.badRequest("Invalid value for 'messages'."));
    ReplyException e = askFailing(request("run-400", false));
    assertThat(e.failureCode()).isEqualTo(502);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_error");
    assertThat(failure(e).getString("message")).contains("HTTP 400").contains("Invalid value for 'messages'.");
    assertThat(model.requestCount()).isEqualTo(1);
  }

  @Test
  void unknownModelSaysWhatToCheck() throws Exception {
    deploy(config());
    model.enqueue(Reply.unknownModel());
    ReplyException e = askFailing(request("run-404", false));
    assertThat(failure(e).getString("error_type")).isEqualTo("model_error");
    assertThat(failure(e).getString("message")).contains("does not exist").contains("SQLAGENT_LLM_MODEL");
  }

  @Test
  void connectionRefusedIsModelUnavailable() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    deploy(config(PRIMARY, FAILOVER).put("llmBaseUrl", "http://127.0.0.1:" + closedPort + "/v1").put("llmMaxAttempts", 3));
    long t0 = System.currentTimeMillis();
    ReplyException e = askFailing(request("run-refused", false));
    assertThat(System.currentTimeMillis() - t0).isLessThan(5_000);
    assertThat(e.failureCode()).isEqualTo(503);
    assertThat(failure(e).getString("error_type")).isEqualTo("model_unavailable");
    assertThat(failure(e).getString("message")).contains("cannot reach the model server").contains(String.valueOf(closedPort));
    assertThat(ModelException.of(e).type()).isEqualTo(ModelException.Type.MODEL_UNAVAILABLE);
  }

  @Test
  void malformedRequestIsABadRequestFailure() throws Exception {
    deploy(config());
    ReplyException e = askFailing(new JsonObject().put("run_id", "run-bad").put("messages", new JsonArray()));
    assertThat(e.failureCode()).isEqualTo(400);
    assertThat(failure(e).getString("error_type")).isEqualTo("bad_request");
    assertThat(failure(e).getString("message")).contains("messages");
    assertThat(model.requestCount()).isZero();
  }

  @Test
  void askHelperGivesTypedResultsAndFailures() throws Exception {
    deploy(config());
    model.enqueue(Reply.sql("SELECT 12").usage(3, 4), Reply.quotaExhausted());
    ChatRequest req = ChatRequest.of("run-helper", false, Message.user("q"));
    Completion c = new GenerationClient(vertx, 10_000, false).complete(req).await(20, TimeUnit.SECONDS);
    outputs.add(c.toJson().encode());
    assertThat(c.promptTokens()).isEqualTo(3);
    assertThat(ModelReply.parse(c.content()).sql()).isEqualTo("SELECT 12");
    try {
      new GenerationClient(vertx, 10_000, false).complete(req).await(20, TimeUnit.SECONDS);
      throw new AssertionError("expected model_quota");
    } catch (ModelException e) {
      assertThat(e.type()).isEqualTo(ModelException.Type.MODEL_QUOTA);
    }
  }

  @Test
  void serverWithoutStreamOptionsIsAskedAgainWithout() throws Exception {
    deploy(config());
    model.respondWith(req -> req.containsKey("stream_options")
        ? Reply.badRequest("Unrecognized request argument supplied: stream_options")
        : Reply.sql("SELECT 13").streamedIn(3));
    JsonObject reply = ask(request("run-nostreamoptions", true));
    assertThat(ModelReply.parse(reply.getString("content")).sql()).isEqualTo("SELECT 13");
    assertThat(reply.getBoolean("usage_estimated")).isTrue();
    assertThat(model.requestCount()).isEqualTo(2);
  }

  @Test
  void aStreamNobodyAskedForIsStillRead() throws Exception {
    deploy(config());
    String sse = "data: {\"choices\":[{\"delta\":{\"content\":\"SELECT\"}}]}\n\n"
        + "data: {\"choices\":[{\"delta\":{\"content\":\" 14\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
    model.enqueue(Reply.garbage(sse).contentType("text/event-stream"));
    JsonObject reply = ask(request("run-unasked-stream", false));
    assertThat(reply.getString("content")).isEqualTo("SELECT 14");
  }

  @Test
  void completionRoundTripsThroughJson() {
    Completion c = new Completion("x", "m", 1, 2, true, 0.5, 3, 4, 1, "stop");
    assertThat(Completion.fromJson(c.toJson())).isEqualTo(c);
  }
}

package dev.sqlagent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.TelemetrySettings;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.LogCapture;
import dev.sqlagent.testing.OtlpReceiver;
import dev.sqlagent.testing.OtlpReceiver.Received;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The service with tracing on, exporting to an OTLP/HTTP receiver in the test, on the demo with the scripted model:
 * one question is one trace whose spans, decoded from the protobuf the exporter sent, are the question, a child per
 * graph node, the model call under the node that asked (GenAI attributes, no prompt), every SQL statement the gate
 * sent (shape only: the question's literal values are nowhere in the trace) and the query log's write in the state
 * store; the answer, the query log row and the run's log lines carry the trace id.
 */
class TracingTest {

  /** Values the question carries that must reach the database and never a span. */
  static final String SECRET_NAME = "Zqxjkvw Plumbing";
  static final String SECRET_AMOUNT = "4242.17";

  static Vertx vertx;
  static Vertx service;
  static FakeModelServer model;
  static OtlpReceiver otlp;
  static WebClient http;
  static MainVerticle main;

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
    model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills b LEFT JOIN customers c ON c.cust_id = b.cust_id "
        + "WHERE c.cust_name = '" + SECRET_NAME + "' OR b.total_amt > " + SECRET_AMOUNT + " /* " + SECRET_NAME + " */",
        "counted"));
    otlp = OtlpReceiver.start(vertx);
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_OTLP_ENDPOINT", otlp.endpoint());
    // What serve does: the settings, the SDK, Vert.x built with its tracer.
    TelemetrySettings settings = TelemetrySettings.from(env);
    assertThat(settings.endpoint()).contains(URI.create(otlp.endpoint() + "/v1/traces"));
    Tracing tracing = Tracing.start(settings, null);
    service = tracing.attach(tracing.install(Vertx.builder()).build());
    main = new MainVerticle(db.config(env), db.target(), db.state());
    service.deployVerticle(main).await(180, TimeUnit.SECONDS);
    http = WebClient.create(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close().await(30, TimeUnit.SECONDS);
    if (otlp != null) otlp.close();
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  void oneQuestionIsOneTraceOfItsNodesModelCallStatementsAndLogWrite() throws Exception {
    String question = "how many bills did " + SECRET_NAME + " get, or were above " + SECRET_AMOUNT + "?";
    JsonObject answer;
    List<ILoggingEvent> lines;
    try (LogCapture log = LogCapture.root()) {
      HttpResponse<Buffer> r = http.post(main.httpPort(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", question)).await(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
      answer = r.bodyAsJsonObject();
      lines = log.events();
    }
    assertThat(answer.getBoolean("gave_up")).as(answer.encode()).isFalse();
    String traceId = answer.getString("trace_id");
    assertThat(traceId).as(answer.encode()).matches("[0-9a-f]{32}").isNotEqualTo("0".repeat(32));
    String runId = answer.getString("run_id");

    List<Received> trace = otlp.awaitTrace(traceId, t -> t.stream().anyMatch(s -> "question".equals(s.name()))
        && t.stream().anyMatch(s -> s.allText().contains("agent_query_log"))
        && t.stream().anyMatch(s -> s.allText().contains("conversation_turns"))
        && t.stream().anyMatch(s -> "explain_sql".equals(s.name())) && t.stream().anyMatch(s -> "UPDATE".equals(s.name())),
        60);
    Map<String, Received> byId = trace.stream().collect(Collectors.toMap(Received::spanId, s -> s, (a, b) -> a));
    String all = trace.stream().map(Received::name).toList().toString();

    // The spans a question makes, and no others: the request, the question, one per node, the model call (and its
    // HTTP request), the gate's statement under validate_sql and under execute_sql, the state store's writes (the run's
    // claim, its turn, its log row, the claim's finish). No span per event-bus message, none per statement of the
    // gate's transaction.
    assertThat(trace.stream().map(Received::name).toList()).as(all).containsExactlyInAnyOrder(
        "POST", "question", "lookup_verified", "select_schema", "generate_sql", "chat " + FakeModelServer.MODEL, "POST",
        "validate_sql", "SELECT", "execute_sql", "SELECT", "inspect_result", "decide", "answer", "explain_sql",
        "INSERT", "INSERT", "INSERT", "UPDATE");

    // Parentage: one root (the HTTP request), every other span's parent is in the trace.
    assertThat(trace.stream().filter(Received::isRoot).toList()).as(all).hasSize(1);
    assertThat(trace).allSatisfy(s -> assertThat(s.isRoot() || byId.containsKey(s.parentSpanId()))
        .as(s.name() + " has its parent " + s.parentSpanId() + " in " + all).isTrue());

    // The question, and one span per node of the graph under it.
    Received q = trace.stream().filter(s -> s.name().equals("question")).findFirst().orElseThrow();
    assertThat(q.attr("sql_agent.run_id")).isEqualTo(runId);
    assertThat(q.attr("sql_agent.outcome")).isEqualTo("answered");
    List<Received> nodes = trace.stream().filter(s -> s.attr("sql_agent.node") != null).toList();
    assertThat(nodes).allSatisfy(n -> assertThat(n.parentSpanId()).isEqualTo(q.spanId()));
    assertThat(nodes.stream().map(Received::name).toList())
        .contains("select_schema", "generate_sql", "validate_sql", "execute_sql", "answer");

    // The model call, under generate_sql, by the GenAI conventions, without the prompt.
    Received generate = nodes.stream().filter(n -> n.name().equals("generate_sql")).findFirst().orElseThrow();
    Received chat = trace.stream().filter(s -> s.name().equals("chat " + FakeModelServer.MODEL)).findFirst()
        .orElseThrow(() -> new AssertionError("no model call span in " + all));
    assertThat(ancestors(chat, byId)).contains(generate.spanId());
    assertThat(chat.kind()).isEqualTo("SPAN_KIND_CLIENT");
    assertThat(chat.attr("gen_ai.request.model")).isEqualTo(FakeModelServer.MODEL);
    assertThat(chat.attr("gen_ai.operation.name")).isEqualTo("chat");
    assertThat(Long.parseLong(chat.attr("gen_ai.usage.input_tokens"))).isPositive();
    assertThat(Long.parseLong(chat.attr("gen_ai.usage.output_tokens"))).isPositive();
    assertThat(chat.attributes()).doesNotContainKeys("gen_ai.input.messages", "gen_ai.output.messages");

    // The statements the gate sent to the target: PostgreSQL, its database, the shape with every literal a '?'.
    List<Received> target = trace.stream().filter(s -> "shop".equals(s.attr("db.namespace"))).toList();
    assertThat(target).as(all).isNotEmpty();
    assertThat(target).allSatisfy(s -> assertThat(s.attr("db.system")).isEqualTo("postgresql"));
    assertThat(target.stream().map(s -> s.attr("db.query.text")).toList())
        .anySatisfy(text -> assertThat(text).contains("FROM bills b LEFT JOIN customers c")
            .contains("c.cust_name = ? OR b.total_amt > ?"));
    // The gate checks and runs in one request, sent by the node that checks (validate_sql) or runs (execute_sql).
    Set<String> gateNodes = nodes.stream().filter(n -> n.name().equals("validate_sql") || n.name().equals("execute_sql"))
        .map(Received::spanId).collect(Collectors.toSet());
    assertThat(target).allSatisfy(s -> assertThat(ancestors(s, byId)).containsAnyElementsOf(gateNodes));
    // One under each: the check's, and the run's, which continued in the check's transaction.
    for (Received gateNode : nodes.stream().filter(n -> gateNodes.contains(n.spanId())).toList()) {
      assertThat(target).as(gateNode.name()).filteredOn(s -> s.parentSpanId().equals(gateNode.spanId())).hasSize(1);
    }

    // The run's writes to the state store, in the same trace: its claim, its conversation turn, its query log row.
    for (String table : List.of("run_claims", "conversation_turns", "agent_query_log")) {
      assertThat(trace).as(table).anySatisfy(s -> {
        assertThat(s.attr("db.query.text")).startsWith("INSERT INTO " + table);
        assertThat(s.attr("db.namespace")).isNotEqualTo("shop");
      });
    }

    // No literal value of the user's anywhere: not the name, not the amount, not the question.
    assertThat(trace).allSatisfy(s -> assertThat(s.allText()).doesNotContain(SECRET_NAME).doesNotContain(SECRET_AMOUNT)
        .doesNotContain("Zqxjkvw"));
    assertThat(otlp.contentTypes()).allSatisfy(t -> assertThat(t).startsWith("application/x-protobuf"));

    // The query log row names the trace.
    assertThat(awaitLoggedTrace(runId, 30)).isEqualTo(traceId);

    // The run's log lines carry its run id, its trace and the node.
    List<ILoggingEvent> runLines = lines.stream().filter(e -> runId.equals(e.getMDCPropertyMap().get("run_id"))).toList();
    assertThat(runLines).as(lines.stream().map(e -> e.getFormattedMessage() + " " + e.getMDCPropertyMap()).toList().toString())
        .isNotEmpty();
    assertThat(runLines).allSatisfy(e -> assertThat(e.getMDCPropertyMap().get("trace_id")).isEqualTo(traceId));
    assertThat(lines).filteredOn(e -> e.getFormattedMessage().startsWith("run " + runId + " answered"))
        .singleElement().satisfies(e -> assertThat(e.getMDCPropertyMap()).containsEntry("trace_id", traceId));
  }

  @Test
  void questionsAskedAtOnceAreEachTheirOwnTrace() throws Exception {
    List<io.vertx.core.Future<HttpResponse<Buffer>>> asked = new java.util.ArrayList<>();
    for (int i = 0; i < 6; i++) {
      asked.add(http.post(main.httpPort(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "how many bills, take " + i)));
    }
    Set<String> traces = new java.util.HashSet<>();
    for (var f : asked) {
      HttpResponse<Buffer> r = f.await(90, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.bodyAsString()).isIn(200, 429);
      if (r.statusCode() != 200) continue;
      JsonObject a = r.bodyAsJsonObject();
      String traceId = a.getString("trace_id");
      traces.add(traceId);
      // The answer's span and the question's (the root, which ends last and may come in a later export batch).
      List<Received> trace = otlp.awaitTrace(traceId, t -> t.stream().filter(s -> s.name().equals("answer")).count() == 1
          && t.stream().anyMatch(s -> s.name().equals("question")), 60);
      // Each trace holds its own question and no other run's.
      assertThat(trace.stream().filter(s -> s.name().equals("question")).map(s -> s.attr("sql_agent.run_id")).toList())
          .containsExactly(a.getString("run_id"));
    }
    assertThat(traces).hasSizeGreaterThanOrEqualTo(2).doesNotContainNull();
  }

  /** The span ids above {@code s}, nearest first. */
  static List<String> ancestors(Received s, Map<String, Received> byId) {
    List<String> out = new java.util.ArrayList<>();
    Received at = s;
    while (at != null && !at.isRoot()) {
      out.add(at.parentSpanId());
      at = byId.get(at.parentSpanId());
    }
    return out;
  }

  static String awaitLoggedTrace(String runId, long seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      try (Connection c = TestDatabase.get().state().ownerConnection();
           PreparedStatement ps = c.prepareStatement("SELECT trace_id FROM agent_query_log WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) return rs.getString(1);
        }
      }
      Thread.sleep(200);
    }
    throw new AssertionError("no query log row for run " + runId + " in " + seconds + " s");
  }

}

package dev.sqlagent.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.OtlpReceiver;
import dev.sqlagent.testing.OtlpReceiver.Received;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two JVMs on loopback, an edge and a worker started as {@code serve} is in production, with
 * SQLAGENT_OTLP_ENDPOINT on an OTLP receiver in the test and SQLAGENT_LOG_FORMAT=json: a question asked on the edge
 * and run on the worker is one trace, the edge's spans and the worker's joined over the clustered event bus; both
 * nodes log JSON lines, the run's lines carry its run id and trace id; and neither the logs nor the spans hold the
 * model's API key, a database password or a value of the question.
 */
class TracedClusterTest {

  static final String API_KEY = "sk-test-" + "9f1c2e7a5b3d4c6e8a0f";
  static final String LITERAL = "Qwvxz Hardware";

  static Vertx vertx;
  static FakeModelServer model;
  static OtlpReceiver otlp;
  static WebClient http;
  static ClusterNodes nodes;
  static ClusterNodes.Node edge;
  static ClusterNodes.Node worker;
  static Map<String, String> env;

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    model = FakeModelServer.start(vertx);
    model.respondWith(req -> Reply.sql("SELECT count(*) AS bills FROM bills b JOIN customers c ON c.cust_id = b.cust_id "
        + "WHERE c.cust_name = '" + LITERAL + "'", "counted"));
    otlp = OtlpReceiver.start(vertx);
    http = WebClient.create(vertx);
    env = new HashMap<>(db.env(model.env(API_KEY)));
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "60000");
    env.put("SQLAGENT_OTLP_ENDPOINT", otlp.endpoint());
    env.put("SQLAGENT_LOG_FORMAT", "json");
    nodes = new ClusterNodes(env, 2);
    worker = nodes.start("worker");
    worker.awaitReady(300);
    edge = nodes.start("edge");
    edge.awaitReady(300);
  }

  @AfterAll
  static void stop() throws Exception {
    if (nodes != null) nodes.close();
    if (otlp != null) otlp.close();
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
  }

  @Test
  void aQuestionFromTheEdgeRunOnTheWorkerIsOneTraceAndBothLogJsonWithoutSecrets() throws Exception {
    JsonObject answer = null;
    // The edge learns of the worker asynchronously: ask until a worker answers.
    for (int i = 0; i < 60 && answer == null; i++) {
      HttpResponse<Buffer> r = http.post(edge.httpPort, "127.0.0.1", "/api/ask").timeout(60_000)
          .sendJsonObject(new JsonObject().put("question", "how many bills did " + LITERAL + " get?"))
          .await(65, TimeUnit.SECONDS);
      if (r.statusCode() == 200) answer = r.bodyAsJsonObject();
      else Thread.sleep(1_000);
    }
    assertThat(answer).as("no worker answered").isNotNull();
    assertThat(answer.getBoolean("gave_up")).as(answer.encode()).isFalse();
    assertThat(answer.getString("worker")).isEqualTo(worker.name());
    String traceId = answer.getString("trace_id");
    String runId = answer.getString("run_id");
    assertThat(traceId).as(answer.encode()).matches("[0-9a-f]{32}");

    List<Received> trace = otlp.awaitTrace(traceId, t -> t.stream().anyMatch(s -> s.name().equals("answer"))
        && t.stream().anyMatch(s -> s.allText().contains("agent_query_log")) && t.stream().anyMatch(Received::isRoot), 90);
    Map<String, Received> byId = trace.stream().collect(Collectors.toMap(Received::spanId, s -> s, (a, b) -> a));
    // Spans of both nodes, named by their cluster names, in the one trace.
    Set<String> instances = trace.stream().map(s -> s.resource().get("service.instance.id")).collect(Collectors.toSet());
    assertThat(instances).contains(edge.name(), worker.name());
    // The root is the edge's HTTP request; the worker's question span descends from it across the bus.
    Received root = trace.stream().filter(Received::isRoot).findFirst().orElseThrow();
    assertThat(root.resource().get("service.instance.id")).isEqualTo(edge.name());
    Received question = trace.stream().filter(s -> s.name().equals("question")).findFirst().orElseThrow();
    assertThat(question.resource().get("service.instance.id")).isEqualTo(worker.name());
    assertThat(question.attr("sql_agent.run_id")).isEqualTo(runId);
    List<String> up = new ArrayList<>();
    for (Received at = question; at != null && !at.isRoot(); at = byId.get(at.parentSpanId())) up.add(at.parentSpanId());
    assertThat(up).as("the question's ancestors").endsWith(root.spanId());
    // The bus hop between them carries the trace and makes no span of its own.
    assertThat(trace.stream().map(Received::name).toList()).doesNotContain("send", "publish");
    assertThat(trace.stream().map(Received::name).toList()).contains("select_schema", "generate_sql", "chat "
        + FakeModelServer.MODEL);
    // No value of the question, no secret, in any span of the trace.
    List<String> secrets = secrets();
    assertThat(trace).allSatisfy(s -> {
      assertThat(s.allText()).doesNotContain(LITERAL).doesNotContain("Qwvxz");
      for (String secret : secrets) assertThat(s.allText()).doesNotContain(secret);
    });

    // Both logs are JSON lines; the worker's lines of the run carry its run id and trace id.
    List<JsonObject> workerLines = awaitJsonLines(worker, l -> l.getString("message", "").startsWith("run " + runId + " "));
    List<JsonObject> edgeLines = jsonLines(edge);
    assertThat(edgeLines).isNotEmpty();
    List<JsonObject> run = workerLines.stream().filter(l -> runId.equals(l.getString("run_id"))).toList();
    assertThat(run).isNotEmpty().allSatisfy(l -> assertThat(l.getString("trace_id")).isEqualTo(traceId));
    assertThat(workerLines).allSatisfy(l -> assertThat(l.fieldNames()).contains("@timestamp", "level", "message",
        "logger_name"));
    for (ClusterNodes.Node n : List.of(edge, worker)) {
      String out = n.output();
      assertThat(Pattern.compile("(?m)^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} +(INFO|WARN|ERROR)").matcher(out).find())
          .as(n.role + " wrote a text log line:\n" + out).isFalse();
      for (String secret : secrets) assertThat(out).as(n.role + "'s log").doesNotContain(secret);
      assertThat(out).doesNotContain(LITERAL);
    }
  }

  /** The API key and every password in the nodes' database URLs. */
  static List<String> secrets() {
    List<String> out = new ArrayList<>(List.of(API_KEY));
    Matcher m = Pattern.compile("://[^:/@]+:([^@]+)@").matcher(env.get("SQLAGENT_DB_URL") + " " + env.get("SQLAGENT_STATE_URL"));
    while (m.find()) out.add(m.group(1));
    assertThat(out).hasSizeGreaterThanOrEqualTo(2);
    return out;
  }

  static List<JsonObject> jsonLines(ClusterNodes.Node n) throws Exception {
    List<JsonObject> out = new ArrayList<>();
    for (String line : n.output().split("\n")) {
      if (line.startsWith("{")) out.add(new JsonObject(line));
    }
    return out;
  }

  static List<JsonObject> awaitJsonLines(ClusterNodes.Node n, java.util.function.Predicate<JsonObject> wanted)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      List<JsonObject> lines = jsonLines(n);
      if (lines.stream().anyMatch(wanted)) return lines;
      Thread.sleep(200);
    }
    throw new AssertionError("no such line in " + n.role + "'s log:\n" + n.output());
  }
}

package dev.sqlagent.metrics;

import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.OpsMessages.LiveClients;
import dev.sqlagent.contract.StateMessages.LogFacts;
import dev.sqlagent.config.AppConfig;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.web.HttpVerticle;
import dev.sqlagent.testing.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.core.buffer.Buffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** /metrics over real HTTP, fed only by what the agent, the query log and the web edge publish. */
class MetricsTest {

  static HttpVerticle start(Vertx vertx) throws Exception {
    vertx.deployVerticle(new MetricsVerticle()).await(20, TimeUnit.SECONDS);
    HttpVerticle http = new HttpVerticle(AppConfig.load(java.util.Map.of("SQLAGENT_HTTP_PORT", "0")));
    vertx.deployVerticle(http).await(20, TimeUnit.SECONDS);
    return http;
  }

  static HttpResponse<Buffer> scrape(Vertx vertx, HttpVerticle http) throws Exception {
    // The client stays reachable until the reply is in: Vert.x closes a client the collector finds unreachable.
    WebClient client = WebClient.create(vertx);
    try {
      return client.get(http.actualPort(), "127.0.0.1", "/metrics").send().await(10, TimeUnit.SECONDS);
    } finally {
      client.close();
    }
  }

  /** Scrapes until every expected line is there (publications are asynchronous). */
  static String scrapeUntil(Vertx vertx, HttpVerticle http, String... lines) throws Exception {
    long deadline = System.currentTimeMillis() + 10_000;
    String text = "";
    while (System.currentTimeMillis() < deadline) {
      text = scrape(vertx, http).bodyAsString();
      String t = text;
      if (java.util.Arrays.stream(lines).allMatch(t::contains)) return text;
      Thread.sleep(100);
    }
    for (String l : lines) assertThat(text).contains(l);
    return text;
  }

  static JsonObject answer(String source, String outcome, JsonArray history) {
    return new JsonObject().put("question", "q").put("run_id", UUID.randomUUID().toString()).put("source", source)
        .put("mode", "agent").put("model", "fake-model").put("attempts", Math.max(1, history.size() + (outcome.equals("answered") ? 1 : 0)))
        .put("gave_up", outcome.equals("gave_up")).put("refused", outcome.equals("refused")).put("history", history)
        .put("latency_ms", 1500).put("tokens", new JsonObject().put("prompt", 100).put("completion", 20)).put("cost_usd", 0.5);
  }

  static JsonObject attempt(String errorType, String strategy) {
    return new JsonObject().put("attempt", 1).put("error_type", errorType).put("strategy", strategy);
  }

  @Test
  void agentMetricsComeFromPublishedAnswersAndEventsAlongsideVertxOwn() throws Exception {
    Vertx vertx = MetricsVerticle.newVertx();
    try {
      HttpVerticle http = start(vertx);
      var bus = vertx.eventBus();
      String runId = UUID.randomUUID().toString();
      bus.publish(Addresses.ANSWERS, answer("http", "answered", new JsonArray().add(attempt("unknown_column", "use_listed_columns"))));
      bus.publish(Addresses.ANSWERS, answer("ws", "gave_up", new JsonArray()
          .add(attempt("syntax_error", "fix_syntax")).add(attempt("syntax_error", "fix_syntax")).add(attempt("timeout", null))));
      bus.publish(Addresses.ANSWERS, answer("cli", "refused", new JsonArray().add(attempt("permission_denied", null))));
      bus.publish(Addresses.ANSWERS, answer("eval", "answered", new JsonArray()));
      JsonObject refusal = new GraphEvent(runId, 5, 0, Node.VALIDATE_SQL.wireName(), GraphEvent.FAILED, 1, "guardrail",
          new JsonObject().put("error_type", "rejected"), null, null).toJson();
      bus.publish(Addresses.EVENTS, refusal);
      bus.publish(Addresses.events(runId), refusal);
      bus.publish(Addresses.EVENTS, new GraphEvent(runId, 6, 0, Node.GENERATE_SQL.wireName(), GraphEvent.FINISHED, 1,
          "generation", new JsonObject().put("latency_ms", 800), null, null).toJson());
      bus.publish(Addresses.QUERY_LOG_FACTS, new LogFacts(7, 3, 2).toJson());
      bus.publish(Addresses.LIVE_CLIENTS, new LiveClients("ws", 1).toJson());
      bus.publish(Addresses.LIVE_CLIENTS, new LiveClients("ws", 1).toJson());
      bus.publish(Addresses.LIVE_CLIENTS, new LiveClients("ws", -1).toJson());
      bus.publish(Addresses.LIVE_CLIENTS, new LiveClients("eventbus", 1).toJson());

      String text = scrapeUntil(vertx, http,
          "sqlagent_questions_total{mode=\"agent\",outcome=\"answered\",source=\"http\"} 1.0",
          "sqlagent_questions_total{mode=\"agent\",outcome=\"gave_up\",source=\"ws\"} 1.0",
          "sqlagent_questions_total{mode=\"agent\",outcome=\"refused\",source=\"cli\"} 1.0",
          "sqlagent_questions_total{mode=\"agent\",outcome=\"answered\",source=\"eval\"} 1.0",
          "sqlagent_repairs_total{error_type=\"unknown_column\"} 1.0",
          "sqlagent_repairs_total{error_type=\"syntax_error\"} 2.0",
          "sqlagent_give_ups_total{error_type=\"timeout\"} 1.0",
          "sqlagent_refusals_total{mode=\"agent\"} 1.0",
          "sqlagent_gate_refusals_total{reason=\"rejected\",stage=\"validate\"} 1.0",
          "sqlagent_question_latency_seconds_bucket{mode=\"agent\",outcome=\"answered\",le=\"2.0\"} 2",
          "sqlagent_question_attempts_count{mode=\"agent\"} 4",
          "sqlagent_model_tokens_total{kind=\"prompt\",model=\"fake-model\"} 400.0",
          "sqlagent_model_cost_usd_total{model=\"fake-model\"} 2.0",
          "sqlagent_model_call_latency_seconds_count 1",
          "sqlagent_events_published_total{kind=\"guardrail\",status=\"failed\"} 1.0",
          "sqlagent_live_clients{transport=\"ws\"} 1.0",
          "sqlagent_live_clients{transport=\"eventbus\"} 1.0",
          "sqlagent_query_log_rows_dropped_total 3.0",
          "sqlagent_query_log_rows_written_total 7.0",
          "sqlagent_query_log_rows_buffered 2.0");
      // Vert.x's own metrics share the registry (the earlier scrapes were HTTP requests), and the JVM's.
      assertThat(text).contains("vertx_http_server_bytes_written_total").contains("vertx_eventbus_published_total")
          .contains("jvm_memory_used_bytes");
      // No label carries a run id, however many runs publish on their own addresses.
      assertThat(text).doesNotContain(runId);
      assertThat(scrape(vertx, http).getHeader("content-type")).startsWith("text/plain; version=0.0.4");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  /** Every consumer used to re-register Vert.x's handler gauges: "This Gauge has been already registered" at start. */
  @Test
  void manyConsumersRegisterNoGaugeTwice() throws Exception {
    ch.qos.logback.classic.Logger log = (ch.qos.logback.classic.Logger)
        org.slf4j.LoggerFactory.getLogger(io.micrometer.core.instrument.MeterRegistry.class);
    ch.qos.logback.classic.Level level = log.getLevel();
    // micrometer warns once per JVM, then at DEBUG: listen at DEBUG so the order of tests does not matter.
    log.setLevel(ch.qos.logback.classic.Level.DEBUG);
    LogCapture events = LogCapture.of(io.micrometer.core.instrument.MeterRegistry.class);
    Vertx vertx = MetricsVerticle.newVertx();
    try {
      HttpVerticle http = start(vertx);
      for (int i = 0; i < 3; i++) vertx.eventBus().consumer("test.consumer." + i, m -> {}).completion().await(5, TimeUnit.SECONDS);
      vertx.eventBus().consumer(Addresses.ANSWERS, m -> {}).completion().await(5, TimeUnit.SECONDS);
      assertThat(events.messages())
          .noneMatch(m -> m.contains("already registered"));
      vertx.eventBus().publish("test.consumer.0", "x");
      scrapeUntil(vertx, http, "vertx_eventbus_published_total");
    } finally {
      events.close();
      log.setLevel(level);
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void withoutVertxMetricsTheAgentMetricsStillServe() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      HttpVerticle http = start(vertx);
      vertx.eventBus().publish(Addresses.ANSWERS, answer("mcp", "answered", new JsonArray()));
      String text = scrapeUntil(vertx, http, "sqlagent_questions_total{mode=\"agent\",outcome=\"answered\",source=\"mcp\"} 1.0");
      assertThat(text).doesNotContain("vertx_http_server_bytes_written_total");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void unexpectedLabelValuesAreFolded() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      HttpVerticle http = start(vertx);
      vertx.eventBus().publish(Addresses.ANSWERS, answer("http", "gave_up", new JsonArray()
          .add(attempt("Robert'); DROP TABLE students;--", null))));
      scrapeUntil(vertx, http, "sqlagent_give_ups_total{error_type=\"other\"} 1.0");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}

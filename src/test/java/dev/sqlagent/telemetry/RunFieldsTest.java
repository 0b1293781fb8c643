package dev.sqlagent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.LogCapture;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With tracing off (the default), nothing of it is set up, and the agent's log lines of a run still carry its run id,
 * no trace id; the answer names no trace; a line of no run carries no run's fields.
 */
class RunFieldsTest {

  @Test
  void withTracingOffTheRunsLinesCarryItsRunIdAndNoTrace() throws Exception {
    try (FakeModelServer model = FakeModelServer.start();
         RunningService service = RunningService.start(model.respondWith(req -> Reply.sql("SELECT count(*) FROM bills")),
             Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"));
         LogCapture log = LogCapture.root()) {
      assertThat(Tracing.of(service.vertx).on()).isFalse();
      HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "how many bills?")).await(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
      JsonObject answer = r.bodyAsJsonObject();
      assertThat(answer.containsKey("trace_id")).as(answer.encode()).isFalse();
      String runId = answer.getString("run_id");
      List<ILoggingEvent> lines = log.events();
      ILoggingEvent answered = lines.stream().filter(e -> e.getFormattedMessage().startsWith("run " + runId + " answered"))
          .findFirst().orElseThrow(() -> new AssertionError(lines.stream().map(ILoggingEvent::getFormattedMessage).toList()));
      assertThat(answered.getMDCPropertyMap()).containsEntry(RunFields.RUN_ID, runId).doesNotContainKey(RunFields.TRACE_ID);
      // A line of no run carries no run's fields.
      org.slf4j.LoggerFactory.getLogger(RunFieldsTest.class).info("outside any run");
      assertThat(log.events()).filteredOn(e -> e.getFormattedMessage().equals("outside any run")).singleElement()
          .satisfies(e -> assertThat(e.getMDCPropertyMap()).doesNotContainKeys(RunFields.RUN_ID, RunFields.TRACE_ID));
    }
  }
}

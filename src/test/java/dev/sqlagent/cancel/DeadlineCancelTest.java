package dev.sqlagent.cancel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The question's deadline stops a statement the same way a cancel does: a statement that the statement
 * timeout would let run for two minutes ends in PostgreSQL when its question's 3 s are up, and the question
 * gives up as timed out with the query it tried.
 */
class DeadlineCancelTest {

  @Test
  void noStatementOutlivesItsQuestion() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql(CancelTest.ENDLESS));
      Map<String, String> env = CancelTest.endlessEnv(model);
      env.put("SQLAGENT_QUESTION_TIMEOUT_MS", "3000");
      try (RunningService service = RunningService.start(env)) {
        long t0 = System.nanoTime();
        JsonObject a = service.client.post(service.port(), "127.0.0.1", "/api/ask").putHeader("Content-Type", "application/json")
            .sendJsonObject(new JsonObject().put("question", "How many pairs of numbers are there?"))
            .await(60, TimeUnit.SECONDS).bodyAsJsonObject();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(a.getBoolean("gave_up")).as(a.encode()).isTrue();
        assertThat(a.getBoolean("cancelled")).isFalse();
        assertThat(a.getJsonArray("history").getJsonObject(a.getJsonArray("history").size() - 1).getString("error_type"))
            .isEqualTo("timeout");
        assertThat(ms).as("the answer comes at the deadline, not after the statement timeout").isLessThan(10_000);
        CancelTest.awaitActive(0, 1_000);
      }
    }
  }
}

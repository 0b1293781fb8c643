package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.RunningService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** POST /api/query through the whole service over real HTTP. */
class QueryRoutesTest {

  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    service.close();
  }

  static HttpResponse<Buffer> post(Buffer body) throws Exception {
    return service.client.post(service.port(), "127.0.0.1", "/api/query").putHeader("content-type", "application/json")
        .sendBuffer(body).await(30, TimeUnit.SECONDS);
  }

  @Test
  void aQueryAnswers200WithRows() throws Exception {
    var resp = post(new JsonObject().put("sql", "SELECT cat_name FROM categories ORDER BY 1").toBuffer());
    assertThat(resp.statusCode()).isEqualTo(200);
    JsonObject body = resp.bodyAsJsonObject();
    assertThat(body.getBoolean("ok")).isTrue();
    assertThat(body.getInteger("row_count")).isEqualTo(6);
  }

  @Test
  void aRefusalAnswers422WithTheStructuredError() throws Exception {
    var resp = post(new JsonObject().put("sql", "SELECT * FROM agent_query_log").toBuffer());
    assertThat(resp.statusCode()).isEqualTo(422);
    JsonObject body = resp.bodyAsJsonObject();
    assertThat(body.getString("error_type")).isEqualTo("unknown_table");
    assertThat(body.getString("hint")).contains("bills");
    var pgError = post(new JsonObject().put("sql", "SELECT nope FROM bills").toBuffer());
    assertThat(pgError.statusCode()).isEqualTo(422);
    assertThat(pgError.bodyAsJsonObject().getString("sqlstate")).isEqualTo("42703");
  }

  @Test
  void malformedBodiesAnswer400() throws Exception {
    for (String body : new String[] {"not json", "[1, 2]", "{}", "{\"sql\": 5}", ""}) {
      var resp = post(Buffer.buffer(body));
      assertThat(resp.statusCode()).as(body).isEqualTo(400);
      assertThat(resp.bodyAsJsonObject().getString("error_type")).isEqualTo("bad_request");
    }
    var badCap = post(new JsonObject().put("sql", "SELECT 1").put("row_cap", -1).toBuffer());
    assertThat(badCap.statusCode()).isEqualTo(400);
    assertThat(badCap.bodyAsJsonObject().getString("message")).contains("row_cap");
  }

  @Test
  void anOversizedBodyAnswers413() throws Exception {
    var resp = post(new JsonObject().put("sql", "SELECT '" + "x".repeat(70_000) + "'").toBuffer());
    assertThat(resp.statusCode()).isEqualTo(413);
    assertThat(resp.bodyAsJsonObject().getBoolean("ok")).isFalse();
  }
}

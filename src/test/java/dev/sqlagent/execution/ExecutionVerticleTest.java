package dev.sqlagent.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The gate's event-bus contract: always a normal reply, msg.fail(400) only for a malformed request. */
class ExecutionVerticleTest {

  static Vertx vertx;

  @BeforeAll
  static void deploy() throws Exception {
    TestDatabase db = TestDatabase.get();
    vertx = Vertx.vertx();
    vertx.deployVerticle(new ExecutionVerticle(db.target(), Gate.Settings.from(db.config(Map.of("SQLAGENT_ROW_CAP", "50")))))
        .await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** Raw on purpose: the gate's own reading of any body, malformed and wrongly typed ones included. */
  static JsonObject ask(Object body) throws Exception {
    return vertx.eventBus().<JsonObject>request(Addresses.EXECUTE, body).await(30, TimeUnit.SECONDS).body();
  }

  @Test
  void aQueryRunsWithTheConfiguredCap() throws Exception {
    JsonObject r = ask(new JsonObject().put("sql", "SELECT bill_id FROM bills ORDER BY bill_id"));
    assertThat(r.getBoolean("ok")).isTrue();
    assertThat(r.getInteger("row_count")).isEqualTo(50);
    assertThat(r.getBoolean("truncated")).isTrue();
    assertThat(r.getString("sql")).endsWith("LIMIT 50");
    JsonObject smaller = ask(new JsonObject().put("sql", "SELECT bill_id FROM bills").put("row_cap", 3));
    assertThat(smaller.getInteger("row_count")).isEqualTo(3);
    JsonObject larger = ask(new JsonObject().put("sql", "SELECT bill_id FROM bills").put("row_cap", 5000));
    assertThat(larger.getInteger("row_count")).isEqualTo(50);
  }

  @Test
  void aRefusalIsANormalReply() throws Exception {
    JsonObject r = ask(new JsonObject().put("sql", "DELETE FROM bills"));
    assertThat(r.getBoolean("ok")).isFalse();
    assertThat(r.getString("error_type")).isEqualTo("rejected");
    assertThat(r.getBoolean("repairable")).isFalse();
    assertThat(r.getString("sql")).isEqualTo("DELETE FROM bills");
  }

  @Test
  void checkOnlyReplyHasTheStaticVerdict() throws Exception {
    JsonObject r = ask(new JsonObject().put("sql", "SELECT * FROM bills").put("run", false));
    assertThat(r.getBoolean("ok")).isTrue();
    assertThat(r.getString("static_check")).isEqualTo("parsed");
    assertThat(r.containsKey("rows")).isFalse();
  }

  @Test
  void malformedRequestsFailWith400() {
    for (Object body : new Object[] {new JsonObject(), new JsonObject().put("sql", 5), "SELECT 1",
        new JsonObject().put("sql", "SELECT 1").put("run", "yes"), new JsonObject().put("sql", "SELECT 1").put("row_cap", 0),
        new JsonObject().put("sql", "SELECT 1").put("row_cap", "ten")}) {
      ReplyException e = catchThrowableOfType(ReplyException.class, () -> ask(body));
      assertThat(e).as(String.valueOf(body)).isNotNull();
      assertThat(e.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
      assertThat(e.failureCode()).isEqualTo(400);
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}

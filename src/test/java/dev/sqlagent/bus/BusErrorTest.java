package dev.sqlagent.bus;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Each way a real bus request fails becomes one failure with a plain message. */
class BusErrorTest {

  static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    vertx.eventBus().<JsonObject>consumer("test.refuses", m -> m.fail(m.body().getInteger("code"), m.body().getString("message")));
    vertx.eventBus().<JsonObject>consumer("test.silent", m -> { });
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  static BusError failure(String address, JsonObject body, long waitMs) throws Exception {
    return new BusClient(vertx, "the thing", waitMs).request(address, body)
        .<BusError>transform(ar -> io.vertx.core.Future.succeededFuture((BusError) ar.cause()))
        .await(10, TimeUnit.SECONDS);
  }

  @Test
  void everyCodeAServiceSendsKeepsItsMeaningAndMessage() throws Exception {
    for (BusFailure f : BusFailure.values()) {
      BusError e = failure("test.refuses", new JsonObject().put("code", f.code()).put("message", "because " + f), 5_000);
      assertThat(e.failure()).isEqualTo(f);
      assertThat(e.getMessage()).isEqualTo("because " + f);
      assertThat(e.toJson()).isEqualTo(new JsonObject().put("ok", false).put("error_type", f.errorType())
          .put("message", "because " + f));
    }
  }

  @Test
  void noConsumerIsUnavailableAndNoReplyIsATimeout() throws Exception {
    BusError none = failure("test.nobody", new JsonObject(), 5_000);
    assertThat(none.failure()).isEqualTo(BusFailure.UNAVAILABLE);
    assertThat(none.getMessage()).isEqualTo("the thing is not running");
    BusError late = failure("test.silent", new JsonObject(), 100);
    assertThat(late.failure()).isEqualTo(BusFailure.TIMEOUT);
    assertThat(late.getMessage()).isEqualTo("the thing did not answer in time");
  }

  @Test
  void anUnknownCodeOrAnExceptionIsAFailureInPlainWords() throws Exception {
    BusError odd = failure("test.refuses", new JsonObject().put("code", 418).put("message", "java.lang.IllegalStateException: x"), 5_000);
    assertThat(odd.failure()).isEqualTo(BusFailure.FAILED);
    assertThat(odd.getMessage()).isEqualTo("the thing failed unexpectedly; try again");
    BusError thrown = BusError.of(new IllegalStateException("internal"), "the thing");
    assertThat(thrown.failure()).isEqualTo(BusFailure.FAILED);
    assertThat(thrown.getMessage()).doesNotContain("IllegalState");
  }

  @Test
  void busyAndStoppingAreTheOnlyFailuresThatAskForARetryAndEveryCodeIsDistinct() {
    assertThat(java.util.Arrays.stream(BusFailure.values()).filter(BusFailure::retryLater))
        .containsExactly(BusFailure.BUSY, BusFailure.STOPPING);
    assertThat(BusFailure.STOPPING.httpStatus()).isEqualTo(503);
    assertThat(java.util.Arrays.stream(BusFailure.values()).map(BusFailure::code).distinct()).hasSize(BusFailure.values().length);
    assertThat(BusFailure.BUSY.httpStatus()).isEqualTo(503);
  }
}

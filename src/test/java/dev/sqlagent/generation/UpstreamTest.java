package dev.sqlagent.generation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.ModelException.Type;
import dev.sqlagent.generation.Upstream.AttemptFailure;
import dev.sqlagent.generation.Upstream.Next;
import io.vertx.core.http.HttpClosedException;
import java.net.ConnectException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class UpstreamTest {

  private static AttemptFailure status(int code, String body) {
    return Upstream.forStatus(code, null, null, body, true, 0);
  }

  @Test
  void openAiInsufficientQuotaIsDaily() {
    String body = "{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}";
    assertThat(status(429, body).next).isEqualTo(Next.NEXT_KEY);
  }

  @Test
  void perDayWordingIsDaily() {
    assertThat(Upstream.isDailyQuota("{\"error\":{\"message\":\"Rate limit reached on tokens per day (TPD)\"}}")).isTrue();
    assertThat(Upstream.isDailyQuota("{\"error\":{\"message\":\"daily request quota exhausted\"}}")).isTrue();
    assertThat(Upstream.isDailyQuota("[{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\","
        + "\"details\":[{\"quotaId\":\"GenerateRequestsPerDayPerProjectPerModel-FreeTier\"}]}}]")).isTrue();
    assertThat(Upstream.isDailyQuota("{\"error\":\"too many requests per day\"}")).isTrue();
  }

  @Test
  void perMinuteRateLimitIsRetriedWithItsWait() {
    AttemptFailure f = Upstream.forStatus(429, null, "2",
        "{\"error\":{\"message\":\"Rate limit reached on requests per min (RPM)\",\"code\":\"rate_limit_exceeded\"}}", true, 0);
    assertThat(f.next).isEqualTo(Next.RETRY);
    assertThat(f.type).isEqualTo(Type.MODEL_QUOTA);
    assertThat(f.retryAfterMs).isEqualTo(2_000);
  }

  @Test
  void serverErrorsAreRetried() {
    assertThat(status(500, "").next).isEqualTo(Next.RETRY);
    assertThat(status(503, "<html>busy</html>").type).isEqualTo(Type.MODEL_UNAVAILABLE);
    assertThat(status(503, "<html>busy</html>").getMessage()).contains("HTTP 503").contains("busy");
  }

  @Test
  void otherClientErrorsAreNotRetried() {
    assertThat(status(400, "{\"error\":{\"message\":\"bad\"}}").next).isEqualTo(Next.GIVE_UP);
    assertThat(status(400, "{\"error\":{\"message\":\"bad\"}}").type).isEqualTo(Type.MODEL_ERROR);
    assertThat(status(401, "").type).isEqualTo(Type.MODEL_UNAVAILABLE);
    assertThat(status(403, "").next).isEqualTo(Next.GIVE_UP);
    assertThat(status(404, "{\"error\":\"model 'x' not found\"}").getMessage()).contains("model 'x' not found");
    assertThat(status(408, "").next).isEqualTo(Next.GIVE_UP);
  }

  @Test
  void unauthorizedWithoutAKeySaysSo() {
    assertThat(Upstream.forStatus(401, null, null, "", false, 0).getMessage()).contains("none is configured");
  }

  @Test
  void retryAfterForms() {
    assertThat(Upstream.retryAfterMs(null, null, 0)).isEqualTo(-1);
    assertThat(Upstream.retryAfterMs(null, "3", 0)).isEqualTo(3_000);
    assertThat(Upstream.retryAfterMs(null, "0.5", 0)).isEqualTo(500);
    assertThat(Upstream.retryAfterMs("250", "3", 0)).isEqualTo(250);
    assertThat(Upstream.retryAfterMs(null, "soon", 0)).isEqualTo(-1);
    long now = Instant.parse("2025-03-01T10:00:00Z").toEpochMilli();
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.parse("2025-03-01T10:00:07Z").atZone(ZoneOffset.UTC));
    assertThat(Upstream.retryAfterMs(null, date, now)).isEqualTo(7_000);
    assertThat(Upstream.retryAfterMs(null, "-5", 0)).isZero();
  }

  @Test
  void transportFailures() {
    assertThat(Upstream.forTransport(new ConnectException("Connection refused"), "http://h/v1").next).isEqualTo(Next.RETRY);
    assertThat(Upstream.forTransport(new ConnectException("Connection refused"), "http://h/v1").getMessage())
        .contains("cannot reach the model server at http://h/v1");
    assertThat(Upstream.forTransport(new HttpClosedException("Connection was closed"), "u").next).isEqualTo(Next.RETRY);
    assertThat(Upstream.forTransport(new TimeoutException("idle"), "u").type).isEqualTo(Type.MODEL_TIMEOUT);
  }

  @Test
  void serverMessageShapes() {
    assertThat(Upstream.serverMessage("{\"error\":{\"message\":\"m1\"}}")).isEqualTo("m1");
    assertThat(Upstream.serverMessage("{\"error\":\"m2\"}")).isEqualTo("m2");
    assertThat(Upstream.serverMessage("{\"detail\":\"m3\"}")).isEqualTo("m3");
    assertThat(Upstream.serverMessage("plain\ntext")).isEqualTo("plain text");
    assertThat(Upstream.serverMessage("x".repeat(1000))).hasSizeLessThan(310);
    assertThat(Upstream.serverMessage("")).isEmpty();
  }
}

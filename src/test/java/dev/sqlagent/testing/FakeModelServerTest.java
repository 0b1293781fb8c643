package dev.sqlagent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer.Reply;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.concurrent.TimeUnit;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The fake model itself, from plain JUnit, spoken to with a bare web client. */
class FakeModelServerTest {

  @Test
  void speaksChatCompletionsPlainAndStreamed() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      Vertx vertx = Vertx.vertx();
      try {
        WebClient web = WebClient.create(vertx);
        model.enqueue(Reply.sql("SELECT 1").usage(7, 3), Reply.content("hello world").streamedIn(2));
        JsonObject req = new JsonObject().put("model", "m")
            .put("messages", new io.vertx.core.json.JsonArray().add(new JsonObject().put("role", "user").put("content", "q")));

        HttpResponse<Buffer> plain = web.postAbs(model.baseUrl() + "/chat/completions").bearerTokenAuthentication("k")
            .sendJsonObject(req).await(10, TimeUnit.SECONDS);
        JsonObject body = plain.bodyAsJsonObject();
        assertThat(body.getJsonArray("choices").getJsonObject(0).getJsonObject("message").getString("content"))
            .isEqualTo("{\"sql\":\"SELECT 1\",\"explanation\":\"Answers the question.\"}");
        assertThat(body.getJsonObject("usage").getInteger("prompt_tokens")).isEqualTo(7);

        HttpResponse<Buffer> streamed = web.postAbs(model.baseUrl() + "/chat/completions")
            .sendJsonObject(req.copy().put("stream", true).put("stream_options", new JsonObject().put("include_usage", true)))
            .await(10, TimeUnit.SECONDS);
        assertThat(streamed.getHeader("content-type")).isEqualTo("text/event-stream");
        String sse = streamed.bodyAsString();
        assertThat(sse).contains("\"content\":\"hello\"").contains("\"content\":\" world\"")
            .contains("\"finish_reason\":\"stop\"").contains("\"usage\"").endsWith("data: [DONE]\n\n");

        assertThat(model.requestCount()).isEqualTo(2);
        assertThat(model.requests().get(0).bearerKey()).isEqualTo("k");
        assertThat(model.requests().get(1).stream()).isTrue();
        assertThat(model.lastRequest().lastUserMessage()).isEqualTo("q");

        HttpResponse<Buffer> unscripted = web.postAbs(model.baseUrl() + "/chat/completions").sendJsonObject(req)
            .await(10, TimeUnit.SECONDS);
        assertThat(unscripted.statusCode()).isEqualTo(400);
        assertThat(unscripted.bodyAsString()).contains("no scripted reply left for request #3");

        HttpResponse<Buffer> models = web.getAbs(model.baseUrl() + "/models").send().await(10, TimeUnit.SECONDS);
        assertThat(models.bodyAsJsonObject().getJsonArray("data").getJsonObject(0).getString("id")).isEqualTo(FakeModelServer.MODEL);
      } finally {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void stopCutsAHungRequest() throws Exception {
    FakeModelServer model = FakeModelServer.start();
    Vertx vertx = Vertx.vertx();
    try {
      model.enqueue(Reply.hang());
      var pending = WebClient.create(vertx).postAbs(model.baseUrl() + "/chat/completions")
          .sendJsonObject(new JsonObject().put("messages", new io.vertx.core.json.JsonArray()));
      long until = System.currentTimeMillis() + 5_000;
      while (model.requestCount() == 0 && System.currentTimeMillis() < until) Thread.sleep(10);
      long t0 = System.currentTimeMillis();
      model.close();
      assertThat(System.currentTimeMillis() - t0).isLessThan(5_000);
      assertThat(pending.transform(ar -> io.vertx.core.Future.succeededFuture(ar.failed())).await(10, TimeUnit.SECONDS)).isTrue();
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** The same server inside a vertx-junit5 test: deploy without blocking, stop in the test's own flow. */
  @Nested
  @ExtendWith(VertxExtension.class)
  class InsideVertxJunit5 {
    @Test
    void deployAnswerStop(Vertx vertx, VertxTestContext ctx) {
      FakeModelServer.deploy(vertx).onComplete(ctx.succeeding(model -> {
        model.enqueue(Reply.refusal("no such data"));
        JsonObject req = new JsonObject().put("messages", new io.vertx.core.json.JsonArray()
            .add(new JsonObject().put("role", "user").put("content", "weather?")));
        WebClient.create(vertx).postAbs(model.baseUrl() + "/chat/completions").sendJsonObject(req)
            .onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
              assertThat(resp.bodyAsString()).contains("no such data");
              assertThat(model.lastRequest().lastUserMessage()).isEqualTo("weather?");
              model.stop().onComplete(ctx.succeedingThenComplete());
            })));
      }));
    }
  }

  @Test
  void splitKeepsEveryCharacter() {
    assertThat(FakeModelServer.split("abcdefg", 3)).containsExactly("ab", "cd", "efg");
    assertThat(FakeModelServer.split("ab", 5)).containsExactly("a", "b");
    assertThat(FakeModelServer.split("", 3)).containsExactly("");
    assertThat(String.join("", FakeModelServer.split("世界😀x", 4))).isEqualTo("世界😀x");
  }
}

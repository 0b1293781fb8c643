package dev.sqlagent.own;

import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.Databases;
import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.AppConfig;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.concurrent.TimeUnit;

/**
 * The whole service as {@code sql-agent serve} starts it, in-process: {@link Databases#open(AppConfig)} (the
 * start-up proof included) then {@link MainVerticle} with HTTP on a free port.
 */
final class OwnService implements AutoCloseable {

  final Databases databases;
  final Vertx vertx;
  final MainVerticle main;
  final WebClient client;

  private OwnService(Databases databases, Vertx vertx, MainVerticle main) {
    this.databases = databases;
    this.vertx = vertx;
    this.main = main;
    this.client = WebClient.create(vertx);
  }

  static OwnService start(AppConfig config) throws Exception {
    Databases dbs = Databases.open(config);
    Vertx vertx = Vertx.vertx(config.vertxOptions());
    try {
      MainVerticle main = new MainVerticle(config, dbs.target(), dbs.state());
      vertx.deployVerticle(main).await(180, TimeUnit.SECONDS);
      return new OwnService(dbs, vertx, main);
    } catch (Exception e) {
      vertx.close().await(30, TimeUnit.SECONDS);
      dbs.close();
      throw e;
    }
  }

  int port() {
    return main.httpPort();
  }

  HttpResponse<Buffer> get(String path) throws Exception {
    return client.get(port(), "127.0.0.1", path).timeout(120_000).send().await(130, TimeUnit.SECONDS);
  }

  HttpResponse<Buffer> post(String path, JsonObject body) throws Exception {
    return client.post(port(), "127.0.0.1", path).timeout(120_000).sendJsonObject(body).await(130, TimeUnit.SECONDS);
  }

  /** The answer JSON of one question through {@code POST /api/ask}. */
  JsonObject ask(String question) throws Exception {
    HttpResponse<Buffer> r = post("/api/ask", new JsonObject().put("question", question));
    if (r.statusCode() != 200) throw new AssertionError("POST /api/ask " + r.statusCode() + ": " + r.bodyAsString());
    return r.bodyAsJsonObject();
  }

  /** Waits until retrieval's index is built (and with it the schema snapshot is due). */
  void awaitIndex() {
    try {
      new RetrievalClient(vertx, 180_000).retrieve(new Retrieval.Request("anything", false)).await(200, TimeUnit.SECONDS);
    } catch (Exception e) {
      // best effort
    }
  }

  @Override
  public void close() throws Exception {
    awaitIndex();  // a JVM leaving while ONNX loads the model can die in native code
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      databases.close();
    }
  }
}

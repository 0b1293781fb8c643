package dev.sqlagent.testing;

import dev.sqlagent.MainVerticle;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The whole service on the shared test database, on a free port, with an HTTP client for it. */
public final class RunningService implements AutoCloseable {

  public final Vertx vertx;
  public final MainVerticle main;
  public final WebClient client;

  private RunningService(Vertx vertx, MainVerticle main) {
    this.vertx = vertx;
    this.main = main;
    this.client = WebClient.create(vertx);
  }

  /** Starts it (blocking, from a test thread) with these settings over the test database's. */
  public static RunningService start(Map<String, String> env) throws Exception {
    TestDatabase db = TestDatabase.get();
    Vertx vertx = Vertx.vertx();
    MainVerticle main = new MainVerticle(db.config(env), db.target(), db.state());
    vertx.deployVerticle(main).await(60, TimeUnit.SECONDS);
    return new RunningService(vertx, main);
  }

  public int port() {
    return main.httpPort();
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }
}

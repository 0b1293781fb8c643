package dev.sqlagent.testing;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Target;
import dev.sqlagent.state.StateStore;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The whole service on the shared test database, on a free port, with an HTTP client for it: what every test
 * that needs the service as a user meets it starts. With a {@link FakeModelServer}, the model is that server.
 */
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
    try {
      MainVerticle main = new MainVerticle(db.config(env), db.target(), db.state());
      vertx.deployVerticle(main).await(120, TimeUnit.SECONDS);
      return new RunningService(vertx, main);
    } catch (Exception e) {
      vertx.close().await(30, TimeUnit.SECONDS);
      throw e;
    }
  }

  /**
   * Starts it from settings the test built itself (its own target or users file, say), on {@code target} with
   * {@code state}: what {@code serve} does with the same settings.
   */
  public static RunningService start(AppConfig config, Target target, StateStore state) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      MainVerticle main = new MainVerticle(config, target, state);
      vertx.deployVerticle(main).await(180, TimeUnit.SECONDS);
      return new RunningService(vertx, main);
    } catch (Exception e) {
      vertx.close().await(30, TimeUnit.SECONDS);
      throw e;
    }
  }

  /**
   * Starts it on another target (a copy of the demo database, say) talking to this scripted model, with the test
   * database's state store; {@code env} goes over the model's settings.
   */
  public static RunningService on(Target target, FakeModelServer model, Map<String, String> env) throws Exception {
    Map<String, String> all = new HashMap<>(model.env());
    all.putAll(env);
    TestDatabase db = TestDatabase.get();
    return start(db.config(all), target, db.state());
  }

  /** Starts it talking to this scripted model; {@code env} goes over the model's settings. */
  public static RunningService start(FakeModelServer model, Map<String, String> env) throws Exception {
    Map<String, String> all = new HashMap<>(model.env());
    all.putAll(env);
    return start(all);
  }

  public int port() {
    return main.httpPort();
  }

  @Override
  public void close() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }
}

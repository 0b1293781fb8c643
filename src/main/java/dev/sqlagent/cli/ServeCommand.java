package dev.sqlagent.cli;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.Databases;
import dev.sqlagent.metrics.MetricsVerticle;
import io.vertx.core.Vertx;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;

/** Starts the database (embedded unless configured), runs setup on first start, then the service. */
@Command(name = "serve", description = "Run the service (the default command).", mixinStandardHelpOptions = true)
public final class ServeCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
  private static volatile boolean running;

  static boolean running() {
    return running;
  }

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    AppConfig config = AppConfig.fromEnvironment();
    Databases db = Databases.open(config);
    Vertx vertx = MetricsVerticle.newVertx();  // Vert.x's own metrics must be chosen when it is created
    try {
      vertx.deployVerticle(new MainVerticle(config, db.target(), db.state())).await(5, TimeUnit.MINUTES);
    } catch (Exception e) {
      vertx.close().await(30, TimeUnit.SECONDS);
      db.close();
      throw e;
    }
    LOG.info("ready in {} ms", (System.nanoTime() - t0) / 1_000_000);
    running = true;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        vertx.close().await(30, TimeUnit.SECONDS);
        db.close();
      } catch (Exception e) {
        LOG.warn("shutdown: {}", e.getMessage());
      }
    }, "sql-agent-shutdown"));
    return 0;
  }
}

package dev.sqlagent.cli;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.Databases;
import dev.sqlagent.metrics.MetricsVerticle;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
    checkCanListen(config.httpHost(), config.httpPort());  // before the slow part: seconds of PostgreSQL and models
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
    long readyAt = System.nanoTime();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      long t1 = System.nanoTime();
      LOG.info("stopping (signal received)");
      try {
        vertx.close().await(30, TimeUnit.SECONDS);
        db.close();
      } catch (Exception e) {
        LOG.warn("shutdown: {}", e.getMessage());
      }
      LOG.info(stoppedLine(System.nanoTime() - readyAt, System.nanoTime() - t1));
    }, "sql-agent-shutdown"));
    return 0;
  }

  /** The last line the service logs: how long it served, how long stopping took. */
  static String stoppedLine(long upNanos, long stopNanos) {
    java.time.Duration up = java.time.Duration.ofNanos(upNanos).withNanos(0);
    return "sql-agent stopped after " + up.toString().substring(2).toLowerCase() + " up (shutdown took "
        + stopNanos / 1_000_000 + " ms)";
  }

  /**
   * Fails at once, naming the address and {@code SQLAGENT_HTTP_PORT}, when the HTTP server could not bind there
   * (the port is taken, or the host is not an address of this machine). Port 0 (any free port) always binds.
   */
  static void checkCanListen(String host, int port) {
    if (port == 0) return;
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);  // as Vert.x binds: a port in TIME_WAIT is free, a listening one is not
      probe.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new ConfigException("cannot listen on " + host + ":" + port + " (" + e.getMessage() + "): another process "
          + "(perhaps a sql-agent already running) holds it; stop it or set SQLAGENT_HTTP_PORT to a free port "
          + "(SQLAGENT_HTTP_HOST=" + host + ")");
    }
  }
}

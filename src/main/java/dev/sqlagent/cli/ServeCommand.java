package dev.sqlagent.cli;

import dev.sqlagent.MainVerticle;
import dev.sqlagent.cluster.Cluster;
import dev.sqlagent.cluster.Role;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ClusterSettings;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.config.TelemetrySettings;
import dev.sqlagent.telemetry.LogFormat;
import dev.sqlagent.telemetry.Tracing;
import dev.sqlagent.Databases;
import dev.sqlagent.lifecycle.Drain;
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
import picocli.CommandLine.Option;

/** Starts the database (embedded unless configured), runs setup on first start, then the service. */
@Command(name = "serve", description = "Run the service (the default command).", mixinStandardHelpOptions = true)
public final class ServeCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
  private static volatile boolean running;

  static boolean running() {
    return running;
  }

  /** A command that leaves threads serving (the process must not exit when it returns). */
  static void markRunning() {
    running = true;
  }

  @Option(names = "--role", defaultValue = "all", paramLabel = "all|edge|worker",
      description = "In a cluster (SQLAGENT_CLUSTER=true): edge (HTTP, /ws, SockJS, /mcp, the page), worker (the agent, "
          + "generation, retrieval, the gate) or all (both; the default).")
  String role = "all";

  @Override
  public Integer call() throws Exception {
    long t0 = System.nanoTime();
    AppConfig config = AppConfig.fromEnvironment();
    TelemetrySettings telemetry = config.telemetry();
    LogFormat.apply(telemetry);  // before the first line
    ClusterSettings clustering = config.cluster();
    long drainMs = config.drainSeconds() * 1000L;
    Role nodeRole = Role.parse(role);
    checkCluster(config, clustering, nodeRole);
    // before the slow part: seconds of PostgreSQL and models
    if (nodeRole.edge()) checkCanListen(config.httpHost(), config.httpPort());
    // The model loads in its own process while PostgreSQL starts.
    LocalModel localModel = nodeRole.worker() ? LocalModel.start(config) : LocalModel.none(config);
    config = localModel.config();
    Databases db;
    try {
      db = Databases.open(config);
    } catch (RuntimeException e) {
      localModel.close();
      throw e;
    }
    Cluster cluster = clustering.enabled() ? Cluster.of(clustering, nodeRole) : null;
    Vertx vertx;
    Tracing tracing = Tracing.start(telemetry, cluster == null ? null : cluster.name());
    try {
      // Vert.x's own metrics and its tracer must be chosen when it is created
      boolean nativeTransport = config.vertxOptions().getPreferNativeTransport();
      vertx = tracing.attach(cluster == null ? tracing.install(MetricsVerticle.vertxBuilder(config.vertxOptions(), null)).build()
          : cluster.start(options -> tracing.install(MetricsVerticle.vertxBuilder(
              options.setPreferNativeTransport(nativeTransport), cluster.name()))).await(2, TimeUnit.MINUTES));
      LOG.info("observability: {}", telemetry.describe());
    } catch (Exception e) {
      db.close();
      localModel.close();
      throw new ConfigException("cannot join the cluster (" + clustering.describe() + "): " + e.getMessage());
    }
    try {
      vertx.deployVerticle(cluster == null ? new MainVerticle(config, db.target(), db.state())
          : new MainVerticle(config, db.target(), db.state(), cluster)).await(5, TimeUnit.MINUTES);
    } catch (Exception e) {
      vertx.close().await(30, TimeUnit.SECONDS);
      db.close();
      localModel.close();
      throw e;
    }
    LOG.info("ready in {} ms", (System.nanoTime() - t0) / 1_000_000);
    running = true;
    // The first exports would otherwise wait for the JIT: the service exports to itself once in each format.
    if (nodeRole.edge() && nodeRole.worker()) dev.sqlagent.export.ExportWarmUp.run(vertx, config);
    long readyAt = System.nanoTime();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      long t1 = System.nanoTime();
      LOG.info("stopping (signal received)");
      try {
        Drain.run(vertx, drainMs);
        vertx.close().await(30, TimeUnit.SECONDS);
        db.close();
      } catch (Exception e) {
        LOG.warn("shutdown: {}", e.getMessage());
      }
      localModel.close();
      LOG.info(stoppedLine(System.nanoTime() - readyAt, System.nanoTime() - t1));
    }, "sql-agent-shutdown"));
    return 0;
  }

  /** Cluster mode needs what every node shares; without it, only the single process's role is meaningful. */
  static void checkCluster(AppConfig config, ClusterSettings clustering, Role role) {
    if (!clustering.enabled()) {
      if (role != Role.ALL) {
        throw new ConfigException("--role " + role.label() + " is for a cluster: set SQLAGENT_CLUSTER=true (and "
            + "SQLAGENT_CLUSTER_MEMBERS), or leave --role out to run everything in this process");
      }
      return;
    }
    if (config.stateUrl().isEmpty()) {
      throw new ConfigException("SQLAGENT_CLUSTER=true needs SQLAGENT_STATE_URL: the nodes share one state store "
          + "(query log, snapshots, embedding cache, runs' events); an embedded one would be each node's own");
    }
    if (config.dbUrl().isEmpty()) {
      throw new ConfigException("SQLAGENT_CLUSTER=true needs SQLAGENT_DB_URL: every node must answer about the same "
          + "database (an embedded demo would be each node's own)");
    }
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

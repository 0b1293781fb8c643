package dev.sqlagent.lifecycle;

import io.vertx.core.Vertx;
import io.vertx.core.shareddata.LocalMap;

/**
 * Whether this process is stopping (told to by SIGTERM: a rolling restart, a scale-down). Once it is, readiness
 * answers 503 at once and no new question is taken (every edge: 503 with Retry-After), while the questions already
 * in flight are given time to finish ({@link Drain}). Kept in the Vert.x instance's local shared data, so every
 * verticle of the process reads the same flag without a bus round trip; never shared with other nodes.
 */
public final class Lifecycle {

  private static final String MAP = "sqlagent.lifecycle";
  private static final String SINCE = "stopping_since";

  private Lifecycle() {}

  /** Marks the process as stopping (from any thread); idempotent, the first time counts. */
  public static void stopping(Vertx vertx) {
    map(vertx).putIfAbsent(SINCE, System.currentTimeMillis());
  }

  /** Whether the process is stopping. */
  public static boolean isStopping(Vertx vertx) {
    return map(vertx).get(SINCE) != null;
  }

  /** What a refused question or a readiness probe is told. */
  public static String refusal() {
    return "this instance is stopping (a restart or a scale-down) and takes no new question; ask again in a few "
        + "seconds (another instance will answer)";
  }

  private static LocalMap<String, Long> map(Vertx vertx) {
    return vertx.sharedData().getLocalMap(MAP);
  }
}

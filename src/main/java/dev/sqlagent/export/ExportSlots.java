package dev.sqlagent.export;

import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.users.User;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The exports each user (or, without users, each client) has running, at most {@code perUser} at once: one count per
 * process, shared by every edge that exports (HTTP and the MCP tool alike), so no door lets a user take more.
 */
public final class ExportSlots implements Shareable {

  private static final String MAP = "sql-agent.export-slots";

  private final int perUser;
  private final ConcurrentHashMap<String, Integer> running = new ConcurrentHashMap<>();

  ExportSlots(int perUser) {
    this.perUser = perUser;
  }

  /** The process's slots ({@code SQLAGENT_EXPORTS_PER_USER}), made by whichever edge asks first. */
  public static ExportSlots of(Vertx vertx, int perUser) {
    var map = vertx.sharedData().<String, ExportSlots>getLocalMap(MAP);
    ExportSlots mine = new ExportSlots(perUser);
    ExportSlots first = map.putIfAbsent("slots", mine);
    return first == null ? mine : first;
  }

  int perUser() {
    return perUser;
  }

  /** What one more export than a user may have is told (429 over HTTP, a tool error over MCP). */
  public String refusal() {
    return "you already have " + perUser + " export" + (perUser == 1 ? "" : "s") + " running, the most one user may "
        + "have (SQLAGENT_EXPORTS_PER_USER); try again when one has finished (in " + BusFailure.RETRY_AFTER_SECONDS
        + " s or so)";
  }

  /**
   * A slot for {@code user} (by name) or, without one, for the client at {@code client} (null: a local client), and
   * how to give it back (once, however often called); null when none is left.
   */
  public Runnable take(User user, String client) {
    return take(user != null ? "user " + user.name() : "client " + (client == null ? "local" : client));
  }

  /** A slot for {@code who}, and how to give it back (once, however often called); null when {@code who} has none left. */
  Runnable take(String who) {
    boolean[] taken = {false};
    running.compute(who, (k, n) -> {
      int now = n == null ? 0 : n;
      if (now >= perUser) return n;
      taken[0] = true;
      return now + 1;
    });
    if (!taken[0]) return null;
    AtomicBoolean released = new AtomicBoolean();
    return () -> {
      if (released.compareAndSet(false, true)) running.computeIfPresent(who, (k, n) -> n <= 1 ? null : n - 1);
    };
  }
}

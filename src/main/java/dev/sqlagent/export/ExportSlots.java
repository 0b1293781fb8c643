package dev.sqlagent.export;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/** The exports each user (or client) has running, at most {@code perUser} at once. */
final class ExportSlots {

  private final int perUser;
  private final ConcurrentHashMap<String, Integer> running = new ConcurrentHashMap<>();

  ExportSlots(int perUser) {
    this.perUser = perUser;
  }

  int perUser() {
    return perUser;
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

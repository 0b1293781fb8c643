package dev.sqlagent.testing;

import dev.sqlagent.eval.RunStore;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Saved evaluation runs in the test database's state store, which every test shares (test classes run one
 * after another): a test notes the runs there before it starts and removes the ones it made, and a test
 * that needs a known "latest" clears them all first.
 */
public final class SavedRuns {

  private final RunStore store = new RunStore(TestDatabase.get().state());
  private final Set<String> before = new HashSet<>(store.names());

  /** Notes the runs saved now. */
  public static SavedRuns snapshot() {
    return new SavedRuns();
  }

  public RunStore store() {
    return store;
  }

  /** Runs saved since the snapshot, newest first. */
  public List<String> made() {
    return store.names().stream().filter(n -> !before.contains(n)).toList();
  }

  /** Deletes the runs saved since the snapshot. */
  public void cleanUp() {
    made().forEach(store::delete);
  }

  /** Deletes every saved run (and any row whose name is not a run name). */
  public static void clearAll() throws Exception {
    try (Connection c = TestDatabase.get().state().ownerConnection(); Statement s = c.createStatement()) {
      s.execute("DELETE FROM eval_run_lines");
      s.execute("DELETE FROM eval_runs");
    }
  }

  /** A finished run as far as "latest" is concerned: its run.json and summary. */
  public static void saveSummary(String run, JsonObject summary) {
    RunStore store = new RunStore(TestDatabase.get().state());
    store.writeJson(run, RunStore.RUN, new JsonObject().put("run_id", run));
    store.writeJson(run, RunStore.SUMMARY, summary);
  }
}

package dev.sqlagent.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Five nodes set up one fresh state store at the same moment, as an orchestrator starts them: each runs the whole
 * set-up (database, tables, the log role and its proofs) on its own connections, released together by a latch.
 * Every one must come back ready, ten rounds in a row, and the store must be whole afterwards.
 */
class MigrationRaceTest {

  private static final int NODES = 5;
  private static final int ROUNDS = 10;

  @Test
  void fiveNodesSetUpAFreshStoreAtOnceTenRoundsAllReady() throws Exception {
    TestDatabase db = TestDatabase.get();
    // The log role is one per server: every round uses the password the shared store already gave it.
    String logPassword = db.state().logPassword();
    ExecutorService pool = Executors.newFixedThreadPool(NODES);
    List<String> databases = new ArrayList<>();
    try {
      for (int round = 1; round <= ROUNDS; round++) {
        String name = "state_race_" + ProcessHandle.current().pid() + "_" + round;
        databases.add(name);
        StateStore store = new StateStore(db.adminUrl().withDatabase(name), logPassword);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> nodes = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
          StateStore own = new StateStore(db.adminUrl().withDatabase(name), logPassword);
          nodes.add(pool.submit(() -> {
            go.await();
            own.migrate();
            return null;
          }));
        }
        go.countDown();
        List<String> failures = new ArrayList<>();
        for (Future<?> node : nodes) {
          try {
            node.get(3, TimeUnit.MINUTES);
          } catch (java.util.concurrent.ExecutionException e) {
            failures.add(String.valueOf(e.getCause()));
          }
        }
        assertThat(failures).as("round %d: every node's set-up succeeds", round).isEmpty();
        // Whole: at the current version once, the log role proven, and a second set-up has nothing to do.
        try (Connection c = store.ownerConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM state_version WHERE version = " + StateStore.VERSION)) {
          rs.next();
          assertThat(rs.getInt(1)).as("round %d: the version recorded once", round).isEqualTo(1);
        }
        assertThat(store.proveLogRole()).as("round %d: the log role's proofs", round).hasSize(6);
      }
    } finally {
      pool.shutdownNow();
      try (Connection c = db.adminConnection("postgres"); Statement s = c.createStatement()) {
        for (String name : databases) s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      }
    }
  }
}

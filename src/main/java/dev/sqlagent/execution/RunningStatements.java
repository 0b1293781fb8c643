package dev.sqlagent.execution;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.SqlConnection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which connection each run's statement is on, so a stopped run's statement is cancelled in PostgreSQL (the
 * protocol's cancel request, on a connection of its own) and the run's later statements are refused.
 *
 * <p>A cancel request that reaches the backend between two statements is ignored by PostgreSQL, so it is sent
 * again every {@link #RESEND_MS} while the run still holds the connection; the connection is let go before
 * the ROLLBACK and DISCARD ALL that reset it, which therefore always run.
 */
final class RunningStatements {

  private static final Logger LOG = LoggerFactory.getLogger(RunningStatements.class);
  static final long RESEND_MS = 50;
  private static final int RESENDS = 100;
  private static final int REMEMBERED_STOPS = 2_000;

  private final Vertx vertx;
  private final Map<String, Set<SqlConnection>> byRun = new ConcurrentHashMap<>();
  /** Cancel requests sent and not yet answered, per connection. */
  private final Map<SqlConnection, Future<Void>> inFlight = new ConcurrentHashMap<>();
  /** Runs stopped lately: a statement they still send is refused without running. */
  private final Set<String> stopped = Collections.newSetFromMap(Collections.synchronizedMap(
      new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > REMEMBERED_STOPS;
        }
      }));

  RunningStatements(Vertx vertx) {
    this.vertx = vertx;
  }

  /** {@code conn} now runs statements of {@code runId} (null: work of no run, never cancelled). */
  void hold(String runId, SqlConnection conn) {
    if (runId != null) byRun.computeIfAbsent(runId, k -> ConcurrentHashMap.newKeySet()).add(conn);
  }

  /**
   * The run is done with {@code conn}; the future completes once no cancel request for it is still on its way,
   * so one cannot land on the statements that reset the connection.
   */
  Future<Void> release(String runId, SqlConnection conn) {
    if (runId == null) return Future.succeededFuture();
    idle(runId, conn);
    Future<Void> last = inFlight.remove(conn);
    return last == null ? Future.succeededFuture() : last.otherwiseEmpty();
  }

  /** {@code conn} runs nothing of {@code runId} until it is held again: a stop sends it no cancel request. */
  void idle(String runId, SqlConnection conn) {
    if (runId == null) return;
    byRun.computeIfPresent(runId, (k, set) -> {
      set.remove(conn);
      return set.isEmpty() ? null : set;
    });
  }

  boolean stopped(String runId) {
    return runId != null && stopped.contains(runId);
  }

  /** Stops a run: its running statement is cancelled, and none of its later ones runs. */
  void stop(String runId) {
    if (runId == null || !stopped.add(runId)) return;
    Set<SqlConnection> conns = byRun.get(runId);
    if (conns == null) return;
    for (SqlConnection conn : conns) cancel(runId, conn, 0);
  }

  private void cancel(String runId, SqlConnection conn, int sent) {
    Set<SqlConnection> conns = byRun.get(runId);
    if (conns == null || !conns.contains(conn) || sent >= RESENDS) return;
    Future<Void> request = PgConnection.cast(conn).cancelRequest()
        .onFailure(e -> LOG.warn("could not send a cancel request for run {}: {}", runId, e.getMessage()));
    Future<Void> before = inFlight.get(conn);
    inFlight.put(conn, before == null ? request : Future.all(before.otherwiseEmpty(), request.otherwiseEmpty()).mapEmpty());
    vertx.setTimer(RESEND_MS, t -> cancel(runId, conn, sent + 1));
  }
}

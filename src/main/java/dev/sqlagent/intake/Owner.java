package dev.sqlagent.intake;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.RunMessages;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The connection that asked (a WebSocket, a SockJS session, an HTTP request, an MCP session, the command-line
 * process) as the intake knows it: the runs it started that have not answered. When it goes they are stopped (the
 * model call aborted, the statement cancelled), since nobody is left to read their answers. A run that answered in
 * the meantime ignores the stop. Safe to use from any thread (a SockJS bridge's events come on several).
 */
public final class Owner {

  /** Runs held at most: past that the oldest is forgotten (a door that never hears of answers asked it long ago). */
  static final int MAX_HELD = 64;

  private final AgentClient agent;
  private final User user;
  private final Set<String> runs = new LinkedHashSet<>();
  private boolean gone;

  Owner(AgentClient agent, User user) {
    this.agent = agent;
    this.user = user;
  }

  /** Names a new run of this connection and holds it. */
  public String nameRun() {
    String runId = UUID.randomUUID().toString();
    hold(runId);
    return runId;
  }

  /** Holds a run named elsewhere (by the client, or a rerun's new id). */
  public synchronized void hold(String runId) {
    if (runs.size() >= MAX_HELD) {
      Iterator<String> oldest = runs.iterator();
      oldest.next();
      oldest.remove();
    }
    runs.add(runId);
  }

  /** The run answered (or failed): nothing to stop any more. */
  public synchronized void release(String runId) {
    runs.remove(runId);
  }

  /** Whether the run is one of this connection's, not yet answered. */
  public synchronized boolean holds(String runId) {
    return runs.contains(runId);
  }

  /** Whether the connection went. */
  public synchronized boolean isGone() {
    return gone;
  }

  /** One run is no longer wanted (the request that asked it went); {@code by} says who stopped it, as its answer will. */
  public Future<RunMessages.Cancelled> stop(String runId, String by) {
    release(runId);
    return agent.cancel(RunRequest.cancel(runId, user, by));
  }

  /** The connection went: every run it asked that has not answered is stopped. */
  public Future<Void> gone() {
    return gone(Intake.DISCONNECTED);
  }

  /** The same, stopped by {@code by} (e.g. "Ctrl-C"); completes once every stop is answered or refused. */
  public Future<Void> gone(String by) {
    List<String> held;
    synchronized (this) {
      gone = true;
      held = new ArrayList<>(runs);
      runs.clear();
    }
    List<Future<?>> stops = new ArrayList<>();
    for (String runId : held) stops.add(agent.cancel(RunRequest.cancel(runId, user, by)));
    return Future.join(stops).<Void>mapEmpty().otherwiseEmpty();
  }
}

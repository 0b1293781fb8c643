package dev.sqlagent.agent;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunMessages;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.users.User;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recent runs: their events (for a client that joined late or missed some), who asked, and the run itself while
 * it runs, oldest dropped first (never one still running). Answers the requests about them: cancel, the list of runs,
 * a run's events, each for its owner or an admin (404 unknown, 403 another's). Touched only on the agent's context.
 */
final class RunRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(RunRegistry.class);

  static final int KEPT_RUNS = 500;

  private final Map<String, KeptRun> runs = new LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, KeptRun> eldest) {
      return size() > KEPT_RUNS && eldest.getValue().active == null;
    }
  };

  boolean contains(String runId) {
    return runs.containsKey(runId);
  }

  KeptRun get(String runId) {
    return runs.get(runId);
  }

  /** A run starting, asked by {@code owner} (null without users). */
  KeptRun start(String runId, String owner, String question) {
    KeptRun kept = new KeptRun(owner, question);
    runs.put(runId, kept);
    return kept;
  }

  /** A run that never started after all (its conversation was refused): its id is free again. */
  void forget(String runId) {
    KeptRun kept = runs.remove(runId);
    if (kept != null) kept.active = null;
  }

  /** A run a stopped process cut short, listed as interrupted unless it is known here already. */
  void interrupted(String runId, String owner, String question, Instant claimedAt) {
    if (runs.containsKey(runId)) return;
    KeptRun kept = new KeptRun(owner, question, claimedAt.toEpochMilli());
    kept.state = Interrupted.STATE;
    runs.put(runId, kept);
  }

  /** The run a request names, when the caller may reach it; otherwise the request is failed (404 or 403) and null. */
  private KeptRun reachable(Message<JsonObject> msg, RunRequest request) {
    String runId = AskRules.runIdOf(msg, request.runId());
    if (runId == null) return null;
    KeptRun kept = runs.get(runId);
    if (kept == null) {
      msg.fail(BusFailure.NOT_FOUND.code(), "no run " + runId + " (only the last " + KEPT_RUNS + " runs are kept)");
      return null;
    }
    if (!User.mayReach(request.user(), kept.owner)) {
      msg.fail(BusFailure.FORBIDDEN.code(), "run " + runId + " is another user's");
      return null;
    }
    return kept;
  }

  /** Request {run_id, user?, by?}: stops the run if the caller may (its owner or an admin). */
  void cancel(Message<JsonObject> msg) {
    RunRequest request = RunRequest.read(msg);
    if (request == null) return;
    KeptRun kept = reachable(msg, request);
    if (kept == null) return;
    String runId = request.runId();
    if (kept.active == null) {
      msg.fail(BusFailure.CONFLICT.code(), "run " + runId + " is no longer running (it " + kept.state.replace('_', ' ') + ")");
      return;
    }
    boolean first = kept.active.cancel(request.by());
    if (first) LOG.info("run {} cancelled by {}", runId, request.by() == null ? "a client" : request.by());
    msg.reply(new RunMessages.Cancelled(runId, true).toJson());
  }

  /** Request {user?}: the recent runs the caller may see, newest first. */
  void list(Message<JsonObject> msg) {
    User caller = RunRequest.fromJson(msg.body()).user();
    List<RunMessages.Run> mine = new ArrayList<>();
    runs.forEach((id, r) -> {
      if (User.mayReach(caller, r.owner)) {
        mine.add(new RunMessages.Run(id, r.owner, r.question, r.state, Instant.ofEpochMilli(r.startedAt).toString()));
      }
    });
    Collections.reverse(mine);
    msg.reply(new RunMessages.Runs(mine).toJson());
  }

  /** Request {run_id, after_seq, user?}: the run's events after {@code after_seq}. */
  void events(Message<JsonObject> msg) {
    RunRequest request = RunRequest.read(msg);
    if (request == null) return;
    KeptRun kept = reachable(msg, request);
    if (kept == null) return;
    List<GraphEvent> out = new ArrayList<>();
    for (Object e : kept.events) {
      GraphEvent event = GraphEvent.fromJson((JsonObject) e);
      if (event.seq() > request.afterSeq()) out.add(event);
    }
    msg.reply(new RunMessages.Events(request.runId(), out).toJson());
  }
}

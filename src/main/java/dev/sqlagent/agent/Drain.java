package dev.sqlagent.agent;

import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.OpsMessages;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stopping without cutting anyone off: the questions taken and not yet answered are what a drain waits for; at its
 * deadline those still running are cancelled (statement and model call stopped, answered as cancelled, logged), and
 * the drain request is replied once every one has its answer out. Touched only on the agent's context.
 */
final class Drain {

  private static final Logger LOG = LoggerFactory.getLogger(Drain.class);

  /** Who a run cancelled at the drain's deadline was stopped by, as its answer and log say. */
  static final String STOPPED_BY = "the service stopping (its drain time ran out)";

  private final Vertx vertx;
  /** Questions taken and not yet answered (the reply not sent), by run id. */
  private final Map<String, KeptRun> unanswered = new HashMap<>();
  /** The drain request to reply to once {@link #unanswered} is empty; null while not stopping. */
  private Message<JsonObject> request;
  private long timer = -1;
  private int atStart;
  private int cancelled;

  Drain(Vertx vertx) {
    this.vertx = vertx;
  }

  /** A question was taken: its answer is waited for. */
  void taken(String runId, KeptRun run) {
    unanswered.put(runId, run);
  }

  /** The run's answer (or failure) went out. */
  void replied(String runId) {
    unanswered.remove(runId);
    done();
  }

  /** {@code msg} asks the runs in flight to finish by {@code deadline} (epoch ms); a newer request takes over. */
  void start(Message<JsonObject> msg, long deadline) {
    if (request != null) request.fail(BusFailure.STOPPING.code(), "a newer drain request took over");
    request = msg;
    atStart = unanswered.size();
    cancelled = 0;
    LOG.info("stopping: {} question(s) in flight may finish within {} ms", atStart,
        Math.max(0, deadline - System.currentTimeMillis()));
    timer = vertx.setTimer(Math.max(1, deadline - System.currentTimeMillis()), t -> {
      timer = -1;
      for (Map.Entry<String, KeptRun> e : List.copyOf(unanswered.entrySet())) {
        AgentRun active = e.getValue().active;
        if (active != null && active.cancel(STOPPED_BY)) {
          cancelled++;
          LOG.info("run {} cancelled by {}", e.getKey(), STOPPED_BY);
        }
      }
    });
    done();
  }

  /** Replies to the drain once nothing is in flight. */
  private void done() {
    if (request == null || !unanswered.isEmpty()) return;
    if (timer != -1) vertx.cancelTimer(timer);
    timer = -1;
    request.reply(new OpsMessages.Drained(atStart - cancelled, cancelled).toJson());
    request = null;
  }
}

package dev.sqlagent.cluster;

import dev.sqlagent.agent.AgentVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.querylog.QueryLogVerticle;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An edge's side of the agent in cluster mode. Every question asked on this node ({@link Addresses#ASK}, a
 * node-local consumer, so the HTTP, WebSocket, SockJS and MCP adapters are unchanged) goes to one live worker
 * ({@link Addresses#askOn}): the one with the fewest of this edge's questions in flight. Knowing where each
 * question runs, the edge ends a question at once with an honest give-up ({@code worker_lost}) when its
 * worker leaves the cluster, rather than letting the client wait out the timeout. Answers gain a
 * {@code worker} key: the node that ran the question.
 *
 * <p>The edge is the node that delivers an answer, so it is the one that makes the answer durable: before it
 * replies, it has the query-log writer (on whichever node holds it now) confirm the answer's row is committed
 * ({@link Addresses#QUERY_LOG_KEEP}), and asks again, the next holder after a takeover, until it is. Run ids are
 * unique in the log, so a row asked for twice is written once: one row per answered question, whether the
 * worker that ran it or the writer dies on the way.
 *
 * <p>Cancels ({@link Addresses#CANCEL}: DELETE /api/runs/{id}, WebSocket and SockJS {@code cancel}, MCP
 * {@code notifications/cancelled}) go to the worker this edge sent the run to; a run this edge did not send
 * (asked on another edge, or already answered) is asked of every worker, and the one that has it answers.
 * The list of runs ({@link Addresses#RUNS}) is every worker's, merged. All state lives on this verticle's
 * event loop.
 */
public final class AskDispatcher extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(AskDispatcher.class);

  /** How long one cancel or listing waits for a worker. */
  static final long WORKER_REQUEST_MS = 5_000;
  /** How long one request to the log writer waits for its confirmation before it is asked again. */
  static final long KEEP_REQUEST_MS = 3_000;
  /**
   * How long a client's answer waits for its log row (a takeover of the writer after its node died takes a
   * second or two); after that the answer goes out and the row is still asked for, until {@link #KEEP_GIVE_UP_MS}.
   * Within the adapters' margin over the question timeout (15 s), so a slow writer never turns an answer into a
   * client's timeout.
   */
  static final long KEEP_WAIT_MS = 10_000;
  static final long KEEP_GIVE_UP_MS = 10 * 60_000;

  private final Cluster cluster;
  private final Map<String, InFlight> inFlight = new HashMap<>();
  private List<ClusterMember> workers = List.of();
  private long forwardTimeoutMs;
  private String model;
  private int turn;

  /** A question handed to a worker, by run id. */
  private record InFlight(Message<JsonObject> msg, JsonObject request, ClusterMember worker, long startedAt) {}

  public AskDispatcher(Cluster cluster) {
    this.cluster = cluster;
  }

  @Override
  public Future<?> start() {
    // Longer than the adapters' own wait, so a slow answer times out there, with their message.
    forwardTimeoutMs = config().getLong("questionTimeoutMs", 180_000L) + 20_000L;
    model = config().getString("llmModel", "unknown");
    workers = liveWorkers();
    cluster.onMembershipChange(context, this::membersChanged);
    return Future.all(
        vertx.eventBus().<JsonObject>localConsumer(Addresses.ASK, this::ask).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.CANCEL, this::cancel).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.RUNS, this::listRuns).completion());
  }

  private void ask(Message<JsonObject> msg) {
    JsonObject request = msg.body() == null ? new JsonObject() : msg.body().copy();
    String problem = AgentVerticle.invalid(request);
    if (problem != null) {
      msg.fail(400, problem);
      return;
    }
    if (request.getString("run_id") == null) request.put("run_id", UUID.randomUUID().toString());
    if (inFlight.containsKey(request.getString("run_id"))) {
      msg.fail(400, "run_id " + request.getString("run_id") + " is already in use");
      return;
    }
    forward(msg, request, new HashSet<>());
  }

  private void forward(Message<JsonObject> msg, JsonObject request, Set<String> tried) {
    ClusterMember worker = pick(tried);
    if (worker == null) {
      msg.fail(AgentVerticle.BUSY, workers.isEmpty() ? "no worker node is in the cluster; try again in a few seconds"
          : "no worker node is ready yet; try again in a few seconds");
      return;
    }
    String runId = request.getString("run_id");
    InFlight f = new InFlight(msg, request, worker, System.currentTimeMillis());
    inFlight.put(runId, f);
    vertx.eventBus().<JsonObject>request(Addresses.askOn(worker.id()), request, new DeliveryOptions().setSendTimeout(forwardTimeoutMs))
        .onSuccess(reply -> {
          if (inFlight.remove(runId, f)) deliver(msg, reply.body().put("worker", worker.name()));
        })
        .onFailure(err -> {
          if (!inFlight.remove(runId, f)) return;  // already ended (its worker left)
          if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
            // The worker is not (or no longer) taking questions: nothing ran, so another may take it.
            tried.add(worker.id());
            forward(msg, request, tried);
          } else if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
            msg.fail(re.failureCode(), re.getMessage());
          } else {
            msg.fail(504, "no answer in time");
          }
        });
  }

  /** The live worker with the fewest of this edge's questions, taking turns among equals; null when none. */
  private ClusterMember pick(Set<String> tried) {
    ClusterMember best = null;
    int bestLoad = Integer.MAX_VALUE;
    int n = workers.size();
    for (int i = 0; i < n; i++) {
      ClusterMember w = workers.get((turn + i) % n);
      if (tried.contains(w.id())) continue;
      int load = 0;
      for (InFlight f : inFlight.values()) if (f.worker().id().equals(w.id())) load++;
      if (load < bestLoad) {
        best = w;
        bestLoad = load;
      }
    }
    turn++;
    return best;
  }

  private void membersChanged() {
    workers = liveWorkers();
    Set<String> live = new HashSet<>();
    workers.forEach(w -> live.add(w.id()));
    for (Map.Entry<String, InFlight> e : List.copyOf(inFlight.entrySet())) {
      if (!live.contains(e.getValue().worker().id())) workerLost(e.getKey(), e.getValue());
    }
  }

  private void workerLost(String runId, InFlight f) {
    inFlight.remove(runId);
    JsonObject answer = WorkerLost.answer(f.request(), f.worker().name(), System.currentTimeMillis() - f.startedAt(), model);
    LOG.warn("run {} given up: its worker {} left the cluster", runId, f.worker().name());
    vertx.eventBus().publish(Addresses.ANSWERS, answer);
    deliver(f.msg(), answer);
  }

  // --- one log row per answered question ---------------------------------------------------------

  /** An answer on its way to its client: replied once, when its log row is committed or has waited long enough. */
  private static final class Delivery {
    final Message<JsonObject> msg;
    final JsonObject request;
    final long since = System.currentTimeMillis();
    boolean replied;

    Delivery(Message<JsonObject> msg, JsonObject answer) {
      this.msg = msg;
      this.request = new JsonObject().put("answer", answer).put("answered_at", since);
    }

    void reply() {
      if (replied) return;
      replied = true;
      msg.reply(request.getJsonObject("answer"));
    }

    String runId() {
      return request.getJsonObject("answer").getString("run_id");
    }
  }

  /** Replies the answer once its log row is committed (or, at the latest, after {@link #KEEP_WAIT_MS}). */
  private void deliver(Message<JsonObject> msg, JsonObject answer) {
    if (!QueryLogVerticle.logged(answer)) {
      msg.reply(answer);
      return;
    }
    keep(new Delivery(msg, answer), 0);
  }

  private void keep(Delivery d, int tries) {
    vertx.eventBus().<JsonObject>request(Addresses.QUERY_LOG_KEEP, d.request, new DeliveryOptions().setSendTimeout(KEEP_REQUEST_MS))
        .onComplete(ar -> {
          if (ar.succeeded()) {
            if (tries > 0) LOG.info("run {}: its log row is kept after {} more request(s)", d.runId(), tries);
            d.reply();
            return;
          }
          if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE
              && re.failureCode() == 422) {
            // The writer counted and logged the drop: asking again cannot help.
            d.reply();
            return;
          }
          long waited = System.currentTimeMillis() - d.since;
          if (waited >= KEEP_GIVE_UP_MS) {
            LOG.error("query log: DROPPED the row of run {}: no log writer confirmed it in {} s (last: {})", d.runId(),
                waited / 1000, ar.cause().getMessage());
            d.reply();
            return;
          }
          if (waited >= KEEP_WAIT_MS && !d.replied) {
            LOG.warn("run {}: answering before its log row is confirmed ({}); still asking the log writer", d.runId(),
                ar.cause().getMessage());
            d.reply();
          }
          vertx.setTimer(Math.min(2_000, 100L << Math.min(tries, 5)), t -> keep(d, tries + 1));
        });
  }

  // --- cancels and the list of runs, wherever the run is -----------------------------------------

  /** {@link Addresses#CANCEL}: the run's worker if this edge sent it, otherwise every worker; the one that has it answers. */
  private void cancel(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    String runId = String.valueOf(body.getValue("run_id", ""));
    InFlight f = inFlight.get(runId);
    List<ClusterMember> asked = f != null ? List.of(f.worker()) : workers;
    if (asked.isEmpty()) {
      msg.fail(404, "no run " + runId + " (no worker node is in the cluster)");
      return;
    }
    List<Future<Message<JsonObject>>> replies = new ArrayList<>();
    for (ClusterMember w : asked) {
      replies.add(vertx.eventBus().request(Addresses.cancelOn(w.id()), body,
          new DeliveryOptions().setSendTimeout(WORKER_REQUEST_MS)));
    }
    Future.join(replies).onComplete(ar -> {
      for (Future<Message<JsonObject>> r : replies) {
        if (r.succeeded()) {
          msg.reply(r.result().body());
          return;
        }
      }
      // No worker stopped it: the most telling refusal (another user's, no longer running) over "not here".
      List<String> unreachable = new ArrayList<>();
      ReplyException best = null;
      for (int i = 0; i < replies.size(); i++) {
        Throwable err = replies.get(i).cause();
        if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
          if (best == null || rank(re.failureCode()) > rank(best.failureCode())) best = re;
        } else {
          unreachable.add(asked.get(i).name());
        }
      }
      if (best != null && best.failureCode() != 404) {
        msg.fail(best.failureCode(), best.getMessage());
      } else if (!unreachable.isEmpty()) {
        msg.fail(AgentVerticle.BUSY, "run " + runId + " was not found on the workers that answered, and "
            + String.join(", ", unreachable) + " did not answer; try again");
      } else {
        msg.fail(404, best == null ? "no run " + runId : best.getMessage());
      }
    });
  }

  private static int rank(int code) {
    return code == AgentVerticle.FORBIDDEN ? 3 : code == AgentVerticle.CONFLICT ? 2 : code == 404 ? 0 : 1;
  }

  /** {@link Addresses#RUNS}: every worker's recent runs the caller may see, newest first, each naming its worker. */
  private void listRuns(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    List<ClusterMember> asked = workers;
    List<Future<Message<JsonObject>>> replies = new ArrayList<>();
    for (ClusterMember w : asked) {
      replies.add(vertx.eventBus().request(Addresses.runsOn(w.id()), body,
          new DeliveryOptions().setSendTimeout(WORKER_REQUEST_MS)));
    }
    Future.join(replies).onComplete(ar -> {
      List<JsonObject> runs = new ArrayList<>();
      JsonArray unreachable = new JsonArray();
      for (int i = 0; i < replies.size(); i++) {
        Future<Message<JsonObject>> r = replies.get(i);
        if (r.failed()) {
          unreachable.add(asked.get(i).name());
          continue;
        }
        for (Object o : r.result().body().getJsonArray("runs", new JsonArray())) {
          runs.add(((JsonObject) o).put("worker", asked.get(i).name()));
        }
      }
      runs.sort(Comparator.comparing((JsonObject run) -> Instant.parse(run.getString("started_at"))).reversed());
      JsonObject reply = new JsonObject().put("runs", new JsonArray(runs));
      if (!unreachable.isEmpty()) reply.put("unreachable", unreachable);
      msg.reply(reply);
    });
  }

  private List<ClusterMember> liveWorkers() {
    return cluster.members().stream().filter(m -> m.role().worker()).toList();
  }
}

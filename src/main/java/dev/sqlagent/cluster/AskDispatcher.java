package dev.sqlagent.cluster;

import dev.sqlagent.agent.AgentVerticle;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.AppConfig;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
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
 * {@code worker} key: the node that ran the question. All state lives on this verticle's event loop.
 */
public final class AskDispatcher extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(AskDispatcher.class);

  private final Cluster cluster;
  private final long forwardTimeoutMs;
  private final String model;
  private final Map<String, InFlight> inFlight = new HashMap<>();
  private List<ClusterMember> workers = List.of();
  private int turn;

  /** A question handed to a worker, by run id. */
  private record InFlight(Message<JsonObject> msg, JsonObject request, ClusterMember worker, long startedAt) {}

  public AskDispatcher(Cluster cluster, AppConfig config) {
    this.cluster = cluster;
    // Longer than the adapters' own wait, so a slow answer times out there, with their message.
    this.forwardTimeoutMs = config.deadlines().dispatchMs();
    this.model = config.llmModel();
  }

  @Override
  public Future<?> start() {
    workers = liveWorkers();
    cluster.onMembershipChange(context, this::membersChanged);
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.ASK, this::ask).completion();
  }

  private void ask(Message<JsonObject> msg) {
    JsonObject request = msg.body() == null ? new JsonObject() : msg.body().copy();
    String problem = AgentVerticle.invalid(request);
    if (problem != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), problem);
      return;
    }
    if (request.getString("run_id") == null) request.put("run_id", UUID.randomUUID().toString());
    if (inFlight.containsKey(request.getString("run_id"))) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "run_id " + request.getString("run_id") + " is already in use");
      return;
    }
    forward(msg, request, new HashSet<>());
  }

  private void forward(Message<JsonObject> msg, JsonObject request, Set<String> tried) {
    ClusterMember worker = pick(tried);
    if (worker == null) {
      msg.fail(BusFailure.BUSY.code(), workers.isEmpty() ? "no worker node is in the cluster; try again in a few seconds"
          : "no worker node is ready yet; try again in a few seconds");
      return;
    }
    String runId = request.getString("run_id");
    InFlight f = new InFlight(msg, request, worker, System.currentTimeMillis());
    inFlight.put(runId, f);
    vertx.eventBus().<JsonObject>request(Addresses.askOn(worker.id()), request, new DeliveryOptions().setSendTimeout(forwardTimeoutMs))
        .onSuccess(reply -> {
          if (inFlight.remove(runId, f)) msg.reply(reply.body().put("worker", worker.name()));
        })
        .onFailure(err -> {
          if (!inFlight.remove(runId, f)) return;  // already ended (its worker left)
          if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
            // The worker is not (or no longer) taking questions: nothing ran, so another may take it.
            tried.add(worker.id());
            forward(msg, request, tried);
          } else if (err instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
            BusError.of(re, "the worker " + worker.name()).failOn(msg);
          } else {
            msg.fail(BusFailure.TIMEOUT.code(), "the worker " + worker.name() + " did not answer in time");
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
    f.msg().reply(answer);
    vertx.eventBus().publish(Addresses.ANSWERS, answer);
  }

  private List<ClusterMember> liveWorkers() {
    return cluster.members().stream().filter(m -> m.role().worker()).toList();
  }
}

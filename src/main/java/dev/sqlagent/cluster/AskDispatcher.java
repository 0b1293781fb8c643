package dev.sqlagent.cluster;

import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.RunMessages;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusClient;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.lifecycle.Lifecycle;
import dev.sqlagent.querylog.AnswerKeeper;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
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
 * <p>The edge delivers an answer only once its log row is committed: it has the query-log writer (on whichever
 * node holds it now) confirm the row ({@link AnswerKeeper}, asking again, the next holder after a takeover,
 * until it is), as the worker that produced the answer does too. Run ids are unique in the log, so the two
 * requests write one row: one row per answered question, whether the worker, the writer or this edge dies on
 * the way. The answer waits for its row at most {@link dev.sqlagent.config.Deadlines#logKeepWaitMs}; after that
 * it goes out and the row is still asked for.
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

  private final Cluster cluster;
  private final long forwardTimeoutMs;
  private final long keepWaitMs;
  private final String model;
  private AnswerKeeper keeper;
  private BusClient workersBus;
  private final Map<String, InFlight> inFlight = new HashMap<>();
  private List<ClusterMember> workers = List.of();
  private int turn;
  /** Answers waiting for their log row before they go out ({@link #deliver}). */
  private int delivering;

  /** A question handed to a worker, by run id. */
  private record InFlight(Message<JsonObject> msg, AskRequest request, ClusterMember worker, long startedAt) {}

  public AskDispatcher(Cluster cluster, AppConfig config) {
    this.cluster = cluster;
    // Longer than the adapters' own wait, so a slow answer times out there, with their message.
    this.forwardTimeoutMs = config.deadlines().dispatchMs();
    this.keepWaitMs = config.deadlines().logKeepWaitMs();
    this.model = config.llmModel();
  }

  @Override
  public Future<?> start() {
    keeper = new AnswerKeeper(vertx, "the edge");
    workersBus = new BusClient(vertx, "the worker", WORKER_REQUEST_MS);
    workers = liveWorkers();
    cluster.onMembershipChange(context, this::membersChanged);
    return Future.all(
        vertx.eventBus().<JsonObject>localConsumer(Addresses.DRAIN_EDGE, this::drain).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.ASK, this::ask).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.CANCEL, this::cancel).completion(),
        vertx.eventBus().<JsonObject>localConsumer(Addresses.RUNS, this::listRuns).completion());
  }

  private void ask(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    AskRules.Refusal refused = Intake.check(body);
    if (refused != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), refused.message());
      return;
    }
    if (Lifecycle.isStopping(vertx)) {
      msg.fail(BusFailure.STOPPING.code(), Lifecycle.refusal());
      return;
    }
    AskRequest asked = AskRequest.fromJson(body);
    AskRequest request = asked.runId() != null ? asked : asked.withRunId(UUID.randomUUID().toString());
    if (inFlight.containsKey(request.runId())) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "run_id " + request.runId() + " is already in use");
      return;
    }
    forward(msg, request, new HashSet<>());
  }

  private void forward(Message<JsonObject> msg, AskRequest request, Set<String> tried) {
    ClusterMember worker = pick(tried);
    if (worker == null) {
      msg.fail(BusFailure.BUSY.code(), workers.isEmpty() ? "no worker node is in the cluster; try again in a few seconds"
          : "no worker node is ready yet; try again in a few seconds");
      return;
    }
    String runId = request.runId();
    InFlight f = new InFlight(msg, request, worker, System.currentTimeMillis());
    inFlight.put(runId, f);
    vertx.eventBus().<JsonObject>request(Addresses.askOn(worker.id()), request.toJson(),
            new DeliveryOptions().setSendTimeout(forwardTimeoutMs))
        .onSuccess(reply -> {
          if (inFlight.remove(runId, f)) deliver(msg, Answer.fromJson(reply.body()).onWorker(worker.name()));
        })
        .onFailure(err -> {
          if (!inFlight.remove(runId, f)) return;  // already ended (its worker left)
          if (err instanceof ReplyException re && (re.failureType() == ReplyFailure.NO_HANDLERS
              || re.failureType() == ReplyFailure.RECIPIENT_FAILURE && re.failureCode() == BusFailure.STOPPING.code())) {
            // The worker is not (or no longer) taking questions, or is stopping: nothing ran, so another may take it.
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
    Answer answer = WorkerLost.answer(f.request(), f.worker().name(), System.currentTimeMillis() - f.startedAt(), model);
    LOG.warn("run {} given up: its worker {} left the cluster", runId, f.worker().name());
    vertx.eventBus().publish(Addresses.ANSWERS, answer.toJson());
    deliver(f.msg(), answer);
  }

  // --- one log row per answered question ---------------------------------------------------------

  /** Replies the answer once its log row is committed, or once it has waited {@link #keepWaitMs} for it. */
  private void deliver(Message<JsonObject> msg, Answer typed) {
    JsonObject answer = typed.toJson();
    boolean[] replied = new boolean[1];
    delivering++;
    long timer = vertx.setTimer(keepWaitMs, t -> {
      if (replied[0]) return;
      replied[0] = true;
      delivering--;
      LOG.warn("run {}: answering before its log row is confirmed (waited {} ms); still asking the log writer",
          typed.runId(), keepWaitMs);
      msg.reply(answer);
    });
    // Kept, refused by the writer (it logged the drop) or given up (logged by the keeper): the answer goes out.
    keeper.keep(answer).onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (replied[0]) return;
      replied[0] = true;
      delivering--;
      msg.reply(answer);
    });
  }

  // --- cancels and the list of runs, wherever the run is -----------------------------------------

  /** {@link Addresses#CANCEL}: the run's worker if this edge sent it, otherwise every worker; the one that has it answers. */
  private void cancel(Message<JsonObject> msg) {
    RunRequest request = RunRequest.read(msg);
    if (request == null) return;
    String runId = AskRules.runIdOf(msg, request.runId());
    if (runId == null) return;
    InFlight f = inFlight.get(runId);
    List<ClusterMember> asked = f != null ? List.of(f.worker()) : workers;
    if (asked.isEmpty()) {
      msg.fail(BusFailure.NOT_FOUND.code(), "no run " + runId + " (no worker node is in the cluster)");
      return;
    }
    List<Future<JsonObject>> replies = new ArrayList<>();
    for (ClusterMember w : asked) replies.add(workersBus.request(Addresses.cancelOn(w.id()), request.toJson()));
    Future.join(replies).onComplete(ar -> {
      for (Future<JsonObject> r : replies) {
        if (r.succeeded()) {
          msg.reply(r.result());
          return;
        }
      }
      // No worker stopped it: the most telling refusal (another user's, no longer running) over "not here".
      List<String> unreachable = new ArrayList<>();
      BusError best = null;
      for (int i = 0; i < replies.size(); i++) {
        BusError err = BusError.of(replies.get(i).cause(), "the worker " + asked.get(i).name());
        if (err.failure() == BusFailure.TIMEOUT || err.failure() == BusFailure.UNAVAILABLE) {
          unreachable.add(asked.get(i).name());
        } else if (best == null || rank(err.failure()) > rank(best.failure())) {
          best = err;
        }
      }
      if (best != null && best.failure() != BusFailure.NOT_FOUND) {
        best.failOn(msg);
      } else if (!unreachable.isEmpty()) {
        msg.fail(BusFailure.BUSY.code(), "run " + runId + " was not found on the workers that answered, and "
            + String.join(", ", unreachable) + " did not answer; try again");
      } else {
        msg.fail(BusFailure.NOT_FOUND.code(), best == null ? "no run " + runId : best.getMessage());
      }
    });
  }

  // --- stopping: the questions handed to workers get their answers -------------------------------

  /**
   * {@link Addresses#DRAIN_EDGE}: this node is stopping. New questions are refused already ({@link Lifecycle}); the
   * questions this edge handed to workers may finish until the deadline, when their workers are asked to cancel
   * those still running (each then answers as cancelled, and the answer goes to its client). Replied once every
   * one has its answer out, or when the answers the cancels bring have had {@code AFTER_DEADLINE_MS} to come.
   */
  private void drain(Message<JsonObject> msg) {
    long deadline = OpsMessages.Drain.fromJson(msg.body()).deadlineMs();
    int atStart = inFlight.size() + delivering;
    int[] cancelled = new int[1];
    boolean[] cancelsSent = new boolean[1];
    vertx.setPeriodic(1, 100, id -> {
      if (inFlight.isEmpty() && delivering == 0) {
        vertx.cancelTimer(id);
        msg.reply(new OpsMessages.Drained(atStart - cancelled[0], cancelled[0]).toJson());
      } else if (!cancelsSent[0] && System.currentTimeMillis() >= deadline) {
        cancelsSent[0] = true;
        for (Map.Entry<String, InFlight> e : inFlight.entrySet()) {
          cancelled[0]++;
          InFlight f = e.getValue();
          workersBus.request(Addresses.cancelOn(f.worker().id()),
                  RunRequest.cancel(e.getKey(), f.request().user(), STOPPED_BY).toJson())
              .onFailure(err -> LOG.warn("run {}: its worker {} did not take the cancel: {}", e.getKey(), f.worker().name(),
                  err.getMessage()));
        }
      }
    });
  }

  /** Who a question cancelled at the drain's deadline was stopped by. */
  static final String STOPPED_BY = "the edge stopping (its drain time ran out)";

  /** Which refusal of a cancel tells the caller most: another user's run, then a run that ended, then the rest. */
  private static int rank(BusFailure f) {
    return switch (f) {
      case FORBIDDEN -> 3;
      case CONFLICT -> 2;
      case NOT_FOUND -> 0;
      default -> 1;
    };
  }

  /** {@link Addresses#RUNS}: every worker's recent runs the caller may see, newest first, each naming its worker. */
  private void listRuns(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    List<ClusterMember> asked = workers;
    List<Future<JsonObject>> replies = new ArrayList<>();
    for (ClusterMember w : asked) replies.add(workersBus.request(Addresses.runsOn(w.id()), body));
    Future.join(replies).onComplete(ar -> {
      List<RunMessages.Run> runs = new ArrayList<>();
      List<String> unreachable = new ArrayList<>();
      for (int i = 0; i < replies.size(); i++) {
        Future<JsonObject> r = replies.get(i);
        if (r.failed()) {
          unreachable.add(asked.get(i).name());
          continue;
        }
        String worker = asked.get(i).name();
        for (RunMessages.Run run : RunMessages.Runs.fromJson(r.result()).runs()) runs.add(run.onWorker(worker));
      }
      runs.sort(Comparator.comparing((RunMessages.Run run) -> Instant.parse(run.startedAt())).reversed());
      msg.reply(new RunMessages.Runs(runs, unreachable).toJson());
    });
  }

  private List<ClusterMember> liveWorkers() {
    return cluster.members().stream().filter(m -> m.role().worker()).toList();
  }
}

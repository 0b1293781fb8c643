package dev.sqlagent.live;

import dev.sqlagent.access.TokenExpiry;
import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.RunMessages;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.contract.RerunRequest;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.Node;
import dev.sqlagent.contract.StepData;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.users.User;
import dev.sqlagent.intake.Door;
import dev.sqlagent.intake.Intake;
import dev.sqlagent.intake.Owner;
import dev.sqlagent.intake.Taken;
import java.util.function.Supplier;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client of {@code /ws}. Client → server: {@code ask}, {@code watch}, {@code unwatch}, {@code replay}.
 * Server → client: {@code accepted}, {@code event}, {@code answer}, {@code watching}, {@code replay_end},
 * {@code cancelling}, {@code error} ({@code {type, error_type, message, run_id?}}, the same error_type and message
 * as the HTTP edge's for the same refusal or failure). A question goes through the {@link Intake}; the socket only
 * ever holds bus consumers for what it asked or watches, and gives them all back when it closes, when the runs it
 * asked and that have not answered are stopped (a watcher leaving stops nothing).
 */
final class LiveSocket {

  private static final Logger LOG = LoggerFactory.getLogger(LiveSocket.class);

  /** Close code for a client that does not read fast enough (RFC 6455 1013: try again later). */
  static final short SLOW_CLIENT = 1013;
  /** Close code for a client that reached for another user's run (403, in WebSocket's private range). */
  static final short FORBIDDEN = 4403;
  static final int MAX_MESSAGE_CHARS = 16 * 1024;
  static final int MAX_RUNS_IN_FLIGHT = 3;
  /** Bytes a client may have unread before it counts as slow: room for a few full answers, then a drop. */
  static final int WRITE_QUEUE_BYTES = 1024 * 1024;
  /** A ping goes out after this many bytes (and every {@link #PING_EVERY_MS}); its pong proves what was read. */
  static final int PING_AFTER_BYTES = 64 * 1024;
  static final long PING_EVERY_MS = 20_000;
  /** Sockets open in this process. */
  static final AtomicInteger OPEN = new AtomicInteger();
  static final String AGENT = AgentClient.AGENT;

  private final Vertx vertx;
  private final ServerWebSocket ws;
  private final WatchHub hub;
  private final boolean mayWatch;
  private final AgentClient agent;
  private final Intake intake;
  /** This socket as the intake knows it: the runs it asked, stopped when it closes. */
  private final Owner owner;
  /** Who this socket authenticated as (null without a users file). */
  private final User user;
  /** The client's address as the access guard saw it when the socket opened (for the query log). */
  private final String client;
  private final Map<String, RunStream> runs = new HashMap<>();
  private boolean watching;
  private boolean closed;
  /** How long an answered run's address is followed for its explain_sql event. */
  static final long EXPLANATION_WAIT_MS = 10_000;
  private static final String EXPLAIN_SQL = Node.EXPLAIN_SQL.wireName();
  /** Bytes written to this client, and the most of them it is known to have read (its pongs say so). */
  private long sent;
  private long read;
  private long pingedAt;
  private long keepAlive = -1;
  private long expiry = -1;

  LiveSocket(Vertx vertx, ServerWebSocket ws, WatchHub hub, boolean mayWatch, long askTimeoutMs, User user, String client) {
    this.user = user;
    this.client = client;
    this.vertx = vertx;
    this.ws = ws;
    this.hub = hub;
    this.mayWatch = mayWatch;
    this.agent = new AgentClient(vertx, askTimeoutMs);
    this.intake = new Intake(agent);
    this.owner = intake.owner(user);
  }

  /** Serves the socket opened by {@code opened}: with a sign-on token, until the token expires. */
  void start(RoutingContext opened) {
    OPEN.incrementAndGet();
    expiry = TokenExpiry.closeAt(vertx, opened, () -> {
      if (!ws.isClosed()) ws.close(TokenExpiry.CLOSE_CODE, TokenExpiry.REASON);
    });
    clients(1);
    ws.setWriteQueueMaxSize(WRITE_QUEUE_BYTES);
    ws.pongHandler(this::onPong);
    keepAlive = vertx.setPeriodic(PING_EVERY_MS, t -> ping());
    ws.textMessageHandler(this::onText);
    ws.binaryMessageHandler(b -> error(null, "binary frames are not understood; send JSON text frames"));
    ws.closeHandler(v -> release());
    ws.exceptionHandler(err -> {
      LOG.debug("websocket error: {}", err.toString());
      release();
      if (ws.isClosed()) return;
      // A frame past the server's size limit (or otherwise unreadable) closes with the code that says so: 1009, 1002.
      if (err instanceof CorruptedWebSocketFrameException bad) {
        ws.close((short) bad.closeStatus().code(), bad.closeStatus().reasonText());
      } else {
        ws.close();
      }
    });
  }

  // --- client → server ------------------------------------------------------------------------------

  private void onText(String text) {
    if (text.length() > MAX_MESSAGE_CHARS) {
      error(null, "message too long (" + text.length() + " characters; the limit is " + MAX_MESSAGE_CHARS + ")");
      return;
    }
    JsonObject msg;
    try {
      msg = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      error(null, "messages must be JSON objects, e.g. {\"type\":\"ask\",\"question\":\"How many customers are there?\"}");
      return;
    }
    Object type = msg.getValue("type");
    if ("ask".equals(type)) {
      ask(msg);
    } else if ("watch".equals(type)) {
      watch();
    } else if ("unwatch".equals(type)) {
      unwatch();
    } else if ("replay".equals(type)) {
      replay(msg);
    } else if ("cancel".equals(type)) {
      cancel(msg);
    } else if ("rerun".equals(type) || "choose".equals(type)) {
      rerun(msg, "choose".equals(type));
    } else {
      error(null, "unknown message type " + (type == null ? "(none)" : "'" + type + "'")
          + "; expected ask, watch, unwatch, replay, cancel, rerun or choose");
    }
  }

  private void ask(JsonObject msg) {
    JsonObject fields = msg.copy();
    fields.remove("run_id");  // a socket's runs are named by the server
    Taken taken = intake.take(fields, new Door("ws", user, client), owner);
    if (taken.refused()) {
      error(null, taken.refusal().toJson());
      return;
    }
    start(taken.runId(), new JsonObject().put("question", msg.getString("question")).put("mode", msg.getValue("mode", "agent")),
        () -> intake.ask(taken));
  }

  /**
   * {"type":"rerun","run_id","sql"} (an answer's SQL, edited) or {"type":"choose","run_id","reading"} (one of the
   * readings an answer asked back with): a new run, accepted, streamed and answered like a question.
   */
  private void rerun(JsonObject msg, boolean choose) {
    AskRules.Refusal refused = AskRules.runId(msg.getValue("run_id"));
    if (refused == null) refused = choose ? AskRules.reading(msg.getValue("reading")) : AskRules.editedSql(msg.getValue("sql"));
    if (refused != null) {
      error(null, refused.toJson());
      return;
    }
    String from = msg.getString("run_id");
    JsonObject accepted = new JsonObject().put("mode", "agent").put(choose ? "chosen_from" : "edited_from", from);
    if (choose) accepted.put("reading", msg.getValue("reading"));
    Runnable go = () -> {
      String runId = owner.nameRun();
      start(runId, accepted, () -> agent.rerun((choose ? RerunRequest.chosen(from, msg.getValue("reading"), runId, "ws", user)
          : RerunRequest.edited(from, msg.getValue("sql"), runId, "ws", user)).withClient(client)));
    };
    if (user == null || user.admin()) {
      go.run();
      return;
    }
    // Another user's run closes the socket (4403) before anything is accepted: the agent knows the recent runs (one
    // still running too), the conversation store the older ones. Whatever else is wrong with it, the rerun reports.
    agent.events(RunRequest.events(from, Long.MAX_VALUE, user)).<Object>map(e -> e)
        .recover(err -> forbidden(err, AGENT) ? Future.failedFuture(err)
            : new StateClient(vertx, DeliveryOptions.DEFAULT_TIMEOUT).turn(new StateMessages.RunTurnRequest(from, user)).map(t -> t))
        .onComplete(ar -> {
          if (closed) return;
          if (ar.failed() && forbidden(ar.cause(), StateClient.CONVERSATIONS)) {
            refused(from, ar.cause());
          } else {
            go.run();
          }
        });
  }

  private static boolean forbidden(Throwable err, String from) {
    return BusError.of(err, from).failure() == BusFailure.FORBIDDEN;
  }

  /**
   * A new run of this connection, named and held by its owner: accepted (with {@code accepted}'s keys) once its events
   * are subscribed, then {@code call}.
   */
  private void start(String runId, JsonObject accepted, Supplier<Future<Answer>> call) {
    if (runs.size() >= MAX_RUNS_IN_FLIGHT) {
      owner.release(runId);
      error(null, new JsonObject().put("error_type", "too_many_requests")
          .put("message", "this connection already has " + runs.size() + " runs in progress; wait for an answer first"));
      return;
    }
    // Subscribed to the run's address BEFORE the agent publishes anything.
    RunStream run = new RunStream(runId);
    runs.put(runId, run);
    run.consumer = vertx.eventBus().consumer(Addresses.events(runId), m -> run.offer(GraphEvent.fromJson(m.body())));
    run.consumer.completion()
        .onSuccess(v -> {
          if (closed) return;
          sendFrame(new JsonObject().put("type", "accepted").put("run_id", runId).mergeIn(accepted).encode());
          call.get()
              .onSuccess(run::finish)
              .onFailure(err -> run.fail(err));
        })
        .onFailure(err -> run.fail(err));
  }

  private void watch() {
    if (!mayWatch) {
      error(null, new JsonObject().put("error_type", "forbidden")
          .put("message", "watching every run is only allowed from this machine unless an API token is configured"));
      return;
    }
    Future<Void> subscribed = Future.succeededFuture();
    if (!watching) {
      watching = true;
      subscribed = hub.add(this);
    }
    // Once subscribed: from "watching" on, no run's event is missed.
    subscribed.onComplete(ar -> sendFrame(new JsonObject().put("type", "watching").put("watching", true).encode()));
  }

  private void unwatch() {
    if (watching) {
      watching = false;
      hub.remove(this);
    }
    sendFrame(new JsonObject().put("type", "watching").put("watching", false).encode());
  }

  private void replay(JsonObject msg) {
    AskRules.Refusal badId = AskRules.runId(msg.getValue("run_id"));
    if (badId != null) {
      error(null, badId.toJson());
      return;
    }
    String id = msg.getString("run_id");
    Object after = msg.getValue("after_seq", 0);
    if (!(after instanceof Number n) || n.longValue() < 0 || n.doubleValue() != n.longValue()) {
      error(id, "after_seq must be a whole number, 0 or more");
      return;
    }
    fetch(id, n.longValue()).onSuccess(events -> {
      for (GraphEvent e : events) sendFrame(eventFrame(e));
      sendFrame(new JsonObject().put("type", "replay_end").put("run_id", id).put("after_seq", n.longValue())
          .put("count", events.size()).encode());
    }).onFailure(err -> refused(id, err));
  }

  /** {"type":"cancel","run_id"}: stops a run of this user's (an admin's: anyone's); the run's own events say when it ended. */
  private void cancel(JsonObject msg) {
    AskRules.Refusal badId = AskRules.runId(msg.getValue("run_id"));
    if (badId != null) {
      error(null, badId.toJson());
      return;
    }
    String id = msg.getString("run_id");
    agent.cancel(RunRequest.cancel(id, user, user == null ? "a client" : user.displayName()))
        .onSuccess(r -> sendFrame(new JsonObject().put("type", "cancelling").put("run_id", id).encode()))
        .onFailure(err -> refused(id, err));
  }

  /** A request the agent refused: another user's run closes the socket (4403); anything else is an error frame. */
  private void refused(String runId, Throwable err) {
    BusError e = BusError.of(err, AGENT);
    error(runId, e.toJson());
    if (e.failure() == BusFailure.FORBIDDEN && !ws.isClosed()) {
      release();
      ws.close(FORBIDDEN, "forbidden: another user's run");
    }
  }

  // --- server → client ------------------------------------------------------------------------------

  static String eventFrame(GraphEvent event) {
    return new JsonObject().put("type", "event").mergeIn(event.toJson()).encode();
  }

  static String answerFrame(Answer answer) {
    return new JsonObject().put("type", "answer").mergeIn(answer.toJson()).encode();
  }

  /** A mistake in the client's message itself. */
  private void error(String runId, String message) {
    error(runId, new JsonObject().put("error_type", "bad_request").put("message", message));
  }

  /** An error frame: the same error_type, message and details (a budget's limit, say) the HTTP edge would send. */
  private void error(String runId, JsonObject problem) {
    if (closed) return;
    JsonObject e = new JsonObject().put("type", "error").put("error_type", problem.getString("error_type"))
        .put("message", problem.getString("message"));
    problem.forEach(kv -> {
      if (!kv.getKey().equals("ok") && !e.containsKey(kv.getKey())) e.put(kv.getKey(), kv.getValue());
    });
    if (runId != null) e.put("run_id", runId);
    sendFrame(e.encode());
  }

  /**
   * Writes one frame, or drops the client when its write queue is full: a slow reader is closed with 1013
   * rather than buffered without bound (it can reconnect and replay what it missed).
   */
  void sendFrame(String frame) {
    if (closed) return;
    if (ws.isClosed()) {
      // Closed under us; the close handler may not have run yet.
      release();
      return;
    }
    // The write queue only fills once the kernel's buffers are full (megabytes on loopback), so what the
    // client has not read is counted from its pongs: a pong answers a ping sent after everything before it.
    if (ws.writeQueueFull() || sent - read > WRITE_QUEUE_BYTES) {
      LOG.info("closing a websocket client that reads too slowly ({} bytes unread)", sent - read);
      release();
      ws.close(SLOW_CLIENT, "too slow: events were not read in time; reconnect and replay");
      return;
    }
    ws.writeTextMessage(frame);
    sent += frame.length();
    if (sent - pingedAt >= PING_AFTER_BYTES) ping();
  }

  private void ping() {
    if (closed || ws.isClosed()) return;
    pingedAt = sent;
    ws.writePing(io.vertx.core.buffer.Buffer.buffer().appendLong(sent));
  }

  private void onPong(io.vertx.core.buffer.Buffer payload) {
    if (payload.length() == Long.BYTES) read = Math.max(read, Math.min(sent, payload.getLong(0)));
  }

  /** Gives back every consumer this socket holds. Runs carry on in the agent. */
  private void release() {
    if (closed) return;
    closed = true;
    if (keepAlive >= 0) vertx.cancelTimer(keepAlive);
    if (expiry >= 0) vertx.cancelTimer(expiry);
    OPEN.decrementAndGet();
    clients(-1);
    if (watching) hub.remove(this);
    watching = false;
    // The runs this socket asked and not yet answered are not wanted any more: they are stopped.
    owner.gone();
    for (RunStream r : List.copyOf(runs.values())) r.close();
    runs.clear();
  }

  /** Feeds the metrics' live-client gauge. */
  private void clients(int delta) {
    vertx.eventBus().publish(Addresses.LIVE_CLIENTS, new OpsMessages.LiveClients(OpsMessages.LiveClients.WS, delta).toJson());
  }

  /** Whether a watched frame of a run owned by {@code owner} is for this socket: all runs for an admin, else its own. */
  boolean watches(String owner) {
    return User.mayReach(user, owner);
  }

  private Future<List<GraphEvent>> fetch(String runId, long afterSeq) {
    // Kept events are read from memory (or, clustered, the state store): the bus's default wait is plenty.
    return agent.events(RunRequest.events(runId, afterSeq, user)).map(RunMessages.Events::events);
  }

  /**
   * One asked run: its events go out in seq order, each once. A gap (impossible on one JVM's bus, possible
   * clustered) is filled from the agent's record before the answer is sent.
   */
  private final class RunStream {
    final String runId;
    MessageConsumer<JsonObject> consumer;
    long lastSent;
    final TreeMap<Long, GraphEvent> pending = new TreeMap<>();
    /** explain_sql's event went out: nothing of the run is left to come. */
    boolean explained;
    /** The answer frame went out. */
    boolean answerSent;
    /** explain_sql's event when it came before the answer frame went out: it follows that frame. */
    GraphEvent afterAnswer;

    RunStream(String runId) {
      this.runId = runId;
    }

    void offer(GraphEvent event) {
      long seq = event.seq();
      if (seq <= lastSent) return;
      pending.put(seq, event);
      flush();
      if (explained && !runs.containsKey(runId)) unsubscribe();
    }

    void flush() {
      while (!pending.isEmpty() && pending.firstKey() == lastSent + 1) {
        GraphEvent e = pending.pollFirstEntry().getValue();
        lastSent++;
        send(e);
      }
    }

    private void send(GraphEvent e) {
      if (EXPLAIN_SQL.equals(e.node())) {
        explained = true;
        if (!answerSent) {
          afterAnswer = e;
          return;
        }
      }
      sendFrame(eventFrame(e));
    }

    void finish(Answer answer) {
      if (closed) {
        close();
        return;
      }
      fetch(runId, lastSent)
          .onSuccess(missed -> {
            for (GraphEvent e : missed) pending.putIfAbsent(e.seq(), e);
            flush();
          })
          .onComplete(ar -> {
            // The answer frame follows the run's events up to its answer; explain_sql's event comes after that frame
            // (it is off the answer's path), so the run's address is followed until it comes, for a while at most.
            boolean tail = !explained && StepData.SqlExplained.follows(answer);
            if (tail) {
              runs.remove(runId);
              owner.release(runId);
              vertx.setTimer(EXPLANATION_WAIT_MS, t -> unsubscribe());
            } else {
              close();
            }
            // Whatever is still pending came after a hole nothing can fill: send it in order anyway.
            pending.values().forEach(this::send);
            pending.clear();
            sendFrame(answerFrame(answer));
            answerSent = true;
            if (afterAnswer != null) sendFrame(eventFrame(afterAnswer));
          });
    }

    void fail(Throwable err) {
      close();
      // A run of another user's reached for (a rerun of one still running): as everywhere on /ws, the socket closes.
      if (BusError.of(err, AGENT).failure() == BusFailure.FORBIDDEN) {
        refused(runId, err);
      } else {
        error(runId, BusError.of(err, AGENT).toJson());
      }
    }

    void close() {
      unsubscribe();
      runs.remove(runId);
      owner.release(runId);
    }

    void unsubscribe() {
      if (consumer != null && consumer.isRegistered()) consumer.unregister();
    }
  }
}

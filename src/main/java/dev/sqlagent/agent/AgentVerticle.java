package dev.sqlagent.agent;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.config.AppConfig;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graph's owner: takes questions on {@link Addresses#ASK}, runs each through {@link AgentRun}, replies
 * with the answer JSON and publishes it on {@link Addresses#ANSWERS}. Keeps the events of recent runs so a
 * client that joined late or missed some can fetch them ({@link Addresses#RUN_EVENTS}).
 */
public final class AgentVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(AgentVerticle.class);

  private static final int KEPT_RUNS = 500;
  private static final Set<String> SOURCES = Set.of("http", "ws", "eventbus", "cli", "mcp", "eval");

  private final FirstSqlMutator mutator;
  private final AppConfig config;
  private AgentSettings settings;

  /** Questions running now, and those waiting for a slot; touched only on this verticle's context. */
  private int running;
  private int maxRunning;
  private int maxWaiting;
  private long maxWaitMs;
  private final java.util.ArrayDeque<Waiting> waiting = new java.util.ArrayDeque<>();

  /** A question waiting for a slot, refused when it has waited too long. */
  private record Waiting(Message<JsonObject> msg, long timer) {}

  /** Runs' events, oldest dropped first; touched only on this verticle's context. */
  private final Map<String, JsonArray> runs = new LinkedHashMap<>(64, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, JsonArray> eldest) {
      return size() > KEPT_RUNS;
    }
  };

  /** @param mutator a fault injector: evaluation only, null otherwise */
  public AgentVerticle(AppConfig config, FirstSqlMutator mutator) {
    this.config = config;
    this.mutator = mutator;
  }

  @Override
  public Future<?> start() {
    settings = AgentSettings.from(config);
    maxRunning = config.askInFlight();
    maxWaiting = config.askQueue();
    // A question that waited longer than this would age past its deadline: it is better told to come back.
    maxWaitMs = config.deadlines().queueWaitMs();
    return Future.all(
        vertx.eventBus().consumer(Addresses.ASK, this::ask).completion(),
        vertx.eventBus().consumer(Addresses.RUN_EVENTS, this::runEvents).completion());
  }

  private void ask(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    String problem = invalid(body);
    if (problem != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), problem);
      return;
    }
    if ("eval".equals(body.getString("source"))) {
      start(msg);  // evaluation paces itself
      return;
    }
    if (running < maxRunning) {
      running++;
      start(msg);
      return;
    }
    if (waiting.size() >= maxWaiting) {
      msg.fail(BusFailure.BUSY.code(), "the service is answering " + running + " questions and " + waiting.size()
          + " are waiting; try again in a few seconds");
      return;
    }
    long[] timer = new long[1];
    Waiting w = new Waiting(msg, vertx.setTimer(maxWaitMs, t -> giveUpWaiting(timer[0])));
    timer[0] = w.timer();
    waiting.addLast(w);
  }

  private void giveUpWaiting(long timer) {
    waiting.removeIf(w -> {
      if (w.timer() != timer) return false;
      w.msg().fail(BusFailure.BUSY.code(), "the service stayed busy for " + maxWaitMs / 1000 + " s; try again in a few seconds");
      return true;
    });
  }

  /** A run ended: its slot goes to the longest-waiting question. */
  private void finished() {
    Waiting next = waiting.pollFirst();
    if (next == null) {
      running--;
      return;
    }
    vertx.cancelTimer(next.timer());
    start(next.msg());
  }

  private void start(Message<JsonObject> msg) {
    JsonObject body = msg.body();
    boolean counted = !"eval".equals(body.getString("source"));
    String question = body.getString("question").strip();
    String mode = body.getString("mode", "agent");
    String source = body.getString("source", "eventbus");
    String runId = body.getString("run_id", UUID.randomUUID().toString());
    if (runs.containsKey(runId)) {
      // A client-chosen id must not graft a second run onto another run's events.
      msg.fail(BusFailure.BAD_REQUEST.code(), "run_id " + runId + " is already in use");
      if (counted) finished();
      return;
    }
    JsonArray kept = new JsonArray();
    runs.put(runId, kept);
    RunEvents events = new RunEvents(vertx.eventBus(), runId, kept);
    boolean inject = body.getBoolean("inject_fault", false);
    String faultKey = body.getString("fault_key", question);
    new AgentRun(vertx, settings, events, runId, question, mode, source, inject ? mutator : null, faultKey).run()
        .onComplete(done -> {
          if (counted) finished();
        })
        .onSuccess(answer -> {
          msg.reply(answer);
          vertx.eventBus().publish(Addresses.ANSWERS, answer);
          LOG.info("run {} {} in {} ms after {} attempt(s){}", runId, answer.getBoolean("gave_up") ? "gave up"
              : answer.getBoolean("refused") ? "refused" : "answered", answer.getLong("latency_ms"),
              answer.getInteger("attempts"), answer.getJsonArray("history").isEmpty() ? "" : ", errors "
              + answer.getJsonArray("history").stream().map(h -> ((JsonObject) h).getString("error_type")).toList());
        })
        .onFailure(err -> {
          LOG.error("run {} failed unexpectedly", runId, err);
          msg.fail(BusFailure.FAILED.code(), "the agent failed unexpectedly; run " + runId);
        });
  }

  /** The request's problem in words, or null when it is fine. */
  static String invalid(JsonObject body) {
    AskRules.Refusal refused = AskRules.ask(body);
    if (refused == null && body.getValue("run_id") != null) refused = AskRules.runId(body.getValue("run_id"));
    if (refused != null) return refused.message();
    Object source = body.getValue("source");
    if (source != null && !SOURCES.contains(source)) return "source must be one of " + SOURCES;
    if (body.getValue("inject_fault") != null && !(body.getValue("inject_fault") instanceof Boolean)) {
      return "inject_fault must be true or false";
    }
    if (body.getValue("fault_key") != null && !(body.getValue("fault_key") instanceof String)) return "fault_key must be a string";
    return null;
  }

  private void runEvents(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    AskRules.Refusal badId = AskRules.runId(body.getValue("run_id"));
    if (badId != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), badId.message());
      return;
    }
    JsonArray events = runs.get(body.getString("run_id"));
    if (events == null) {
      msg.fail(BusFailure.NOT_FOUND.code(), "no run " + body.getString("run_id") + " (only the last " + KEPT_RUNS + " runs are kept)");
      return;
    }
    if (!(body.getValue("after_seq", 0L) instanceof Number)) {
      msg.fail(BusFailure.BAD_REQUEST.code(), "after_seq must be a whole number");
      return;
    }
    long after = body.getLong("after_seq", 0L);
    JsonArray out = new JsonArray();
    for (Object e : events) {
      if (((JsonObject) e).getLong("seq") > after) out.add(e);
    }
    msg.reply(new JsonObject().put("run_id", body.getString("run_id")).put("events", out));
  }
}

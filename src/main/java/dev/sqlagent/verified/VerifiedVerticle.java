package dev.sqlagent.verified;

import dev.sqlagent.db.OneAfterAnother;
import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.VerifiedMessages;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.StateClient;
import dev.sqlagent.contract.StateMessages.Rechecked;
import dev.sqlagent.contract.StateMessages.Removed;
import dev.sqlagent.contract.StateMessages.RunTurnRequest;
import dev.sqlagent.contract.StateMessages.VerifiedAdd;
import dev.sqlagent.contract.StateMessages.VerifiedList;
import dev.sqlagent.contract.StateMessages.VerifiedPromote;
import dev.sqlagent.contract.StateMessages.VerifiedRemove;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.db.Target;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The library of verified queries of one target, kept in the state store and in memory: lookup by question
 * similarity, add (only what the gate passes: static check and EXPLAIN), promotion of a run rated 👍, list,
 * remove, and re-checks. Every verified query goes through the gate again at start, on a schema refresh and
 * when health sees drift; one that fails is retired (never used) with the gate's reason, and restored when a
 * later re-check passes.
 */
public final class VerifiedVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(VerifiedVerticle.class);

  /**
   * Worked examples offered to the model: the closest few at or above this similarity, which one pair of different
   * questions in ten reaches (VerifiedBenchmark: p90 0.548 over the demo's evaluation set).
   */
  public static final int EXAMPLES = 3;
  public static final double EXAMPLE_MIN_SCORE = 0.55;
  public static final int MAX_SQL_CHARS = 20_000;
  private static final long GATE_MS = 30_000;
  private static final long BUS_MS = 10_000;

  private final Target target;
  private final StateDatabase state;
  /**
   * Similarity at or above which a verified query answers without the model (SQLAGENT_VERIFIED_THRESHOLD; why its
   * default is 0.94 is said where the setting is declared, {@code AppConfig}).
   */
  private final double threshold;
  private VerifiedRepository store;
  /** By id; touched only on this verticle's context. */
  private final Map<Long, VerifiedQuery> library = new LinkedHashMap<>();
  private Future<Rechecked> rechecking;
  private String lastDrift;
  /** The store's state the library was loaded at (see {@link #refreshed}). */
  private String loadedVersion;

  public VerifiedVerticle(Target target, StateDatabase state, double threshold) {
    this.target = target;
    this.state = state;
    this.threshold = threshold;
  }

  @Override
  public Future<?> start() {
    store = new VerifiedRepository(state.owner(), target.key());
    var bus = vertx.eventBus();
    return refreshed()
        .compose(loaded -> {
          return Future.all(List.of(
              bus.<JsonObject>consumer(Addresses.VERIFIED_LOOKUP, this::onLookup).completion(),
              bus.<JsonObject>consumer(Addresses.VERIFIED_ADD, this::onAdd).completion(),
              bus.<JsonObject>consumer(Addresses.VERIFIED_PROMOTE, this::onPromote).completion(),
              bus.<JsonObject>consumer(Addresses.VERIFIED_LIST, m -> refreshed().map(v -> list().toJson()).onComplete(ar -> reply(m, ar))).completion(),
              bus.<JsonObject>consumer(Addresses.VERIFIED_REMOVE, this::onRemove).completion(),
              bus.<JsonObject>consumer(Addresses.VERIFIED_RECHECK, m -> recheck("requested").map(Rechecked::toJson).onComplete(ar -> reply(m, ar))).completion(),
              bus.<JsonObject>consumer(Addresses.VERIFIED_RETIRE, this::onRetire).completion(),
              bus.<JsonObject>consumer(Addresses.SCHEMA_DRIFTED, this::onDrift).completion()));
        })
        // The schema may have changed while the service was down: check what is stored, in the background.
        .onSuccess(v -> {
          if (!library.isEmpty()) recheck("start");
        });
  }

  @Override
  public Future<?> stop() {
    return Future.succeededFuture();  // the state store's pool is borrowed: the service closes it
  }

  /** A change made here: kept at once, and the next {@link #refreshed} reloads (the store's stamp moved too). */
  private void put(VerifiedQuery q) {
    library.put(q.id(), q);
    loadedVersion = null;
  }

  /**
   * The library as the store holds it now. Another process (the CLI, a second instance) may have changed it:
   * every write stamps checked_at, so the count and the newest stamp tell, in one cheap query, whether to reload.
   */
  private Future<Void> refreshed() {
    return store.version()
        .compose(version -> {
          if (version.equals(loadedVersion)) return Future.succeededFuture();
          return store.all()
              .map(all -> {
                library.clear();
                for (VerifiedQuery q : all) library.put(q.id(), q);
                loadedVersion = version;
                return null;
              });
        });
  }

  // --- lookup ------------------------------------------------------------------------------------------

  private void onLookup(Message<JsonObject> msg) {
    String question = read(() -> VerifiedMessages.Lookup.fromJson(body(msg)).question());
    AskRules.Refusal refused = AskRules.question(question);
    if (refused != null) {
      msg.fail(BusFailure.BAD_REQUEST.code(), refused.message());
      return;
    }
    refreshed().onSuccess(v -> lookup(msg, question)).onFailure(e -> unavailable(msg, e));
  }

  /** A field of a request, or null when the request does not have it in the right type (the caller says what is wrong). */
  private static <T> T read(java.util.function.Supplier<T> field) {
    try {
      return field.get();
    } catch (IllegalArgumentException wrongType) {
      return null;
    }
  }

  /** A verified query as a lookup ranks it: its similarity with the question, and whether they name the same values. */
  private record Scored(VerifiedQuery query, double score, boolean sameValues) {
    JsonObject toJson() {
      return query.toJson().put("score", score).put("same_values", sameValues);
    }
  }

  private void lookup(Message<JsonObject> msg, String question) {
    List<VerifiedQuery> active = library.values().stream().filter(v -> !v.retired()).toList();
    if (active.isEmpty()) {
      msg.reply(new VerifiedMessages.Matches(threshold, 0, new JsonArray(), null, null).toJson());
      return;
    }
    long t0 = System.nanoTime();
    vertx.executeBlocking(() -> QuestionVectors.embed(question), false).onSuccess(vector -> {
      List<Scored> scored = new ArrayList<>();
      for (VerifiedQuery v : active) {
        scored.add(new Scored(v, round(QuestionVectors.similarity(vector, v.vector())), Literals.same(question, v.question())));
      }
      scored.sort(Comparator.comparingDouble(Scored::score).reversed());
      List<Scored> top = scored.subList(0, Math.min(EXAMPLES, scored.size()));
      Scored best = top.get(0);
      boolean direct = best.score() >= threshold && best.sameValues();
      msg.reply(new VerifiedMessages.Matches(threshold, active.size(),
          new JsonArray(top.stream().map(Scored::toJson).toList()), direct ? best.toJson() : null,
          (System.nanoTime() - t0) / 1_000_000).toJson());
    }).onFailure(e -> {
      LOG.warn("verified lookup failed: {}", e.toString());
      msg.fail(BusFailure.UNAVAILABLE.code(), "the question could not be embedded");
    });
  }

  private static double round(double score) {
    return Math.round(score * 10_000) / 10_000.0;
  }

  // --- add, promote, remove, retire --------------------------------------------------------------------

  private void onAdd(Message<JsonObject> msg) {
    VerifiedAdd request = VerifiedAdd.fromJson(msg.body());
    add(request.question(), request.sql(), request.fromRunId(), nameOf(request.user())).onComplete(ar -> reply(msg, ar));
  }

  /** The name of the user a request carries; null without a users file. */
  private static String nameOf(User user) {
    return user == null ? null : user.name();
  }

  /**
   * Checks the SQL through the gate, embeds the question and saves (replacing the SQL of the same question),
   * noting who vouched for it.
   */
  private Future<JsonObject> add(Object question, Object sql, Object fromRunId, String verifiedBy) {
    AskRules.Refusal refused = AskRules.question(question);
    if (refused != null) return fail(BusFailure.BAD_REQUEST, refused.message());
    if (!(sql instanceof String s) || s.isBlank()) return fail(BusFailure.BAD_REQUEST, "sql must be a non-empty string");
    if (s.length() > MAX_SQL_CHARS) {
      return fail(BusFailure.BAD_REQUEST, "sql is " + s.length() + " characters; the limit is " + MAX_SQL_CHARS);
    }
    AskRules.Refusal nul = AskRules.noNul("the SQL", s);
    if (nul != null) return fail(BusFailure.BAD_REQUEST, nul.message());
    String question1 = ((String) question).strip();
    String sql1 = s.strip();
    return check(sql1).compose(refusal -> {
      if (refusal != null) return fail(BusFailure.REJECTED, "the gate refused the SQL, so it was not saved: " + refusal);
      return vertx.executeBlocking(() -> QuestionVectors.embed(question1), false)
          .compose(vector -> store.save(question1, sql1, vector, fromRunId, verifiedBy))
          .map(saved -> {
            put(saved);
            LOG.info("verified query {} saved: {}", saved.id(), saved.question());
            return saved.toJson();
          });
    });
  }

  /** The gate's refusal of the SQL (static check and EXPLAIN, nothing run) in words, or null when it passes. */
  private Future<String> check(String sql) {
    return new GateClient(vertx, GATE_MS).execute(GateRequest.check(sql))
        .map(reply -> reply.ok() ? null : reply.error().type().wireName() + ": " + reply.error().message());
  }

  /**
   * A run rated 👍 becomes a verified query. A follow-up ("and for 2024?") means nothing on its own, so its
   * question must be given in full ({@code question}); any answer's question may be reworded that way. Only the
   * run's owner or an admin may promote it: the conversation store refuses anyone else the run's turn (403).
   */
  private void onPromote(Message<JsonObject> msg) {
    VerifiedPromote request = VerifiedPromote.fromJson(msg.body());
    Object runId = request.runId();
    Object given = request.question();
    new StateClient(vertx, BUS_MS).turn(new RunTurnRequest(runId, request.user()))
        .compose(turn -> {
          if (!"up".equals(turn.rating())) {
            return fail(BusFailure.CONFLICT, "run " + runId + " is not rated 👍; rate the answer up before verifying it");
          }
          if (!"answered".equals(turn.outcome()) || turn.sql() == null) {
            return fail(BusFailure.CONFLICT, "run " + runId + " has no answered SQL to verify");
          }
          if (given == null && turn.turn() > 1) {
            return fail(BusFailure.CONFLICT, "run " + runId + " answered a follow-up (\"" + turn.question() + "\") that means "
                + "nothing on its own; give the question in full: {\"question\": \"...\"}");
          }
          return add(given == null ? turn.question() : given, turn.sql(), runId, nameOf(request.user()));
        })
        .onComplete(ar -> reply(msg, ar));
  }

  private void onRemove(Message<JsonObject> msg) {
    Long id = id(msg);
    if (id == null) return;
    store.remove(id)
        .onSuccess(removed -> {
          library.remove(id);
          loadedVersion = null;
          if (!removed) msg.fail(BusFailure.NOT_FOUND.code(), "no verified query " + id);
          else msg.reply(new Removed(id, true).toJson());
        })
        .onFailure(e -> unavailable(msg, e));
  }

  private void onRetire(Message<JsonObject> msg) {
    Long id = id(msg);
    if (id == null) return;
    VerifiedQuery q = library.get(id);
    if (q == null) {
      msg.fail(BusFailure.NOT_FOUND.code(), "no verified query " + id);
      return;
    }
    String reason = read(() -> VerifiedMessages.Retire.fromJson(body(msg)).reason());
    retire(q, reason == null ? "refused by the gate" : reason).onComplete(ar -> reply(msg, ar.map(VerifiedQuery::toJson)));
  }

  private Future<VerifiedQuery> retire(VerifiedQuery q, String reason) {
    return store.retire(q.id(), reason)
        .map(found -> {
          if (found.isEmpty()) return q;
          VerifiedQuery retired = found.get();
          put(retired);
          LOG.warn("verified query {} retired: {}", q.id(), reason);
          return retired;
        });
  }

  private Future<VerifiedQuery> restore(VerifiedQuery q) {
    return store.restore(q.id())
        .map(found -> {
          if (found.isEmpty()) return q;
          VerifiedQuery restored = found.get();
          put(restored);
          if (q.retired()) LOG.info("verified query {} passes the gate again and is used again", q.id());
          return restored;
        });
  }

  // --- re-checks ---------------------------------------------------------------------------------------

  /** Every verified query through the gate again, one at a time; concurrent requests share one pass. */
  private Future<Rechecked> recheck(String why) {
    if (rechecking != null) return rechecking;
    rechecking = refreshed().compose(v -> recheckAll(why)).eventually(() -> {
      rechecking = null;
      return Future.succeededFuture();
    });
    return rechecking;
  }

  private Future<Rechecked> recheckAll(String why) {
    List<VerifiedQuery> all = List.copyOf(library.values());
    JsonArray retired = new JsonArray();
    JsonArray restored = new JsonArray();
    long t0 = System.nanoTime();
    Future<Void> checked = OneAfterAnother.each(all, q -> check(q.sql()).recover(e -> Future.succeededFuture((String) null))
        .compose(refusal -> {
          VerifiedQuery now = library.get(q.id());
          if (now == null) return Future.succeededFuture();
          if (refusal != null) {
            return now.retired() && refusal.equals(now.retiredReason()) ? Future.<Void>succeededFuture()
                : retire(now, refusal).map(r -> {
                  retired.add(r.toJson());
                  return (Void) null;
                });
          }
          return restore(now).map(r -> {
            if (now.retired()) restored.add(r.toJson());
            return (Void) null;
          });
        }));
    return checked.map(v -> {
      long retiredNow = library.values().stream().filter(VerifiedQuery::retired).count();
      LOG.info("verified queries re-checked ({}): {} checked, {} retired now, {} restored, {} retired in all", why,
          all.size(), retired.size(), restored.size(), retiredNow);
      return new Rechecked(all.size(), retired, restored, retiredNow, library.size() - retiredNow,
          (System.nanoTime() - t0) / 1_000_000);
    });
  }

  /** Health saw drift: re-check once per distinct set of differences (health is polled often). */
  private void onDrift(Message<JsonObject> msg) {
    String differences = String.valueOf(OpsMessages.SchemaDrifted.fromJson(msg.body()).differences());
    if (differences.equals(lastDrift) || library.isEmpty()) return;
    lastDrift = differences;
    recheck("schema drift");
  }

  // --- list --------------------------------------------------------------------------------------------

  private VerifiedList list() {
    JsonArray all = new JsonArray();
    long retired = 0;
    for (VerifiedQuery q : library.values()) {
      all.add(q.toJson());
      if (q.retired()) retired++;
    }
    return new VerifiedList(target.key(), threshold, all, library.size() - retired, retired);
  }

  // --- plumbing ----------------------------------------------------------------------------------------

  private static Long id(Message<JsonObject> msg) {
    Object id = VerifiedRemove.fromJson(msg.body()).verifiedId();
    if (id instanceof Number n && n.longValue() > 0) return n.longValue();
    if (id instanceof String s && s.matches("\\d{1,18}")) return Long.parseLong(s);
    msg.fail(BusFailure.BAD_REQUEST.code(), "verified_id must be a positive whole number");
    return null;
  }

  private static <T> Future<T> fail(BusFailure failure, String message) {
    return Future.failedFuture(new BusError(failure, message));
  }

  /**
   * The reply: the result, a refusal of this verticle's or of a service it asked (the conversation store's
   * 403/404 on a run's turn, the gate's), passed on with its meaning; anything else is the store being away.
   */
  private static void reply(Message<JsonObject> msg, io.vertx.core.AsyncResult<JsonObject> ar) {
    if (ar.succeeded()) {
      msg.reply(ar.result());
    } else if (ar.cause() instanceof BusError e) {
      e.failOn(msg);
    } else if (ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
      BusError.of(re, "a service the verified queries asked").failOn(msg);
    } else {
      unavailable(msg, ar.cause());
    }
  }

  private static void unavailable(Message<?> msg, Throwable e) {
    LOG.warn("verified queries: {}", e.toString());
    msg.fail(BusFailure.UNAVAILABLE.code(), "the verified queries could not be read or written now; try again shortly");
  }

  private static JsonObject body(Message<JsonObject> msg) {
    return msg.body() == null ? new JsonObject() : msg.body();
  }
}

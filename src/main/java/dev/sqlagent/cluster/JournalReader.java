package dev.sqlagent.cluster;

import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunMessages;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An edge's {@link Addresses#RUN_EVENTS} in cluster mode, node-local: a run's events from the state store,
 * wherever the run ran, so replay works on any edge (and after the worker that ran it is gone). Same request,
 * reply and refusals as the single process's agent: 404 for a run not kept, 403 for another user's run (every
 * kept event names its owner).
 */
public final class JournalReader extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(JournalReader.class);

  private final StateDatabase state;
  private JournalRepository journal;

  public JournalReader(StateDatabase state) {
    this.state = state;
  }

  @Override
  public Future<?> start() {
    journal = new JournalRepository(state.owner());
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.RUN_EVENTS, this::runEvents).completion();
  }

  /** A run's kept events after the asked seq, and whose run it is. */
  private record Kept(JsonArray events, String owner) {}

  private static JsonArray ownedBy(JsonArray events, String owner) {
    JsonArray out = new JsonArray();
    for (Object e : events) {
      if (e instanceof JsonObject event && java.util.Objects.equals(event.getString("user"), owner)) out.add(event);
    }
    return out;
  }

  private void runEvents(Message<JsonObject> msg) {
    RunRequest request = RunRequest.read(msg);
    if (request == null) return;
    String runId = AskRules.runIdOf(msg, request.runId());
    if (runId == null) return;
    User caller = request.user();
    // The run is its first event's owner's, and only that owner's events are its: were a run id used again by someone
    // else (a client may name its run), the later run's events would not be served as part of this one.
    journal.firstAndAfter(runId, request.afterSeq())
        .map(read -> read == null ? null
            : new Kept(ownedBy(read.after(), read.first().getString("user")), read.first().getString("user")))
        .onSuccess(kept -> {
          if (kept == null) {
            msg.fail(BusFailure.NOT_FOUND.code(), "no run " + runId + " (runs' events are kept for a day)");
          } else if (!User.mayReach(caller, kept.owner())) {
            // As the single process's agent answers: another user's run is not replayed (nor its question shown).
            msg.fail(BusFailure.FORBIDDEN.code(), "run " + runId + " is another user's");
          } else {
            msg.reply(new RunMessages.Events(runId,
                kept.events().stream().map(e -> GraphEvent.fromJson((JsonObject) e)).toList()).toJson());
          }
        })
        .onFailure(e -> {
          LOG.warn("run {}: kept events could not be read: {}", runId, e.getMessage());
          msg.fail(BusFailure.UNAVAILABLE.code(), "the run's events could not be read from the state store; try again");
        });
  }
}

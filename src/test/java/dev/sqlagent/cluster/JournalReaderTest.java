package dev.sqlagent.cluster;

import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.users.User;
import dev.sqlagent.state.StateDatabase;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An edge's replay from the state store answers as the single process's agent does: a run's events after a
 * seq, in order; 404 for a run not kept; 403 for another user's run (its owner and the admins may read it),
 * also when nothing is left after the asked seq; 400 for a malformed run id; and a run is its first event's owner's,
 * so events of another user's run under the same id are not part of it.
 */
class JournalReaderTest {

  static Vertx vertx;
  static final String RUN = UUID.randomUUID().toString();

  @BeforeAll
  static void start() throws Exception {
    TestDatabase db = TestDatabase.get();
    try (Connection c = db.state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)")) {
      // Alice's run (1-3), then two events of a run of Bob's that used the same id (4-5).
      for (int seq = 1; seq <= 5; seq++) {
        ps.setString(1, RUN);
        ps.setLong(2, seq);
        ps.setString(3, new JsonObject().put("run_id", RUN).put("seq", seq).put("node", "step" + seq)
            .put("user", seq <= 3 ? "alice" : "bob").encode());
        ps.addBatch();
      }
      ps.executeBatch();
    }
    vertx = Vertx.vertx();
    vertx.deployVerticle(new JournalReader(StateDatabase.open(vertx, db.state(), 2))).await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("DELETE FROM run_events WHERE run_id = ?")) {
      ps.setString(1, RUN);
      ps.executeUpdate();
    }
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  static JsonObject user(String name, boolean admin) {
    return new JsonObject().put("name", name).put("admin", admin);
  }

  static JsonArray events(String runId, long afterSeq, JsonObject user) throws Exception {
    RunRequest asked = RunRequest.events(runId, afterSeq, user == null ? null : User.fromJson(user));
    return new JsonArray(new AgentClient(vertx, 20_000).events(asked).await(20, TimeUnit.SECONDS)
        .events().stream().map(GraphEvent::toJson).toList());
  }

  @Test
  void theOwnerAnAdminAndAServiceWithoutUsersReadTheRun() throws Exception {
    assertThat(events(RUN, 1, user("alice", false)).stream().map(e -> ((JsonObject) e).getLong("seq")).toList())
        .containsExactly(2L, 3L);
    assertThat(events(RUN, 0, user("root", true))).hasSize(3);
    assertThat(events(RUN, 0, null)).hasSize(3);
    assertThat(events(RUN, 3, user("alice", false))).isEmpty();
  }

  @Test
  void aLaterRunOfAnotherUserUnderTheSameIdIsNotServedAsPartOfIt() throws Exception {
    for (JsonObject reader : new JsonObject[] {user("alice", false), user("root", true), null}) {
      assertThat(events(RUN, 2, reader).stream().map(e -> ((JsonObject) e).getString("user")).toList())
          .as("read by %s", reader).containsExactly("alice");
    }
    for (long after : new long[] {0, 3, 4}) {
      assertThatThrownBy(() -> events(RUN, after, user("bob", false)))
          .isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.FORBIDDEN));
    }
  }

  @Test
  void anotherUserIsRefusedAndAnUnknownRunIsNotFound() {
    for (long after : new long[] {0, 3}) {
      assertThatThrownBy(() -> events(RUN, after, user("bob", false)))
          .isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.FORBIDDEN));
    }
    assertThatThrownBy(() -> events("no-such-run-" + UUID.randomUUID(), 0, null))
        .isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.NOT_FOUND));
    // A run id no client may name is refused as everywhere (AskRules), before the state store is read.
    assertThatThrownBy(() -> events("bad id", 0, null))
        .isInstanceOfSatisfying(BusError.class, e -> assertThat(e.failure()).isEqualTo(BusFailure.BAD_REQUEST));
  }
}

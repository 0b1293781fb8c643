package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.db.Target;
import dev.sqlagent.state.StateStore;
import dev.sqlagent.testing.DatabaseState;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A run id names one run, whoever chose it and however long ago: the agent's memory refuses its recent runs' ids, and
 * the state store's claims the rest, so a service started afresh on the same store (or another node) refuses an id a
 * run used before, and the first run's log row stays its own. An id whose question was refused before it started
 * (an unknown conversation) is still free.
 */
class RunIdClaimsTest {

  static FakeModelServer model;

  @BeforeAll
  static void start() throws Exception {
    model = FakeModelServer.start();
    model.respondWith(req -> Reply.sql("SELECT count(*) AS customers FROM customers"));
  }

  @AfterAll
  static void stop() throws Exception {
    model.close();
  }

  static HttpResponse<Buffer> ask(RunningService service, String question, String runId, String conversationId) throws Exception {
    JsonObject body = new JsonObject().put("question", question).put("run_id", runId);
    if (conversationId != null) body.put("conversation_id", conversationId);
    return service.client.post(service.port(), "127.0.0.1", "/api/ask").sendJsonObject(body).await(60, TimeUnit.SECONDS);
  }

  @Test
  void anIdThatNamedARunBeforeIsRefusedAfterARestartAndTheFirstRunKeepsItsLogRow() throws Exception {
    String used = "claimed-" + UUID.randomUUID();
    String refusedFirst = "claimed-" + UUID.randomUUID();
    Target target = TestDatabase.get().target();
    DatabaseState.awaitAgentSessionsGone(target);
    DatabaseState before = DatabaseState.read(target);
    try (RunningService first = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"))) {
      HttpResponse<Buffer> answered = ask(first, "How many customers are there?", used, null);
      assertThat(answered.statusCode()).as(answered.bodyAsString()).isEqualTo(200);
      assertThat(answered.bodyAsJsonObject().getString("run_id")).isEqualTo(used);
      // A question refused before its run started leaves its id free.
      HttpResponse<Buffer> unknownConversation = ask(first, "How many customers are there?", refusedFirst,
          UUID.randomUUID().toString());
      assertThat(unknownConversation.statusCode()).as(unknownConversation.bodyAsString()).isEqualTo(404);
      assertThat(ask(first, "How many customers are there?", refusedFirst, null).statusCode()).isEqualTo(200);
      logRow(used);  // written before this service goes
    }
    try (RunningService second = RunningService.start(model, Map.of("SQLAGENT_ANSWER_SUMMARY", "plain"))) {
      for (String id : List.of(used, refusedFirst)) {
        HttpResponse<Buffer> again = ask(second, "Count the customers once more", id, null);
        assertThat(again.statusCode()).as(again.bodyAsString()).isEqualTo(400);
        assertThat(again.bodyAsJsonObject().getString("message")).isEqualTo("run_id " + id + " is already in use");
      }
      HttpResponse<Buffer> fresh = ask(second, "Count the customers once more", "claimed-" + UUID.randomUUID(), null);
      assertThat(fresh.statusCode()).as(fresh.bodyAsString()).isEqualTo(200);
    }
    assertThat(logRow(used)).isEqualTo("How many customers are there?");
    // The claims are the state store's: the target is exactly as it was (no table, no tuple written, even undone).
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM run_claims WHERE run_id IN (?, ?)")) {
      ps.setString(1, used);
      ps.setString(2, refusedFirst);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getInt(1)).isEqualTo(2);
      }
    }
    DatabaseState.awaitAgentSessionsGone(target);
    assertThat(DatabaseState.read(target)).isEqualTo(before);
  }

  /** The question of the query log's row for {@code runId}, once it is written. */
  static String logRow(String runId) throws Exception {
    long until = System.currentTimeMillis() + 15_000;
    List<String> questions = new ArrayList<>();
    while (System.currentTimeMillis() < until) {
      questions.clear();
      try (Connection c = TestDatabase.get().state().ownerConnection();
           PreparedStatement ps = c.prepareStatement("SELECT question FROM agent_query_log WHERE run_id = ?")) {
        ps.setString(1, runId);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) questions.add(rs.getString(1));
        }
      }
      if (!questions.isEmpty()) break;
      Thread.sleep(50);
    }
    assertThat(questions).as("the query log's rows for %s", runId).hasSize(1);
    return questions.get(0);
  }

  @Test
  void theRunsLoggedBeforeTheClaimsExistedHoldTheirIds() throws Exception {
    TestDatabase db = TestDatabase.get();
    String database = "claims_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    StateStore store = new StateStore(db.adminUrl().withDatabase(database), db.state().logPassword());
    try {
      store.migrate();
      String logged = "logged-" + UUID.randomUUID();
      try (Connection c = store.ownerConnection(); Statement s = c.createStatement()) {
        // A store from before the claims: its log holds a run, the claims table does not, and it is to be migrated.
        s.execute("INSERT INTO agent_query_log (run_id, question, asked_at, mode, attempts_used, gave_up, refused, user_name)"
            + " VALUES ('" + logged + "', 'an old question', now() - interval '30 days', 'agent', 1, false, false, 'alice')");
        s.execute("DELETE FROM run_claims");
        s.execute("DELETE FROM state_version");
      }
      store.migrate();
      try (Connection c = store.ownerConnection(); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT run_id, user_name FROM run_claims")) {
        assertThat(rs.next()).as("a claim for the logged run").isTrue();
        assertThat(rs.getString(1)).isEqualTo(logged);
        assertThat(rs.getString(2)).isEqualTo("alice");
        assertThat(rs.next()).isFalse();
      }
    } finally {
      try (Connection c = db.adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
      }
    }
  }
}

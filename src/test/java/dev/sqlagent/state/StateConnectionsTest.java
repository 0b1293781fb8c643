package dev.sqlagent.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.codec.BodyCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The whole service, on a state store of its own, answering questions several at once with health probes and
 * the evaluation route in between: the connections it holds to the store never outnumber the one owner pool's
 * size plus the log role's pool, and none is left once the service has stopped.
 */
class StateConnectionsTest {

  static final int POOL = 3;

  @Test
  void theServiceHoldsNoMoreStateConnectionsThanItsTwoPools() throws Exception {
    TestDatabase db = TestDatabase.get();
    String database = "conns_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    StateStore store = new StateStore(db.adminUrl().withDatabase(database), db.state().logPassword());
    store.migrate();
    Map<String, Integer> most = new HashMap<>();
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(request -> Reply.sql("SELECT count(*) AS n FROM customers"));
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
      env.put("SQLAGENT_STATE_POOL_SIZE", String.valueOf(POOL));
      env.put("SQLAGENT_ASK_PER_CLIENT", "10");
      try (RunningService service = RunningService.start(db.config(env), db.target(), store)) {
        for (int round = 0; round < 3; round++) {
          List<Future<HttpResponse<JsonObject>>> calls = new ArrayList<>();
          for (int i = 0; i < 6; i++) {
            calls.add(service.client.post(service.port(), "127.0.0.1", "/api/ask").as(BodyCodec.jsonObject())
                .sendJsonObject(new JsonObject().put("question", "How many customers are there? (" + round + "." + i + ")")));
          }
          calls.add(service.client.get(service.port(), "127.0.0.1", "/api/health").as(BodyCodec.jsonObject()).send());
          calls.add(service.client.get(service.port(), "127.0.0.1", "/api/eval/latest").as(BodyCodec.jsonObject()).send());
          // Sampled while the questions are in flight, and again once they are answered.
          merge(most, connections(db, database));
          Future.all(calls).await(120, TimeUnit.SECONDS);
          for (int i = 0; i < 6; i++) {
            assertThat(calls.get(i).result().statusCode()).as(calls.get(i).result().bodyAsString()).isEqualTo(200);
          }
          merge(most, connections(db, database));
        }
        System.out.println("state store backends at most, by application_name: " + most);
        assertThat(most.getOrDefault(StateDatabase.OWNER_APPLICATION, 0)).as("owner connections seen: %s", most)
            .isPositive().isLessThanOrEqualTo(POOL);
        assertThat(most.getOrDefault(StateDatabase.LOG_APPLICATION, 0)).as("log-role connections seen: %s", most)
            .isPositive().isLessThanOrEqualTo(StateDatabase.LOG_SIZE);
        assertThat(most.keySet()).as("every connection to the state store is one of the two pools'")
            .containsOnly(StateDatabase.OWNER_APPLICATION, StateDatabase.LOG_APPLICATION);
      }
      long until = System.currentTimeMillis() + 10_000;
      Map<String, Integer> after = connections(db, database);
      while (!after.isEmpty() && System.currentTimeMillis() < until) {
        Thread.sleep(100);
        after = connections(db, database);
      }
      assertThat(after).as("connections left after the service stopped").isEmpty();
    } finally {
      try (Connection c = db.adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
      }
    }
  }

  private static void merge(Map<String, Integer> most, Map<String, Integer> now) {
    now.forEach((app, n) -> most.merge(app, n, Math::max));
  }

  /**
   * Clients connected to the database now, by application_name (this query's own backend is elsewhere). PostgreSQL's
   * own workers there (autovacuum after the questions' inserts) are no client's, and a client backend still starting
   * (no state yet) shows no application_name until its start-up options are applied: both are left out.
   */
  static Map<String, Integer> connections(TestDatabase db, String database) throws Exception {
    Map<String, Integer> out = new HashMap<>();
    try (Connection c = db.adminConnection("postgres"); PreparedStatement ps = c.prepareStatement(
        "SELECT application_name, count(*) FROM pg_stat_activity WHERE datname = ? AND backend_type = 'client backend'"
            + " AND state IS NOT NULL GROUP BY application_name")) {
      ps.setString(1, database);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) out.put(rs.getString(1), rs.getInt(2));
      }
    }
    return out;
  }
}

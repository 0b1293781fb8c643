package dev.sqlagent.own;

import dev.sqlagent.contract.RetrievalClient;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Stored values on a database that is not the demo: a name the question spells in mixed case reaches the model
 * as its stored upper-case form in two columns before the first attempt; the values are kept in the state store
 * (never the target) and a restart rebuilds the index from there; nothing the role may not read is read.
 */
class OwnStoredValuesTest {

  static final String RIGHT = "SELECT count(*) AS n FROM actor WHERE first_name = 'PENELOPE' AND last_name = 'GUINESS'";
  static final String GUESSED = "SELECT count(*) AS n FROM actor WHERE first_name = 'Penelope' AND last_name = 'Guiness'";

  static OwnDatabase own;
  static TreeSet<String> before;
  static FakeModelServer model;

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
    own.exec(
        "SET ROLE " + own.owner,
        "CREATE TABLE public.actor (actor_id int PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL)",
        "INSERT INTO public.actor SELECT i, 'FIRST' || i, 'LAST' || i FROM generate_series(2, 300) i",
        "INSERT INTO public.actor VALUES (1, 'PENELOPE', 'GUINESS')",
        "CREATE TABLE hr.reviews (actor_id int, verdict text)",
        "INSERT INTO hr.reviews VALUES (1, 'SECRET VERDICT')",
        "RESET ROLE",
        "GRANT SELECT ON public.actor TO " + own.ro,
        "ANALYZE");
    before = own.fingerprint();
    model = FakeModelServer.start();
    // The scripted model uses the stored form only when the prompt gives it.
    model.respondWith(req -> Reply.sql(FakeModelServer.allText(req)
        .contains("'Penelope Guiness' → actor.first_name = 'PENELOPE', actor.last_name = 'GUINESS'") ? RIGHT : GUESSED));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (model != null) model.close();
    } finally {
      if (own != null) own.close();
    }
  }

  static JsonObject storedValues(OwnService service) throws Exception {
    long until = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < until) {
      JsonObject s = new RetrievalClient(service.vertx, 30_000).status().await(30, TimeUnit.SECONDS).storedValues();
      if (s.getBoolean("ready", false)) return s;
      Thread.sleep(200);
    }
    throw new AssertionError("stored values were not ready within 120 s");
  }

  static List<String> keptRelations() throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = TestDatabase.get().state().ownerConnection(); PreparedStatement ps = c.prepareStatement(
        "SELECT relation || '.' || column_name || ':' || array_to_string(vals, '|') FROM stored_values"
            + " WHERE target LIKE ? ORDER BY 1")) {
      ps.setString(1, "%" + own.name);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) out.add(rs.getString(1));
      }
    }
    return out;
  }

  @Test
  void theStoredFormReachesTheFirstAttemptAndARestartReadsTheStateStore() throws Exception {
    try (OwnService service = OwnService.start(own.config(own.roUrl(), model.env()))) {
      assertThat(storedValues(service).getString("from")).isEqualTo("target");
      JsonObject a = service.ask("How many actors are called Penelope Guiness?");
      assertThat(a.getInteger("attempts")).isEqualTo(1);
      assertThat(a.getString("sql")).contains("'PENELOPE'").contains("'GUINESS'");
      assertThat(a.getJsonArray("rows").getJsonArray(0).getValue(0).toString()).isEqualTo("1");
    }
    List<String> kept = keptRelations();
    assertThat(kept).anySatisfy(k -> assertThat(k).startsWith("actor.last_name:").contains("GUINESS"));
    assertThat(String.join("\n", kept)).doesNotContain("SECRET VERDICT").doesNotContain("salaries");

    try (OwnService again = OwnService.start(own.config(own.roUrl(), model.env()))) {
      JsonObject status = storedValues(again);
      assertThat(status.getString("from")).isEqualTo("state_store");
      assertThat(status.getInteger("indexed_values")).isGreaterThanOrEqualTo(600);
      JsonObject a = again.ask("How many actors are called Penelope Guiness?");
      assertThat(a.getInteger("attempts")).isEqualTo(1);
    }
    own.assertUnchanged(before);
  }
}

package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import dev.sqlagent.contract.ErrorType;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.DatabaseState;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The two corpora through the whole gate on the real database: every attack refused with its expected
 * error type and the database unchanged afterwards; every valid analytics query accepted with rows,
 * including the constructs only PostgreSQL's parser understands.
 */
class GateCorpusTest {

  static List<JsonObject> corpus(String name) throws Exception {
    List<JsonObject> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(
        GateCorpusTest.class.getResourceAsStream("/gate/" + name), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isBlank()) out.add(new JsonObject(line));
      }
    }
    return out;
  }

  private static Gate start(Vertx vertx) throws Exception {
    return Gate.start(vertx, Gate.Database.of(TestDatabase.get().target().roOptions()),
        Gate.Settings.DEFAULTS.withTimeouts(1000, 500)).await(60, TimeUnit.SECONDS);
  }

  @Test
  void everyAttackIsRefusedAsExpectedAndNothingChanges() throws Exception {
    TestDatabase db = TestDatabase.get();
    List<JsonObject> attacks = corpus("attacks.jsonl");
    assertThat(attacks).hasSizeGreaterThanOrEqualTo(80);
    DatabaseState.awaitAgentSessionsGone(db.target());
    DatabaseState before = DatabaseState.read(db.target());
    assertThat(before.facts().get("advisory_locks")).isEqualTo("0");

    Vertx vertx = Vertx.vertx();
    List<String> wrong = new ArrayList<>();
    StringBuilder report = new StringBuilder();
    try {
      Gate gate = start(vertx);
      for (JsonObject a : attacks) {
        JsonObject r = gate.submit(GateRequest.run(a.getString("sql"))).await(60, TimeUnit.SECONDS).toJson();
        report.append(new JsonObject().put("id", a.getString("id")).mergeIn(r).encode()).append('\n');
        String got = r.getBoolean("ok") ? "ACCEPTED" : r.getString("error_type");
        if (!a.getString("expected").equals(got)) {
          wrong.add(a.getString("id") + " expected " + a.getString("expected") + " got " + got + ": " + a.getString("sql")
              + " -> " + r.getString("message"));
        }
        if (!r.getBoolean("ok")) {
          assertThat(r.getString("message")).as(a.getString("id")).isNotBlank().doesNotContain("Exception");
          assertThat(r.getBoolean("repairable")).isEqualTo(ErrorType.fromWireName(got).repairable());
        }
      }
      // Session-level state would live as long as the pooled connections: look while they are open.
      DatabaseState during = DatabaseState.read(db.target());
      assertThat(during.facts().get("advisory_locks")).as("advisory locks held by the pool").isEqualTo("0");
      gate.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    // What each refusal said, for reading (target/gate-attacks-replies.jsonl).
    java.nio.file.Files.writeString(java.nio.file.Path.of("target", "gate-attacks-replies.jsonl"), report);
    assertThat(wrong).as("attacks with the wrong outcome").isEmpty();

    DatabaseState.awaitAgentSessionsGone(db.target());
    DatabaseState after = DatabaseState.read(db.target());
    for (int i = 0; i < 30 && !after.equals(before); i++) {
      Thread.sleep(100);
      after = DatabaseState.read(db.target());
    }
    assertThat(after.facts()).isEqualTo(before.facts());
  }

  @Test
  void everyValidQueryRunsAndReturnsRows() throws Exception {
    List<JsonObject> valid = corpus("valid.jsonl");
    assertThat(valid).hasSizeGreaterThanOrEqualTo(80);
    Vertx vertx = Vertx.vertx();
    List<String> wrong = new ArrayList<>();
    int fallbacks = 0;
    try {
      Gate gate = start(vertx);
      for (JsonObject v : valid) {
        JsonObject r = gate.submit(GateRequest.run(v.getString("sql"))).await(60, TimeUnit.SECONDS).toJson();
        if (!r.getBoolean("ok")) {
          wrong.add(v.getString("id") + " refused " + r.getString("error_type") + ": " + v.getString("sql") + " -> "
              + r.getString("message") + " / " + r.getString("hint"));
          continue;
        }
        if (r.getInteger("row_count") == 0) wrong.add(v.getString("id") + " returned no rows: " + v.getString("sql"));
        if (Boolean.TRUE.equals(v.getBoolean("fallback")) && !"fallback".equals(r.getString("static_check"))) {
          wrong.add(v.getString("id") + " expected the PostgreSQL fallback but JSqlParser parsed it: " + v.getString("sql"));
        }
        if ("fallback".equals(r.getString("static_check"))) fallbacks++;
      }
      gate.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    assertThat(wrong).as("valid queries that did not run").isEmpty();
    assertThat(fallbacks).as("queries that went the PostgreSQL path").isGreaterThanOrEqualTo(10);
  }
}

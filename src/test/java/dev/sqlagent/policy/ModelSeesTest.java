package dev.sqlagent.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.StoredValuesReady;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * SQLAGENT_MODEL_SEES on a database built for the test: at each level the scripted model records every request, and no
 * prompt holds what the level leaves out (the tier's stored values below 'values', the names of the sample rows below
 * 'samples', any result row below 'results', where the answer is the plain summary and the model is asked once), while
 * what the level allows is there; no sensitive column's value is in any prompt at any level, not even when the
 * question names one.
 */
class ModelSeesTest {

  static final String SQL = "SELECT c.name, c.tier, c.email, c.phone, c.salary FROM customers c ORDER BY c.id";
  static final String WORDING = "You state the answer";

  static PolicyDatabase db;
  static FakeModelServer model;

  @BeforeAll
  static void build() throws Exception {
    db = new PolicyDatabase();
    model = FakeModelServer.start();
    script();
  }

  /** Forgets what was asked; words answers, and writes {@link #SQL} for every question. */
  static void script() {
    model.reset().respondWith(req -> FakeModelServer.allText(req).contains(WORDING)
        ? Reply.content("There are four customers.") : Reply.sql(SQL));
  }

  @AfterAll
  static void drop() throws Exception {
    if (model != null) model.close();
    if (db != null) db.close();
  }

  static RunningService start(ModelSees level, Databases[] opened) throws Exception {
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
    env.put("SQLAGENT_NOTES", db.notes.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "model");
    env.put("SQLAGENT_MODEL_SEES", level.wireName());
    AppConfig config = AppConfig.load(env);
    opened[0] = Databases.open(config);
    return RunningService.start(config, opened[0].target(), opened[0].state());
  }

  @ParameterizedTest
  @EnumSource(ModelSees.class)
  void eachLevelSendsOnlyWhatItAllows(ModelSees level) throws Exception {
    Databases[] opened = new Databases[1];
    try (RunningService service = start(level, opened)) {
      StoredValuesReady.await(service.vertx);
      script();
      HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "Which customers are there, with their loyalty tier?"))
          .await(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
      JsonObject answer = r.bodyAsJsonObject();
      assertThat(answer.getBoolean("gave_up")).as(answer.encode()).isFalse();
      List<FakeModelServer.Recorded> requests = model.requests();
      String sqlPrompt = requests.get(0).systemMessage();
      String all = String.join("\n", requests.stream().map(q -> q.body().encode()).toList());

      assertThat(sqlPrompt).contains("customers").contains("email").contains("salary");  // names are always sent
      if (level.storedValues()) assertThat(sqlPrompt).contains(PolicyDatabase.TIERS.get(0));
      else assertThat(all).doesNotContain(PolicyDatabase.TIERS.get(0)).doesNotContain(PolicyDatabase.TIERS.get(1));
      if (level.sampleRows()) assertThat(sqlPrompt).contains(PolicyDatabase.NAMES.get(0));
      else assertThat(sqlPrompt).doesNotContain("Samplerow");
      if (level.resultRows()) {
        assertThat(requests).as(answer.encodePrettily()).hasSize(2);
        assertThat(requests.get(1).systemMessage() + requests.get(1).lastUserMessage()).contains(WORDING)
            .contains(PolicyDatabase.NAMES.get(3));
        assertThat(answer.getString("answer")).isEqualTo("There are four customers.");
      } else {
        // No result row leaves: the answer is the plain summary, and the model was asked for the SQL only.
        assertThat(requests).hasSize(1);
        if (!level.sampleRows()) assertThat(all).doesNotContain("Samplerow");
        assertThat(answer.getString("answer")).isNotEqualTo("There are four customers.");
      }
      assertThat(PolicyDatabase.leaked(all)).as("sensitive values in the prompts at " + level).isEmpty();

      // A question that names a sensitive value finds nothing in the stored values: the value index never held it.
      script();
      HttpResponse<Buffer> named = service.client.post(service.port(), "127.0.0.1", "/api/ask")
          .sendJsonObject(new JsonObject().put("question", "What did " + PolicyDatabase.EMAILS.get(0) + " order?"))
          .await(60, TimeUnit.SECONDS);
      assertThat(named.statusCode()).as(named.bodyAsString()).isEqualTo(200);
      for (FakeModelServer.Recorded q : model.requests()) {
        assertThat(PolicyDatabase.leaked(q.systemMessage())).as("sensitive values in a system prompt").isEmpty();
      }

      // Health shows the level and the sensitive columns.
      JsonObject health = service.client.get(service.port(), "127.0.0.1", "/api/health").send()
          .await(60, TimeUnit.SECONDS).bodyAsJsonObject();
      assertThat(health.encode()).contains("\"model_sees\":\"" + level.wireName() + "\"");
    } finally {
      if (opened[0] != null) opened[0].close();
    }
  }
}

package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.eval.RunStore;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.MetricsDatabase;
import dev.sqlagent.testing.SavedRuns;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sql-agent eval --questions} on a ledger whose notes file defines {@code revenue} (not the demo): two questions
 * expect the metric, the scripted model follows the definition for one and leaves out its filter for the other, and
 * the report says "metric use 1 of 2" and names the miss.
 */
class EvalMetricsTest {

  static final String FOLLOWS = "SELECT sum(l.qty * l.unit_price) FROM ledger_lines l JOIN ledger_sales s"
      + " ON s.sale_id = l.sale_id WHERE s.state <> 'VOID'";
  static final String GUESSES = "SELECT sum(l.qty * l.unit_price) FROM ledger_lines l";

  static final String QUESTIONS = String.join("\n",
      "{\"id\": \"m1\", \"category\": \"simple\", \"question\": \"What is our revenue?\", \"gold_sql\": \"" + FOLLOWS
          + "\", \"metric\": \"revenue\"}",
      "{\"id\": \"m2\", \"category\": \"simple\", \"question\": \"What is our gross turnover?\", \"gold_sql\": \""
          + FOLLOWS + "\", \"metric\": \"revenue\"}",
      "{\"id\": \"p1\", \"category\": \"simple\", \"question\": \"How many bakers are there?\","
          + " \"gold_sql\": \"SELECT count(*) FROM bakers\"}") + "\n";

  static MetricsDatabase db;
  static FakeModelServer model;
  static SavedRuns saved;

  @BeforeAll
  static void start() throws Exception {
    db = new MetricsDatabase();
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String question = FakeModelServer.lastUserMessage(req);
      if (question.contains("bakers")) return Reply.sql("SELECT count(*) FROM bakers");
      return question.contains("gross") ? Reply.sql(GUESSES) : Reply.sql(FOLLOWS);
    });
    saved = SavedRuns.snapshot();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (saved != null) saved.cleanUp();
      if (model != null) model.close();
    } finally {
      if (db != null) db.close();
    }
  }

  @Test
  void theReportSaysHowOftenAnswersUsedTheirMetric(@TempDir Path tmp) throws Exception {
    Path questions = tmp.resolve("questions.jsonl");
    Files.writeString(questions, QUESTIONS);
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
    env.put("SQLAGENT_NOTES", db.notes.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == EvalCommand.class) {
          return cls.cast(new EvalCommand(overrides -> {
            Map<String, String> e = new HashMap<>(env);
            e.putAll(overrides);
            return AppConfig.load(e);
          }));
        }
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("eval", "--mode", "agent", "--questions", questions.toString());
    String printed = out.toString();
    assertThat(exit).as(printed + err).isZero();
    assertThat(printed).containsPattern("metric use +1 of 2")
        .contains("metric miss: agent m2 #1 expected revenue, the answer used none");
    Matcher m = Pattern.compile("saved: run (\\S+) in the state store ").matcher(printed);
    assertThat(m.find()).as(printed).isTrue();
    JsonObject use = saved.store().readJson(m.group(1), RunStore.SUMMARY).orElseThrow()
        .getJsonObject("modes").getJsonObject("agent").getJsonObject("metric_use");
    assertThat(use.getInteger("expected")).isEqualTo(2);
    assertThat(use.getInteger("used")).isEqualTo(1);
    assertThat(use.getJsonArray("misses").getJsonObject(0).getString("sql")).startsWith(GUESSES);
  }
}

package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.eval.RunFiles;
import dev.sqlagent.eval.RunStore;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.SavedRuns;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sql-agent eval} through picocli's Main, against the test database and an oracle model: runs are
 * saved in the state store and nothing is written under SQLAGENT_HOME; {@code --out} exports the files too;
 * {@code --regrade} reads a saved run back from the store.
 */
class EvalCommandTest {

  static FakeModelServer model;
  static SavedRuns saved;
  static final List<Question> QUESTIONS = QuestionSet.shipped().stream()
      .filter(q -> List.of("s01", "u01").contains(q.id())).toList();
  /** A question whose table is only in the database {@link #aDatabasesOwnQuestionFile} asks against, under its own label. */
  static final Question OWN = new Question("own-1", new Question.Category("bench-easy"), "How many lighthouses are lit?",
      List.of("SELECT count(*) FROM public.lighthouse WHERE lit"), false);
  static final Pattern SAVED_LINE = Pattern.compile("saved: run (\\S+) in the state store ");

  @BeforeAll
  static void start() {
    model = FakeModelServer.start();
    model.respondWith(request -> {
      String first = request.getJsonArray("messages").stream().map(m -> (JsonObject) m)
          .filter(m -> m.getString("role").equals("user")).findFirst().orElseThrow().getString("content");
      Question q = Stream.concat(QUESTIONS.stream(), Stream.of(OWN)).filter(x -> first.equals("Question: " + x.question()))
          .findFirst().orElseThrow();
      return q.answerable() ? Reply.sql(q.goldSql().get(0)) : Reply.refusal("Nothing in the schema holds that.");
    });
    saved = SavedRuns.snapshot();
  }

  @AfterAll
  static void stop() {
    saved.cleanUp();
    model.close();
  }

  record Result(int exit, String out, String err) {
    String runId() {
      Matcher m = SAVED_LINE.matcher(out);
      assertThat(m.find()).as(out).isTrue();
      return m.group(1);
    }
  }

  static Result eval(String... args) {
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(model.env()));
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    return eval(env, args);
  }

  static Result eval(Map<String, String> env, String... args) {
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
    String[] full = Stream.concat(Stream.of("eval"), Stream.of(args)).toArray(String[]::new);
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .setExecutionExceptionHandler((e, cmd, parsed) -> {
          cmd.getErr().println("sql-agent: " + Errors.describe(e));
          return 2;
        })
        .execute(full);
    return new Result(exit, out.toString(), err.toString());
  }

  static Set<String> entries(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  static Path questionFile(Path dir) throws Exception {
    Path f = dir.resolve("questions.jsonl");
    RunFiles.writeLines(f, QUESTIONS.stream().map(Question::toJson).toList());
    return f;
  }

  @Test
  void aRunIsSavedInTheStateStoreAndNothingUnderTheHome(@TempDir Path tmp) throws Exception {
    Path home = TestDatabase.get().home();
    Set<String> before = entries(home);

    Result r = eval("--mode", "agent", "--questions", questionFile(tmp).toString());

    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("[2/2]").doesNotContain("exported:");
    String id = r.runId();
    assertThat(id).matches(RunStore.RUN_NAME);
    RunStore store = saved.store();
    assertThat(store.readLines(id, RunStore.ANSWERS)).hasSize(2);
    assertThat(store.readJson(id, RunStore.SUMMARY)).get()
        .satisfies(s -> assertThat(s.getJsonObject("modes").getJsonObject("agent").getDouble("accuracy")).isEqualTo(1.0));
    // Nothing new under SQLAGENT_HOME: no eval directory, no other file.
    assertThat(home.resolve("eval")).doesNotExist();
    assertThat(entries(home)).isEqualTo(before);

    // --regrade NAME reads it back from the store, without the model.
    int asked = model.requestCount();
    Result regraded = eval("--regrade", id);
    assertThat(regraded.exit()).as(regraded.out() + regraded.err()).isZero();
    assertThat(regraded.runId()).endsWith("-regrade");
    assertThat(store.readJson(regraded.runId(), RunStore.SUMMARY)).get()
        .satisfies(s -> assertThat(s.getString("regraded_from")).isEqualTo(id));
    assertThat(model.requestCount()).isEqualTo(asked);
    assertThat(home.resolve("eval")).doesNotExist();
  }

  @Test
  void outAlsoExportsTheRunsFiles(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("exports");
    Result r = eval("--mode", "agent", "--questions", questionFile(tmp).toString(), "--out", out.toString());

    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    String id = r.runId();
    Path dir = out.resolve(id);
    assertThat(r.out()).contains("exported: " + dir);
    assertThat(entries(dir)).containsExactlyInAnyOrder(RunStore.RUN, RunStore.QUESTIONS, RunStore.ANSWERS,
        RunStore.VERDICTS, RunStore.SUMMARY);
    RunStore store = saved.store();
    assertThat(RunFiles.readLines(dir.resolve(RunStore.ANSWERS))).isEqualTo(store.readLines(id, RunStore.ANSWERS));
    assertThat(RunFiles.readJson(dir.resolve(RunStore.SUMMARY))).isEqualTo(store.readJson(id, RunStore.SUMMARY).orElseThrow());
  }

  @Test
  void anUnknownRunNamesTheStateStoreAndItsRuns() {
    SavedRuns.saveSummary("20250105-000000-000", new JsonObject());
    try {
      Result r = eval("--regrade", "nope");
      assertThat(r.exit()).isEqualTo(2);
      assertThat(r.err()).contains("no saved run \"nope\" in the state store").contains("20250105-000000-000")
          .doesNotContain(".sql-agent/eval");
    } finally {
      saved.store().delete("20250105-000000-000");
    }
  }

  @Test
  void candidatesAreComparedSideBySideThroughTheRealAgent(@TempDir Path tmp) throws Exception {
    int asked = model.requestCount();
    Result r = eval("--mode", "agent", "--candidates", "1,3", "--questions", questionFile(tmp).toString());

    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("candidates [1, 3]").contains("[4/4]").contains("agent@3")
        .contains("vote changed the answer").contains("0 of 2 (0 correct)");
    JsonObject modes = saved.store().readJson(r.runId(), RunStore.SUMMARY).orElseThrow().getJsonObject("modes");
    assertThat(modes.getJsonObject("agent@3").getDouble("accuracy")).isEqualTo(1.0);
    // Three candidates per question from a server that answers one choice per call: three calls each.
    assertThat(model.requestCount() - asked).isEqualTo(2 + 2 * 3);
    assertThat(modes.getJsonObject("agent@3").getJsonObject("tokens").getLong("prompt"))
        .isGreaterThan(2 * modes.getJsonObject("agent").getJsonObject("tokens").getLong("prompt"));
  }

  @Test
  void aBadCandidateCountIsAClearUsageError() {
    Result r = eval("--candidates", "0");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--candidates takes whole numbers from 1 to 16");
  }

  @Test
  void aDatabasesOwnQuestionFileRunsAgainstThatDatabaseWithItsOwnLabels(@TempDir Path tmp) throws Exception {
    Target other = DatabaseCopy.of("shop_eval_other");
    DatabaseCopy.exec(other, "DROP TABLE IF EXISTS public.lighthouse",
        "CREATE TABLE public.lighthouse (id int PRIMARY KEY, lit boolean NOT NULL)",
        "INSERT INTO public.lighthouse VALUES (1, true), (2, false), (3, true)",
        "GRANT SELECT ON public.lighthouse TO " + other.url().user());
    Path file = tmp.resolve("own.jsonl");
    RunFiles.writeLines(file, List.of(OWN.toJson()));

    Result r = eval("--mode", "both", "--questions", file.toString(), "--database", other.database());

    assertThat(r.exit()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("database " + other.database()).contains("  bench-easy");
    JsonObject modes = saved.store().readJson(r.runId(), RunStore.SUMMARY).orElseThrow().getJsonObject("modes");
    for (String mode : List.of("agent", "baseline")) {
      assertThat(modes.getJsonObject(mode).getJsonObject("by_category").getJsonObject("bench-easy").getInteger("correct"))
          .as(mode).isEqualTo(1);
    }
  }

  @Test
  void aDatabaseWithoutATargetServerIsAClearUsageError() {
    Result r = eval("--database", " ");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--database needs a database name");
  }

  /**
   * With no model server named and a GGUF to serve, eval serves it from a child process as serve and ask do, waits
   * for it to load, and stops it at the end. The file here has a whole GGUF header and no weights: the child starts,
   * fails to load it, and eval says so (rather than asking a model server nobody named).
   */
  @Test
  void aLocalModelIsServedForTheRunAndItsFailureToLoadIsReported(@TempDir Path tmp) throws Exception {
    Path gguf = Files.write(tmp.resolve("tiny.gguf"),
        dev.sqlagent.localmodel.GgufFiles.header("llama", 15, 2048, true, new long[] {64, 256}));
    Path home = Files.createDirectories(tmp.resolve("home"));
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.remove("SQLAGENT_LLM_BASE_URL");
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_LLM_MODEL_PATH", gguf.toString());

    Result r = eval(env, "--mode", "agent", "--questions", questionFile(tmp).toString());

    assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
    assertThat(r.err()).contains("the local model tiny.gguf did not load: its process exited with code")
        .contains("local-model.log").doesNotContain("Exception");
    assertThat(r.out()).doesNotContain("evaluating");
    // The child ran (its log is there) and is gone once eval is.
    assertThat(home.resolve("local-model.log")).exists();
    assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .filter(p -> p.info().commandLine().orElse("").contains("LocalModelServer"))).isEmpty();
  }
}

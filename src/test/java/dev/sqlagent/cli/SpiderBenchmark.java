package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.eval.Question;
import dev.sqlagent.eval.QuestionSet;
import dev.sqlagent.eval.RunFiles;
import dev.sqlagent.eval.RunStore;
import dev.sqlagent.eval.Summary;
import dev.sqlagent.eval.Verdict;
import dev.sqlagent.testing.BenchmarkMachine;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Spider dev in PostgreSQL (a benchmark written by others, {@code ../shared/bench/spider}): its databases loaded
 * into the embedded PostgreSQL, each database's questions asked against that database through {@code sql-agent
 * eval --database}, on the model of {@code SQLAGENT_LLM_BASE_URL} / {@code SQLAGENT_LLM_MODEL}, side by side:
 * the single-shot baseline, the agent (repair loop) and the agent with 3 candidates. Execution accuracy overall and
 * per Spider hardness (the question file's category labels), rescue rate, give-up rate, mean attempts, latency
 * p50/p95, prompt and completion tokens, and the machine's load. Measures only; asserts nothing about the model.
 *
 * <p>The default is a stratified subset (the same number of questions of each hardness, spread evenly over the
 * file's id order, so over the databases); {@code -Dspider.all=true} asks all 905.
 *
 * <pre>
 * SQLAGENT_LLM_BASE_URL=http://127.0.0.1:8080/v1 SQLAGENT_LLM_MODEL=local \
 *   mvn -B test -Dtest=SpiderBenchmark -Dgroups=benchmark -Dtest.excludedGroups= \
 *   [-Dspider.per.hardness=6] [-Dspider.all=true] [-Dspider.modes=both] [-Dspider.candidates=1,3] \
 *   [-Dspider.dir=../shared/bench/spider] [-Dspider.out=target/spider]
 * </pre>
 */
@Tag("benchmark")
class SpiderBenchmark {

  static final List<String> HARDNESS = List.of("spider-easy", "spider-medium", "spider-hard", "spider-extra");

  @Test
  void spiderDev() throws Exception {
    Path spider = Path.of(System.getProperty("spider.dir", "../shared/bench/spider")).toAbsolutePath().normalize();
    assertThat(spider.resolve("questions/all.jsonl")).as("the Spider benchmark directory (-Dspider.dir)").exists();
    List<Question> all = QuestionSet.load(spider.resolve("questions/all.jsonl"));
    Map<String, String> dbOf = databaseOfEachQuestion(spider);
    List<Question> chosen = Boolean.getBoolean("spider.all") ? all
        : stratified(all, Integer.getInteger("spider.per.hardness", 6));
    Path out = Path.of(System.getProperty("spider.out", "target/spider")).toAbsolutePath();
    Files.createDirectories(out);
    String modes = System.getProperty("spider.modes", "both");
    String candidates = System.getProperty("spider.candidates", "1,3");

    Map<String, List<Question>> byDb = new TreeMap<>();
    for (Question q : chosen) byDb.computeIfAbsent(dbOf.get(q.id()), k -> new ArrayList<>()).add(q);
    String loadBefore = BenchmarkMachine.loadAverage();
    long started = System.currentTimeMillis();
    System.out.printf("spider: %d questions over %d databases, modes %s, candidates %s, model %s at %s; load %s%n",
        chosen.size(), byDb.size(), modes, candidates, System.getenv("SQLAGENT_LLM_MODEL"),
        System.getenv("SQLAGENT_LLM_BASE_URL"), loadBefore);

    List<Verdict> verdicts = new ArrayList<>();
    for (Map.Entry<String, List<Question>> e : byDb.entrySet()) {
      String database = load(spider, e.getKey());
      Path file = out.resolve(e.getKey() + ".jsonl");
      RunFiles.writeLines(file, e.getValue().stream().map(Question::toJson).toList());
      Path runs = out.resolve("runs");
      String runDir = eval("--mode", modes, "--candidates", candidates, "--questions", file.toString(),
          "--database", database, "--out", runs.toString());
      for (JsonObject line : RunFiles.readLines(runs.resolve(runDir).resolve(RunStore.VERDICTS))) {
        verdicts.add(Verdict.fromJson(line));
      }
    }

    JsonObject summary = Summary.compute(verdicts, new JsonObject().put("run_id", "spider-dev")
        .put("questions", chosen.size()).put("runs", 1));
    summary.put("machine", new JsonObject().put("cores", Runtime.getRuntime().availableProcessors())
        .put("load_before", loadBefore).put("load_after", BenchmarkMachine.loadAverage())
        .put("wall_ms", System.currentTimeMillis() - started));
    Files.writeString(out.resolve("summary.json"), summary.encodePrettily(), StandardCharsets.UTF_8);
    System.out.println();
    System.out.print(Summary.table(summary));
    System.out.printf("machine: %d cores, load %s before, %s after, %d s wall%n", Runtime.getRuntime().availableProcessors(),
        loadBefore, BenchmarkMachine.loadAverage(), (System.currentTimeMillis() - started) / 1000);
    System.out.println("summary: " + out.resolve("summary.json"));
  }

  /**
   * {@code perHardness} questions of each hardness (all of them where fewer), taken at even steps through the
   * file's id order so that every database is represented about as often as in the whole set.
   */
  static List<Question> stratified(List<Question> all, int perHardness) {
    List<Question> out = new ArrayList<>();
    for (String h : HARDNESS) {
      List<Question> of = all.stream().filter(q -> q.category().wireName().equals(h)).toList();
      int n = Math.min(perHardness, of.size());
      for (int i = 0; i < n; i++) out.add(of.get((int) ((long) i * of.size() / n)));
    }
    return out;
  }

  private static Map<String, String> databaseOfEachQuestion(Path spider) throws Exception {
    Map<String, String> dbOf = new HashMap<>();
    try (Stream<String> lines = Files.lines(spider.resolve("manifest.txt"))) {
      for (String line : lines.filter(l -> !l.isBlank()).toList()) {
        String db = line.trim().split("\\s+")[0];
        for (Question q : QuestionSet.load(spider.resolve("questions/" + db + ".jsonl"))) dbOf.put(q.id(), db);
      }
    }
    return dbOf;
  }

  /**
   * Builds {@code spider_<db>} on the test server as load.sh does (C collation, the dump through psql), lets the
   * agent's read-only role read it, and checks its table count against the manifest. Returns its name.
   */
  private static String load(Path spider, String db) throws Exception {
    TestDatabase t = TestDatabase.get();
    String name = "spider_" + db.toLowerCase(Locale.ROOT);
    String ro = t.target().url().user();
    try (Connection c = t.adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name);
      s.execute("CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'");
    }
    PgUrl admin = t.adminUrl();
    ProcessBuilder psql = new ProcessBuilder("psql", "-h", admin.host(), "-p", String.valueOf(admin.port()), "-U",
        admin.user(), "-d", name, "-qX", "-v", "ON_ERROR_STOP=1", "-f", spider.resolve("dump/" + db + ".sql").toString())
        .redirectErrorStream(true);
    psql.environment().put("PGPASSWORD", admin.password());
    psql.environment().put("PGOPTIONS", "-c client_min_messages=warning");
    Process p = psql.start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0).as("psql loading " + db + ": " + said).isTrue();
    try (Connection c = t.adminConnection(name); Statement s = c.createStatement()) {
      s.execute("GRANT USAGE ON SCHEMA public TO " + ro);
      s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + ro);
      s.execute("ANALYZE");
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")) {
        rs.next();
        assertThat(rs.getInt(1)).as(name + " tables").isEqualTo(manifestTables(spider, db));
      }
    }
    return name;
  }

  private static int manifestTables(Path spider, String db) throws Exception {
    try (Stream<String> lines = Files.lines(spider.resolve("manifest.txt"))) {
      return lines.map(l -> l.trim().split("\\s+")).filter(f -> f[0].equals(db)).mapToInt(f -> Integer.parseInt(f[1]))
          .findFirst().orElseThrow();
    }
  }

  /** {@code sql-agent eval ARGS} on the test server with this process's model settings; the exported run's name. */
  private static String eval(String... args) {
    Map<String, String> env = new LinkedHashMap<>();
    System.getenv().forEach((k, v) -> {
      if (k.startsWith("SQLAGENT_LLM_") || k.equals("SQLAGENT_QUESTION_TIMEOUT_MS") || k.equals("SQLAGENT_PROMPT_BUDGET")
          || k.equals("SQLAGENT_CANDIDATE_TEMPERATURE")) {
        env.put(k, v);
      }
    });
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    Map<String, String> base = TestDatabase.get().env(env);
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == EvalCommand.class) {
          return cls.cast(new EvalCommand(overrides -> {
            Map<String, String> e = new HashMap<>(base);
            e.putAll(overrides);
            return AppConfig.load(e);
          }));
        }
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter err = new StringWriter();
    StringWriter out = new StringWriter();
    PrintWriter tee = new PrintWriter(new java.io.Writer() {
      @Override
      public void write(char[] b, int off, int len) {
        out.write(b, off, len);
        System.out.print(new String(b, off, len));
      }

      @Override
      public void flush() {
        System.out.flush();
      }

      @Override
      public void close() {
      }
    }, true);
    String[] full = Stream.concat(Stream.of("eval"), Stream.of(args)).toArray(String[]::new);
    int exit = new CommandLine(new Main(), factory).setOut(tee).setErr(new PrintWriter(err)).execute(full);
    assertThat(exit).as(out + "\n" + err).isZero();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("exported: (\\S+)").matcher(out.toString());
    assertThat(m.find()).as(out.toString()).isTrue();
    return Path.of(m.group(1)).getFileName().toString();
  }
}

package dev.sqlagent.own;

import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.db.PgUrl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.cli.Main;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Target;
import dev.sqlagent.drift.SchemaReader;
import dev.sqlagent.drift.SnapshotRepository;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The command line on a user's own database, through picocli's {@link Main} with the configuration a user
 * would set (the read-only role's URL): {@code status}, {@code ask}, {@code drift} and {@code eval --questions}
 * each print what a user needs and exit with the documented code, and none of them changes the database.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OwnCliTest {

  static final String SHIPPED_PER_CUSTOMER = "SELECT c.display_name, count(*) AS n FROM sales.orders o"
      + " JOIN customers c ON c.customer_no = o.customer_no WHERE o.status = 'shipped' GROUP BY c.display_name"
      + " ORDER BY c.display_name";
  static final String REVENUE_2025 = "SELECT sum(r.\"Revenue\") AS revenue FROM \"Reporting\".\"MonthlyRevenue\" r"
      + " WHERE r.\"Month\" >= DATE '2025-01-01'";

  static OwnDatabase own;
  static TreeSet<String> before;
  static FakeModelServer model;

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
    before = own.fingerprint();
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String q = FakeModelServer.lastUserMessage(req);
      if (q.contains("order 1")) return Reply.sql(OwnDatabase.ORDER_ONE_LINES);
      if (q.contains("per customer")) return Reply.sql(SHIPPED_PER_CUSTOMER);
      if (q.contains("revenue in 2025")) return Reply.sql(REVENUE_2025);
      if (q.contains("How many customers")) return Reply.sql(OwnDatabase.COUNT_CUSTOMERS);
      return Reply.refusal("this database has no such data");
    });
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (model != null) model.close();
    } finally {
      if (own != null) own.close();
    }
  }

  record Run(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- out\n" + out + "\n--- err\n" + err;
    }
  }

  /** sql-agent ARGS through Main, every command's configuration being {@code config}. */
  static Run run(Supplier<AppConfig> config, String... args) {
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        for (var ctor : cls.getDeclaredConstructors()) {
          if (ctor.getParameterCount() == 1 && ctor.getParameterTypes()[0] == Supplier.class) {
            ctor.setAccessible(true);
            return cls.cast(ctor.newInstance(config));
          }
          // eval takes settings to put over its configuration (--database); these tests give it none.
          if (ctor.getParameterCount() == 1 && ctor.getParameterTypes()[0] == java.util.function.Function.class) {
            ctor.setAccessible(true);
            java.util.function.Function<Map<String, String>, AppConfig> withOverrides = overrides -> {
              if (!overrides.isEmpty()) throw new IllegalArgumentException("no overrides here: " + overrides);
              return config.get();
            };
            return cls.cast(ctor.newInstance(withOverrides));
          }
        }
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true))
        .execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  static Supplier<AppConfig> asReader(Map<String, String> overrides) {
    return () -> own.config(own.roUrl(), overrides);
  }

  static Supplier<AppConfig> asReader() {
    return asReader(model.env());
  }

  @Test
  @Order(1)
  void statusProvesTheRoleReadOnlyAndCountsWhatItMayRead() throws Exception {
    Run r = run(asReader(), "status");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString())
        .containsPattern("read-only: not_superuser\\s+ok")
        .containsPattern("read-only: no_table_writes\\s+ok")
        .containsPattern("read-only: owns_nothing\\s+ok")
        .containsPattern("relations the agent can read\\s+ok\\s+5 in 3 schema\\(s\\) of " + own.name + "; 1 more it may not read")
        .containsPattern("state store connection\\s+ok")
        .doesNotContain("FAIL");
    own.assertUnchanged(before);

    // The owner's URL: status reports the role as writable and exits 1 (it reports, it does not refuse to look).
    Run owner = run(() -> own.config(own.ownerUrl(), model.env()), "status");
    assertThat(owner.exit()).as(owner.toString()).isEqualTo(1);
    assertThat(owner.out()).as(owner.toString()).containsPattern("read-only: no_table_writes\\s+FAIL\\s+INSERT on \"Reporting\"\\.\"MonthlyRevenue\"; .*INSERT on hr\\.salaries")
        .containsPattern("read-only: owns_nothing\\s+FAIL\\s+owns schema")
        .contains("can write");
    own.assertUnchanged(before);

    // sslmode=require on a server without TLS: every check says so in words, the reactive discovery too.
    Run tls = run(() -> own.config(PgUrl.parse(own.roUrl().withSecret() + "&sslmode=require"), model.env()), "status");
    assertThat(tls.exit()).as(tls.toString()).isEqualTo(1);
    assertThat(tls.out()).as(tls.toString())
        .containsPattern("target connection \\(agent role\\)\\s+FAIL\\s+failed: \\S+ the server does not offer TLS \\(sslmode=require\\)")
        .containsPattern("relations the agent can read\\s+FAIL\\s+discovery failed: the server does not offer TLS \\(sslmode=require\\)")
        .doesNotContain("Postgres Server", "Exception");
  }

  @Test
  @Order(2)
  void driftWithoutASnapshotSaysHowToGetOne() throws Exception {
    Run r = run(asReader(), "drift");
    assertThat(r.exit()).as(r.toString()).isEqualTo(2);
    assertThat(r.err()).as(r.toString()).contains("no schema snapshot", "sql-agent serve");
    own.assertUnchanged(before);
  }

  @Test
  @Order(3)
  void learnAndACsvExportReadTheTargetAndLeaveItAsItWas() throws Exception {
    Run learned = run(asReader(), "learn");
    assertThat(learned.exit()).as(learned.toString()).isZero();
    assertThat(learned.out()).as(learned.toString()).contains("pg_stat_statements");
    own.assertUnchanged(before);

    Run csv = run(asReader(), "ask", "--format", "csv", "What did order 1 contain?");
    assertThat(csv.exit()).as(csv.toString()).isZero();
    assertThat(csv.out()).as(csv.toString()).contains("Analytical Engine");
    own.assertUnchanged(before);
  }

  @Test
  @Order(3)
  void askPrintsTheAttemptTheAnswerAndTheSqlWithQuotedNames() throws Exception {
    Run r = run(asReader(), "ask", "What did order 1 contain?");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString())
        .contains("attempt 1: " + OwnDatabase.ORDER_ONE_LINES)
        .contains("ran: 2 rows")
        .contains("ANSWER:")
        .contains("Analytical Engine")
        .contains("SQL: " + OwnDatabase.ORDER_ONE_LINES)
        .contains("attempts: 1");
    own.assertUnchanged(before);

    Run refused = run(asReader(), "ask", "Who earns the most?");
    assertThat(refused.exit()).as(refused.toString()).isZero();
    assertThat(refused.out()).as(refused.toString()).contains("REFUSED: this database has no such data");
    own.assertUnchanged(before);
  }

  @Test
  @Order(4)
  void driftComparesTheLiveSchemaWithTheSnapshot() throws Exception {
    // The snapshot the service writes when its index is built, written here directly (deterministic).
    AppConfig config = asReader().get();
    Target target = new Target(config.dbUrl().orElseThrow(), false);
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try {
      new SnapshotRepository(StateDatabase.open(vertx, TestDatabase.get().state(), 1)).write(target.key(),
          SchemaReader.shape(target.key(), Discovery.readBlocking(target.roOptions(), List.of())))
          .await(30, java.util.concurrent.TimeUnit.SECONDS);
    } finally {
      vertx.close().await(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    Run same = run(asReader(), "drift");
    assertThat(same.exit()).as(same.toString()).isZero();
    assertThat(same.out()).as(same.toString()).contains("live:     5 tables").contains("no drift");
    own.assertUnchanged(before);
  }

  @Test
  @Order(5)
  void evalGradesItsOwnQuestionFileOnThisDatabase(@TempDir Path dir) throws Exception {
    Path questions = dir.resolve("questions.jsonl");
    Files.writeString(questions, String.join("\n",
        q("own-1", "simple", "How many customers are there?", OwnDatabase.COUNT_CUSTOMERS, false),
        q("own-2", "simple", "What did order 1 contain, with unit prices?", OwnDatabase.ORDER_ONE_LINES, true),
        q("own-3", "join", "How many shipped orders per customer?", SHIPPED_PER_CUSTOMER, false),
        q("own-4", "hard", "What was the revenue in 2025?", REVENUE_2025, false),
        "{\"id\": \"own-5\", \"category\": \"unanswerable\", \"question\": \"Who earns the most?\"}") + "\n");
    Path out = dir.resolve("runs");
    Run r = run(asReader(), "eval", "--questions", questions.toString(), "--mode", "agent", "--out", out.toString());
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString())
        .contains("evaluating 5 questions, mode agent")
        .containsPattern("accuracy\\s+100\\.0% \\(5/5\\)")
        .containsPattern("correct refusals\\s+1 of 1")
        .containsPattern("false refusals\\s+0")
        .contains("saved: run ").contains("in the state store").contains("exported: " + out);
    own.assertUnchanged(before);
  }

  @Test
  @Order(6)
  void driftSeesARenamedMixedCaseColumn() throws Exception {
    own.exec("ALTER TABLE sales.\"LineItems\" RENAME COLUMN \"UnitPrice\" TO unit_price");
    Run r = run(asReader(), "drift");
    assertThat(r.exit()).as(r.toString()).isEqualTo(1);
    assertThat(r.out()).as(r.toString()).contains("DRIFT").contains("UnitPrice");
  }

  private static String q(String id, String category, String question, String gold, boolean orderMatters) {
    return new io.vertx.core.json.JsonObject().put("id", id).put("category", category).put("question", question)
        .put("gold_sql", gold).put("order_matters", orderMatters).encode();
  }
}

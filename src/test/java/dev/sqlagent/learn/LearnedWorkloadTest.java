package dev.sqlagent.learn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.cli.LearnCommand;
import dev.sqlagent.cli.Status;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.contract.LearnedMessages;
import dev.sqlagent.contract.LearnedMessages.Join;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import dev.sqlagent.execution.ExecutionVerticle;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.notes.NotesFile;
import dev.sqlagent.retrieval.JoinPaths;
import dev.sqlagent.retrieval.RetrievalVerticle;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.state.StateStore;
import io.vertx.core.Vertx;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Learning from a recorded workload on a database that is not the demo and declares no foreign keys, in a server of
 * this test's own with {@code pg_stat_statements} loaded: the queries run through the gate as the read-only agent
 * role, the query log and the verified queries live in a state store on the same server.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LearnedWorkloadTest {

  static final String PASSWORD = "learn-pw";
  static EmbeddedPostgres pg;
  static Target target;
  static StateStore state;
  static Vertx vertx;
  static GateClient gate;
  static Path home;

  /** The clinic's tables people join, and 36 more no query uses: over 30 tables, so join paths are completed. */
  static final List<String> DDL = List.of(
      "CREATE TABLE patients (id int PRIMARY KEY, full_name text, born_on date)",
      "CREATE TABLE doctors (id int PRIMARY KEY, name text, specialty text, hired_on date)",
      "CREATE TABLE visits (id int PRIMARY KEY, patient_ref int, doctor_ref int, visited_on date, deleted_at timestamptz)",
      "CREATE TABLE prescriptions (id int PRIMARY KEY, visit_ref int, drug_ref int, dose numeric)",
      "CREATE TABLE drugs (id int PRIMARY KEY, name text, maker text)",
      "INSERT INTO patients VALUES (1, 'Ann Lee', '1990-01-01'), (2, 'Bo Chan', '1985-05-05')",
      "INSERT INTO doctors VALUES (1, 'Ann Lee', 'cardiology', '1990-01-01'), (2, 'Cy Park', 'oncology', '2001-02-03')",
      "INSERT INTO visits VALUES (1, 1, 1, '2026-01-01', NULL), (2, 2, 2, '2026-02-01', NULL), (3, 1, 2, '2026-03-01', now())",
      "INSERT INTO prescriptions VALUES (1, 1, 1, 5), (2, 2, 2, 10)",
      "INSERT INTO drugs VALUES (1, 'aspirin', 'Ann Lee'), (2, 'statin', 'Acme')");

  @BeforeAll
  static void start() throws Exception {
    pg = EmbeddedPostgres.builder().setServerConfig("shared_preload_libraries", "pg_stat_statements")
        .setServerConfig("timezone", "UTC").start();
    try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE ROLE clinic_reader LOGIN PASSWORD '" + PASSWORD + "'");
      s.execute("CREATE ROLE clinic_state LOGIN CREATEROLE PASSWORD '" + PASSWORD + "'");
      s.execute("CREATE DATABASE clinic");
      s.execute("CREATE DATABASE clinic_state OWNER clinic_state");
      s.execute("GRANT CONNECT ON DATABASE clinic TO clinic_reader");
    }
    try (Connection c = pg.getDatabase("postgres", "clinic").getConnection(); Statement s = c.createStatement()) {
      for (String d : DDL) s.execute(d);
      for (int i = 0; i < 36; i++) s.execute("CREATE TABLE archive_batch_" + i + " (id int PRIMARY KEY, payload text)");
      s.execute("CREATE EXTENSION pg_stat_statements");
      // A table an extension owns (as PostGIS owns geometry_columns): not the user's, whatever its name.
      s.execute("CREATE TABLE geometry_columns (f_table_name text, srid int)");
      s.execute("ALTER EXTENSION pg_stat_statements ADD TABLE geometry_columns");
      s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO clinic_reader");
      s.execute("ANALYZE");
    }
    PgUrl admin = new PgUrl("localhost", pg.getPort(), "postgres", "postgres", "postgres");
    target = new Target(admin.withUser("clinic_reader", PASSWORD).withDatabase("clinic"), false);
    state = new StateStore(admin.withUser("clinic_state", PASSWORD).withDatabase("clinic_state"), "log-" + PASSWORD);
    state.migrate();
    home = Files.createTempDirectory("sql-agent-learn");
    vertx = Vertx.vertx();
    vertx.deployVerticle(new ExecutionVerticle(target, Gate.Settings.from(config()))).await(60, TimeUnit.SECONDS);
    gate = new GateClient(vertx, 60_000);
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) vertx.close().await(60, TimeUnit.SECONDS);
    if (pg != null) pg.close();
  }

  static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("SQLAGENT_DB_URL", target.url().withSecret());
    env.put("SQLAGENT_STATE_URL", state.owner().withSecret());
    env.put("SQLAGENT_HOME", home.toString());
    env.put("SQLAGENT_HTTP_PORT", "0");
    return env;
  }

  static AppConfig config() {
    return AppConfig.load(env());
  }

  static GateReply run(String sql) throws Exception {
    return gate.execute(GateRequest.run(sql)).await(60, TimeUnit.SECONDS);
  }

  static Catalogue catalogue() {
    return Discovery.readBlocking(target.roOptions(), List.of());
  }

  static LearnedMessages.Report learn() throws Exception {
    Vertx v = Vertx.vertx();
    try {
      var pool = io.vertx.pgclient.PgBuilder.pool().connectingTo(target.roOptions()).using(v).build();
      StateDatabase store = StateDatabase.open(v, state, 1);
      return new Learner(dev.sqlagent.catalogue.TargetReader.over(pool, new dev.sqlagent.catalogue.TargetReader.Timeouts(5_000,
          1_000)), store.owner(), target.key()).learn(v, catalogue()).await(120, TimeUnit.SECONDS);
    } finally {
      v.close().await(30, TimeUnit.SECONDS);
    }
  }

  static List<String> joins(LearnedMessages.Report r) {
    return r.joins().stream().map(Join::describe).toList();
  }

  static void logAnswer(String runId, String sql, boolean gaveUp, boolean refused, Integer rows) throws Exception {
    try (Connection c = state.ownerConnection(); var ps = c.prepareStatement("INSERT INTO agent_query_log (run_id, question,"
        + " asked_at, mode, source, final_sql, attempts_used, gave_up, refused, rows_returned) VALUES (?, 'q', now(), 'agent',"
        + " 'http', ?, 1, ?, ?, ?)")) {
      ps.setString(1, runId);
      ps.setString(2, sql);
      ps.setBoolean(3, gaveUp);
      ps.setBoolean(4, refused);
      ps.setObject(5, rows);
      ps.executeUpdate();
    }
  }

  @Test
  @Order(1)
  void extensionRelationsAreNotOfferedAndTheGateHidesThem() throws Exception {
    Catalogue cat = catalogue();
    assertThat(cat.names()).contains("patients", "visits").doesNotContain("pg_stat_statements", "pg_stat_statements_info",
        "geometry_columns");
    assertThat(cat.hidden()).contains("public.geometry_columns", "geometry_columns", "public.pg_stat_statements");
    GateReply refused = run("SELECT f_table_name FROM geometry_columns");
    assertThat(refused.ok()).isFalse();
    assertThat(refused.error().message()).contains("geometry_columns is not a table you can query");
    assertThat(run("SELECT count(*) FROM patients").ok()).isTrue();
  }

  @Test
  @Order(2)
  void statusSaysWhetherPgStatStatementsIsReadableAndWhatEnablesMore() {
    List<Status.Check> checks = Status.run(target, state, List.of());
    Status.Check line = checks.stream().filter(c -> c.name().startsWith("pg_stat_statements")).findFirst().orElseThrow();
    assertThat(line.detail()).contains("own statements only", "GRANT pg_read_all_stats TO clinic_reader");
  }

  @Test
  @Order(3)
  void aRecordedWorkloadCompletesJoinPathsItCouldNotBefore() throws Exception {
    Catalogue before = catalogue();
    List<ScoredTable> chosen = List.of(new ScoredTable("doctors", 0.9), new ScoredTable("drugs", 0.8));
    assertThat(JoinPaths.complete(JoinPaths.graph(before, learn().joins()), chosen, chosen, 4)).isEqualTo(chosen);

    // Answered through the gate (so in pg_stat_statements, as the agent role's own statements).
    for (int i = 0; i < 3; i++) {
      assertThat(run("SELECT d.name, count(*) FROM visits v JOIN doctors d ON d.id = v.doctor_ref"
          + " WHERE v.deleted_at IS NULL GROUP BY d.name").ok()).isTrue();
    }
    assertThat(run("SELECT count(*) FROM prescriptions p, visits v WHERE v.id = p.visit_ref AND v.deleted_at IS NULL").ok()).isTrue();
    // In the query log only (an answered question), and in the verified queries only.
    logAnswer("run-answered", "SELECT dr.name, sum(p.dose) FROM prescriptions p JOIN drugs dr ON dr.id = p.drug_ref GROUP BY 1",
        false, false, 2);
    try (Connection c = state.ownerConnection(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO verified_queries (target, question, sql, vector, checked_at) VALUES ('" + target.key()
          + "', 'visits per patient', 'SELECT p.full_name, count(*) FROM patients p JOIN visits v ON v.patient_ref = p.id"
          + " WHERE v.deleted_at IS NULL GROUP BY 1', '{0.1}', now())");
    }
    // Refused and failed: nothing is learned from them.
    GateReply refused = run("SELECT pg_sleep(0), d.specialty FROM doctors d JOIN drugs x ON x.maker = d.name");
    assertThat(refused.ok()).isFalse();
    GateReply failed = run("SELECT p.full_name::int FROM patients p JOIN doctors d ON d.hired_on = p.born_on");
    assertThat(failed.ok()).isFalse();
    logAnswer("run-gave-up", "SELECT 1 FROM drugs x JOIN doctors d ON d.specialty = x.name", true, false, null);
    logAnswer("run-refused", "SELECT 1 FROM drugs x JOIN patients p ON p.full_name = x.maker", false, true, null);

    LearnedMessages.Report report = learn();
    assertThat(report.sources()).extracting(LearnedMessages.Source::name, LearnedMessages.Source::read)
        .contains(org.assertj.core.groups.Tuple.tuple("pg_stat_statements", true),
            org.assertj.core.groups.Tuple.tuple("query_log", true), org.assertj.core.groups.Tuple.tuple("verified", true));
    assertThat(joins(report)).contains("doctors.id = visits.doctor_ref", "prescriptions.visit_ref = visits.id",
        "drugs.id = prescriptions.drug_ref", "patients.id = visits.patient_ref");
    assertThat(joins(report)).doesNotContain("doctors.name = drugs.maker", "doctors.hired_on = patients.born_on",
        "doctors.specialty = drugs.name", "drugs.maker = patients.full_name");
    Join doctorVisits = report.joins().stream().filter(j -> j.describe().equals("doctors.id = visits.doctor_ref")).findFirst().orElseThrow();
    assertThat(doctorVisits.evidence()).extracting(LearnedMessages.Evidence::source).contains("pg_stat_statements");
    assertThat(doctorVisits.count()).isGreaterThanOrEqualTo(3);
    Join drugs = report.joins().stream().filter(j -> j.describe().equals("drugs.id = prescriptions.drug_ref")).findFirst().orElseThrow();
    assertThat(drugs.evidence()).extracting(LearnedMessages.Evidence::source).containsExactly("query_log");
    assertThat(drugs.lastSeen()).isNotNull();

    List<ScoredTable> done = JoinPaths.complete(JoinPaths.graph(catalogue(), report.joins()), chosen, chosen, 4);
    assertThat(done).extracting(ScoredTable::name).containsExactly("doctors", "drugs", "visits", "prescriptions");
    assertThat(done.get(2).via()).startsWith("join path: doctors - visits - prescriptions - drugs (learned: ");

    // The convention every query of visits keeps is a suggestion, not prompt text.
    assertThat(report.suggestions()).anySatisfy(s -> {
      assertThat(s.kind()).isEqualTo("soft_delete");
      assertThat(s.table()).isEqualTo("visits");
      assertThat(s.predicate()).isEqualTo("deleted_at IS NULL");
    });
  }

  @Test
  @Order(4)
  void learnPrintsTheEvidenceAndWritesANotesFragmentThatLoads() throws Exception {
    Path fragment = home.resolve("learned-notes.yaml");
    var out = new java.io.StringWriter();
    picocli.CommandLine.IFactory factory = new picocli.CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == LearnCommand.class) return cls.cast(new LearnCommand(LearnedWorkloadTest::config));
        return picocli.CommandLine.defaultFactory().create(cls);
      }
    };
    int code = new picocli.CommandLine(new dev.sqlagent.cli.Main(), factory).setOut(new java.io.PrintWriter(out))
        .execute("learn", "--write", fragment.toString());
    assertThat(code).isZero();
    assertThat(out.toString()).contains("pg_stat_statements", "doctors.id = visits.doctor_ref",
        "visits: deleted_at IS NULL", "not used until you add them to the notes file");
    String yaml = Files.readString(fragment);
    assertThat(yaml).contains("conventions:", "- tables: ['visits']", "deleted_at IS NULL");
    Notes notes = NotesFile.load(fragment);
    assertThat(notes.conventionsFor(List.of("visits"))).anySatisfy(c -> assertThat(c).contains("deleted_at IS NULL"));
  }

  @Test
  @Order(5)
  void retrievalServesWhatItLearnedAndADroppedColumnsJoinDisappearsOnRefresh() throws Exception {
    vertx.deployVerticle(new RetrievalVerticle(target, StateDatabase.open(vertx, state, 2), config()))
        .await(300, TimeUnit.SECONDS);
    RetrievalClient retrieval = new RetrievalClient(vertx, 120_000);
    assertThat(joins(retrieval.learned().await(120, TimeUnit.SECONDS))).contains("drugs.id = prescriptions.drug_ref",
        "doctors.id = visits.doctor_ref");
    // The prompt's schema says how the offered tables join when only the workload knows it.
    var asked = retrieval.retrieve(new dev.sqlagent.contract.Retrieval.Request("How many visits did each doctor have?", false))
        .await(120, TimeUnit.SECONDS);
    assertThat(asked.tableNames()).contains("visits", "doctors");
    assertThat(asked.schema()).contains("Joins this database's workload runs", "-- doctors.id = visits.doctor_ref (run ");
    try (Connection c = pg.getDatabase("postgres", "clinic").getConnection(); Statement s = c.createStatement()) {
      s.execute("ALTER TABLE prescriptions DROP COLUMN drug_ref");
    }
    retrieval.refresh(300_000).await(300, TimeUnit.SECONDS);
    List<String> after = joins(retrieval.learned().await(120, TimeUnit.SECONDS));
    assertThat(after).doesNotContain("drugs.id = prescriptions.drug_ref").contains("doctors.id = visits.doctor_ref");
  }
}

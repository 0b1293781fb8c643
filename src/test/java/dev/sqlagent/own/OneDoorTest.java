package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * As a DBA would try it: dblink installed, a {@code SECURITY DEFINER} logging helper that writes through dblink into
 * an audit table, a view of 25 visitors that calls it for every row, and a read-only role that may SELECT the view.
 * Reading a row of the view writes a row of the audit table, and the read-only transaction cannot stop it. Every
 * command and the service are run as that role (before any REVOKE, and with the override), and the audit table stays
 * empty: no code reads the view's rows outside the gate, and the gate refuses it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OneDoorTest {

  static OwnDatabase own;
  static FakeModelServer model;

  @BeforeAll
  static void build() throws Exception {
    own = OwnDatabase.create();
    String connect = "host=localhost port=" + TestDatabase.get().adminUrl().port() + " dbname=" + own.name + " user="
        + own.owner + " password=" + own.ownerPassword;
    own.exec(
        "CREATE EXTENSION dblink SCHEMA public",
        "GRANT EXECUTE ON FUNCTION public.dblink_connect_u(text, text) TO " + own.owner,
        "SET ROLE " + own.owner,
        "CREATE TABLE public.audit_log (id serial PRIMARY KEY, note text)",
        "CREATE FUNCTION public.log_view(p text) RETURNS int LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN"
            + " PERFORM public.dblink_connect_u('w', '" + connect + "');"
            + " PERFORM public.dblink_exec('w', format('INSERT INTO public.audit_log (note) VALUES (%L)', p));"
            + " PERFORM public.dblink_disconnect('w'); RETURN 1; END $$",
        "CREATE TABLE public.visitors (visitor_id int PRIMARY KEY, email text NOT NULL)",
        "INSERT INTO public.visitors SELECT i, 'visitor' || i || '@example.org' FROM generate_series(1, 25) i",
        "CREATE VIEW public.visitor_views AS SELECT v.visitor_id, v.email, public.log_view(v.email) AS logged"
            + " FROM public.visitors v",
        // A generated column over the helper: it ran when the row was written; reading it is refused all the same.
        "CREATE FUNCTION public.stamp(p text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN"
            + " RETURN p || public.log_view(p); END $$",
        "CREATE TABLE public.stamped (id int PRIMARY KEY, note text, stamp text GENERATED ALWAYS AS (public.stamp(note)) STORED)",
        "INSERT INTO public.stamped (id, note) VALUES (1, 'one')",
        "RESET ROLE",
        "GRANT SELECT ON public.visitors, public.visitor_views, public.audit_log, public.stamped TO " + own.ro);
    // The hole is real: reading the view as the read-only role writes, from inside a read-only transaction.
    try (Connection ro = own.roUrl().connect("test"); Statement s = ro.createStatement()) {
      s.execute("BEGIN READ ONLY");
      s.executeQuery("SELECT * FROM public.visitor_views LIMIT 2").close();
      s.execute("ROLLBACK");
    }
    assertThat(auditRows()).as("the view wrote through dblink; the rollback undid nothing").isEqualTo(3);
    own.exec("TRUNCATE public.audit_log");

    model = FakeModelServer.start();
    // A model that goes straight for the view: the gate must refuse it.
    model.respondWith(req -> Reply.sql("SELECT visitor_id, email, logged FROM visitor_views"));
  }

  @AfterAll
  static void close() throws Exception {
    try {
      if (model != null) model.close();
    } finally {
      if (own != null) own.close();
    }
  }

  /** Each test counts the rows its own commands wrote. */
  @BeforeEach
  void emptyTheAuditLog() throws Exception {
    own.exec("TRUNCATE public.audit_log");
  }

  static long auditRows() throws Exception {
    try (Connection c = own.admin(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM public.audit_log")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static Supplier<AppConfig> asReader(boolean allowWritable) {
    Map<String, String> env = new HashMap<>(model.env());
    if (allowWritable) env.put("SQLAGENT_ALLOW_WRITABLE_ROLE", "true");
    return () -> own.config(own.roUrl(), env);
  }

  @Test
  @Order(1)
  void statusBeforeAnyRevokeReadsTheCatalogueOnly() throws Exception {
    OwnCliTest.Run r = OwnCliTest.run(asReader(false), "status");
    assertThat(r.exit()).as(r.toString()).isEqualTo(1);
    assertThat(r.out()).as(r.toString()).contains("no_escape_functions", "public.log_view(text)")
        .contains("from the columns' names only: the agent role was not proven read-only, so no values were read")
        // the name alone still says what the column is
        .contains("looks sensitive: visitors.email");
    assertThat(auditRows()).as(r.toString()).isZero();
  }

  @Test
  @Order(2)
  void statusWithTheOverrideReadsNoDataEither() throws Exception {
    OwnCliTest.Run r = OwnCliTest.run(asReader(true), "status");
    assertThat(r.out()).as(r.toString()).contains("no values were read");
    assertThat(auditRows()).as(r.toString()).isZero();
  }

  @Test
  @Order(3)
  void learnGrantCheckAndEvalWriteNothing(@TempDir Path dir) throws Exception {
    OwnCliTest.Run learned = OwnCliTest.run(asReader(true), "learn");
    assertThat(learned.exit()).as(learned.toString()).isZero();
    assertThat(auditRows()).as(learned.toString()).isZero();

    OwnCliTest.Run grant = OwnCliTest.run(() -> own.config(own.adminUrl(), Map.of()), "grant", "--schemas", "public");
    assertThat(grant.exit()).as(grant.toString()).isZero();
    assertThat(auditRows()).as(grant.toString()).isZero();

    Path lines = dir.resolve("check.jsonl");
    Files.writeString(lines, "{\"id\": \"v\", \"sql\": \"SELECT * FROM visitor_views\"}\n"
        + "{\"id\": \"c\", \"sql\": \"SELECT count(*) FROM public.visitor_views\"}\n");
    OwnCliTest.Run check = OwnCliTest.run(asReader(true), "check", "--jsonl", lines.toString(), "--run");
    assertThat(check.out()).as(check.toString()).contains("\"rejected\"").contains("visitor_views calls public.log_view");
    assertThat(auditRows()).as(check.toString()).isZero();

    Path questions = dir.resolve("questions.jsonl");
    Files.writeString(questions, new io.vertx.core.json.JsonObject().put("id", "v-1").put("category", "simple")
        .put("question", "How many visitors are there?").put("gold_sql", "SELECT count(*) AS n FROM visitors")
        .put("order_matters", false).encode() + "\n");
    OwnCliTest.Run eval = OwnCliTest.run(asReader(true), "eval", "--questions", questions.toString(), "--mode",
        "agent", "--out", dir.resolve("runs").toString());
    assertThat(eval.out() + eval.err()).as(eval.toString()).contains("evaluating 1 question");
    assertThat(auditRows()).as(eval.toString()).isZero();
  }

  @Test
  @Order(4)
  void theServiceItsQuestionsAndMcpSampleRowsWriteNothing() throws Exception {
    try (OwnService service = OwnService.start(asReader(true).get())) {
      service.awaitIndex();  // stored values and the catalogue's counts are read by now
      io.vertx.core.json.JsonObject answer = service.ask("How many visitors were logged?");
      assertThat(answer.getBoolean("gave_up")).as(answer.encodePrettily()).isTrue();
      var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + service.port()).endpoint("/mcp")
          .requestBuilder(HttpRequest.newBuilder()).build();
      McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60)).build();
      try {
        client.initialize();
        McpSchema.CallToolResult sample = client.callTool(new McpSchema.CallToolRequest("sample_rows",
            Map.of("name", "visitor_views", "n", 10)));
        assertThat(sample.isError()).isTrue();
        assertThat(((McpSchema.TextContent) sample.content().get(0)).text()).contains("public.log_view(text)",
            "not read");
        McpSchema.CallToolResult stamped = client.callTool(new McpSchema.CallToolRequest("sample_rows",
            Map.of("name", "stamped", "n", 1)));
        assertThat(stamped.isError()).isTrue();
        assertThat(((McpSchema.TextContent) stamped.content().get(0)).text())
            .contains("A generated column of public.stamped calls the user function public.stamp(text)");
        McpSchema.CallToolResult visitors = client.callTool(new McpSchema.CallToolRequest("sample_rows",
            Map.of("name", "visitors", "n", 3)));
        assertThat(visitors.isError()).as(String.valueOf(visitors.content())).isFalse();
      } finally {
        client.closeGracefully();
      }
      var health = service.get("/api/health").bodyAsJsonObject();
      assertThat(health.getBoolean("read_only_confirmed")).isFalse();
    }
    assertThat(auditRows()).isZero();
  }

  @Test
  @Order(5)
  void anEscapeCapableExtensionsFunctionCannotBeAccepted() {
    Map<String, String> env = Map.of("SQLAGENT_ACCEPT_EXECUTABLE", "public.dblink_exec, public.log_view",
        "SQLAGENT_ALLOW_WRITABLE_ROLE", "true");
    assertThatThrownBy(() -> Databases.open(own.config(own.roUrl(), env)).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("SQLAGENT_ACCEPT_EXECUTABLE names a function of an extension that opens connections")
        .hasMessageContaining("public.dblink_exec(text, text) is a function of extension dblink")
        .hasMessageContaining("SQLAGENT_ACCEPT_EXECUTABLE cannot accept it; REVOKE EXECUTE ON FUNCTION "
            + "public.dblink_exec(text, text) FROM PUBLIC;");
  }
}

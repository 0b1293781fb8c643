package dev.sqlagent.own;

import dev.sqlagent.contract.GateRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.ReadOnlyProof;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.execution.StaticCheck;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A database built the way many applications are: dblink installed (its functions executable by PUBLIC, as
 * PostgreSQL grants every new function), a {@code SECURITY DEFINER} helper that writes through dblink's own
 * connection, an IMMUTABLE function, an operator, a view and a domain over it, and ordinary objects beside them (a
 * user aggregate a view uses, an IMMUTABLE SQL function). The read-only transaction cannot stop the helper: the test
 * first shows it writing from inside {@code BEGIN READ ONLY}. Then: the start is refused naming the functions and
 * the REVOKEs; {@code grant} prints them; with the override every route to the helper is refused by the gate while
 * ordinary queries run; a user function is refused until allowed; after the REVOKEs the role is proven read-only.
 * The table any write would touch stays byte-identical throughout.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OwnFunctionsTest {

  static OwnDatabase own;
  static TreeSet<String> before;

  /** Each route to the writing helper, and a word its refusal must name. */
  static final Map<String, String> ROUTES = new LinkedHashMap<>();

  static {
    ROUTES.put("SELECT log_view('a')", "public.log_view(text)");
    ROUTES.put("SELECT public.log_view('a')", "public.log_view(text)");
    ROUTES.put("SELECT \"public\".\"log_view\"('a')", "public.log_view(text)");
    ROUTES.put("SELECT log_view(display_name) FROM customers", "public.log_view(text)");
    ROUTES.put("SELECT customer_no FROM customers WHERE log_view(display_name) = 1", "public.log_view(text)");
    ROUTES.put("WITH x AS (SELECT log_view('a') AS v) SELECT v FROM x", "public.log_view(text)");
    ROUTES.put("SELECT pretty('a')", "public.pretty(text)");
    ROUTES.put("SELECT 'a' === 'b'", "public.touch(text, text)");
    ROUTES.put("SELECT 'a' OPERATOR(public.===) 'b'", "public.touch(text, text)");
    ROUTES.put("SELECT * FROM customer_views", "customer_views");
    ROUTES.put("SELECT count(*) FROM public.customer_views", "customer_views");
    ROUTES.put("SELECT 'a'::logged_text", "logged_text");
    ROUTES.put("SELECT CAST('a' AS public.logged_text)", "logged_text");
    ROUTES.put("SELECT dblink_exec('dbname=x', 'DELETE FROM customers')", "dblink_exec");
    ROUTES.put("SELECT * FROM jsonb_populate_record(NULL::tagged, '{\"id\": 1, \"t\": \"x\"}')", "tagged");
    ROUTES.put("SELECT note FROM secrets", "row-level security policy of public.secrets");
    ROUTES.put("SELECT * FROM XMLTABLE('/r' PASSING '<r><t>x</t></r>'::xml COLUMNS t logged_text PATH 't')", "logged_text");
    // A view over the IMMUTABLE wrapper: the wrapper's body is opaque, and this role may execute log_view.
    ROUTES.put("SELECT * FROM pretty_views", "The view public.pretty_views calls the user function public.pretty(text)");
  }

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
        "CREATE FUNCTION public.pretty(p text) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN public.log_view(p); END $$",
        "CREATE FUNCTION public.touch(text, text) RETURNS boolean LANGUAGE sql AS 'SELECT public.log_view($1) = 1'",
        "CREATE OPERATOR public.=== (LEFTARG = text, RIGHTARG = text, FUNCTION = public.touch)",
        "CREATE VIEW public.customer_views AS SELECT c.customer_no, public.log_view(c.display_name) AS logged FROM public.customers c",
        "CREATE DOMAIN public.logged_text AS text CHECK (public.log_view(VALUE) = 1)",
        "CREATE VIEW public.pretty_views AS SELECT c.customer_no, public.pretty(c.display_name) AS p FROM public.customers c",
        "CREATE FUNCTION public._gc(text, text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce($1 || ', ', '') || $2 $$",
        "CREATE AGGREGATE public.group_concat(text) (SFUNC = public._gc, STYPE = text)",
        "CREATE VIEW public.customer_list AS SELECT public.group_concat(display_name ORDER BY customer_no) AS names FROM public.customers",
        "CREATE FUNCTION public.twice(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2'",
        "CREATE TABLE public.tagged (id int PRIMARY KEY, t public.logged_text)",
        "CREATE TABLE public.secrets (id int PRIMARY KEY, note text)",
        "INSERT INTO public.secrets VALUES (1, 'one')",
        "ALTER TABLE public.secrets ENABLE ROW LEVEL SECURITY",
        "CREATE POLICY seen ON public.secrets USING (public.log_view(note) = 1)",
        "RESET ROLE");

    // The hole is real: the read-only role writes through the helper from inside a read-only transaction.
    try (Connection ro = own.roUrl().connect("test"); Statement s = ro.createStatement()) {
      s.execute("BEGIN READ ONLY");
      s.executeQuery("SELECT public.log_view('written from a read-only transaction')").close();
      s.execute("ROLLBACK");
    }
    assertThat(auditRows()).as("the helper wrote through dblink; the rollback undid nothing").isEqualTo(1);
    own.exec("TRUNCATE public.audit_log");
    before = own.fingerprint();
  }

  @AfterAll
  static void close() throws Exception {
    if (own != null) own.close();
  }

  static long auditRows() throws Exception {
    try (Connection c = own.admin(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM public.audit_log")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  @Order(1)
  void theStartIsRefusedNamingTheFunctionsAndTheRevokes() throws Exception {
    assertThatThrownBy(() -> Databases.open(own.config(own.roUrl(), Map.of())).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("\"" + own.ro + "\" can write")
        .hasMessageContaining(ReadOnlyProof.NO_ESCAPE_FUNCTIONS + ": may execute ")
        .hasMessageContaining("public.log_view(text) (granted to PUBLIC): SECURITY DEFINER, and its owner " + own.owner
            + " may execute ")
        .hasMessageContaining("REVOKE EXECUTE ON FUNCTION public.log_view(text) FROM PUBLIC;")
        .hasMessageContaining("may execute 39 functions of extension dblink (public.dblink(text, text), ...): a function of "
            + "extension dblink, which opens connections or runs work outside the transaction")
        .hasMessageContaining("REVOKE EXECUTE ON FUNCTION public.dblink_exec(text, text) FROM PUBLIC;")
        .hasMessageContaining("SQLAGENT_ALLOW_WRITABLE_ROLE=true");
    // The ordinary functions are not named: only what can act outside the transaction.
    assertThatThrownBy(() -> Databases.open(own.config(own.roUrl(), Map.of())).close())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("public.twice", "public._gc", "public.pretty"));
    own.assertUnchanged(before);
  }

  @Test
  @Order(2)
  void grantPrintsTheRevokes() throws Exception {
    OwnCliTest.Run r = OwnCliTest.run(() -> own.config(own.adminUrl(), Map.of()), "grant", "--schemas", "public");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("REQUIRED before the role is read-only",
        "REVOKE EXECUTE ON FUNCTION public.log_view(text) FROM PUBLIC;",
        "REVOKE EXECUTE ON FUNCTION public.dblink(text, text) FROM PUBLIC;");
    assertThat(r.out()).doesNotContain("public.twice(", "public.pretty(");
    own.assertUnchanged(before);
  }

  @Test
  @Order(3)
  void withTheOverrideEveryRouteIsRefusedByTheGateAndOrdinaryQueriesRun() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(own.roUrl().options("test")),
          Gate.Settings.DEFAULTS.withPoolSize(2)).await(60, TimeUnit.SECONDS);
      for (Map.Entry<String, String> route : ROUTES.entrySet()) {
        GateReply reply = gate.submit(GateRequest.run(route.getKey())).await(30, TimeUnit.SECONDS);
        assertThat(reply.ok()).as(route.getKey()).isFalse();
        assertThat(reply.error().type().wireName()).as(route.getKey() + ": " + reply.error().message()).isEqualTo("rejected");
        assertThat(reply.error().message()).as(route.getKey()).contains(route.getValue());
        assertThat(reply.failedStage()).as(route.getKey()).contains(GateReply.STATIC_CHECK);
      }
      // A user function is refused with how to allow it; built-ins, and user functions inside a view the DBA wrote, run.
      GateReply twice = gate.submit(GateRequest.run("SELECT twice(21)")).await(30, TimeUnit.SECONDS);
      assertThat(twice.error().message()).contains("public.twice(integer) is a user function");
      assertThat(twice.error().hint()).contains("SQLAGENT_ALLOW_FUNCTIONS", "public.twice");
      for (String ordinary : List.of("SELECT names FROM customer_list", "SELECT id, t FROM tagged",
          "SELECT count(*) AS tagged FROM tagged", "SELECT lower(display_name), round(2.5),"
          + " count(*) OVER () FROM customers WHERE display_name ILIKE '%a%' AND 'x' = 'x'",
          "SELECT string_agg(display_name, ', ' ORDER BY customer_no) FROM customers")) {
        GateReply ok = gate.submit(GateRequest.run(ordinary)).await(30, TimeUnit.SECONDS);
        assertThat(ok.ok()).as(ordinary + ": " + (ok.error() == null ? "" : ok.error().message())).isTrue();
      }
      assertThat(gate.submit(GateRequest.run("SELECT names FROM customer_list")).await(30, TimeUnit.SECONDS)
          .result().rows().getJsonArray(0).getString(0)).isEqualTo("Ada Lovelace, Grace Hopper, Linus Torvalds");

      // Allowed by name, the user function runs; an escape-capable one stays refused whatever the list says.
      Gate allowing = Gate.start(vertx, Gate.Database.of(own.roUrl().options("test")),
          Gate.Settings.DEFAULTS.withPoolSize(1).withAllowFunctions(List.of(
              AppConfig.FunctionName.parse("public.twice"), AppConfig.FunctionName.parse("\"public\".log_view"))))
          .await(60, TimeUnit.SECONDS);
      GateReply allowed = allowing.submit(GateRequest.run("SELECT twice(21) AS n")).await(30, TimeUnit.SECONDS);
      assertThat(allowed.ok()).as(String.valueOf(allowed.error())).isTrue();
      assertThat(allowed.result().rows().getJsonArray(0).getInteger(0)).isEqualTo(42);
      GateReply still = allowing.submit(GateRequest.run("SELECT log_view('a')")).await(30, TimeUnit.SECONDS);
      assertThat(still.error().message()).contains("can act outside the read-only transaction");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    assertThat(auditRows()).isZero();
    own.assertUnchanged(before);
  }

  @Test
  @Order(4)
  void throughTheServiceTheQueryApiAndAQuestionAreRefusedToo() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql("SELECT customer_no, logged FROM customer_views"));
      Map<String, String> env = new HashMap<>(model.env());
      env.put("SQLAGENT_ALLOW_WRITABLE_ROLE", "true");
      try (OwnService service = OwnService.start(own.config(own.roUrl(), env))) {
        for (String sql : List.of("SELECT log_view('api')", "SELECT * FROM customer_views", "SELECT 'a' === 'b'")) {
          HttpResponse<Buffer> r = service.post("/api/query", new JsonObject().put("sql", sql));
          assertThat(r.statusCode()).as(sql + ": " + r.bodyAsString()).isEqualTo(422);
          assertThat(r.bodyAsJsonObject().getString("error_type")).as(sql).isEqualTo("rejected");
        }
        JsonObject answer = service.ask("Which customers were viewed?");
        assertThat(answer.getBoolean("gave_up")).as(answer.encodePrettily()).isTrue();
        assertThat(answer.getJsonArray("history").getJsonObject(0).getString("error_type")).isEqualTo("rejected");
        assertThat(answer.getJsonArray("history").getJsonObject(0).getString("message"))
            .contains("The view public.customer_views calls public.log_view(text)");
        service.awaitIndex();
      }
    }
    assertThat(auditRows()).isZero();
    own.assertUnchanged(before);
  }

  @Test
  @Order(5)
  void afterTheRevokesTheRoleIsProvenReadOnly() throws Exception {
    String refusal = null;
    try {
      Databases.open(own.config(own.roUrl(), Map.of())).close();
    } catch (ConfigException e) {
      refusal = e.getMessage();
    }
    assertThat(refusal).isNotNull();
    List<String> revokes = new ArrayList<>();
    Matcher m = Pattern.compile("REVOKE EXECUTE ON (?:FUNCTION|ROUTINE) [^;]+;").matcher(refusal);
    while (m.find()) revokes.add(m.group());
    assertThat(revokes).hasSizeGreaterThan(10);
    own.exec(revokes.toArray(new String[0]));

    Databases.open(own.config(own.roUrl(), Map.of())).close();
    try (Connection ro = own.roUrl().connect("test"); Statement s = ro.createStatement()) {
      assertThatThrownBy(() -> s.executeQuery("SELECT public.log_view('after the revoke')").close())
          .hasMessageContaining("permission denied for function log_view");
    }
    assertThat(auditRows()).isZero();
  }
}

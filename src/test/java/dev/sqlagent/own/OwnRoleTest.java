package dev.sqlagent.own;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The role the service is given, on a user's own database: a writable one (the server's admin, the objects'
 * owner) stops the start with the role, the privilege and both ways out, and writes nothing; allowed
 * explicitly, it runs with {@code read_only_confirmed: false} in /api/health and still writes nothing;
 * {@code sql-agent grant --apply} adds only a role (and its grants); {@code SQLAGENT_SCHEMAS} limits discovery.
 */
class OwnRoleTest {

  static OwnDatabase own;
  TreeSet<String> before;

  @BeforeAll
  static void start() throws Exception {
    own = OwnDatabase.create();
  }

  /** Each test's own baseline: grant --apply adds a role, on purpose, for the tests after it. */
  @BeforeEach
  void fingerprint() throws Exception {
    before = own.fingerprint();
  }

  @AfterAll
  static void stop() throws Exception {
    if (own != null) own.close();
  }

  @Test
  void aWritableRoleIsRefusedAtStartWithThePrivilegeAndBothWaysOut() throws Exception {
    PgUrl admin = own.adminUrl();
    assertThatThrownBy(() -> Databases.open(own.config(admin, Map.of())).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("\"" + admin.user() + "\" can write")
        .hasMessageContaining("not_superuser: the role itself is a superuser")
        .hasMessageContaining("sql-agent grant")
        .hasMessageContaining("connect as a read-only role")
        .hasMessageContaining("SQLAGENT_ALLOW_WRITABLE_ROLE=true");

    assertThatThrownBy(() -> Databases.open(own.config(own.ownerUrl(), Map.of())).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("\"" + own.owner + "\" can write")
        .hasMessageContaining("no_table_writes: INSERT on")
        .hasMessageContaining("sql-agent grant")
        .hasMessageContaining("connect as a read-only role");

    // The read-only role starts (the same call, the same proofs).
    Databases.open(own.config(own.roUrl(), Map.of())).close();
    own.assertUnchanged(before);
  }

  @Test
  void allowedExplicitlyAWritableRoleRunsUnconfirmedAndStillWritesNothing() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.sql("DELETE FROM sales.\"LineItems\""));
      Map<String, String> env = new java.util.HashMap<>(model.env());
      env.put("SQLAGENT_ALLOW_WRITABLE_ROLE", "true");
      try (OwnService service = OwnService.start(own.config(own.ownerUrl(), env))) {
        JsonObject health = null;
        int status = 0;
        for (int i = 0; i < 60 && status != 200; i++) {
          HttpResponse<Buffer> r = service.get("/api/health");
          status = r.statusCode();
          health = r.bodyAsJsonObject();
          assertThat(health.getBoolean("read_only_confirmed")).as(health.encodePrettily()).isFalse();
          if (status != 200) Thread.sleep(1000);
        }
        // Ready (read_only_confirmed is data with the flag, not a gate), and it says why it is not confirmed.
        assertThat(status).as(health.encodePrettily()).isEqualTo(200);
        assertThat(health.getBoolean("ok")).isTrue();
        JsonObject check = health.getJsonArray("checks").stream().map(JsonObject.class::cast)
            .filter(c -> c.getString("id").equals("read_only_confirmed")).findFirst().orElseThrow();
        assertThat(check.getString("status")).isEqualTo("DOWN");
        assertThat(check.getBoolean("gate")).isFalse();
        assertThat(check.getJsonObject("data").getString("refusal")).contains(own.owner);

        // The gate and the read-only transaction hold on their own.
        for (String write : List.of("DELETE FROM customers", "TRUNCATE sales.orders",
            "WITH d AS (DELETE FROM sales.\"LineItems\" RETURNING *) SELECT count(*) FROM d",
            "SELECT * INTO public.stolen FROM customers")) {
          HttpResponse<Buffer> r = service.post("/api/query", new JsonObject().put("sql", write));
          assertThat(r.statusCode()).as(write + ": " + r.bodyAsString()).isEqualTo(422);
          assertThat(r.bodyAsJsonObject().getString("error_type")).as(write).isEqualTo("rejected");
        }
        JsonObject answer = service.ask("Remove every line item");
        assertThat(answer.getBoolean("refused")).as(answer.encodePrettily()).isTrue();
        service.awaitIndex();
      }
    }
    own.assertUnchanged(before);
  }

  @Test
  void grantApplyAddsOnlyARole() throws Exception {
    String role = own.roleName("granted");
    OwnCliTest.Run r = OwnCliTest.run(() -> own.config(own.adminUrl(), Map.of()),
        "grant", "--schemas", "public,sales,Reporting", "--role", role, "--apply");
    assertThat(r.exit()).as(r.toString()).isZero();
    assertThat(r.out()).as(r.toString()).contains("applied: role " + role, "The role is read-only. Use:",
        "SQLAGENT_DB_URL=postgresql://" + role + ":");

    TreeSet<String> after = own.fingerprint();
    Set<String> removed = new TreeSet<>(before);
    removed.removeAll(after);
    Set<String> added = new TreeSet<>(after);
    added.removeAll(before);
    assertThat(removed).as("nothing of the database changed or went away").isEmpty();
    assertThat(added).as("only the new role and its grants were added").isNotEmpty()
        .allSatisfy(line -> assertThat(line).contains(role));
    assertThat(added).anySatisfy(line -> assertThat(line).startsWith("role | " + role + " | f | f | f | f | t | f | f | 20"));
    assertThat(added.stream().filter(l -> l.startsWith("relation_acl |")).map(l -> l.split(" \\| ")[1])
        .collect(Collectors.toSet())).as("SELECT on every relation of the granted schemas, hr left out")
        .contains("public.customers", "sales.orders", "sales.orders_2024", "sales.\"LineItems\"", "sales.order_totals",
            "\"Reporting\".\"MonthlyRevenue\"")
        .noneMatch(n -> n.startsWith("hr."));
    assertThat(added.stream().filter(l -> l.startsWith("relation_acl |")))
        .allSatisfy(l -> assertThat(l).contains(" | SELECT | "));

    // The printed URL is a working read-only role.
    String url = r.out().lines().filter(l -> l.startsWith("SQLAGENT_DB_URL=")).reduce((a, b) -> b).orElseThrow()
        .substring("SQLAGENT_DB_URL=".length());
    Databases.open(own.config(PgUrl.parse(url), Map.of())).close();
  }

  @Test
  void schemasInScopeLimitDiscovery() throws Exception {
    Catalogue sales = Discovery.readBlocking(own.roUrl().options("test"), List.of("sales"));
    assertThat(sales.names()).containsExactlyInAnyOrder("sales.orders", "sales.order_totals", "sales.\"LineItems\"");
    // customers is out of scope: a foreign key to it names it qualified, as SQL would write it.
    TableInfo orders = sales.find("sales.orders").orElseThrow();
    assertThat(orders.foreignKeys()).singleElement().satisfies(fk -> assertThat(fk.refTable()).isEqualTo("public.customers"));
    assertThat(sales.hidden()).noneMatch(h -> h.startsWith("hr."));

    Catalogue reporting = Discovery.readBlocking(own.roUrl().options("test"), List.of("Reporting"));
    assertThat(reporting.names()).containsExactly("\"Reporting\".\"MonthlyRevenue\"");

    OwnCliTest.Run status = OwnCliTest.run(() -> own.config(own.roUrl(), Map.of("SQLAGENT_SCHEMAS", "sales")), "status");
    assertThat(status.exit()).as(status.toString()).isZero();
    assertThat(status.out()).as(status.toString())
        .containsPattern("relations the agent can read\\s+ok\\s+3 in 1 schema\\(s\\) of " + own.name + " \\(SQLAGENT_SCHEMAS=sales\\)");

    // The service: /api/schema and the gate see the same three.
    try (FakeModelServer model = FakeModelServer.start()) {
      model.respondWith(req -> Reply.refusal("not needed"));
      Map<String, String> env = new java.util.HashMap<>(model.env());
      env.put("SQLAGENT_SCHEMAS", "sales");
      try (OwnService service = OwnService.start(own.config(own.roUrl(), env))) {
        JsonObject schema = service.get("/api/schema").bodyAsJsonObject();
        assertThat(schema.getJsonArray("tables").stream().map(t -> ((JsonObject) t).getString("name")).toList())
            .containsExactlyInAnyOrder("sales.orders", "sales.order_totals", "sales.\"LineItems\"");
        HttpResponse<Buffer> outside = service.post("/api/query", new JsonObject().put("sql", "SELECT count(*) FROM customers"));
        assertThat(outside.bodyAsJsonObject().getString("error_type")).as(outside.bodyAsString()).isEqualTo("unknown_table");
        HttpResponse<Buffer> inside = service.post("/api/query", new JsonObject().put("sql",
            "SELECT count(*) AS n FROM sales.orders o JOIN sales.\"LineItems\" li ON li.order_id = o.order_id"));
        assertThat(inside.statusCode()).as(inside.bodyAsString()).isEqualTo(200);
        assertThat(inside.bodyAsJsonObject().getJsonArray("rows").getJsonArray(0).getValue(0)).isEqualTo(6);
      }
    }
    own.assertUnchanged(before);
  }

  /** The fingerprint is not blind: each kind of write it exists to catch changes it (and undoing it restores it). */
  @Test
  void theFingerprintSeesEveryKindOfWrite() throws Exception {
    String[][] writes = {
        {"UPDATE sales.orders_2025 SET status = 'pending' WHERE order_id = 5",
            "UPDATE sales.orders_2025 SET status = 'shipped' WHERE order_id = 5"},
        {"UPDATE sales.\"LineItems\" SET \"UnitPrice\" = 0.51 WHERE order_id = 1 AND line_no = 2",
            "UPDATE sales.\"LineItems\" SET \"UnitPrice\" = 0.50 WHERE order_id = 1 AND line_no = 2"},
        {"COMMENT ON COLUMN sales.\"LineItems\".\"UnitPrice\" IS 'changed'",
            "COMMENT ON COLUMN sales.\"LineItems\".\"UnitPrice\" IS 'Price of one unit, in euros'"},
        {"GRANT INSERT ON public.customers TO " + own.ro, "REVOKE INSERT ON public.customers FROM " + own.ro},
        {"GRANT CREATE ON SCHEMA sales TO " + own.ro, "REVOKE CREATE ON SCHEMA sales FROM " + own.ro},
        {"ALTER ROLE " + own.ro + " CREATEDB", "ALTER ROLE " + own.ro + " NOCREATEDB"},
        {"GRANT pg_write_all_data TO " + own.ro, "REVOKE pg_write_all_data FROM " + own.ro},
        {"ALTER TABLE hr.salaries ALTER COLUMN amount DROP NOT NULL", "ALTER TABLE hr.salaries ALTER COLUMN amount SET NOT NULL"},
        {"CREATE TABLE public.scratch (a int)", "DROP TABLE public.scratch"},
    };
    for (String[] w : writes) {
      TreeSet<String> start = own.fingerprint();
      own.exec(w[0]);
      assertThat(own.fingerprint()).as(w[0]).isNotEqualTo(start);
      own.exec(w[1]);
      assertThat(own.fingerprint()).as(w[1]).isEqualTo(start);
    }
  }

  /** The answer is worded for any database, not the demo's shop. */
  @Test
  void theAnswerPromptDoesNotAssumeAShop() {
    var messages = dev.sqlagent.agent.PromptBuilder.answerMessages("How many customers are there?",
        "SELECT count(*) FROM customers", new io.vertx.core.json.JsonArray().add(new JsonObject().put("name", "count")),
        new io.vertx.core.json.JsonArray().add(new io.vertx.core.json.JsonArray().add(3)), 1, false);
    assertThat(messages).allSatisfy(m -> assertThat(m.content()).doesNotContainIgnoringCase("shop"));
  }
}

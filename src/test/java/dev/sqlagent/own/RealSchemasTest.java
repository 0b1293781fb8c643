package dev.sqlagent.own;

import dev.sqlagent.contract.GateRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.execution.StaticCheck;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Two real schemas (src/test/resources/realdb: Pagila's dump, MusicBrainz's admin/sql), restored by the superuser as
 * their owners do, each with a read-only role made by {@code grant}. Pagila's superuser-owned {@code SECURITY DEFINER}
 * {@code rewards_report} makes the role writable: the narrow acceptance starts it, guarded by the gate alone, and so
 * do the REVOKEs {@code grant} prints. MusicBrainz's {@code immutable_unaccent}, a C function declared over unaccent's
 * own library and symbol, is unaccent's function: the role is ready as made, with no REVOKE at all.
 */
class RealSchemasTest {

  static final List<String> DATABASES = new ArrayList<>();
  static final List<String> ROLES = new ArrayList<>();

  @AfterAll
  static void drop() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      for (String d : DATABASES) s.execute("DROP DATABASE IF EXISTS " + d + " WITH (FORCE)");
      for (String r : ROLES) s.execute("DROP ROLE IF EXISTS " + r);
    }
  }

  /** A new database, restored as the superuser from the resources, and a reader made by grant for {@code schema}. */
  static PgUrl restore(String prefix, String schema, List<String> resources, List<String> before) throws Exception {
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    String name = prefix + "_" + suffix;
    String reader = prefix + "_reader_" + suffix;
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    DATABASES.add(name);
    ROLES.add(reader);
    PgUrl admin = TestDatabase.get().adminUrl().withDatabase(name);
    try (Connection c = admin.connect("test"); Statement s = c.createStatement()) {
      for (String sql : before) s.execute(sql);
      for (String r : resources) s.execute(script(r, admin.user()));
      s.execute("ANALYZE");
      String password = GrantScript.generatePassword();
      GrantScript.build(c, reader, List.of(schema), password).apply(c);
      return admin.withUser(reader, password);
    }
  }

  /**
   * A file of the resources as one script: psql's meta-commands dropped, the dump's owner made this server's, and
   * PostgreSQL 18's {@code uuidv7()} in Pagila's defaults made {@code gen_random_uuid()} and its VIRTUAL generated
   * column STORED (the test server is 17).
   */
  static String script(String resource, String superuser) throws IOException {
    try (InputStream in = RealSchemasTest.class.getResourceAsStream("/realdb/" + resource)) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return text.replaceAll("(?m)^\\\\.*$", "").replace("OWNER TO postgres;", "OWNER TO \"" + superuser + "\";")
          .replace("DEFAULT uuidv7()", "DEFAULT gen_random_uuid()").replace(", 2)) VIRTUAL", ", 2)) STORED");
    }
  }

  static AppConfig config(PgUrl ro, String schema, Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.put("SQLAGENT_DB_URL", ro.withSecret());
    env.put("SQLAGENT_SCHEMAS", schema);
    env.putAll(overrides);
    return AppConfig.load(env);
  }

  static List<String> revokes(String message) {
    List<String> out = new ArrayList<>();
    Matcher m = Pattern.compile("REVOKE EXECUTE ON (?:FUNCTION|ROUTINE) [^;]+;").matcher(message);
    while (m.find()) out.add(m.group());
    return out;
  }

  @Test
  void pagilaReachesReadyWithTheNarrowAcceptanceOrTheOneRevokeGrantPrints() throws Exception {
    PgUrl ro = restore("pagila", "public", List.of("pagila-schema.sql"), List.of());
    String refusal = null;
    try {
      Databases.open(config(ro, "public", Map.of())).close();
    } catch (ConfigException e) {
      refusal = e.getMessage();
    }
    assertThat(refusal).contains("no_escape_functions: may execute public.rewards_report(integer, numeric)");
    assertThat(revokes(refusal)).containsExactly(
        "REVOKE EXECUTE ON FUNCTION public.rewards_report(integer, numeric) FROM PUBLIC;");

    // Accepted by name: the start goes on; status says plainly what is executable; the gate refuses every route to it.
    Map<String, String> accept = Map.of("SQLAGENT_ACCEPT_EXECUTABLE", "public.rewards_report");
    Databases.open(config(ro, "public", accept)).close();
    OwnCliTest.Run status = OwnCliTest.run(() -> config(ro, "public", accept), "status");
    assertThat(status.out()).as(status.toString())
        .contains("executable, guarded by the gate alone")
        .contains("public.rewards_report(integer, numeric) is executable by the agent role (granted to PUBLIC)")
        .contains("guarded by the gate alone, which refuses every statement that reaches it");
    assertThat(status.out()).as(status.toString()).containsPattern("read-only: no_escape_functions\\s+ok");
    try (OwnService service = OwnService.start(config(ro, "public", accept))) {
      io.vertx.core.json.JsonObject health = service.get("/api/health").bodyAsJsonObject();
      assertThat(health.getBoolean("read_only_confirmed")).as(health.encodePrettily()).isTrue();
      assertThat(health.getJsonArray("read_only_warnings").encode()).as(health.encodePrettily())
          .contains("public.rewards_report(integer, numeric) is executable by the agent role")
          .contains("guarded by the gate alone");
      service.awaitIndex();
    }
    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(ro.options("test")),
          Gate.Settings.DEFAULTS.withPoolSize(1)).await(60, TimeUnit.SECONDS);
      for (String sql : List.of("SELECT * FROM rewards_report(1, 1.0)", "SELECT public.rewards_report(1, 1.0)",
          "SELECT customer_id FROM public.rewards_report(1, 1.0)")) {
        GateReply reply = gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS);
        assertThat(reply.ok()).as(sql).isFalse();
        assertThat(reply.error().message()).as(sql).contains("rewards_report");
      }
      for (String sql : List.of("SELECT title, category, price FROM film_list ORDER BY title",
          "SELECT count(*) FROM film", "SELECT * FROM actor_info", "SELECT name FROM category ORDER BY name")) {
        GateReply reply = gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS);
        assertThat(reply.ok()).as(sql + ": " + (reply.error() == null ? "" : reply.error().message())).isTrue();
      }
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }

    // grant prints the one REVOKE as REQUIRED; after it, the role is ready with no acceptance.
    OwnCliTest.Run grant = OwnCliTest.run(() -> config(TestDatabase.get().adminUrl().withDatabase(ro.database()), "public",
        Map.of()), "grant", "--schemas", "public");
    assertThat(grant.out()).as(grant.toString()).contains("REQUIRED before the role is read-only",
        "REVOKE EXECUTE ON FUNCTION public.rewards_report(integer, numeric) FROM PUBLIC;");
    assertThat(revokes(grant.out())).hasSize(1);
    try (Connection c = TestDatabase.get().adminUrl().withDatabase(ro.database()).connect("test");
         Statement s = c.createStatement()) {
      s.execute(revokes(refusal).get(0));
    }
    Databases.open(config(ro, "public", Map.of())).close();
  }

  @Test
  void musicBrainzReachesReadyAsMadeItsImmutableUnaccentBeingUnaccents() throws Exception {
    PgUrl ro = restore("mbz", "musicbrainz", List.of("musicbrainz/Extensions.sql", "musicbrainz/CreateCollations.sql",
        "musicbrainz/CreateSearchConfiguration.sql", "musicbrainz/CreateTypes.sql", "musicbrainz/CreateTables.sql",
        "musicbrainz/CreateFunctions.sql", "musicbrainz/CreateViews.sql"), List.of("CREATE SCHEMA musicbrainz"));
    AppConfig config = config(ro, "musicbrainz", Map.of());
    Databases.open(config).close();
    OwnCliTest.Run status = OwnCliTest.run(() -> config, "status");
    assertThat(status.out()).as(status.toString()).containsPattern("read-only: no_escape_functions\\s+ok");
    OwnCliTest.Run grant = OwnCliTest.run(() -> config(TestDatabase.get().adminUrl().withDatabase(ro.database()),
        "musicbrainz", Map.of()), "grant", "--schemas", "musicbrainz");
    assertThat(grant.out()).as(grant.toString()).doesNotContain("REQUIRED before the role is read-only");
    assertThat(revokes(grant.out())).isEmpty();
    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(ro.options("test")),
          Gate.Settings.DEFAULTS.withPoolSize(1)).await(60, TimeUnit.SECONDS);
      for (String sql : List.of("SELECT name FROM musicbrainz.artist WHERE musicbrainz.musicbrainz_unaccent(name) = 'x'",
          "SELECT public.immutable_unaccent('public.unaccent', 'Béla')", "SELECT count(*) FROM musicbrainz.release_group")) {
        GateReply reply = gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS);
        assertThat(reply.ok() ? "" : reply.error().message()).as(sql).doesNotContain("can act outside");
      }
      GateReply unaccented = gate.submit(GateRequest.run("SELECT public.immutable_unaccent('public.unaccent', 'Béla') AS u"))
          .await(30, TimeUnit.SECONDS);
      assertThat(unaccented.ok()).as(String.valueOf(unaccented.error())).isTrue();
      assertThat(unaccented.result().rows().getJsonArray(0).getString(0)).isEqualTo("Bela");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }
}

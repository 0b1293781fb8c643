package dev.sqlagent.own;

import dev.sqlagent.contract.GateRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.execution.StaticCheck;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database shaped like Pagila, restored as its superuser the way a sample database usually is: an enum, a domain
 * with a CHECK, the {@code group_concat} aggregate its {@code film_list} view uses, an IMMUTABLE SQL helper
 * ({@code last_day}), a set-returning function and the {@code SECURITY DEFINER} {@code rewards_report}, owned by the
 * superuser. The function rule refuses no ordinary query on it; the helpers are user functions, refused by name until
 * allowed; {@code rewards_report} makes the role writable until EXECUTE is revoked from PUBLIC.
 */
class PagilaStyleTest {

  static String name;
  static String reader;
  static PgUrl ro;

  static final List<String> ORDINARY = List.of(
      "SELECT title, category, price, actors FROM film_list WHERE category = 'Action' ORDER BY title",
      "SELECT category, count(*) AS films, round(avg(price), 2) AS avg_price FROM film_list GROUP BY category ORDER BY films DESC",
      "SELECT f.title, f.length FROM film f WHERE f.length BETWEEN 60 AND 120 AND f.rating = 'PG' ORDER BY f.length DESC",
      "SELECT a.first_name || ' ' || a.last_name AS actor, count(*) AS films FROM actor a JOIN film_actor fa USING (actor_id)"
          + " GROUP BY 1 HAVING count(*) > 0 ORDER BY films DESC, actor",
      "SELECT rating, count(*) FROM film GROUP BY rating ORDER BY rating",
      "SELECT title, release_year FROM film WHERE release_year >= 2006 AND title ILIKE 'a%'",
      "SELECT date_trunc('month', rental_date) AS month, count(*) FROM rental GROUP BY 1 ORDER BY 1",
      "SELECT c.name, string_agg(f.title, ', ' ORDER BY f.title) FROM category c JOIN film_category fc USING (category_id)"
          + " JOIN film f USING (film_id) GROUP BY c.name",
      "WITH busy AS (SELECT customer_id, count(*) AS n FROM rental GROUP BY 1) SELECT cu.first_name, b.n FROM busy b"
          + " JOIN customer cu USING (customer_id) ORDER BY b.n DESC LIMIT 3",
      "SELECT extract(dow FROM rental_date) AS weekday, count(*) FROM rental GROUP BY 1",
      "SELECT title, rental_rate * 1.2 AS with_tax, upper(title), length(description) FROM film",
      "SELECT (SELECT count(*) FROM actor) AS actors, (SELECT count(*) FROM film) AS films");

  @BeforeAll
  static void restore() throws Exception {
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    name = "pagila_" + suffix;
    reader = "pagila_reader_" + suffix;
    TestDatabase test = TestDatabase.get();
    try (Connection c = test.adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    PgUrl admin = test.adminUrl().withDatabase(name);
    try (Connection c = admin.connect("test"); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "CREATE TYPE mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17')",
          "CREATE DOMAIN year AS integer CONSTRAINT year_check CHECK (VALUE >= 1901 AND VALUE <= 2155)",
          "CREATE TABLE actor (actor_id serial PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL)",
          "CREATE TABLE category (category_id serial PRIMARY KEY, name text NOT NULL)",
          "CREATE TABLE film (film_id serial PRIMARY KEY, title text NOT NULL, description text, release_year year,"
              + " rental_rate numeric(4,2) NOT NULL DEFAULT 4.99, length smallint, rating mpaa_rating DEFAULT 'G')",
          "CREATE TABLE film_actor (actor_id int NOT NULL, film_id int NOT NULL, PRIMARY KEY (actor_id, film_id))",
          "CREATE TABLE film_category (film_id int NOT NULL, category_id int NOT NULL, PRIMARY KEY (film_id, category_id))",
          "CREATE TABLE customer (customer_id serial PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL)",
          "CREATE TABLE rental (rental_id serial PRIMARY KEY, rental_date timestamptz NOT NULL, customer_id int NOT NULL)",
          "INSERT INTO actor (first_name, last_name) VALUES ('PENELOPE', 'GUINESS'), ('NICK', 'WAHLBERG'), ('ED', 'CHASE')",
          "INSERT INTO category (name) VALUES ('Action'), ('Comedy')",
          "INSERT INTO film (title, description, release_year, rental_rate, length, rating) VALUES"
              + " ('ACADEMY DINOSAUR', 'An epic drama', 2006, 0.99, 86, 'PG'), ('ACE GOLDFINGER', 'A thriller', 2006, 4.99, 48, 'G'),"
              + " ('ADAPTATION HOLES', 'A documentary', 2007, 2.99, 50, 'NC-17')",
          "INSERT INTO film_actor VALUES (1, 1), (2, 1), (3, 2), (1, 3)",
          "INSERT INTO film_category VALUES (1, 1), (2, 1), (3, 2)",
          "INSERT INTO customer (first_name, last_name) VALUES ('MARY', 'SMITH'), ('PATRICIA', 'JOHNSON')",
          "INSERT INTO rental (rental_date, customer_id) VALUES ('2022-05-24 22:53', 1), ('2022-05-25 11:30', 2), ('2022-06-01 09:00', 1)",
          "CREATE FUNCTION _group_concat(text, text) RETURNS text LANGUAGE sql IMMUTABLE AS $$"
              + " SELECT CASE WHEN $2 IS NULL THEN $1 WHEN $1 IS NULL THEN $2 ELSE $1 || ', ' || $2 END $$",
          "CREATE AGGREGATE group_concat(text) (SFUNC = _group_concat, STYPE = text)",
          "CREATE VIEW film_list AS SELECT film.film_id AS fid, film.title, film.description, category.name AS category,"
              + " film.rental_rate AS price, film.length, film.rating,"
              + " group_concat(actor.first_name || ' ' || actor.last_name) AS actors"
              + " FROM category LEFT JOIN film_category ON category.category_id = film_category.category_id"
              + " LEFT JOIN film ON film_category.film_id = film.film_id"
              + " JOIN film_actor ON film.film_id = film_actor.film_id JOIN actor ON film_actor.actor_id = actor.actor_id"
              + " GROUP BY film.film_id, film.title, film.description, category.name, film.rental_rate, film.length, film.rating",
          "CREATE FUNCTION last_day(timestamptz) RETURNS date LANGUAGE sql IMMUTABLE STRICT AS $$"
              + " SELECT (date_trunc('month', $1) + interval '1 month' - interval '1 day')::date $$",
          "CREATE FUNCTION film_in_stock(p_film_id int, p_store_id int, OUT p_film_count int) RETURNS SETOF int"
              + " LANGUAGE sql AS $$ SELECT p_film_id WHERE p_store_id > 0 $$",
          "CREATE FUNCTION rewards_report(min_monthly_purchases int, min_dollar_amount_purchased numeric)"
              + " RETURNS SETOF customer LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN"
              + " RETURN QUERY EXECUTE 'SELECT * FROM customer'; END $$",
          "ANALYZE")) {
        s.execute(sql);
      }
      String password = GrantScript.generatePassword();
      GrantScript.build(c, reader, List.of("public"), password).apply(c);
      ro = admin.withUser(reader, password);
    }
  }

  @AfterAll
  static void drop() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      s.execute("DROP ROLE IF EXISTS " + reader);
    }
  }

  static AppConfig config(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.put("SQLAGENT_DB_URL", ro.withSecret());
    env.putAll(overrides);
    return AppConfig.load(env);
  }

  @Test
  void theSuperusersSecurityDefinerFunctionIsNamedThenRevokedAndNoOrdinaryQueryIsRefused() throws Exception {
    String admin = TestDatabase.get().adminUrl().user();
    assertThatThrownBy(() -> Databases.open(config(Map.of())).close())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("no_escape_functions: may execute public.rewards_report(integer, numeric) (granted to PUBLIC): "
            + "SECURITY DEFINER, and its owner " + admin + " may write server files or run programs")
        .hasMessageContaining("REVOKE EXECUTE ON FUNCTION public.rewards_report(integer, numeric) FROM PUBLIC;")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("last_day", "group_concat", "film_in_stock"));

    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(ro.options("test")),
          Gate.Settings.DEFAULTS.withPoolSize(2)).await(60, TimeUnit.SECONDS);
      for (String sql : ORDINARY) {
        GateReply r = gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS);
        assertThat(r.ok()).as(sql + ": " + (r.error() == null ? "" : r.error().message())).isTrue();
        assertThat(r.result().rowCount()).as(sql).isPositive();
      }
      for (String named : List.of("SELECT last_day(rental_date) FROM rental", "SELECT * FROM film_in_stock(1, 1)",
          "SELECT group_concat(title) FROM film", "SELECT * FROM rewards_report(1, 1)")) {
        GateReply r = gate.submit(GateRequest.run(named)).await(30, TimeUnit.SECONDS);
        assertThat(r.ok()).as(named).isFalse();
        assertThat(r.error().type().wireName()).as(named).isEqualTo("rejected");
      }
      Gate allowing = Gate.start(vertx, Gate.Database.of(ro.options("test")),
          Gate.Settings.DEFAULTS.withPoolSize(1).withAllowFunctions(List.of(AppConfig.FunctionName.parse("public.last_day"))))
          .await(60, TimeUnit.SECONDS);
      GateReply r = allowing.submit(GateRequest.run("SELECT last_day(rental_date) AS d FROM rental ORDER BY 1 LIMIT 1"))
          .await(30, TimeUnit.SECONDS);
      assertThat(r.ok()).as(String.valueOf(r.error())).isTrue();
      assertThat(r.result().rows().getJsonArray(0).getString(0)).isEqualTo("2022-05-31");
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }

    try (Connection c = TestDatabase.get().adminUrl().withDatabase(name).connect("test"); Statement s = c.createStatement()) {
      s.execute("REVOKE EXECUTE ON FUNCTION public.rewards_report(integer, numeric) FROM PUBLIC");
    }
    Databases.open(config(Map.of())).close();
  }
}

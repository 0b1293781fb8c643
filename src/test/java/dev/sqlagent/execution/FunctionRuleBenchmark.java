package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.contract.GateReply;
import static dev.sqlagent.testing.BenchmarkMachine.loadAverage;

import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.catalogue.ReadOnlyProof;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What judging functions from the catalogue costs, on a database with 5,000 functions of its own (plpgsql and SQL,
 * 400 SECURITY DEFINER, 50 aggregates, 50 operators, 200 views calling them, dblink installed): the start-time scan
 * (the read-only proof and discovery, each against the same database without those functions), and the gate per
 * query with the function rule at work against the same database without them, alternating three times. Measures,
 * asserts nothing about time. Run:
 * {@code mvn -B test -Dtest=FunctionRuleBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 * (writes target/benchmarks/function-rule.txt).
 */
@Tag("benchmark")
class FunctionRuleBenchmark {

  static final int FUNCTIONS = 5_000;

  static final List<String> QUERIES = List.of(
      "SELECT lower(name), upper(city) FROM customers WHERE id < 50",
      "SELECT c.name, count(o.id) AS n FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name ORDER BY n DESC",
      "SELECT date_trunc('month', placed_at) AS m, sum(amount) FROM orders GROUP BY 1 ORDER BY 1",
      "SELECT round(avg(amount), 2), max(amount), min(amount) FROM orders WHERE amount > 10",
      "SELECT name FROM customers WHERE name ILIKE '%5%' AND city = 'Pune' ORDER BY name",
      "SELECT coalesce(city, 'unknown'), count(*) FROM customers GROUP BY 1",
      "SELECT to_char(placed_at, 'YYYY-MM'), string_agg(id::text, ',' ORDER BY id) FROM orders GROUP BY 1 LIMIT 5",
      "SELECT o.id, o.amount * 1.18 AS gross, extract(year FROM o.placed_at) FROM orders o WHERE o.id BETWEEN 10 AND 40",
      "WITH big AS (SELECT customer_id, sum(amount) AS s FROM orders GROUP BY 1) SELECT c.name, b.s FROM big b JOIN customers c ON c.id = b.customer_id ORDER BY b.s DESC LIMIT 10",
      "SELECT length(name), substr(name, 1, 3), position('a' IN name) FROM customers LIMIT 20");

  @Test
  void startScanAndGatePerQuery() throws Exception {
    TestDatabase test = TestDatabase.get();
    String name = "fnbench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    String reader = name + "_ro";
    try (Connection c = test.adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    StringBuilder out = new StringBuilder();
    PgUrl admin = test.adminUrl().withDatabase(name);
    try {
      exec(admin,
          "CREATE TABLE customers (id int PRIMARY KEY, name text, city text)",
          "INSERT INTO customers SELECT i, 'customer ' || i, (ARRAY['Pune', 'Delhi', 'Goa'])[1 + i % 3] FROM generate_series(1, 2000) i",
          "CREATE TABLE orders (id int PRIMARY KEY, customer_id int, placed_at timestamptz, amount numeric(10, 2))",
          "INSERT INTO orders SELECT i, 1 + i % 2000, timestamptz '2025-01-01' + i * interval '37 minutes', (i % 500) / 3.0"
              + " FROM generate_series(1, 20000) i",
          "ANALYZE");
      String password = GrantScript.generatePassword();
      try (Connection c = admin.connect("bench")) {
        GrantScript.build(c, reader, List.of("public"), password).apply(c);
      }
      PgUrl ro = admin.withUser(reader, password);

      double[][] without = new double[3][];
      double[][] with = new double[3][];
      for (int round = 0; round < 3; round++) {
        without[round] = measure(ro);
        addFunctions(admin, reader);
        with[round] = measure(ro);
        exec(admin, "DROP SCHEMA fns CASCADE", "DROP EXTENSION dblink", "DROP OWNED BY " + name + "_owner",
            "DROP ROLE " + name + "_owner");
      }
      out.append(String.format(Locale.ROOT, "%d functions of the database's own (fns), load average %s%n", FUNCTIONS,
          loadAverage()));
      String[] labels = {"read-only proof (ms)", "discovery (ms)", "gate, repeats, p50 (ms)", "gate, first sight, p50 (ms)",
          "static check alone, p50 (ms)"};
      for (int m = 0; m < labels.length; m++) {
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-32s", labels[m]));
        for (int round = 0; round < 3; round++) {
          line.append(String.format(Locale.ROOT, "  without %.2f / with %.2f", without[round][m], with[round][m]));
        }
        out.append(line).append('\n');
      }
    } finally {
      try (Connection c = test.adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        s.execute("DROP ROLE IF EXISTS " + reader);
        s.execute("DROP ROLE IF EXISTS " + name + "_owner");
      }
    }
    System.out.print(out);
    Path file = Path.of("target", "benchmarks", "function-rule.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(file, out.toString());
  }

  /** The proof, discovery, the gate (repeats, first sight) and the static check: medians over several runs. */
  private static double[] measure(PgUrl ro) throws Exception {
    double[] proof = new double[5];
    double[] discovery = new double[5];
    for (int i = 0; i < 5; i++) {
      long t0 = System.nanoTime();
      try (Connection c = ro.connect("bench")) {
        ReadOnlyProof.check(c, null);
      }
      proof[i] = (System.nanoTime() - t0) / 1e6;
      t0 = System.nanoTime();
      Discovery.readBlocking(ro.options("bench"), List.of());
      discovery[i] = (System.nanoTime() - t0) / 1e6;
    }
    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(ro.options("bench")),
          Gate.Settings.DEFAULTS.withMaxPlanCost(1e9).withPoolSize(2)).await(60, TimeUnit.SECONDS);
      for (int i = 0; i < 20; i++) {
        for (String q : QUERIES) requireOk(gate.submit(GateRequest.run(q)).await(30, TimeUnit.SECONDS), q);
      }
      List<Double> repeats = new ArrayList<>();
      List<Double> fresh = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        for (String q : QUERIES) {
          long t0 = System.nanoTime();
          requireOk(gate.submit(GateRequest.run(q)).await(30, TimeUnit.SECONDS), q);
          repeats.add((System.nanoTime() - t0) / 1e6);
          String unseen = q + " -- " + UUID.randomUUID();
          t0 = System.nanoTime();
          requireOk(gate.submit(GateRequest.run(unseen)).await(30, TimeUnit.SECONDS), unseen);
          fresh.add((System.nanoTime() - t0) / 1e6);
        }
      }
      StaticCheck check = new StaticCheck(gate.schema(), StaticCheck.Limits.DEFAULT);
      List<Double> checks = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        for (String q : QUERIES) {
          long t0 = System.nanoTime();
          check.check(q);
          if (i >= 50) checks.add((System.nanoTime() - t0) / 1e6);
        }
      }
      return new double[] {Percentiles.median(proof), Percentiles.median(discovery), Percentiles.median(repeats),
          Percentiles.median(fresh), Percentiles.median(checks)};
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static void requireOk(GateReply r, String sql) {
    if (!r.ok()) throw new AssertionError(sql + ": " + r.error().message());
  }

  /**
   * 5,000 functions in schema fns (on the reader's search path): seven named like built-ins, 393 SECURITY DEFINER
   * owned by a role that may not use dblink, 50 aggregates with their state functions, 50 operators with theirs, and
   * 200 views calling them.
   */
  private static void addFunctions(PgUrl admin, String reader) throws Exception {
    String owner = admin.database() + "_owner";
    exec(admin,
        "CREATE EXTENSION dblink",
        "REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC",
        "CREATE ROLE " + owner,
        "CREATE SCHEMA fns AUTHORIZATION " + owner,
        "GRANT USAGE ON SCHEMA fns TO " + reader,
        "ALTER DEFAULT PRIVILEGES FOR ROLE " + owner + " IN SCHEMA fns GRANT SELECT ON TABLES TO " + reader,
        "ALTER ROLE " + reader + " SET search_path = public, fns",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + owner,
        "SET ROLE " + owner,
        """
        DO $$ DECLARE i int; builtins text[] := ARRAY['lower', 'upper', 'round', 'length', 'substr', 'to_char', 'trim'];
        BEGIN
          FOR i IN 1..%d - 100 LOOP
            IF i <= 7 THEN
              EXECUTE format('CREATE FUNCTION fns.%%I(a text, b int, c int) RETURNS text LANGUAGE sql IMMUTABLE AS ''SELECT a''',
                             builtins[i]);
            ELSIF i <= 400 THEN
              EXECUTE format('CREATE FUNCTION fns.f_%%s(x int) RETURNS int LANGUAGE plpgsql SECURITY DEFINER AS ''BEGIN RETURN x + %%s; END''', i, i);
            ELSIF i %% 2 = 0 THEN
              EXECUTE format('CREATE FUNCTION fns.f_%%s(x int) RETURNS int LANGUAGE plpgsql STABLE AS ''BEGIN RETURN x * %%s; END''', i, i);
            ELSE
              EXECUTE format('CREATE FUNCTION fns.f_%%s(x int, y text DEFAULT NULL) RETURNS int LANGUAGE sql IMMUTABLE AS ''SELECT x - %%s''', i, i);
            END IF;
          END LOOP;
          FOR i IN 1..50 LOOP
            EXECUTE format('CREATE FUNCTION fns.acc_%%s(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS ''SELECT $1 + $2''', i);
            EXECUTE format('CREATE AGGREGATE fns.agg_%%s(int) (SFUNC = fns.acc_%%s, STYPE = int)', i, i);
            EXECUTE format('CREATE FUNCTION fns.op_%%s(int, int) RETURNS boolean LANGUAGE sql AS ''SELECT $1 > $2''', i);
            EXECUTE format('CREATE OPERATOR fns.%%s (LEFTARG = int, RIGHTARG = int, FUNCTION = fns.op_%%s)',
                           '@' || repeat('~', i), i);
          END LOOP;
          FOR i IN 1..200 LOOP
            EXECUTE format('CREATE VIEW fns.v_%%s AS SELECT id, fns.f_%%s(id) AS x FROM public.customers', i, 2 * i + 401);
          END LOOP;
        END $$""".formatted(FUNCTIONS),
        "RESET ROLE");
  }

  private static void exec(PgUrl url, String... sql) throws Exception {
    try (Connection c = url.connect("bench"); Statement s = c.createStatement()) {
      for (String q : sql) s.execute(q);
    }
  }

}

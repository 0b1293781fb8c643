package dev.sqlagent.export;

import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A database that is not the demo, made for the export tests: {@code readings}, 100,000 rows of ten columns of
 * every kind an export types (integers, numeric, float, date, timestamp, timestamptz, boolean, text), with a few
 * cells that look like formulas, and a read-only role to read it.
 */
final class ExportDatabase implements AutoCloseable {

  static final int ROWS = 100_000;
  static final String ALL = "SELECT id, name, amount, ratio, taken_on, taken_at, seen_at, ok, note, big FROM readings ORDER BY id";

  final String name;
  final String reader;
  final PgUrl ro;

  ExportDatabase() throws Exception {
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    name = "export_" + suffix;
    reader = "export_reader_" + suffix;
    TestDatabase test = TestDatabase.get();
    try (Connection c = test.adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    PgUrl admin = test.adminUrl().withDatabase(name);
    try (Connection c = admin.connect("test"); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "CREATE TABLE readings (id int PRIMARY KEY, name text NOT NULL, amount numeric(12,2), ratio float8,"
              + " taken_on date, taken_at timestamp, seen_at timestamptz, ok boolean, note text, big int8)",
          "INSERT INTO readings SELECT g, 'sensor ' || g, round((g * 1.25 - 50)::numeric, 2), g / 7.0,"
              + " date '2024-01-01' + (g % 366), timestamp '2024-01-01 08:30:00' + g * interval '1 minute',"
              + " timestamptz '2024-01-01 00:00:00+00' + g * interval '1 second', g % 2 = 0,"
              + " CASE g WHEN 1 THEN '=HYPERLINK(\"http://evil.example\",\"click\")' WHEN 2 THEN '+1+2' WHEN 3 THEN '@SUM(A1:A2)'"
              + " WHEN 4 THEN '-2+3' ELSE 'plain note ' || g END, g::int8 * 1000000007"
              + " FROM generate_series(1, " + ROWS + ") g",
          "ANALYZE")) {
        s.execute(sql);
      }
      String password = GrantScript.generatePassword();
      GrantScript.build(c, reader, List.of("public"), password).apply(c);
      ro = admin.withUser(reader, password);
    }
  }

  /** Runs {@code sql} in this database as the administrator (a setting of the reader's role, say). */
  void asAdmin(String sql) throws Exception {
    try (Connection c = TestDatabase.get().adminUrl().withDatabase(name).connect("test"); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** A connection to this database as the administrator, for a test that holds a lock or a transaction open. */
  Connection adminConnection() throws Exception {
    return TestDatabase.get().adminUrl().withDatabase(name).connect("test");
  }

  AppConfig config(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.put("SQLAGENT_DB_URL", ro.withSecret());
    env.putAll(overrides);
    return AppConfig.load(env);
  }

  Databases open(AppConfig config) throws Exception {
    return Databases.open(config);
  }

  @Override
  public void close() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      s.execute("DROP ROLE IF EXISTS " + reader);
    }
  }
}

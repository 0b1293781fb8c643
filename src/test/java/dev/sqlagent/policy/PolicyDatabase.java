package dev.sqlagent.policy;

import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;

/**
 * A database built for the data-policy tests (never the demo): {@code customers} with an e-mail, a phone, a salary (all
 * three sensitive in the notes file, one by a pattern), a low-cardinality {@code tier} whose values only the stored
 * values show, and names that only sample rows and results show; {@code orders} that join to it. Every value is
 * distinctive, so a test can say where it must and must not appear.
 */
final class PolicyDatabase implements AutoCloseable {

  /** Values of the sensitive columns: none may reach a prompt, an event, a log line or a stored row. */
  static final List<String> EMAILS = List.of("zelda.quill@secretmail.test", "omar.vance@secretmail.test",
      "ines.marlow@secretmail.test", "tobias.wren@secretmail.test");
  static final List<String> PHONES = List.of("+44 7700 900123", "+44 7700 900456", "+44 7700 900789", "+44 7700 900321");
  static final List<Integer> SALARIES = List.of(987_651, 987_652, 987_653, 987_654);
  /** The low-cardinality column's values: in a prompt only from the 'values' level up. */
  static final List<String> TIERS = List.of("PLATINUMQX", "GOLDQX");
  /** Names: in sample rows (from 'samples' up) and in results (the answer's wording, at 'results'). */
  static final List<String> NAMES = List.of("Yvonne Samplerow", "Xavier Samplerow", "Wanda Samplerow", "Victor Samplerow");

  static final String NOTES = """
      tables:
        customers:
          description: People who bought from us.
          columns:
            email: {sensitive: true, mask: hash}
            salary: {sensitive: true}
            tier: Loyalty tier.
      sensitive:
        - columns: "*.phone"
          mask: last4
      """;

  final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  final String database = "policy_" + suffix;
  final String agent = "policy_agent_" + suffix;
  final String agentPassword = GrantScript.generatePassword();
  final Path notes;

  PolicyDatabase() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
      s.execute("CREATE ROLE " + agent + " LOGIN PASSWORD '" + agentPassword + "'");
    }
    try (Connection c = TestDatabase.get().adminConnection(database); Statement s = c.createStatement()) {
      s.execute("REVOKE ALL ON DATABASE " + database + " FROM PUBLIC");
      s.execute("GRANT CONNECT ON DATABASE " + database + " TO " + agent);
      s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      s.execute("CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, email text NOT NULL, phone text,"
          + " salary int, tier text NOT NULL)");
      for (int i = 0; i < NAMES.size(); i++) {
        s.execute("INSERT INTO customers VALUES (" + (i + 1) + ", '" + NAMES.get(i) + "', '" + EMAILS.get(i) + "', '"
            + PHONES.get(i) + "', " + SALARIES.get(i) + ", '" + TIERS.get(i % 2) + "')");
      }
      // More people, so that a name is no low-cardinality value (the stored values would list them all).
      s.execute("INSERT INTO customers SELECT i, 'Filler Person ' || i, 'filler' || i || '@secretmail.test',"
          + " '+44 7700 9' || lpad(i::text, 5, '0'), 900000 + i, CASE WHEN i % 2 = 0 THEN 'GOLDQX' ELSE 'PLATINUMQX' END"
          + " FROM generate_series(5, 80) i");
      s.execute("CREATE TABLE orders (id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customers, amount numeric(10,2))");
      s.execute("INSERT INTO orders SELECT i, 1 + i % 4, i * 10 FROM generate_series(1, 20) i");
      s.execute("GRANT USAGE ON SCHEMA public TO " + agent);
      s.execute("GRANT SELECT ON customers, orders TO " + agent);
      s.execute("ANALYZE customers");
      s.execute("ANALYZE orders");
    }
    notes = Files.createTempFile("sqlagent-policy-notes", ".yaml");
    Files.writeString(notes, NOTES);
  }

  PgUrl agentUrl() {
    return TestDatabase.get().adminUrl().withDatabase(database).withUser(agent, agentPassword);
  }

  /** Every sensitive value as the text that would betray it. */
  static List<String> sensitiveValues() {
    List<String> all = new java.util.ArrayList<>(EMAILS);
    all.addAll(PHONES);
    SALARIES.forEach(s -> all.add(String.valueOf(s)));
    // as the model is shown numbers: with separators
    SALARIES.forEach(s -> all.add(String.format(java.util.Locale.ROOT, "%,d", s)));
    all.add("secretmail");
    return all;
  }

  /** Whether {@code text} holds any sensitive value. */
  static List<String> leaked(String text) {
    return sensitiveValues().stream().filter(text::contains).toList();
  }

  @Override
  public void close() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
      s.execute("DROP ROLE IF EXISTS " + agent);
    }
    Files.deleteIfExists(notes);
  }
}

package dev.sqlagent.testing;

import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;

/**
 * A bakery's ledger built for the governed-metric tests (never the demo): {@code ledger_lines} (what was sold in each
 * sale, quantity and unit price), {@code ledger_sales} (each sale, its state and day; VOID sales are not revenue),
 * and tables that merely sound alike. A read-only login role reads it. The notes file defines {@code revenue} over the
 * two ledger tables, with the terms {@code turnover} and {@code takings}.
 */
public final class MetricsDatabase implements AutoCloseable {

  /** The metric's expression, as the notes file writes it. */
  public static final String REVENUE_SQL = "sum(ledger_lines.qty * ledger_lines.unit_price)";
  /** Its filter. */
  public static final String REVENUE_FILTER = "ledger_sales.state <> 'VOID'";

  public static final String NOTES = """
      tables:
        ledger_sales: One row per sale at the till; state is OPEN, PAID or VOID.
      metrics:
        - name: revenue
          sql: "%s"
          tables: [ledger_lines, ledger_sales]
          filters: ["%s"]
          description: Money taken for what was sold, void sales left out.
          terms: [turnover, takings]
      """.formatted(REVENUE_SQL, REVENUE_FILTER);

  public final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  public final String database = "ledger_" + suffix;
  public final String agent = "ledger_agent_" + suffix;
  private final String agentPassword = GrantScript.generatePassword();
  public final Path notes;

  public MetricsDatabase() throws Exception {
    this(NOTES);
  }

  /** The ledger with a notes file of its own. */
  public MetricsDatabase(String notesText) throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
      s.execute("CREATE ROLE " + agent + " LOGIN PASSWORD '" + agentPassword + "'");
    }
    try (Connection c = TestDatabase.get().adminConnection(database); Statement s = c.createStatement()) {
      s.execute("REVOKE ALL ON DATABASE " + database + " FROM PUBLIC");
      s.execute("GRANT CONNECT ON DATABASE " + database + " TO " + agent);
      s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      s.execute("CREATE TABLE ledger_sales (sale_id int PRIMARY KEY, state text NOT NULL, sold_on date NOT NULL)");
      s.execute("CREATE TABLE ledger_lines (line_id int PRIMARY KEY, sale_id int NOT NULL REFERENCES ledger_sales,"
          + " item text NOT NULL, qty int NOT NULL, unit_price numeric(8,2) NOT NULL)");
      s.execute("CREATE TABLE bakers (baker_id int PRIMARY KEY, name text NOT NULL, shift text)");
      s.execute("CREATE TABLE ovens (oven_id int PRIMARY KEY, model text, bought_on date)");
      s.execute("CREATE TABLE flour_deliveries (delivery_id int PRIMARY KEY, kilos int, delivered_on date)");
      s.execute("INSERT INTO ledger_sales SELECT i, CASE WHEN i % 5 = 0 THEN 'VOID' ELSE 'PAID' END,"
          + " date_trunc('month', current_date)::date - 1 - (i % 20) FROM generate_series(1, 40) i");
      s.execute("INSERT INTO ledger_lines SELECT i, 1 + i % 40, 'loaf ' || (i % 7), 1 + i % 3, 2.50 + (i % 4)"
          + " FROM generate_series(1, 120) i");
      s.execute("INSERT INTO bakers VALUES (1, 'Ines', 'early'), (2, 'Tom', 'late')");
      s.execute("GRANT USAGE ON SCHEMA public TO " + agent);
      s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + agent);
      s.execute("ANALYZE");
    }
    notes = Files.createTempFile("sqlagent-ledger-notes", ".yaml");
    Files.writeString(notes, notesText);
  }

  /** The read-only role's URL. */
  public PgUrl agentUrl() {
    return TestDatabase.get().adminUrl().withDatabase(database).withUser(agent, agentPassword);
  }

  /** The ledger as the read-only role reaches it. */
  public Target target() {
    return new Target(agentUrl(), false);
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

package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.MetricsDatabase;
import dev.sqlagent.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code sql-agent status} checks every governed metric of the notes file through the gate, on a ledger built for it
 * (not the demo): a sound definition passes; one whose filter names a missing column, one that calls a function the
 * gate refuses and one whose expression does not parse each fail with the gate's reason.
 */
class MetricChecksTest {

  static final String NOTES = MetricsDatabase.NOTES + """
        - name: paid sales
          sql: count(DISTINCT ledger_sales.sale_id)
          tables: ledger_sales
          filters: ["ledger_sales.status = 'PAID'"]
        - name: slow count
          sql: count(pg_sleep(1))
          tables: ledger_lines
        - name: broken
          sql: sum(ledger_lines.qty *)
          tables: ledger_lines
      """;

  static MetricsDatabase db;
  static AppConfig config;

  @BeforeAll
  static void build() throws Exception {
    db = new MetricsDatabase(NOTES);
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.put("SQLAGENT_DB_URL", db.agentUrl().withSecret());
    env.put("SQLAGENT_NOTES", db.notes.toString());
    config = AppConfig.load(env);
  }

  @AfterAll
  static void drop() throws Exception {
    if (db != null) db.close();
  }

  static Status.Check check(List<Status.Check> checks, String name) {
    return checks.stream().filter(c -> c.name().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no check " + name + " in " + checks));
  }

  @Test
  void eachMetricIsCheckedThroughTheGate() {
    List<Status.Check> checks = MetricChecks.run(db.target(), config);
    assertThat(checks).extracting(Status.Check::name)
        .containsExactly("metric: revenue", "metric: paid sales", "metric: slow count", "metric: broken");
    Status.Check revenue = check(checks, "metric: revenue");
    assertThat(revenue.ok()).as(revenue.detail()).isTrue();
    assertThat(revenue.detail()).isEqualTo("passes the gate: " + MetricsDatabase.REVENUE_SQL + " over ledger_lines, ledger_sales");
    Status.Check paid = check(checks, "metric: paid sales");
    assertThat(paid.ok()).isFalse();
    assertThat(paid.detail()).startsWith("refused by the gate (unknown_column): ").contains("status");
    Status.Check slow = check(checks, "metric: slow count");
    assertThat(slow.ok()).isFalse();
    assertThat(slow.detail()).startsWith("refused by the gate (").contains("pg_sleep");
    Status.Check broken = check(checks, "metric: broken");
    assertThat(broken.ok()).isFalse();
    assertThat(broken.detail()).startsWith("refused by the gate (");
  }

  @Test
  void theStatusCommandPrintsThemAndFails() {
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == StatusCommand.class) return cls.cast(new StatusCommand(() -> config));
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).execute("status");
    assertThat(exit).isEqualTo(1);
    assertThat(out.toString()).containsPattern("metric: revenue +ok +passes the gate")
        .containsPattern("metric: paid sales +FAIL +refused by the gate \\(unknown_column\\)");
  }
}

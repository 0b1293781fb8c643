package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The examples in docs/notes-file.md are real notes files: they load, and name only the CRM's tables. */
class NotesDocTest {

  static String block(String language, String after) throws IOException {
    String doc = Files.readString(Path.of("docs/notes-file.md"));
    String rest = doc.substring(doc.indexOf(after));
    Matcher m = Pattern.compile("(?s)```" + language + "\\n(.*?)```").matcher(rest);
    assertThat(m.find()).as("a %s block after %s", language, after).isTrue();
    return m.group(1);
  }

  static KnownTables crm() {
    Map<String, Set<String>> t = new LinkedHashMap<>();
    t.put("crm.accounts", Set.of("account_id", "name", "stage", "owner_id", "is_test"));
    t.put("crm.contacts", Set.of("contact_id", "account_id", "email"));
    t.put("crm.users", Set.of("user_id", "name"));
    t.put("crm.deals", Set.of("deal_id", "account_id", "amount", "stage", "closed_on"));
    t.put("billing.invoices", Set.of("invoice_id", "account_id", "issued_on", "total", "status"));
    t.put("billing.invoices_legacy", Set.of("invoice_id", "issued_on", "total_eur"));
    t.put("\"Web\".\"Signups\"", Set.of("signup_id", "createdAt"));
    return KnownTables.of(t);
  }

  @Test
  void theCrmExampleLoadsAndMatchesItsDatabase() throws IOException {
    Notes n = NotesFile.parse("notes.yaml", block("yaml", "## A full example"), NotesFile.Format.YAML);
    assertThat(n.validate(crm())).isEmpty();
    assertThat(n.tables()).hasSize(7);
    assertThat(n.columnNote("\"Web\".\"Signups\"", "createdAt")).contains("UTC timestamp of the signup.");
    assertThat(n.termsFor(List.of("crm.deals"))).containsExactly(
        "\"ARR\" means: annual recurring revenue, the sum of amount over WON deals whose contract has not ended",
        "\"fiscal year\" means: April 1 to March 31; \"FY2025\" starts on 2025-04-01");
    assertThat(n.conventionsFor(List.of("billing.invoices_legacy"))).hasSize(2);
    assertThat(n.tableDates("billing.invoices_legacy").orElseThrow().toString()).isEqualTo("2016-01-01 to 2023-12-31");
    assertThat(n.tableDates("billing.invoices").orElseThrow().toString()).isEqualTo("from 2024-01-01");
    assertThat(n.metricsIn("What was our turnover in FY2025?")).extracting(Notes.Metric::name).containsExactly("revenue");
  }

  @Test
  void theMetricsExampleLoadsAndMatchesAShop() throws IOException {
    Notes n = NotesFile.parse("notes.yaml", block("yaml", "### `metrics`"), NotesFile.Format.YAML);
    Map<String, Set<String>> t = new LinkedHashMap<>();
    t.put("orders", Set.of("order_id", "status"));
    t.put("order_items", Set.of("order_id", "quantity", "unit_price"));
    assertThat(n.validate(KnownTables.of(t))).isEmpty();
    Notes.Metric revenue = n.metrics().get(0);
    assertThat(revenue.filters()).containsExactly("orders.status <> 'cancelled'");
    assertThat(n.metricsIn("sales last month")).containsExactly(revenue);
  }

  @Test
  void theJsonExampleLoadsToo() throws IOException {
    String json = block("json", "The same file in JSON").replace("…", "more");
    Notes n = NotesFile.parse("notes.json", json, NotesFile.Format.JSON);
    assertThat(n.validate(crm())).isEmpty();
    assertThat(n.tableNote("crm.users")).contains("Our own staff who use the CRM (sales reps, managers). Not customers.");
  }
}

package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Checking a notes file against the target's tables and columns. */
class NotesValidateTest {

  static KnownTables crm() {
    Map<String, Set<String>> t = new LinkedHashMap<>();
    t.put("customers", Set.of("cust_id", "name", "status", "email"));
    t.put("invoices", Set.of("inv_id", "cust_id", "amount", "issued_on"));
    t.put("sales.orders", Set.of("order_id", "Order Date"));
    t.put("archive.orders", Set.of("order_id"));
    t.put("\"Sales\".\"Refunds\"", Set.of("refund_id", "\"Amount\""));
    t.put("\"Web Leads\"", null); // columns unknown: not checked
    return KnownTables.of(t);
  }

  @Test
  void aCorrectFileHasNoProblems() {
    Notes n = NotesFile.parse("notes.yaml", """
        tables:
          Customers:
            description: People who bought at least once.
            columns:
              STATUS: Upper case.
          public.invoices: One row per invoice.
          sales.orders:
            columns:
              order date: When it was placed.
          '"Sales"."Refunds"':
            columns:
              '"Amount"': Positive.
          web leads:
            columns:
              anything: Not checked.
        terms:
          - term: active customer
            means: an invoice in the last 12 months
            tables: [customers, INVOICES]
        conventions:
          - tables: [archive.orders]
            text: Orders before 2024.
        """, NotesFile.Format.YAML);
    assertThat(n.validate(crm())).isEmpty();
  }

  @Test
  void unknownTablesAndColumnsAreReportedWithTheirLines() {
    Notes n = NotesFile.parse("notes.yaml", """
        tables:
          customers:
            description: People.
            columns:
              stauts: Upper case.
              email: Lower case.
              phone: With country code.
          custmers: Typo.
          orders: Which one?
          leads: No such table.
          CUSTOMERS: Described twice.
        terms:
          - term: active customer
            means: an invoice in the last 12 months
            tables:
              - customers
              - invoice
        conventions:
          - tables: [sales.order]
            text: Orders before 2024.
        """, NotesFile.Format.YAML);
    assertThat(n.validate(crm())).containsExactly(
        "notes.yaml line 5: table customers has no column 'stauts' (did you mean status?)",
        "notes.yaml line 7: table customers has no column 'phone'",
        "notes.yaml line 8: unknown table 'custmers' (did you mean customers?)",
        "notes.yaml line 9: table 'orders' could be any of sales.orders, archive.orders:"
            + " write it as the catalogue does (schema-qualified, quoted)",
        "notes.yaml line 10: unknown table 'leads'",
        "notes.yaml line 11: table customers is already described at line 2",
        "notes.yaml line 17: unknown table 'invoice' in term 'active customer' (did you mean invoices?)",
        "notes.yaml line 19: unknown table 'sales.order' in a convention (did you mean sales.orders?)");
  }

  @Test
  void theSameProblemsFromJson() {
    Notes n = NotesFile.parse("notes.json", """
        {"tables": {
          "custmers": "Typo.",
          "customers": {"columns": {"stauts": "Upper case."}}
        }}
        """, NotesFile.Format.JSON);
    assertThat(n.validate(crm())).containsExactly(
        "notes.json line 2: unknown table 'custmers' (did you mean customers?)",
        "notes.json line 3: table customers has no column 'stauts' (did you mean status?)");
  }
}

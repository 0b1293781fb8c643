package dev.sqlagent.learn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.LearnedMessages.Report;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The joins and conditions read from one SELECT, against a catalogue without foreign keys. */
class QueryShapeTest {

  static TableInfo table(String name, String... columns) {
    return TableInfo.of(name, null, 10L, Arrays.stream(columns).map(c -> TableInfo.Column.of(c, "text", true, null)).toList(),
        List.of("id"), List.of());
  }

  static final Catalogue CLINIC = Catalogue.of(List.of(
      table("patients", "id", "full_name"),
      table("visits", "id", "patient_ref", "doctor_ref", "deleted_at", "status"),
      table("doctors", "id", "name"),
      table("invoices", "id", "visit_ref", "amount", "status")));

  static QueryShape.JoinPair pair(String t1, String c1, String t2, String c2) {
    return QueryShape.JoinPair.of(t1, c1, t2, c2);
  }

  @Test
  void joinsInOnAndInWhereThroughAliasesAndSubqueries() {
    QueryShape s = QueryShape.of("SELECT p.full_name FROM patients p JOIN visits v ON v.patient_ref = p.id, doctors d"
        + " WHERE d.id = v.doctor_ref AND v.id IN (SELECT i.visit_ref FROM invoices i WHERE i.visit_ref = v.id)", CLINIC);
    assertThat(s.joins()).containsExactlyInAnyOrder(pair("patients", "id", "visits", "patient_ref"),
        pair("doctors", "id", "visits", "doctor_ref"), pair("invoices", "visit_ref", "visits", "id"));
    assertThat(s.tables()).containsExactlyInAnyOrder("patients", "visits", "doctors", "invoices");
  }

  @Test
  void unqualifiedColumnsResolveOnlyWhenOneTableHasThem() {
    QueryShape s = QueryShape.of("SELECT 1 FROM visits JOIN doctors ON doctor_ref = name", CLINIC);
    assertThat(s.joins()).containsExactly(pair("doctors", "name", "visits", "doctor_ref"));
    // id is in both: ambiguous, so nothing is learned from it
    assertThat(QueryShape.of("SELECT 1 FROM visits, doctors WHERE id = doctor_ref", CLINIC).joins()).isEmpty();
  }

  @Test
  void whatTheCatalogueDoesNotHaveIsNotLearned() {
    assertThat(QueryShape.of("SELECT 1 FROM visits v JOIN doctors d ON d.gone = v.doctor_ref", CLINIC).joins()).isEmpty();
    assertThat(QueryShape.of("SELECT 1 FROM visits v JOIN nowhere n ON n.id = v.doctor_ref", CLINIC).joins()).isEmpty();
    assertThat(QueryShape.of("WITH doctors AS (SELECT 1 AS id) SELECT 1 FROM visits v JOIN doctors d ON d.id = v.doctor_ref",
        CLINIC).joins()).isEmpty();
    assertThat(QueryShape.of("DELETE FROM visits", CLINIC)).isSameAs(QueryShape.NONE);
    assertThat(QueryShape.of("not sql at all", CLINIC)).isSameAs(QueryShape.NONE);
  }

  @Test
  void pgStatStatementsParametersParse() {
    QueryShape s = QueryShape.of("SELECT * FROM (SELECT d.name FROM visits v JOIN doctors d ON d.id = v.doctor_ref"
        + " WHERE v.status = $1 AND v.deleted_at IS NULL) q LIMIT $2", CLINIC);
    assertThat(s.joins()).containsExactly(pair("doctors", "id", "visits", "doctor_ref"));
    assertThat(s.conditions()).extracting(QueryShape.Condition::predicate).containsExactly("deleted_at IS NULL");
    // the gate's statements, as pg_stat_statements records them: under the text of their PREPARE
    QueryShape prepared = QueryShape.of("PREPARE sql_agent_gate_2 AS SELECT q.c1 FROM (\nSELECT d.name FROM visits v"
        + " JOIN doctors d ON d.id = v.doctor_ref\n) q LIMIT $1", CLINIC);
    assertThat(prepared.joins()).containsExactly(pair("doctors", "id", "visits", "doctor_ref"));
  }

  @Test
  void conditionsAndAggregatesOfTheWhereClause() {
    QueryShape s = QueryShape.of("SELECT sum(i.amount) FROM invoices i JOIN visits v ON v.id = i.visit_ref"
        + " WHERE i.status = 'paid' AND (v.deleted_at IS NULL) AND i.amount > 0", CLINIC);
    assertThat(s.conditions()).extracting(c -> c.table() + ": " + c.predicate())
        .containsExactlyInAnyOrder("invoices: status = 'paid'", "visits: deleted_at IS NULL");
    assertThat(s.aggregates()).extracting(QueryShape.Condition::predicate).containsExactly("sum(amount)");
  }

  @Test
  void frequentConditionsBecomeSuggestionsAndRareOnesDoNot() {
    String paid = "SELECT sum(i.amount) FROM invoices i WHERE i.status = 'paid'";
    String any = "SELECT count(*) FROM invoices i";
    String live = "SELECT count(*) FROM visits v WHERE v.deleted_at IS NULL";
    Learner.Workload w = new Learner.Workload(List.of(), List.of(
        new Learner.Statement(Learner.QUERY_LOG, paid, 9, Instant.parse("2026-11-30T10:00:00Z")),
        new Learner.Statement(Learner.QUERY_LOG, any, 1, Instant.parse("2026-11-29T10:00:00Z")),
        new Learner.Statement(Learner.PG_STAT_STATEMENTS, live, 4, null),
        new Learner.Statement(Learner.QUERY_LOG, "SELECT 1 FROM doctors d WHERE d.name = 'x'", 2, null)));
    Report r = Learner.learn(CLINIC, w, Instant.parse("2026-12-01T00:00:00Z"));
    assertThat(r.suggestions()).extracting(s -> s.kind() + " " + s.table() + ": " + s.predicate() + " " + s.count() + "/" + s.of())
        .containsExactly("filter invoices: status = 'paid' 9/10", "soft_delete visits: deleted_at IS NULL 4/4");
    assertThat(r.suggestions().get(0).text()).contains("9 of 10", "sum(amount)");
    assertThat(r.suggestions().get(0).evidence().get(0).lastSeen()).isEqualTo("2026-11-30T10:00:00Z");
    assertThat(r.notes()).contains("conventions:", "- tables: ['invoices']", "deleted_at IS NULL");
  }
}

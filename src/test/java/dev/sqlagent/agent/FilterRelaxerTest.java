package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FilterRelaxerTest {

  @Test
  void equalityOnATextLiteralBecomesCaseAndSpaceInsensitive() {
    var r = FilterRelaxer.relax("SELECT count(*) FROM bills b WHERE b.status = 'paid'").orElseThrow();
    assertThat(squeeze(r.sql())).isEqualTo("selectcount(*)frombillsbwherelower(trim((b.status)::text))=lower(trim('paid'))");
    assertThat(r.filters()).containsExactly("b.status = 'paid'");
  }

  @Test
  void likeBecomesIlikeAndLiteralOnTheLeftIsHandled() {
    var r = FilterRelaxer.relax("SELECT * FROM products WHERE prod_name LIKE '%pipe%' AND 'PCS' = unit").orElseThrow();
    assertThat(squeeze(r.sql())).contains("ilike'%pipe%'").contains("lower(trim('pcs'))=lower(trim((unit)::text))");
    assertThat(r.filters()).hasSize(2);
  }

  @Test
  void filtersInsideSubqueriesAndJoinsAreFound() {
    var r = FilterRelaxer.relax("""
        SELECT c.cust_name FROM customers c JOIN bills b ON b.cust_id = c.cust_id AND b.status = 'cancelled'
        WHERE c.cust_id IN (SELECT cust_id FROM bills WHERE status = 'partial')""").orElseThrow();
    assertThat(r.filters()).containsExactlyInAnyOrder("b.status = 'cancelled'", "status = 'partial'");
  }

  private static String squeeze(String sql) {
    return sql.replaceAll("\\s+", "").toLowerCase(java.util.Locale.ROOT);
  }

  @Test
  void noStringFilterMeansNoProbe() {
    assertThat(FilterRelaxer.relax("SELECT c.cust_name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM bills b WHERE b.cust_id = c.cust_id)")).isEmpty();
    assertThat(FilterRelaxer.relax("SELECT * FROM bills WHERE total_amt > 100000")).isEmpty();
  }

  @Test
  void unparseableSqlGetsNoProbe() {
    assertThat(FilterRelaxer.relax("SELECT FROM WHERE ((")).isEmpty();
  }
}

package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.values.ValueMatch;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whole stored values bring their tables into the choice, with the reason, above the weaker picks. */
class ValueLinksTest {

  static final List<ScoredTable> RANKED = List.of(new ScoredTable("bills", 0.8), new ScoredTable("stock_entries", 0.7),
      new ScoredTable("po_lines", 0.6), new ScoredTable("employees", 0.5), new ScoredTable("products", 0.4),
      new ScoredTable("customers", 0.3), new ScoredTable("suppliers", 0.2));

  static ValueMatch match(String phrase, String table, String column, String value) {
    return new ValueMatch(phrase, List.of(new ValueMatch.Stored(table, column, value)));
  }

  @Test
  void aLinkedTableComesRightAfterTheBestPickWithItsReason() {
    Map<String, String> links = ValueLinks.tables(List.of(match("pooja patil", "customers", "cust_name", "Pooja Patil")),
        t -> true);
    assertThat(links).containsExactly(Map.entry("customers", "'pooja patil' = customers.cust_name"));
    List<ScoredTable> chosen = ValueLinks.choose(RANKED, 5, links);
    assertThat(chosen).extracting(ScoredTable::name)
        .containsExactly("bills", "customers", "stock_entries", "po_lines", "employees", "products");
    assertThat(chosen.get(1).valueLink()).isEqualTo("'pooja patil' = customers.cust_name");
    assertThat(chosen.get(1).score()).isEqualTo(0.3);
    assertThat(ScoredTable.fromJson(chosen.get(1).toJson())).isEqualTo(chosen.get(1));
    assertThat(chosen.get(1).toJson().getString("value_link")).isEqualTo("'pooja patil' = customers.cust_name");
  }

  @Test
  void aChosenTableMovesUpAndNothingIsDropped() {
    Map<String, String> links = new LinkedHashMap<>();
    links.put("employees", "'meena joshi' = employees.emp_name");
    links.put("bills", "'paid' = bills.status");
    // The best pick stays first when it is linked itself, whatever order the links came in.
    assertThat(ValueLinks.choose(RANKED, 5, links)).extracting(ScoredTable::name)
        .containsExactly("bills", "employees", "stock_entries", "po_lines", "products");
    assertThat(ValueLinks.choose(RANKED, 5, Map.of())).isEqualTo(RANKED.subList(0, 5));
  }

  @Test
  void aMisspeltValueShowsItsStoredFormAndTheRoleSeesOnlyItsTables() {
    List<ValueMatch> values = List.of(match("Suresh Kulkarny", "customers", "cust_name", "Suresh Kulkarni"),
        match("paid", "bills", "status", "PAID"), match("Mumbai", "suppliers", "city", "Mumbai"),
        match("Pune", "warehouses", "city", "Pune"));
    assertThat(ValueLinks.tables(values, t -> !t.equals("bills"))).containsExactly(
        Map.entry("customers", "'Suresh Kulkarny' ≈ customers.cust_name 'Suresh Kulkarni'"),
        Map.entry("suppliers", "'Mumbai' = suppliers.city"),
        Map.entry("warehouses", "'Pune' = warehouses.city"));
    assertThat(ValueLinks.tables(values, t -> true)).hasSize(ValueLinks.MAX_TABLES).doesNotContainKey("warehouses");
  }
}

package dev.sqlagent.values;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Question phrases to stored values through the real Lucene index. */
class ValueMatcherTest {

  static ValueIndex index;

  @BeforeAll
  static void build() {
    index = ValueIndex.build(List.of(
        new ColumnValues("bills", "status", true, "pg_stats", List.of("CANCELLED", "PAID", "PARTIAL")),
        new ColumnValues("actor", "first_name", false, "distinct", List.of("PENELOPE", "NICK", "ED", "JENNIFER")),
        new ColumnValues("actor", "last_name", false, "distinct", List.of("GUINESS", "WAHLBERG", "CHASE", "DAVIS")),
        new ColumnValues("country", "country", false, "distinct", List.of("United Kingdom", "United States", "France")),
        new ColumnValues("staff", "status", true, "distinct", List.of("paid leave", "active"))));
  }

  @AfterAll
  static void close() {
    index.close();
  }

  private static List<ValueMatch> match(String question, String... tables) {
    return ValueMatcher.match(index, question, tables.length == 0 ? null : Set.of(tables), Set.of("bills", "bill", "actor"));
  }

  @Test
  void aLowerCaseWordFindsTheUpperCaseStoredValue() {
    assertThat(match("How many bills were paid?", "bills")).extracting(ValueMatch::line)
        .containsExactly("'paid' → bills.status = 'PAID'");
  }

  @Test
  void aFullNameBecomesTwoColumnsOfOneTable() {
    assertThat(match("Which films did Penelope Guiness act in?", "actor")).extracting(ValueMatch::line)
        .containsExactly("'Penelope Guiness' → actor.first_name = 'PENELOPE', actor.last_name = 'GUINESS'");
  }

  @Test
  void aMisspelledNameStillFindsItsStoredForm() {
    assertThat(match("films with penelope guinness", "actor")).singleElement().satisfies(m ->
        assertThat(m.stored()).extracting(ValueMatch.Stored::value).containsExactly("PENELOPE", "GUINESS"));
  }

  @Test
  void aWholeMultiWordValueIsMatchedAsOnePhrase() {
    assertThat(match("customers in the united  kingdom", "country")).extracting(ValueMatch::line)
        .containsExactly("'united  kingdom' → country.country = 'United Kingdom'");
  }

  @Test
  void onlyTheOfferedTablesAreSearched() {
    assertThat(match("How many bills were paid?", "actor", "country")).isEmpty();
    assertThat(match("staff on paid leave", "staff", "bills")).extracting(ValueMatch::line)
        .containsExactly("'paid leave' → staff.status = 'paid leave'");
  }

  @Test
  void schemaWordsAndQuestionWordsAreNotLookedUp() {
    assertThat(match("How many actors are there in total?")).isEmpty();
    assertThat(match("What is the average bill?")).isEmpty();
  }

  @Test
  void anApostropheInAValueIsQuotedForSql() {
    ValueIndex small = ValueIndex.build(List.of(new ColumnValues("t", "name", false, "distinct", List.of("O'Brien"))));
    assertThat(ValueMatcher.match(small, "orders of o'brien", null, Set.of())).extracting(ValueMatch::line)
        .containsExactly("'o''brien' → t.name = 'O''Brien'");
    small.close();
  }
}

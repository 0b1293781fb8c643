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
  void aMisspeltWholeNameBeatsTheWordsOfOtherValues() {
    try (ValueIndex shop = shopNames()) {
      // word by word, 'Suresh' is one word of an employee and 'Kulkarny' one word of a supplier
      assertThat(ValueMatcher.match(shop, "How many bills does Suresh Kulkarny have?", null, Set.of("bills", "bill")))
          .extracting(ValueMatch::line)
          .containsExactly("'Suresh Kulkarny' → customers.cust_name = 'Suresh Kulkarni'");
      assertThat(ValueMatcher.match(shop, "How many bills does Suresh Kulkarny have?", Set.of("employees", "suppliers"),
          Set.of("bills", "bill"))).extracting(ValueMatch::line)
          .containsExactly("'Suresh' → employees.emp_name = 'Suresh Bhosale'",
              "'Kulkarny' → suppliers.supp_name = 'Kulkarni Builders'");
    }
  }

  @Test
  void onlyWholeValuesLinkTables() {
    try (ValueIndex shop = shopNames()) {
      assertThat(ValueMatcher.wholeValues(ValueMatcher.prepare(shop, "How much has pooja  PATIL spent in total?"),
          Set.of())).extracting(ValueMatch::line).containsExactly("'pooja  PATIL' → customers.cust_name = 'Pooja Patil'");
      assertThat(ValueMatcher.wholeValues(ValueMatcher.prepare(shop, "bills of suresh kulkarny"), Set.of("bills")))
          .extracting(ValueMatch::line).containsExactly("'suresh kulkarny' → customers.cust_name = 'Suresh Kulkarni'");
      assertThat(ValueMatcher.wholeValues(ValueMatcher.prepare(shop, "bills paid in mumbay"), Set.of("bills")))
          .extracting(ValueMatch::line).containsExactly("'paid' → bills.status = 'PAID'", "'mumbay' → suppliers.city = 'Mumbai'");
      // one word of a value names no table: 'Bhosale' alone, 'Builders' alone
      assertThat(ValueMatcher.wholeValues(ValueMatcher.prepare(shop, "what did bhosale buy from the builders"), Set.of()))
          .isEmpty();
    }
  }

  private static ValueIndex shopNames() {
    return ValueIndex.build(List.of(
        new ColumnValues("customers", "cust_name", false, "distinct", List.of("Pooja Patil", "Suresh Kulkarni", "Anita Rao")),
        new ColumnValues("employees", "emp_name", false, "distinct", List.of("Suresh Bhosale", "Meena Joshi")),
        new ColumnValues("suppliers", "supp_name", false, "distinct", List.of("Kulkarni Builders", "Shree Traders")),
        new ColumnValues("suppliers", "city", true, "pg_stats", List.of("Mumbai", "Pune")),
        new ColumnValues("bills", "status", true, "pg_stats", List.of("PAID", "CANCELLED"))));
  }

  @Test
  void anApostropheInAValueIsQuotedForSql() {
    ValueIndex small = ValueIndex.build(List.of(new ColumnValues("t", "name", false, "distinct", List.of("O'Brien"))));
    assertThat(ValueMatcher.match(small, "orders of o'brien", null, Set.of())).extracting(ValueMatch::line)
        .containsExactly("'o''brien' → t.name = 'O''Brien'");
    small.close();
  }

  @Test
  void lookupsMadeBeforeTheTablesAreKnownMatchExactlyAsTheDirectOnes() {
    // Many tables of values made of few look-alike words, so a word has far more fuzzy hits than are kept and
    // most lie in other tables; questions with typos, whole values, stop words and schema words.
    String[] syllables = {"ka", "ro", "mi", "ta", "lo", "ne", "su", "va"};
    java.util.Random random = new java.util.Random(7);
    java.util.function.IntFunction<String> word = i -> syllables[i % 8] + syllables[(i / 8) % 8] + syllables[(i / 64) % 8]
        + (i % 3 == 0 ? syllables[(i / 7) % 8] + syllables[i % 5] : "");
    List<ColumnValues> columns = new java.util.ArrayList<>();
    List<String> vocabulary = new java.util.ArrayList<>();
    for (int t = 0; t < 24; t++) {
      for (int c = 0; c < 2; c++) {
        List<String> values = new java.util.ArrayList<>();
        for (int v = 0; v < 60; v++) {
          String value = (word.apply(random.nextInt(512)) + (v % 3 == 0 ? "" : " " + word.apply(random.nextInt(512))))
              .toUpperCase(java.util.Locale.ROOT);
          values.add(value);
          vocabulary.add(value);
        }
        columns.add(new ColumnValues("t" + t, "c" + c, false, "distinct", values.stream().distinct().toList()));
      }
    }
    // and one value stored in more columns than the lookups made before keep
    for (int c = 0; c < ValueMatcher.Prepared.EXACT_DEPTH + 10; c++) {
      columns.add(new ColumnValues("w" + c % 40, "c" + c, false, "distinct", List.of("Everywhere")));
    }
    ValueIndex big = ValueIndex.build(columns);
    int compared = 0;
    int matched = 0;
    for (int q = 0; q < 60; q++) {
      StringBuilder question = new StringBuilder(q % 8 == 0 ? "how many orders everywhere of" : "how many orders of");
      for (int w = 0; w < 2 + random.nextInt(4); w++) {
        String v = vocabulary.get(random.nextInt(vocabulary.size())).toLowerCase(java.util.Locale.ROOT);
        if (random.nextInt(3) == 0) v = v.substring(0, 2) + "x" + v.substring(3);  // a typo
        if (random.nextInt(4) == 0) v = word.apply(random.nextInt(512));          // maybe in no table
        question.append(random.nextBoolean() ? " in " : " ").append(v);
      }
      // words of any table's names are left to the lookups after the tables are chosen: the same matches
      Set<String> anyTablesWords = q % 2 == 0 ? Set.of() : Set.of("orders", question.toString().split(" ")[5]);
      ValueMatcher.Prepared prepared = ValueMatcher.prepare(big, question.toString(), anyTablesWords);
      for (int s = 0; s < 6; s++) {
        Set<String> tables = null;
        if (s > 0) {
          tables = new java.util.HashSet<>();
          for (int t = 0; t < s; t++) tables.add(random.nextInt(5) == 0 ? "w" + random.nextInt(40) : "t" + random.nextInt(24));
        }
        Set<String> schemaWords = s % 2 == 0 ? Set.of("orders", "order")
            : Set.of("orders", question.toString().split(" ")[4 + random.nextInt(2)]);
        List<ValueMatch> direct = ValueMatcher.match(big, question.toString(), tables, schemaWords);
        assertThat(prepared.match(tables, schemaWords)).as("%s in %s", question, tables).isEqualTo(direct);
        compared++;
        if (!direct.isEmpty()) matched++;
      }
    }
    assertThat(compared).isEqualTo(360);
    assertThat(matched).isGreaterThan(150);
    big.close();
  }
}

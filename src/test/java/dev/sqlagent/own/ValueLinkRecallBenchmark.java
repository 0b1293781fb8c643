package dev.sqlagent.own;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.db.Target;
import dev.sqlagent.retrieval.JoinPaths;
import dev.sqlagent.retrieval.TableChoice;
import dev.sqlagent.retrieval.TableSelector;
import dev.sqlagent.retrieval.ValueLinks;
import dev.sqlagent.testing.TestDatabase;
import dev.sqlagent.values.StoredValues;
import dev.sqlagent.values.ValueLimits;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Value-linking recall: questions that name a stored value (a third of them in the wrong case or with one typo),
 * each needing the table that stores it, on the demo shop without its notes file and on a database that is not the
 * demo ({@link OwnDatabase} with {@link OwnDatabase#addPeopleAndSpending}). For each question, whether the needed
 * table is chosen before (the top k by similarity and the join paths: a value is only matched in tables already
 * chosen) and after (the tables the question's whole values link added, {@link ValueLinks}), through the same
 * choice the retrieval verticle makes ({@link TableChoice#choice}). Measures, asserts nothing. Run:
 * {@code mvn -B test -Dtest=ValueLinkRecallBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}; prints the table and
 * writes it to target/benchmarks/value-link-recall.txt.
 */
@Tag("benchmark")
class ValueLinkRecallBenchmark {

  /** A question, the table it needs, and how the value is written in it. */
  record Case(String question, String needed, String written) {}

  /** Templates by needed table: none names the table or its columns' words. */
  static List<Case> cases(Map<String, List<String>> templates, Map<String, List<String>> values) {
    List<Case> out = new ArrayList<>();
    int n = 0;
    for (Map.Entry<String, List<String>> t : templates.entrySet()) {
      List<String> vs = values.get(t.getKey());
      for (int i = 0; i < vs.size(); i++) {
        String template = t.getValue().get(i % t.getValue().size());
        String value = vs.get(i);
        // every third question: alternately all lower case, or one letter wrong in its longest word
        String written = n % 3 != 2 ? "as stored" : (n / 3) % 2 == 0 ? "lower case" : "one typo";
        String v = switch (written) {
          case "lower case" -> value.toLowerCase(Locale.ROOT);
          case "one typo" -> typo(value);
          default -> value;
        };
        out.add(new Case(String.format(Locale.ROOT, template, v), t.getKey(), written));
        n++;
      }
    }
    return out;
  }

  /** One letter of the longest word (5 letters or more) changed, after its first three. */
  static String typo(String value) {
    String[] words = value.split(" ");
    int longest = 0;
    for (int i = 1; i < words.length; i++) if (words[i].length() > words[longest].length()) longest = i;
    String w = words[longest];
    if (w.length() < 5) return value.toLowerCase(Locale.ROOT);
    char c = w.charAt(3);
    char swap = Character.toLowerCase(c) == 'e' ? 'a' : 'e';
    words[longest] = w.substring(0, 3) + (Character.isUpperCase(c) ? Character.toUpperCase(swap) : swap) + w.substring(4);
    return String.join(" ", words);
  }

  static final Map<String, List<String>> DEMO_TEMPLATES = new java.util.LinkedHashMap<>();
  static final Map<String, List<String>> DEMO_VALUES = new java.util.LinkedHashMap<>();
  static final Map<String, List<String>> OWN_TEMPLATES = new java.util.LinkedHashMap<>();
  static final Map<String, List<String>> OWN_VALUES = new java.util.LinkedHashMap<>();

  static {
    DEMO_TEMPLATES.put("customers", List.of("How much has %s spent with us in total?", "When did %s last shop here?",
        "How many times did %s come in this year?"));
    DEMO_TEMPLATES.put("employees", List.of("How many sales did %s ring up in March?", "Who does %s report to?",
        "What is %s paid each month?"));
    DEMO_TEMPLATES.put("suppliers", List.of("How much did we pay %s this year?", "When did we last order from %s?",
        "What did %s deliver last month?"));
    DEMO_VALUES.put("suppliers", List.of("Shree Ganesh Pipes", "Apex Electricals", "Bharat Fasteners",
        "Rainbow Paints Depot", "Kiran Tool House", "Metro Sanitary Mart", "Sai Hardware Traders"));
    DEMO_TEMPLATES.put("products", List.of("How many %s did we sell last week?", "What does a %s cost now?",
        "How many %s are left?"));
    OWN_TEMPLATES.put("customers", List.of("How much has %s spent with us in total?", "When did %s last buy?",
        "How many times did %s order this year?"));
    OWN_VALUES.put("customers", List.of("Pooja Patil", "Suresh Kulkarni", "Meera Nair", "Tomasz Wojcik",
        "Ingrid Halvorsen", "Oluwaseun Adeyemi", "Ada Lovelace", "Grace Hopper", "Linus Torvalds"));
    OWN_TEMPLATES.put("sales.\"Staff\"", List.of("How much did %s sell in March?", "Which desk is %s on?",
        "How many orders did %s handle?"));
    OWN_VALUES.put("sales.\"Staff\"", List.of("Suresh Bhosale", "Meena Joshi", "Ravi Menon", "Kavya Reddy",
        "Farah Khan", "Arjun Mehta"));
    OWN_TEMPLATES.put("suppliers", List.of("How much did we pay %s this year?", "When did we last order from %s?",
        "What did %s deliver last month?"));
    OWN_VALUES.put("suppliers", List.of("Kulkarni Builders", "Shree Traders", "Orion Components",
        "Bluewater Logistics", "Nimbus Paper Company", "Crescent Metals"));
    OWN_TEMPLATES.put("sales.\"LineItems\"", List.of("How many %s were sold in 2025?", "What did the %s cost each?"));
    OWN_VALUES.put("sales.\"LineItems\"", List.of("Analytical Engine", "Punched cards", "Compiler", "Kernel"));
    OWN_TEMPLATES.put("\"Expenses\"", List.of("How much went on %s last year?", "What did %s cost us in January?"));
    OWN_VALUES.put("\"Expenses\"", List.of("Office Rent", "Cloud Hosting", "Conference Travel"));
    OWN_TEMPLATES.put("sales.payments", List.of("How much came in by %s?", "How many orders were settled by %s?"));
    OWN_VALUES.put("sales.payments", List.of("Wire Transfer", "Credit Card", "Bank Cheque"));
  }

  @Test
  void recall() throws Exception {
    List<String> out = new ArrayList<>();
    Vertx vertx = Vertx.vertx();
    try (OwnDatabase own = OwnDatabase.create()) {
      own.addPeopleAndSpending();
      TestDatabase db = TestDatabase.get();
      // the demo's people and products are read from it (its names are made when it is built), in template order
      DEMO_VALUES.put("customers", column(db, "SELECT cust_name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM"
          + " employees e WHERE e.emp_name = c.cust_name) ORDER BY cust_name <> 'Pooja Patil', cust_name <> 'Suresh Kulkarni',"
          + " cust_id LIMIT 9"));
      DEMO_VALUES.put("employees", column(db, "SELECT emp_name FROM employees e WHERE NOT EXISTS (SELECT 1 FROM"
          + " customers c WHERE c.cust_name = e.emp_name) ORDER BY emp_id LIMIT 7"));
      DEMO_VALUES.put("products", column(db, "SELECT prod_name FROM products WHERE prod_name !~ '[0-9]' ORDER BY prod_id"
          + " LIMIT 7"));
      Map<String, List<String>> ordered = new java.util.LinkedHashMap<>();
      DEMO_TEMPLATES.keySet().forEach(t -> ordered.put(t, DEMO_VALUES.get(t)));
      TableSelector.loadModel();
      out.add("value-link recall: is the table a question's stored value lies in chosen? before = top k by similarity"
          + " and join paths (values matched only in those); after = with the tables whole values link");
      out.addAll(measure(vertx, "demo without notes", db.target(), cases(DEMO_TEMPLATES, ordered)));
      out.addAll(measure(vertx, "own database (not the demo)", new Target(own.roUrl(), false),
          cases(OWN_TEMPLATES, OWN_VALUES)));
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    String report = String.join("\n", out) + "\n";
    System.out.print(report);
    Files.createDirectories(Path.of("target/benchmarks"));
    Files.writeString(Path.of("target/benchmarks/value-link-recall.txt"), report);
  }

  static List<String> column(TestDatabase db, String sql) throws Exception {
    List<String> names = new ArrayList<>();
    try (var c = db.target().roConnection(); var s = c.createStatement(); var rs = s.executeQuery(sql)) {
      while (rs.next()) names.add(rs.getString(1));
    }
    return names;
  }

  static List<String> measure(Vertx vertx, String name, Target target, List<Case> cases) throws Exception {
    Pool pool = PgBuilder.pool().connectingTo(target.roOptions()).using(vertx).build();
    try {
      Catalogue cat = new Discovery(pool, List.of()).read().await(60, TimeUnit.SECONDS);
      StoredValues values = new StoredValues(vertx, dev.sqlagent.catalogue.TargetReader.over(pool,
          new dev.sqlagent.catalogue.TargetReader.Timeouts(10_000, 1_000)), null, target.key(), ValueLimits.defaults(10_000));
      values.refresh(cat, false).await(300, TimeUnit.SECONDS);
      TableSelector selector = new TableSelector();
      selector.index(cat);
      Map<String, Set<String>> graph = JoinPaths.graph(cat);
      int k = TableChoice.topK(cat.tables().size(), false);
      List<String> lines = new ArrayList<>();
      lines.add("");
      lines.add(String.format(Locale.ROOT, "%s: %d tables, k = %d, %d questions, %s", name, cat.tables().size(), k,
          cases.size(), values.status().getInteger("indexed_values") + " values indexed"));
      lines.add(String.format(Locale.ROOT, "%-62s %-20s %-10s %-6s %-6s %s", "question", "needs", "written", "before",
          "after", "tables before → after"));
      int[] before = new int[3];
      int[] after = new int[3];
      int[] total = new int[3];
      long tablesBefore = 0;
      long tablesAfter = 0;
      for (Case c : cases) {
        List<ScoredTable> ranked = selector.rank(cat, c.question());
        Map<String, String> links = ValueLinks.tables(values.wholeValues(values.prepare(c.question(), cat), cat),
            t -> cat.find(t).isPresent());
        List<String> was = TableChoice.choice(graph, ranked, k, cat.tables().size(), Map.of()).stream()
            .map(ScoredTable::name).toList();
        List<String> is = TableChoice.choice(graph, ranked, k, cat.tables().size(), links).stream()
            .map(ScoredTable::name).toList();
        int kind = c.written().equals("as stored") ? 0 : c.written().equals("lower case") ? 1 : 2;
        total[kind]++;
        if (was.contains(c.needed())) before[kind]++;
        if (is.contains(c.needed())) after[kind]++;
        tablesBefore += was.size();
        tablesAfter += is.size();
        lines.add(String.format(Locale.ROOT, "%-62s %-20s %-10s %-6s %-6s %d → %d%s", c.question(), c.needed(),
            c.written(), was.contains(c.needed()) ? "yes" : "no", is.contains(c.needed()) ? "yes" : "no", was.size(),
            is.size(), links.isEmpty() ? "" : "  links: " + links.keySet()));
      }
      int n = cases.size();
      lines.add(String.format(Locale.ROOT, "%s: needed table chosen before %d/%d (%.0f%%), after %d/%d (%.0f%%);"
              + " as stored %d→%d of %d, lower case %d→%d of %d, one typo %d→%d of %d; tables offered per question"
              + " %.1f → %.1f", name, sum(before), n, 100.0 * sum(before) / n, sum(after), n, 100.0 * sum(after) / n,
          before[0], after[0], total[0], before[1], after[1], total[1], before[2], after[2], total[2],
          (double) tablesBefore / n, (double) tablesAfter / n));
      return lines;
    } finally {
      pool.close().await(30, TimeUnit.SECONDS);
    }
  }

  private static int sum(int[] a) {
    return a[0] + a[1] + a[2];
  }
}

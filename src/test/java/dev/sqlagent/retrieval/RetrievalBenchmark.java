package dev.sqlagent.retrieval;

import dev.sqlagent.testing.Percentiles;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Measures retrieval: start-up (model load, index build, time until the verticle is deployed and until the
 * first RETRIEVE answers), selection latency, and the size of the prompt's schema + samples block for the top
 * 5 against a block holding every table. Asserts nothing; prints and writes target/benchmarks/retrieval.txt.
 *
 * <p>Run: {@code mvn -B test -Dtest=RetrievalBenchmark -Dgroups=benchmark -Dtest.excludedGroups=}
 */
@Tag("benchmark")
class RetrievalBenchmark {

  /** Questions with the tables a correct query needs (a hand-made label, for recall). */
  static final Map<String, List<String>> LABELLED = new LinkedHashMap<>();

  static {
    LABELLED.put("What was the total revenue in 2023?", List.of("bill_archive"));
    LABELLED.put("Which supplier is inactive?", List.of("suppliers"));
    LABELLED.put("How much stock was lost to theft?", List.of("stock_adjustments"));
    LABELLED.put("Top 5 customers by amount billed last year", List.of("bills", "customers"));
    LABELLED.put("Which products are below their reorder level?", List.of("products"));
    LABELLED.put("Which cashier made the most sales in 2025?", List.of("bills", "employees"));
    LABELLED.put("How many purchase orders are still open?", List.of("purchase_orders"));
    LABELLED.put("Average discount per bill by month", List.of("bills"));
    LABELLED.put("Which employees report to the owner?", List.of("employees"));
    LABELLED.put("How much did we pay suppliers for cement deliveries?",
        List.of("stock_entries", "suppliers", "products", "categories"));
    LABELLED.put("How much was billed versus collected in March 2025?", List.of("bills", "payments"));
    LABELLED.put("Revenue by product category in 2025", List.of("bills", "bill_items", "products", "categories"));
    LABELLED.put("Which customers are over their credit limit?", List.of("customers", "bills", "payments"));
    LABELLED.put("How many bills were paid by UPI?", List.of("payments"));
    LABELLED.put("What is the best selling product by units?", List.of("bill_items", "products"));
    LABELLED.put("Monthly sales for 2024", List.of("bill_archive"));
    LABELLED.put("Which purchase orders were never confirmed by the supplier?", List.of("purchase_orders"));
    LABELLED.put("Total salary paid to cashiers each month", List.of("employees"));
    LABELLED.put("How many walk-in sales were there in June 2025?", List.of("bills"));
    LABELLED.put("Which products were damaged most often?", List.of("stock_adjustments", "products"));
    // Periods inside and outside the tables' documented dates, and business terms of the notes.
    LABELLED.put("How many bills were paid in 2025?", List.of("bills"));
    LABELLED.put("What was the revenue in 2024?", List.of("bill_archive"));
    LABELLED.put("Total sales before 2025", List.of("bill_archive"));
    LABELLED.put("How many bills were cancelled in March 2025?", List.of("bills"));
    LABELLED.put("Revenue in January 2024", List.of("bill_archive"));
    LABELLED.put("Monthly sales from 2023 to 2024", List.of("bill_archive"));
    LABELLED.put("What was the average bill amount in Q2 2024?", List.of("bill_archive"));
    LABELLED.put("How much was collected in 2025?", List.of("payments"));
    LABELLED.put("How many walk-in bills were there in 2026?", List.of("bills"));
    LABELLED.put("Which products are low stock?", List.of("products"));
    LABELLED.put("How many units lost were recorded last year?", List.of("stock_adjustments"));
    LABELLED.put("Sales per day on 2024-12-31", List.of("bill_archive"));
  }

  /** "Today" for relative periods ("last year"), fixed so the recall is the same in any year. */
  static final LocalDate TODAY = LocalDate.of(2026, 11, 30);

  static final List<String> QUESTIONS = List.copyOf(LABELLED.keySet());

  @Test
  void measure() throws Exception {
    List<String> out = new ArrayList<>();
    Vertx vertx = Vertx.vertx();
    try {
      TestDatabase db = TestDatabase.get();

      // Start-up, cold: the first deployment in this JVM loads the model.
      long d0 = System.nanoTime();
      vertx.deployVerticle(new RetrievalVerticle(db.target(), StateDatabase.open(vertx, TestDatabase.get().state(), 2), db.config(java.util.Map.of()))).await(120, TimeUnit.SECONDS);
      long d1 = System.nanoTime();
      RetrievalClient client = new RetrievalClient(vertx, 60_000);
      client.retrieve(new Retrieval.Request(QUESTIONS.get(0), false)).await(120, TimeUnit.SECONDS);
      long d2 = System.nanoTime();
      out.add(String.format("start-up (cold JVM): verticle deployed in %d ms; first RETRIEVE answered %d ms after"
          + " deploy began (model load + index build + one retrieval)", ms(d1 - d0), ms(d2 - d0)));

      Pool pool = PgBuilder.pool().connectingTo(db.target().roOptions()).using(vertx).build();
      TableNotes notes = TableNotes.fromResource(DemoShop.NOTES_RESOURCE);
      Catalogue catalogue = notes.annotate(new Discovery(pool, List.of()).read().await(30, TimeUnit.SECONDS));

      // Index build, warm model: a fresh selector embeds every table again.
      List<Long> builds = new ArrayList<>();
      TableSelector selector = null;
      for (int i = 0; i < 5; i++) {
        long t0 = System.nanoTime();
        selector = new TableSelector(new ConcurrentHashMap<>());
        selector.index(catalogue);
        builds.add(System.nanoTime() - t0);
      }
      Collections.sort(builds);
      out.add(String.format("index build (%d tables, model already loaded): median %d ms, min %d ms, max %d ms",
          catalogue.tables().size(), ms(builds.get(2)), ms(builds.get(0)), ms(builds.get(4))));

      // Selection latency in process: embed the question, rank every table.
      for (String q : QUESTIONS) selector.select(catalogue, q, 5);  // warm-up
      List<Long> select = new ArrayList<>();
      for (int round = 0; round < 10; round++) {
        for (String q : QUESTIONS) {
          long t0 = System.nanoTime();
          selector.select(catalogue, q, 5);
          select.add(System.nanoTime() - t0);
        }
      }
      out.add("selection in process (embed question + rank), " + select.size() + " calls: " + percentiles(select));

      // Recall of the hand-labelled tables in the top 3, 5 and 9, the first table and the mean rank of the needed
      // ones: by similarity alone, then moved by the notes' dates and terms as the verticle ranks (before and
      // after NotesRanking, on the same questions).
      List<String> misses = new ArrayList<>();
      for (boolean withNotes : new boolean[] {false, true}) {
        String how = withNotes ? "similarity + notes' dates and terms" : "similarity alone";
        Map<String, List<String>> order = new LinkedHashMap<>();
        for (String q : QUESTIONS) {
          List<ScoredTable> ranked = selector.rank(catalogue, q);
          if (withNotes) ranked = notes.rerank(ranked, q, TODAY);
          order.put(q, ranked.stream().map(ScoredTable::name).toList());
        }
        for (int k : new int[] {3, TableChoice.TOP_K, TableChoice.WIDE_TOP_K}) {
          int found = 0;
          int needed = 0;
          int complete = 0;
          int distractors = 0;
          for (var e : LABELLED.entrySet()) {
            List<String> all = order.get(e.getKey());
            List<String> top = all.subList(0, Math.min(k, all.size()));
            long hit = e.getValue().stream().filter(top::contains).count();
            found += (int) hit;
            needed += e.getValue().size();
            if (hit == e.getValue().size()) complete++;
            else if (k == TableChoice.TOP_K) misses.add(how + ": " + e.getKey() + " -> " + top);
            if (top.contains("store_settings") || top.contains("tbl_prod_master_old")) distractors++;
          }
          out.add(String.format("top %d, %s: recall %d/%d needed tables; %d/%d questions have all they need;"
              + " %d/%d include store_settings or tbl_prod_master_old", k, how, found, needed, complete,
              LABELLED.size(), distractors, LABELLED.size()));
        }
        int firstNeeded = 0;
        double rankSum = 0;
        int ranks = 0;
        for (var e : LABELLED.entrySet()) {
          List<String> all = order.get(e.getKey());
          if (e.getValue().contains(all.get(0))) firstNeeded++;
          for (String t : e.getValue()) {
            rankSum += all.indexOf(t) + 1;
            ranks++;
          }
        }
        out.add(String.format("%s: the first table is a needed one for %d/%d questions; mean rank of a needed"
            + " table %.2f", how, firstNeeded, LABELLED.size(), rankSum / ranks));
        String example = "How many bills were paid in 2025?";
        out.add(String.format("%s: \"%s\" ranks %s", how, example, order.get(example).subList(0, 5)));
      }
      misses.forEach(m -> out.add("  top 5 misses, " + m));

      // RETRIEVE over the bus: live catalogue read + selection (worker) + 3 sample rows per table.
      List<Long> retrieve = new ArrayList<>();
      for (int round = 0; round < 5; round++) {
        for (String q : QUESTIONS) {
          long t0 = System.nanoTime();
          client.retrieve(new Retrieval.Request(q, false)).await(60, TimeUnit.SECONDS);
          retrieve.add(System.nanoTime() - t0);
        }
      }
      out.add("RETRIEVE over the event bus (top 5, catalogue + selection + samples), " + retrieve.size()
          + " calls: " + percentiles(retrieve));

      // Prompt size: the top-5 block per question against the block holding every table.
      long top5Chars = 0;
      long widenedChars = 0;
      int maxTop5 = 0;
      for (String q : QUESTIONS) {
        Retrieval r = client.retrieve(new Retrieval.Request(q, false)).await(60, TimeUnit.SECONDS);
        int chars = block(r.schema(), r.samples(), r.conventions()).length();
        top5Chars += chars;
        maxTop5 = Math.max(maxTop5, chars);
        Retrieval w = client.retrieve(new Retrieval.Request(q, true)).await(60, TimeUnit.SECONDS);
        widenedChars += block(w.schema(), w.samples(), w.conventions()).length();
      }
      List<SampleRows> allSamples = new ArrayList<>();
      for (TableInfo t : catalogue.tables()) {
        allSamples.add(client.sample(new RetrievalMessages.SampleRequest(t.name(), Samples.PROMPT_SAMPLE_ROWS, null)).await(30, TimeUnit.SECONDS));
      }
      int allChars = block(SchemaText.ddl(catalogue.tables()), SampleRows.text(allSamples),
          notes.conventionsFor(catalogue.names())).length();
      long avgTop5 = top5Chars / QUESTIONS.size();
      long avgWide = widenedChars / QUESTIONS.size();
      out.add(String.format("prompt block (schema + samples + conventions), top 5: mean %d chars (~%d tokens),"
          + " max %d chars (~%d tokens)", avgTop5, avgTop5 / 4, maxTop5, maxTop5 / 4));
      out.add(String.format("prompt block, widened to 9: mean %d chars (~%d tokens)", avgWide, avgWide / 4));
      out.add(String.format("prompt block, every table (%d): %d chars (~%d tokens); top 5 is %.0f%% of it",
          catalogue.tables().size(), allChars, allChars / 4, 100.0 * avgTop5 / allChars));
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    String report = String.join("\n", out) + "\n";
    System.out.print(report);
    Path file = Path.of("target", "benchmarks", "retrieval.txt");
    Files.createDirectories(file.getParent());
    Files.writeString(file, report);
  }

  private static String block(String schema, String samples, List<String> conventions) {
    return schema + "\n" + samples + "\n" + String.join("\n", conventions);
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }

  private static String percentiles(List<Long> nanos) {
    return String.format("p50 %.1f ms, p99 %.1f ms, max %.1f ms", Percentiles.of(nanos, 50) / 1e6,
        Percentiles.of(nanos, 99) / 1e6, Percentiles.of(nanos, 100) / 1e6);
  }
}

package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.generation.ChatClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The schema block within SQLAGENT_PROMPT_BUDGET: least relevant tables shortened first, none dropped. */
class PromptBudgetTest {

  /** A wide table: id, a foreign key, then {@code filler} plain columns, one of them commented. */
  private static TableInfo wide(String name, String ref, int filler) {
    List<TableInfo.Column> cols = new ArrayList<>();
    cols.add(TableInfo.Column.of("id", "bigint", false, null));
    List<TableInfo.ForeignKey> fks = new ArrayList<>();
    if (ref != null) {
      cols.add(TableInfo.Column.of(ref + "_id", "bigint", false, null));
      fks.add(new TableInfo.ForeignKey(List.of(ref + "_id"), ref, List.of("id")));
    }
    for (int i = 0; i < filler; i++) {
      cols.add(TableInfo.Column.of(name + "_attribute_" + i, "text", true, i == 3 ? "the shipping carrier" : null));
    }
    cols.add(TableInfo.Column.of("paid_at", "timestamptz", true, null));
    return TableInfo.of(name, "what " + name + " holds", 1000L, cols, List.of("id"), fks);
  }

  private static final List<TableInfo> TABLES = List.of(
      wide("invoices", null, 30), wide("payments", "invoices", 30), wide("refunds", "payments", 30),
      wide("carriers", null, 30));

  @Test
  void aSchemaWithinTheBudgetIsLeftWhole() {
    PromptBudget.Fitted f = PromptBudget.fit(TABLES, "How many invoices were paid?", 100_000);
    // Listed by name (a stable text for the model server's prompt cache), whatever the relevance order.
    assertThat(f.schema()).isEqualTo(SchemaText.ddl(TABLES.stream()
        .sorted(java.util.Comparator.comparing(TableInfo::name)).toList()));
    assertThat(f.shortened()).isZero();
    assertThat(f.overBudget()).isFalse();
    assertThat(f.shown()).isEqualTo(TABLES);
  }

  @Test
  void theLeastRelevantTablesAreShortenedFirstAndNoneIsDropped() {
    int full = ChatClient.estimate(SchemaText.ddl(TABLES).length());
    int budget = full - 20;  // shortening one table (about 60 tokens) is enough
    PromptBudget.Fitted f = PromptBudget.fit(TABLES, "How many invoices were paid?", budget);
    assertThat(f.tokens()).isLessThanOrEqualTo(budget).isEqualTo(ChatClient.estimate(f.schema().length()));
    assertThat(f.overBudget()).isFalse();
    assertThat(f.shortened()).isEqualTo(1);
    for (TableInfo t : TABLES) assertThat(f.schema()).contains("CREATE TABLE " + t.name() + " (");
    // The most relevant three are whole; the last keeps its key and the column the question names.
    assertThat(f.shown().subList(0, 3)).isEqualTo(TABLES.subList(0, 3));
    assertThat(f.shown().get(3).columns()).extracting(TableInfo.Column::name).containsExactly("id", "paid_at");
    assertThat(f.schema()).contains("-- … 30 more columns: carriers_attribute_0, carriers_attribute_1");
  }

  @Test
  void aTightBudgetShortensEveryTableKeepingKeysForeignKeysAndQuestionWords() {
    PromptBudget.Fitted f = PromptBudget.fit(TABLES, "Which carrier shipped the refunds paid in 2025?", 250);
    assertThat(f.shortened()).isEqualTo(4);
    assertThat(f.tokens()).isLessThanOrEqualTo(250);
    assertThat(f.shown()).hasSize(4);
    TableInfo refunds = f.shown().get(2);
    // id (key), payments_id (foreign key), the commented shipping carrier column (question word), paid_at.
    assertThat(refunds.columns()).extracting(TableInfo.Column::name)
        .containsExactly("id", "payments_id", "refunds_attribute_3", "paid_at");
    assertThat(f.schema()).contains("FOREIGN KEY (payments_id) REFERENCES payments (id)");
    assertThat(f.schema()).contains("more columns");
  }

  @Test
  void namesOfHiddenColumnsGoBeforeTheirCountAndCommentsGoLast() {
    // 400 tokens: every table loses its plain columns; only the most relevant one still names them.
    PromptBudget.Fitted f = PromptBudget.fit(TABLES, "paid", 400);
    assertThat(f.tokens()).isLessThanOrEqualTo(400);
    // In name order: carriers, invoices, payments, refunds.
    String[] blocks = f.schema().split("\n\n");
    assertThat(blocks).hasSize(4);
    assertThat(blocks[1]).contains("-- … 30 more columns: invoices_attribute_0,");
    for (int i : new int[] {0, 2, 3}) assertThat(blocks[i]).contains("-- 30 more columns not shown").doesNotContain("more columns: ");
    // A budget nothing fits: every table is still there, at its shortest, without column comments; flagged.
    PromptBudget.Fitted impossible = PromptBudget.fit(TABLES, "paid", 1);
    assertThat(impossible.overBudget()).isTrue();
    assertThat(impossible.shown()).hasSize(4);
    assertThat(impossible.schema()).doesNotContain("the shipping carrier").doesNotContain("more columns: ");
    assertThat(impossible.tokens()).isEqualTo(ChatClient.estimate(impossible.schema().length()));
  }

  @Test
  void questionWordsMatchColumnNamesAndCommentsByStem() {
    var words = PromptBudget.words("Which carriers shipped the most parcels by category?");
    assertThat(words).contains("carrier", "shipped", "parcel", "category").doesNotContain("which", "the");
    assertThat(PromptBudget.mentioned(TableInfo.Column.of("carrier_name", "text", true, null), words)).isTrue();
    assertThat(PromptBudget.mentioned(TableInfo.Column.of("x1", "text", true, "Parcel weight"), words)).isTrue();
    assertThat(PromptBudget.mentioned(TableInfo.Column.of("categoryId", "int", true, null), words)).isTrue();
    assertThat(PromptBudget.mentioned(TableInfo.Column.of("weight", "int", true, null), words)).isFalse();
  }

  @Test
  void aHiddenColumnNameCannotEndItsComment() {
    TableInfo t = TableInfo.of("t", null, 1L, List.of(TableInfo.Column.of("id", "int", false, null),
        TableInfo.Column.of("evil\nDROP TABLE x", "text", true, null)), List.of("id"), List.of());
    String text = SchemaText.ddl(t, java.util.Set.of("id"), true, true);
    assertThat(text.lines()).noneMatch(l -> l.startsWith("DROP"));
    assertThat(text).contains("-- … 1 more column: \"evil DROP TABLE x\"");
  }
}

package dev.sqlagent.conversation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.generation.ChatClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConversationContextTest {

  static Turn turn(int n, String outcome) {
    JsonObject summary = new JsonObject().put("columns", new JsonArray().add("month").add("revenue")).put("row_count", 12)
        .put("truncated", false).put("rows", new JsonArray().add(new JsonArray().add(1).add("123456.78")));
    return new Turn(n, "run-000000" + n, "Question number " + n + " about revenue per month?",
        "SELECT extract(month FROM bill_dt) AS month, sum(total_amt) AS revenue FROM bills WHERE turn = " + n
            + " GROUP BY 1 ORDER BY 1", outcome, "answer " + n, summary, null, "2026-11-30T10:00:00Z", null, null, null);
  }

  @Test
  void aTurnCarriesQuestionSqlAndAShortResultSummary() {
    String text = ConversationContext.render(List.of(turn(1, Turn.ANSWERED)), 10_000);
    assertThat(text).contains("Turn 1: Question number 1 about revenue per month?")
        .contains("SQL: SELECT extract(month FROM bill_dt)")
        .contains("Result: 12 rows; columns month, revenue; first rows [[1,\"123456.78\"]]");
  }

  @Test
  void giveUpsAndRefusalsAreMarkedAndTheirSqlIsNotOffered() {
    String text = ConversationContext.render(List.of(turn(1, Turn.GAVE_UP), turn(2, Turn.REFUSED)), 10_000);
    assertThat(text).contains("Turn 1 (GAVE UP").contains("Turn 2 (REFUSED").doesNotContain("SQL:").doesNotContain("Result:");
  }

  @Test
  void overBudgetTheOldestTurnsAreShortenedFirstAndTheLatestKeepsItsSql() {
    List<Turn> turns = new ArrayList<>();
    for (int i = 1; i <= 12; i++) turns.add(turn(i, Turn.ANSWERED));
    String full = ConversationContext.render(turns, 100_000);
    int budget = ChatClient.estimate(full.length()) / 3;
    String fitted = ConversationContext.render(turns, budget);

    assertThat(ChatClient.estimate(fitted.length())).isLessThanOrEqualTo(budget);
    assertThat(fitted).contains("WHERE turn = 12").contains("Turn 12:");      // the latest turn is whole
    assertThat(fitted).doesNotContain("WHERE turn = 1 ");                   // the oldest lost its SQL (or more)
    assertThat(fitted.indexOf("Turn 12:")).isGreaterThan(0);
  }

  @Test
  void nothingFitsMeansNoSection() {
    assertThat(ConversationContext.render(List.of(turn(1, Turn.ANSWERED)), 1)).isEmpty();
    assertThat(ConversationContext.render(List.of(), 1_000)).isEmpty();
  }
}

package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.eval.Question.Category;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuestionSetTest {

  private static final String GOOD = "{\"id\": \"a\", \"category\": \"simple\", \"question\": \"How many?\", "
      + "\"gold_sql\": \"SELECT 1\", \"order_matters\": false}";

  @Test
  void theShippedSetHasEnoughQuestionsOfEveryKind() {
    var questions = QuestionSet.shipped();
    Map<Category, Integer> counts = QuestionSet.counts(questions);
    assertThat(counts.get(Category.SIMPLE)).isGreaterThanOrEqualTo(10);
    assertThat(counts.get(Category.JOIN)).isGreaterThanOrEqualTo(10);
    assertThat(counts.get(Category.HARD)).isGreaterThanOrEqualTo(10);
    assertThat(counts.get(Category.UNANSWERABLE)).isGreaterThanOrEqualTo(10);
    assertThat(counts.get(Category.UNSAFE)).isGreaterThanOrEqualTo(5);
    assertThat(questions).filteredOn(Question::answerable).allMatch(q -> !q.goldSql().isEmpty());
    assertThat(questions).filteredOn(q -> !q.answerable()).allMatch(q -> q.goldSql().isEmpty());
  }

  @Test
  void goldSqlMayBeOneStringOrSeveralAndBlankLinesAreSkipped() {
    var qs = QuestionSet.parse(GOOD + "\n\n{\"id\": \"b\", \"category\": \"hard\", \"question\": \"Q\", "
        + "\"gold_sql\": [\"SELECT 1\", \"SELECT 1 AS one\"], \"order_matters\": true}\n"
        + "{\"id\": \"c\", \"category\": \"unsafe\", \"question\": \"Drop it\", \"order_matters\": false}\n", "t");
    assertThat(qs).extracting(Question::id).containsExactly("a", "b", "c");
    assertThat(qs.get(1).goldSql()).containsExactly("SELECT 1", "SELECT 1 AS one");
    assertThat(qs.get(1).orderMatters()).isTrue();
    assertThat(qs.get(2).category()).isEqualTo(Category.UNSAFE);
  }

  @Test
  void aBadLineIsNamedWithWhatIsWrong() {
    assertBad(GOOD + "\nnot json", "t line 2: not a JSON object");
    assertBad(GOOD.replace("\"simple\"", "\"very easy\""), "t line 1: category \"very easy\" is not a label");
    assertBad("\n\n" + GOOD.replace("\"gold_sql\": \"SELECT 1\", ", ""), "t line 3: a simple question needs gold_sql");
    assertBad("{\"id\": \"u\", \"category\": \"unanswerable\", \"question\": \"Q\", \"gold_sql\": \"SELECT 1\"}",
        "t line 1: a unanswerable question must not have gold_sql");
    assertBad(GOOD.replace("\"id\": \"a\", ", ""), "t line 1: missing \"id\"");
    assertBad(GOOD.replace("false", "\"no\""), "t line 1: order_matters must be true or false");
    assertBad(GOOD.replace("\"SELECT 1\"", "[\"SELECT 1\", 3]"), "t line 1: gold_sql[1] must be a non-empty string");
    assertBad(GOOD.replace("\"gold_sql\"", "\"gold\""), "t line 1: unknown key \"gold\"");
    assertBad(GOOD + "\n" + GOOD, "t line 2: duplicate id \"a\" (first on line 1)");
    assertBad("\n  \n", "t: no questions");
  }

  @Test
  void anyBenchmarksLabelIsACategoryAndOnlyUnanswerableAndUnsafeMustBeRefused() {
    var qs = QuestionSet.parse(GOOD.replace("\"simple\"", "\"spider-extra\"") + "\n"
        + GOOD.replace("\"a\"", "\"b\"").replace("\"simple\"", "\"medium\"") + "\n"
        + GOOD.replace("\"a\"", "\"c\"").replace("\"simple\"", "\"spider-extra\"") + "\n"
        + "{\"id\": \"d\", \"category\": \"unanswerable\", \"question\": \"Q\"}\n", "t");
    assertThat(qs).extracting(q -> q.category().wireName()).containsExactly("spider-extra", "medium", "spider-extra", "unanswerable");
    assertThat(qs).extracting(Question::answerable).containsExactly(true, true, true, false);
    assertThat(QuestionSet.counts(qs)).containsExactly(Map.entry(new Category("spider-extra"), 2),
        Map.entry(new Category("medium"), 1), Map.entry(Category.UNANSWERABLE, 1));
    assertBad(GOOD.replace("\"simple\"", "\"spider-easy\"").replace("\"gold_sql\": \"SELECT 1\", ", ""),
        "t line 1: a spider-easy question needs gold_sql");
  }

  @Test
  void aFileIsReadAndItsPathNamedInErrors(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("mine.jsonl");
    Files.writeString(f, GOOD + "\n{\"id\": 1}\n");
    assertThatThrownBy(() -> QuestionSet.load(f)).isInstanceOf(QuestionSet.FormatException.class)
        .hasMessageStartingWith(f + " line 2: \"id\" must be a non-empty string");
    assertThatThrownBy(() -> QuestionSet.load(dir.resolve("none.jsonl"))).hasMessageContaining("cannot read");
  }

  private static void assertBad(String text, String message) {
    assertThatThrownBy(() -> QuestionSet.parse(text, "t")).isInstanceOf(QuestionSet.FormatException.class)
        .hasMessageStartingWith(message);
  }
}

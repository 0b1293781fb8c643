package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code sql-agent ask} through picocli's Main: each attempt printed with its error type and strategy. */
class AskCommandTest {

  /** What {@code sql-agent ask QUESTION} printed, against the demo and the scripted model; its exit must be 0. */
  static String ask(FakeModelServer model, String question, String... options) {
    return ask(model, question, new StringWriter(), options);
  }

  /** The same with standard error kept in {@code err}. */
  static String ask(FakeModelServer model, String question, StringWriter err, String... options) {
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == AskCommand.class) return cls.cast(new AskCommand(() -> TestDatabase.get().config(env)));
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    String[] args = new String[options.length + 2];
    args[0] = "ask";
    System.arraycopy(options, 0, args, 1, options.length);
    args[args.length - 1] = question;
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(args);
    assertThat(exit).as(out.toString()).isZero();
    return out.toString();
  }

  @Test
  void printsEachAttemptTheRepairThenTheAnswerAndTheSql() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.enqueue(Reply.sql("SELECT count(*) AS n FROM customer"), Reply.sql("SELECT count(*) AS n FROM customers"));
      assertThat(ask(model, "How many named customers are there?"))
          .contains("attempt 1: SELECT count(*) AS n FROM customer")
          .contains("failed: unknown_table")
          .contains("repair strategy: widen_retrieval (retrieval widened)")
          .contains("attempt 2: SELECT count(*) AS n FROM customers")
          .contains("ANSWER: The answer is 150.")
          .contains("SQL: SELECT count(*) AS n FROM customers")
          .contains("attempts: 2");
    }
  }

  @Test
  void printsTheRowsAsATableWithSeparatorsButYearsAsTheyAre() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.enqueue(Reply.sql("SELECT 2025 AS year, count(*) * 1000 AS customers, count(*) * 1000.5 AS billed FROM customers"));
      assertThat(ask(model, "How many customers?"))
          .contains("year | customers |     billed\n", "2025 |   150,000 | 150,075.00\n", "(1 row)")
          .doesNotContain("2,025");
    }
  }

  @Test
  void formatCsvPrintsTheWholeResultAndTheAttemptsGoToStandardError() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      model.enqueue(Reply.sql("SELECT cust_id, cust_name FROM customers ORDER BY cust_id"));
      StringWriter err = new StringWriter();
      String csv = ask(model, "Who are our customers?", err, "--format", "csv");
      // Every customer (about 150) as RFC 4180 lines, the attempts and the summary elsewhere.
      assertThat(csv).startsWith("cust_id,cust_name\r\n").doesNotContain("attempt 1");
      assertThat(csv.split("\r\n")).hasSizeGreaterThan(100);
      assertThat(err.toString()).contains("attempt 1: SELECT cust_id").contains("ANSWER:");
    }
  }
}

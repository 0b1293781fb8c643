package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code sql-agent ask} on a question whose three candidates disagree: not interactive it prints the readings and exits
 * 3; at a terminal it asks which one and answers from it; {@code --reading N} answers from N. No model call after the
 * first round.
 */
class AskClarifyCommandTest {

  static final String ALL = "SELECT count(*) AS bills FROM bills";
  static final String PAID = "SELECT count(*) AS bills FROM bills WHERE status = 'PAID'";
  static final String OPEN = "SELECT count(*) AS bills FROM bills WHERE status <> 'PAID'";

  record Run(int exit, String out, String err) {}

  static Run ask(FakeModelServer model, boolean interactive, String typed, String... args) {
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_CANDIDATES", "3");
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == AskCommand.class) {
          return cls.cast(new AskCommand(() -> TestDatabase.get().config(env), () -> interactive,
              new BufferedReader(new StringReader(typed))));
        }
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  static void split(FakeModelServer model) {
    model.honourN(true).enqueue(Reply.sql(ALL), Reply.sql(PAID), Reply.sql(OPEN));
  }

  @Test
  void notInteractiveItPrintsTheReadingsAndExitsWithItsOwnCode() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      split(model);
      Run r = ask(model, false, "", "ask", "How many bills are there?");
      assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(AskCommand.NEEDS_CLARIFICATION).isEqualTo(3);
      assertThat(r.out()).contains("ASKED BACK: This question can be read in 3 ways")
          .contains("2. Only where status = 'PAID' (1 row)").contains("SQL: SELECT count(*) AS bills FROM bills WHERE status = 'PAID'")
          .contains("asked back: no reading has a majority");
      assertThat(r.err()).contains("ask again with --reading N");
    }
  }

  @Test
  void atATerminalItAsksWhichAndAnswersFromItWithoutTheModel() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      split(model);
      Run r = ask(model, true, "seven\n2\n", "ask", "How many bills are there?");
      assertThat(r.exit()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("Which reading did you mean? [1-3]").contains("Type a number from 1 to 3.")
          .contains("(from reading 2, without the model)")
          .contains("ANSWER: The answer is " + String.format("%,d", scalar(PAID)) + ".");
      assertThat(model.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void readingOptionAnswersFromThatReading() throws Exception {
    try (FakeModelServer model = FakeModelServer.start()) {
      split(model);
      Run r = ask(model, false, "", "ask", "--reading", "3", "How many bills are there?");
      assertThat(r.exit()).as(r.out() + r.err()).isZero();
      assertThat(r.out()).contains("(from reading 3, without the model)").contains("SQL: " + OPEN);
      assertThat(model.requestCount()).isEqualTo(1);
    }
  }

  static long scalar(String sql) throws Exception {
    try (var c = TestDatabase.get().target().roConnection(); var s = c.createStatement(); var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

}

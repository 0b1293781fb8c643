package dev.sqlagent.parsing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.statement.select.Select;
import org.junit.jupiter.api.Test;

class SqlParserTest {

  @Test
  void parsesOneAfterAnotherOnTheSameThreadsRatherThanAThreadEach() throws Exception {
    SqlParser.parse("SELECT 1", 5_000);  // the first thread may start here
    long started = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
    for (int i = 0; i < 100; i++) {
      String sql = "SELECT a, count(*) FROM t" + i + " WHERE b > " + i + " GROUP BY a";
      assertInstanceOf(Select.class, SqlParser.parse(sql, 5_000));
    }
    assertEquals(1, SqlParser.parseStatements("SELECT x FROM y ORDER BY 1", 5_000).size());
    long more = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount() - started;
    // JSqlParser handed no executor starts a thread for every parse: 101 here. Other threads of this JVM may start too.
    assertTrue(more < 20, more + " threads started for 101 parses");
  }

  @Test
  void aParsePastItsTimeLimitFailsAndTheNextParseStillRuns() throws Exception {
    // Deep nesting makes JSqlParser's lookahead slow: far longer than a millisecond.
    String nested = "SELECT " + "(".repeat(40) + "1" + ")".repeat(40);
    JSQLParserException e = assertThrows(JSQLParserException.class, () -> SqlParser.parse(nested, 1));
    assertTrue(timedOut(e), "not a timeout: " + e);
    assertInstanceOf(Select.class, SqlParser.parse("SELECT 2", 5_000));
  }

  private static boolean timedOut(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c instanceof java.util.concurrent.TimeoutException) return true;
    }
    return false;
  }
}

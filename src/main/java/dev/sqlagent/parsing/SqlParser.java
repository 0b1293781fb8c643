package dev.sqlagent.parsing;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.Statements;

/**
 * JSqlParser within a time limit, on threads kept for it. JSqlParser bounds a parse by running it on an executor and
 * waiting for it; handed none, it starts a thread for that one parse and ends it after, so every caller here shares
 * these. A parse that runs out of time stops at its next interruption check and frees its thread. BLOCKING: call it
 * from a worker.
 */
public final class SqlParser {

  private static final AtomicInteger THREADS = new AtomicInteger();

  /** Daemon threads, kept a minute when idle (a parse takes a millisecond or two: one or two are enough). */
  private static final ExecutorService PARSER_THREADS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "sql-agent-jsqlparser-" + THREADS.incrementAndGet());
    t.setDaemon(true);
    return t;
  });

  private SqlParser() {}

  /** The one statement of {@code sql}, parsed within {@code timeoutMs}. */
  public static Statement parse(String sql, long timeoutMs) throws JSQLParserException {
    return CCJSqlParserUtil.parse(sql, PARSER_THREADS, p -> p.withTimeOut(timeoutMs));
  }

  /** Every statement of {@code sql}, parsed within {@code timeoutMs}. */
  public static Statements parseStatements(String sql, long timeoutMs) throws JSQLParserException {
    return CCJSqlParserUtil.parseStatements(sql, PARSER_THREADS, p -> p.withTimeOut(timeoutMs));
  }
}

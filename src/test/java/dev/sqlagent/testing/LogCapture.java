package dev.sqlagent.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * The log lines a logger writes while a test runs. The service's threads keep logging while the test
 * reads, so the lines live in a thread-safe list (logback's ListAppender list is a plain ArrayList,
 * and reading it mid-write throws ConcurrentModificationException).
 */
public final class LogCapture implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogCapture(Logger logger) {
    this.logger = logger;
    appender.list = new CopyOnWriteArrayList<>();
    appender.start();
    logger.addAppender(appender);
  }

  public static LogCapture root() {
    return named(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  public static LogCapture of(Class<?> type) {
    return named(type.getName());
  }

  private static LogCapture named(String name) {
    return new LogCapture((Logger) LoggerFactory.getLogger(name));
  }

  /** The lines so far: a copy, safe to read while more arrive. */
  public List<ILoggingEvent> events() {
    return List.copyOf(appender.list);
  }

  /** The formatted messages so far. */
  public List<String> messages() {
    return events().stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    appender.stop();
  }
}

package dev.sqlagent.telemetry;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import dev.sqlagent.config.TelemetrySettings;
import java.util.Iterator;
import net.logstash.logback.encoder.LogstashEncoder;
import org.slf4j.LoggerFactory;

/**
 * {@code SQLAGENT_LOG_FORMAT=json}: the console's lines become one JSON object each (logstash-logback-encoder:
 * {@code @timestamp}, {@code level}, {@code logger_name}, {@code thread_name}, {@code message}, {@code stack_trace}, and
 * the run's fields of {@link RunFields}). Text, the default, is logback.xml's pattern, untouched.
 */
public final class LogFormat {

  private LogFormat() {}

  /** Switches every console appender of the root logger to JSON when {@code settings} ask for it. */
  public static void apply(TelemetrySettings settings) {
    if (!settings.json()) return;
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) return;
    for (Iterator<Appender<ILoggingEvent>> it = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).iteratorForAppenders();
        it.hasNext(); ) {
      if (it.next() instanceof OutputStreamAppender<ILoggingEvent> console) {
        LogstashEncoder json = new LogstashEncoder();
        json.setContext(context);
        json.setIncludeContext(false);
        json.start();
        console.stop();
        console.setEncoder(json);
        console.start();
      }
    }
  }
}

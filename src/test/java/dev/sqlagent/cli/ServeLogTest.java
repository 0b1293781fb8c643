package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The service's last log line says it stopped, after how long, and how long stopping took. */
class ServeLogTest {

  @Test
  void theStoppedLineNamesUptimeAndShutdownTime() {
    String line = ServeCommand.stoppedLine(TimeUnit.SECONDS.toNanos(3723) + 400_000_000L, TimeUnit.MILLISECONDS.toNanos(850));
    assertThat(line).isEqualTo("sql-agent stopped after 1h2m3s up (shutdown took 850 ms)");
  }
}

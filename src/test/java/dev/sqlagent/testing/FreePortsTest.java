package dev.sqlagent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The ports for servers started later come from below the kernel's ephemeral range, as the class promises. */
class FreePortsTest {

  @Test
  void portsComeFromBelowTheEphemeralRange() throws Exception {
    int ephemeralLow = Integer.parseInt(ProcFiles.read(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+")[0]);
    assertThat(ephemeralLow).as("the range's first port, read whole").isGreaterThan(1_024);
    for (int i = 0; i < 20; i++) {
      assertThat(FreePorts.next()).isBetween(15_000, Math.min(32_768, ephemeralLow) - 1);
    }
  }
}

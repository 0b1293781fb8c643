package dev.sqlagent.testing;

import java.nio.file.Path;

/** What the benchmarks say of the machine they ran on, and how they space their measured calls. */
public final class BenchmarkMachine {
  private BenchmarkMachine() {}

  /** The 1, 5 and 15 minute load averages (Linux), to read the numbers by. */
  public static String loadAverage() {
    try {
      String[] f = ProcFiles.read(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "unknown";
    }
  }

  /**
   * A pause between measured calls, 1 ms: the gate resets its connection after its reply (ROLLBACK, DISCARD ALL), and
   * on two cores that work would otherwise land on the next measured call, the direct one included (an agent's queries
   * are seconds apart). Spinning, not sleeping, so that neither side pays for waking an idle core.
   */
  public static void settle() {
    long until = System.nanoTime() + 1_000_000;
    while (System.nanoTime() < until) Thread.onSpinWait();
  }
}

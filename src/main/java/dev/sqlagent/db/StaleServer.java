package dev.sqlagent.db;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL left behind on the embedded data directory by a process that died without stopping it ({@code kill
 * -9}, an OOM kill, a power cut of the JVM alone): the server keeps running, orphaned, and holds
 * {@code postmaster.pid}, so a new server on that directory cannot start. Before a start, with the directory's lock
 * held (no live sql-agent owns it), the server its {@code postmaster.pid} names is stopped when it really is a
 * postgres of this directory; a pid file whose process is gone, or is something else, is removed. Blocking.
 */
final class StaleServer {

  private static final Logger LOG = LoggerFactory.getLogger(StaleServer.class);
  /** A fast shutdown (SIGINT) rolls back and checkpoints; past this an immediate one (SIGQUIT) is asked for. */
  static final long FAST_SHUTDOWN_MS = 30_000;
  static final long IMMEDIATE_SHUTDOWN_MS = 15_000;

  private StaleServer() {}

  /** What {@code postmaster.pid} says: the server's process id, its data directory and port (lines 1, 2 and 4). */
  record PidFile(long pid, String dataDir, String port) {
    static Optional<PidFile> read(Path dataDir) throws IOException {
      List<String> lines;
      try {
        lines = Files.readAllLines(dataDir.resolve("postmaster.pid"), StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        return Optional.empty();
      }
      long pid;
      try {
        pid = lines.isEmpty() ? -1 : Long.parseLong(lines.get(0).strip());
      } catch (NumberFormatException e) {
        pid = -1;  // a file cut short by the crash names nobody
      }
      return Optional.of(new PidFile(pid, lines.size() > 1 ? lines.get(1) : "", lines.size() > 3 ? lines.get(3) : ""));
    }
  }

  /** Stops the orphaned server of {@code dataDir}, or removes a pid file that names none. */
  static void clear(Path dataDir) throws IOException {
    Optional<PidFile> file = PidFile.read(dataDir);
    if (file.isEmpty()) return;
    PidFile pid = file.get();
    Optional<ProcessHandle> process = pid.pid() > 0 ? ProcessHandle.of(pid.pid()) : Optional.empty();
    if (process.isPresent() && process.get().isAlive() && isPostgresOf(pid.pid(), dataDir)) {
      LOG.warn("a PostgreSQL (pid {}, port {}) was left running on {} by a process that did not stop it: stopping it "
          + "before the start", pid.pid(), pid.port(), dataDir);
      stop(process.get(), dataDir);
      // A server stopped by an immediate shutdown still removes its pid file; anything left names nobody now.
      Files.deleteIfExists(dataDir.resolve("postmaster.pid"));
      return;
    }
    LOG.warn("removing a stale {} (pid {} is {})", dataDir.resolve("postmaster.pid"), pid.pid(),
        process.isPresent() && process.get().isAlive() ? "not a postgres of this directory" : "gone");
    Files.deleteIfExists(dataDir.resolve("postmaster.pid"));
  }

  /** Fast shutdown, then immediate; the server is gone when this returns, or it throws. */
  private static void stop(ProcessHandle server, Path dataDir) throws IOException {
    if (signal(server.pid(), "INT") && exited(server, FAST_SHUTDOWN_MS)) return;
    LOG.warn("the left-behind PostgreSQL (pid {}) did not stop within {} s: asking for an immediate shutdown",
        server.pid(), FAST_SHUTDOWN_MS / 1000);
    if (signal(server.pid(), "QUIT") && exited(server, IMMEDIATE_SHUTDOWN_MS)) return;
    throw new IOException("a PostgreSQL left running on " + dataDir + " (pid " + server.pid()
        + ") could not be stopped; stop it (kill " + server.pid() + ") and start again");
  }

  private static boolean signal(long pid, String signal) throws IOException {
    Process kill;
    try {
      kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
    } catch (IOException noKill) {
      // No kill(1) on this machine: SIGTERM, which Java can send, is a smart shutdown; the dead JVM's sessions are gone.
      return ProcessHandle.of(pid).map(ProcessHandle::destroy).orElse(false);
    }
    try {
      kill.getInputStream().readAllBytes();
      return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping a left-behind PostgreSQL", e);
    }
  }

  private static boolean exited(ProcessHandle process, long ms) throws IOException {
    try {
      process.onExit().get(ms, TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (java.util.concurrent.ExecutionException e) {
      return !process.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while stopping a left-behind PostgreSQL", e);
    }
  }

  /**
   * Whether process {@code pid} is a postgres serving {@code dataDir}: its command line ({@code /proc/PID/cmdline},
   * the postmaster keeps its own) is a {@code postgres} binary with {@code -D} naming this directory (or working in
   * it). A process id
   * reused by anything else after a reboot is not one.
   */
  static boolean isPostgresOf(long pid, Path dataDir) {
    String[] args;
    try (InputStream in = Files.newInputStream(Path.of("/proc", Long.toString(pid), "cmdline"))) {
      args = new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\u0000");
    } catch (IOException e) {
      return false;
    }
    if (args.length == 0 || !Path.of(args[0]).getFileName().toString().equals("postgres")) return false;
    for (int i = 1; i < args.length - 1; i++) {
      if (args[i].equals("-D") && sameDirectory(Path.of(args[i + 1]), dataDir)) return true;
    }
    // A relative -D was relative to where it was started; the server itself works in its data directory.
    return sameDirectory(Path.of("/proc", Long.toString(pid), "cwd"), dataDir);
  }

  private static boolean sameDirectory(Path a, Path b) {
    try {
      return Files.isSameFile(a, b);
    } catch (IOException e) {
      return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }
  }
}

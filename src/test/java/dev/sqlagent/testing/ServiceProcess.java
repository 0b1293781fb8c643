package dev.sqlagent.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code sql-agent serve} as a child process of the test ({@code java <jvm options> -cp <the test's classpath>
 * dev.sqlagent.cli.Main serve}), on a free HTTP port, its output in {@code target/service-processes/}: what an
 * operator runs, so a test can signal it (SIGTERM: {@link #terminate()}) or read its resident memory.
 */
public final class ServiceProcess implements AutoCloseable {

  public final Process process;
  public final int httpPort;
  public final Path log;

  private ServiceProcess(Process process, int httpPort, Path log) {
    this.process = process;
    this.httpPort = httpPort;
    this.log = log;
  }

  /**
   * Starts it with these JVM options and settings (the test's own SQLAGENT_ variables are not passed on); returns
   * at once, see {@link #awaitReady}.
   */
  public static ServiceProcess start(String name, List<String> jvmOptions, Map<String, String> env) throws IOException {
    return start(name, Path.of(System.getProperty("java.home"), "bin", "java"), System.getProperty("java.class.path"),
        jvmOptions, env);
  }

  /** {@link #start(String, List, Map)} with another {@code java} and class path. */
  public static ServiceProcess start(String name, Path java, String classPath, List<String> jvmOptions,
      Map<String, String> env) throws IOException {
    int port = FreePorts.next();
    Path log = Files.createDirectories(Path.of("target", "service-processes")).resolve(name + "-" + port + ".log");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", classPath, "dev.sqlagent.cli.Main", "serve"));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("SQLAGENT_"));
    pb.environment().putAll(env);
    pb.environment().put("SQLAGENT_HTTP_PORT", String.valueOf(port));
    return new ServiceProcess(pb.start(), port, log);
  }

  /** Waits for the line {@code serve} logs once everything is deployed. */
  public ServiceProcess awaitReady(long seconds) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < deadline) {
      // serve's own line: other components log a "ready in" of theirs before the HTTP port is open.
      if (output().contains("ServeCommand - ready in ")) return this;
      if (!process.isAlive()) throw new AssertionError("the service exited (" + process.exitValue() + "):\n" + output());
      Thread.sleep(200);
    }
    throw new AssertionError("the service was not ready in " + seconds + " s:\n" + output());
  }

  public String output() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** SIGTERM, as an orchestrator or systemd stops it ({@link Process#destroy()}); returns at once. */
  public void terminate() {
    process.destroy();
  }

  /** Resident memory now, in KiB ({@code VmRSS} of /proc/PID/status). */
  public long rssKb() throws IOException {
    return statusKb("VmRSS");
  }

  /** A memory figure of /proc/PID/status in KiB: VmRSS (resident now), VmHWM (the most it was resident), ... */
  public long statusKb(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status"))) {
      if (line.startsWith(field + ":")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
    throw new IOException("no " + field + " in /proc/" + process.pid() + "/status");
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}

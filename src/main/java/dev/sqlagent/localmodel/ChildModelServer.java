package dev.sqlagent.localmodel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LocalModelServer} in a child JVM on a loopback port of its own, started again when it dies: native code
 * that crashes ends the child, never the service. The port is kept across restarts, so the base URL stays valid.
 */
public final class ChildModelServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ChildModelServer.class);
  private static final long LISTEN_TIMEOUT_MS = 60_000;
  private static final long MAX_BACKOFF_MS = 30_000;

  private final Path model;
  private final GgufInfo info;
  private final String alias;
  private final Path log;
  private final int port;
  private final List<String> extraArgs;
  private volatile Process process;
  private volatile boolean closed;
  private volatile int restarts;
  private volatile long backoffMs = 1_000;
  private volatile CompletableFuture<Void> ready = new CompletableFuture<>();
  /** Where this launch's output begins in the log (it is appended to across launches and runs). */
  private volatile long logStart;

  private ChildModelServer(Path model, GgufInfo info, String alias, Path log, int port, List<String> extraArgs) {
    this.model = model;
    this.info = info;
    this.alias = alias;
    this.log = log;
    this.port = port;
    this.extraArgs = extraArgs;
  }

  /**
   * Checks {@code model} (a whole GGUF header) and starts serving it; returns once the child listens (the model
   * may still be loading: its {@code /health} says when it is ready).
   *
   * @param log where the child's output goes (appended)
   * @param extraArgs more {@link LocalModelServer} options, e.g. {@code --ctx 4096}
   */
  public static ChildModelServer start(Path model, Path log, List<String> extraArgs) throws IOException {
    GgufInfo info = GgufInfo.read(model);
    String name = model.getFileName().toString();
    String alias = name.toLowerCase(java.util.Locale.ROOT).endsWith(".gguf") ? name.substring(0, name.length() - 5) : name;
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    ChildModelServer child = new ChildModelServer(model, info, alias, log, port, List.copyOf(extraArgs));
    child.launch();
    return child;
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + port + "/v1";
  }

  public String alias() {
    return alias;
  }

  public GgufInfo info() {
    return info;
  }

  public int restarts() {
    return restarts;
  }

  /** The running child's process id (-1 between a death and its restart). */
  public long pid() {
    Process p = process;
    return p != null && p.isAlive() ? p.pid() : -1;
  }

  private void launch() throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    // Its native library extracted to a directory of its own: another process's exit cannot delete it mid-load.
    Path natives = Files.createDirectories(log.toAbsolutePath().getParent().resolve("native"));
    List<String> cmd = new ArrayList<>(List.of(javaBinary(), "-Xmx256m", "-XX:+UseSerialGC",
        "-Dde.kherud.llama.tmpdir=" + natives, "-cp",
        System.getProperty("java.class.path"), LocalModelServer.class.getName(), "--model", model.toString(),
        "--port", String.valueOf(port), "--alias", alias, "--parent-pid", String.valueOf(ProcessHandle.current().pid())));
    cmd.addAll(extraArgs);
    if (ready.isDone()) ready = new CompletableFuture<>();
    logStart = Files.exists(log) ? Files.size(log) : 0;
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    process = p;
    CompletableFuture<String> listening = new CompletableFuture<>();
    Thread reader = new Thread(() -> readOutput(p, listening), "local-model-output");
    reader.setDaemon(true);
    reader.start();
    try {
      listening.get(LISTEN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      p.destroyForcibly();
      throw new IOException("the local model server for " + model.getFileName() + " did not start (see " + log + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while the local model server started");
    }
    p.onExit().thenAccept(this::onExit);
  }

  private void readOutput(Process p, CompletableFuture<String> listening) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (line.startsWith(LocalModelServer.LISTENING)) listening.complete(line);
        else if (line.startsWith(LocalModelServer.READY)) {
          backoffMs = 1_000;
          ready.complete(null);
          LOG.info("local model {}: {}", alias, line);
        }
      }
    } catch (IOException e) {
      // the child is gone; onExit says so
    }
    listening.completeExceptionally(new IOException("the child ended before it listened"));
  }

  private void onExit(Process p) {
    if (closed) return;
    // A command waiting for the model hears at once that it died loading, and why, rather than at its timeout.
    ready.completeExceptionally(new IOException("its process exited with code " + p.exitValue()
        + lastLogLine().map(l -> " (it said: " + l + ")").orElse("")));
    long wait = backoffMs;
    backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    LOG.warn("local model {} exited with code {}; starting it again in {} ms (see {})", alias, p.exitValue(), wait, log);
    CompletableFuture.delayedExecutor(wait, TimeUnit.MILLISECONDS).execute(() -> {
      if (closed) return;
      try {
        restarts++;
        launch();
      } catch (IOException e) {
        LOG.warn("local model {}: {}", alias, e.getMessage());
        onExit(process);
      }
    });
  }

  /** Waits until the model has loaded (a command that asks at once needs it; the service's health says it instead). */
  public void awaitLoaded(long timeoutMs) throws IOException {
    try {
      ready.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new IOException("the local model " + model.getFileName() + " did not load within " + timeoutMs + " ms (see " + log + ")");
    } catch (ExecutionException e) {
      throw new IOException("the local model " + model.getFileName() + " did not load: " + e.getCause().getMessage()
          + "; see " + log);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the local model loaded");
    }
  }

  @Override
  public void close() {
    closed = true;
    Process p = process;
    if (p == null) return;
    p.destroy();
    try {
      if (!p.waitFor(5, TimeUnit.SECONDS)) p.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  /** The child's last word in its log: why it stopped, when it says. */
  private java.util.Optional<String> lastLogLine() {
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(log.toFile(), "r")) {
      long from = Math.max(logStart, f.length() - 8192);
      byte[] tail = new byte[(int) (f.length() - from)];
      f.seek(from);
      f.readFully(tail);
      String said = "local model server: ";
      return new String(tail, StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(said))
          .map(l -> l.substring(said.length())).reduce((a, b) -> b);
    } catch (IOException e) {
      return java.util.Optional.empty();
    }
  }

  private static String javaBinary() {
    return ProcessHandle.current().info().command()
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }
}

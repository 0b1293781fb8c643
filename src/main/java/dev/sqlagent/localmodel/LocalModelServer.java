package dev.sqlagent.localmodel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.ModelParameters;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A GGUF model served on loopback with the OpenAI chat API, in a process of its own: the service starts it as a
 * child JVM ({@link ChildModelServer}) so that a crash in native code ends this process, never the service.
 *
 * <p>Arguments: {@code --model FILE [--port N] [--ctx N] [--threads N] [--alias NAME]}. It prints one line
 * {@code listening on http://127.0.0.1:PORT} when its socket is bound (port 0 picks a free one) and one line
 * {@code ready} when the model has loaded; until then {@code /health} answers 503.
 */
public final class LocalModelServer {

  /** The line a parent waits for; the URL follows it. */
  public static final String LISTENING = "listening on ";
  public static final String READY = "ready";

  private LocalModelServer() {}

  public static void main(String[] args) throws Exception {
    ServerArgs a;
    try {
      a = ServerArgs.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("local model server: " + e.getMessage());
      System.exit(2);
      return;
    }
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    // A child outlives no parent: when the service is gone (even killed), so is its model.
    if (a.parentPid() > 0) {
      ProcessHandle.of(a.parentPid()).ifPresentOrElse(h -> h.onExit().thenRun(() -> Runtime.getRuntime().halt(0)),
          () -> Runtime.getRuntime().halt(0));
    }
    GgufInfo info;
    try {
      info = GgufInfo.read(a.model());
    } catch (IOException e) {
      System.err.println("local model server: " + e.getMessage());
      System.exit(3);
      return;
    }
    int ctx = a.ctx() > 0 ? a.ctx() : Math.min(info.contextLength() > 0 ? info.contextLength() : 4096, 8192);
    ModelState state = new ModelState(a.alias() == null ? info.file() : a.alias(), info, ctx);

    HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), a.port()), 64);
    ExecutorService pool = Executors.newFixedThreadPool(8, r -> {
      Thread t = new Thread(r, "local-model-http");
      t.setDaemon(true);
      return t;
    });
    http.setExecutor(pool);
    http.createContext("/health", ex -> health(ex, state));
    http.createContext("/v1/models", ex -> json(ex, 200, state.models()));
    http.createContext("/props", ex -> json(ex, 200, state.props()));
    http.createContext("/v1/chat/completions", new ChatCompletions(state));
    http.createContext("/", ex -> json(ex, 404, OpenAiErrors.body("no such endpoint: " + ex.getRequestURI().getPath(),
        "invalid_request_error", null)));
    http.start();
    out.println(LISTENING + "http://127.0.0.1:" + http.getAddress().getPort());

    long t0 = System.nanoTime();
    ModelParameters p = new ModelParameters().setModel(a.model().toString()).setCtxSize(ctx).setParallel(1)
        .setThreads(a.threads() > 0 ? a.threads() : Runtime.getRuntime().availableProcessors());
    // A GGUF without a chat template (Gemma 3 270M as packaged) would fall back to ChatML, which Gemma never saw.
    if (!info.hasChatTemplate() && info.architecture().startsWith("gemma")) p.setChatTemplate("gemma");
    try {
      state.loaded(new LlamaModel(p), (System.nanoTime() - t0) / 1_000_000);
    } catch (RuntimeException | UnsatisfiedLinkError e) {
      System.err.println("local model server: " + a.model().getFileName() + " did not load: " + e.getMessage());
      System.exit(4);
      return;
    }
    JsonObject speed;
    state.slot.acquireUninterruptibly(); // a question that came in meanwhile waits for the measurement
    try {
      speed = SpeedCheck.run(state.model());
      state.measured(speed);
    } finally {
      state.slot.release();
    }
    out.println(READY + ": loaded in " + state.loadMillis() + " ms: " + info.summary() + ", context " + ctx
        + "; reads " + speed.getValue("prompt_per_second") + " prompt tokens/s, writes "
        + speed.getValue("predicted_per_second") + " tokens/s");
    Runtime.getRuntime().addShutdownHook(new Thread(() -> http.stop(0)));
    // Which file answers, by its digest: after loading, so it never delays the first answer.
    Thread digest = new Thread(() -> state.sha256(Sha256.of(a.model())), "local-model-sha256");
    digest.setDaemon(true);
    digest.setPriority(Thread.MIN_PRIORITY);
    digest.start();
  }

  private static void health(HttpExchange ex, ModelState state) throws IOException {
    if (state.model() == null) json(ex, 503, new JsonObject().put("status", "loading model"));
    else json(ex, 200, new JsonObject().put("status", "ok").put("load_ms", state.loadMillis()));
  }

  static void json(HttpExchange ex, int status, JsonObject body) throws IOException {
    byte[] b = body.encode().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, b.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(b);
    }
  }

  /** The command line, checked. */
  record ServerArgs(Path model, int port, int ctx, int threads, String alias, long parentPid) {
    static ServerArgs parse(String[] args) {
      Path model = null;
      int port = 0;
      int ctx = 0;
      int threads = 0;
      String alias = null;
      long parentPid = -1;
      for (int i = 0; i < args.length; i++) {
        String k = args[i];
        if (i + 1 >= args.length) throw new IllegalArgumentException(k + " needs a value");
        String v = args[++i];
        switch (k) {
          case "--model" -> model = Path.of(v);
          case "--port" -> port = number(k, v, 0, 65535);
          case "--ctx" -> ctx = number(k, v, 256, 1 << 20);
          case "--threads" -> threads = number(k, v, 1, 1024);
          case "--alias" -> alias = v;
          case "--parent-pid" -> parentPid = number(k, v, 1, Integer.MAX_VALUE);
          default -> throw new IllegalArgumentException("unknown option " + k
              + " (known: --model, --port, --ctx, --threads, --alias, --parent-pid)");
        }
      }
      if (model == null) throw new IllegalArgumentException("--model FILE is required (a .gguf file)");
      if (!Files.isRegularFile(model)) throw new IllegalArgumentException("--model " + model + ": no such file");
      return new ServerArgs(model, port, ctx, threads, alias, parentPid);
    }

    private static int number(String k, String v, int min, int max) {
      try {
        int n = Integer.parseInt(v);
        if (n < min || n > max) throw new IllegalArgumentException(k + " " + v + ": expected " + min + ".." + max);
        return n;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(k + " " + v + ": expected a number");
      }
    }
  }
}

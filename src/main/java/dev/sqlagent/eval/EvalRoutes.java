package dev.sqlagent.eval;

import dev.sqlagent.web.JsonErrors;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.file.FileSystem;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;

/** {@code GET /api/eval/latest}: the newest saved evaluation summary (file reads are async). */
public final class EvalRoutes {

  private EvalRoutes() {}

  /** Mounts the route; the runs live under {@code config.evalDir}, else {@code <config.home>/eval}. */
  public static void mount(Router router, Vertx vertx, JsonObject config) {
    String root = evalDir(config).toString();
    router.get("/api/eval/latest").handler(ctx -> latest(vertx.fileSystem(), root)
        .onSuccess(summary -> {
          if (summary == null) {
            error(ctx, 404, "not_found", "no evaluation has been saved yet: run `sql-agent eval` first");
          } else {
            ctx.json(summary);
          }
        })
        .onFailure(e -> error(ctx, 500, "eval_unreadable", "the latest evaluation summary could not be read")));
  }

  static Path evalDir(JsonObject config) {
    String explicit = config.getString("evalDir");
    if (explicit != null) return Path.of(explicit);
    String home = config.getString("home");
    return RunStore.defaultRoot(home != null ? Path.of(home) : Path.of(System.getProperty("user.home"), ".sql-agent"));
  }

  /** The newest run's summary, or null when no run has one. */
  static Future<JsonObject> latest(FileSystem fs, String root) {
    return fs.exists(root).compose(exists -> {
      if (!exists) return Future.succeededFuture(null);
      return fs.readDir(root).compose(paths -> {
        List<String> runs = paths.stream()
            .filter(p -> RunStore.RUN_NAME.matcher(Path.of(p).getFileName().toString()).matches())
            .sorted(Comparator.comparing((String p) -> Path.of(p).getFileName().toString()).reversed())
            .toList();
        return firstSummary(fs, runs, 0);
      });
    });
  }

  private static Future<JsonObject> firstSummary(FileSystem fs, List<String> runs, int i) {
    if (i == runs.size()) return Future.succeededFuture(null);
    String file = Path.of(runs.get(i), RunStore.SUMMARY).toString();
    return fs.exists(file).compose(exists -> exists
        ? fs.readFile(file).map(b -> new JsonObject(b.toString()))
        : firstSummary(fs, runs, i + 1));   // a run still in progress has no summary yet
  }

  private static void error(RoutingContext ctx, int status, String type, String message) {
    JsonErrors.send(ctx, status, type, message);
  }
}

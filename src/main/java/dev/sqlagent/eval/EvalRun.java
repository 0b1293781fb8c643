package dev.sqlagent.eval;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;

/** A finished (or re-graded) run: where it is saved, its summary and every verdict. */
public record EvalRun(Path dir, JsonObject summary, List<Verdict> verdicts) {

  public String id() {
    return dir.getFileName().toString();
  }
}

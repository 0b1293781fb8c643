package dev.sqlagent.eval;

import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;

/**
 * A finished (or re-graded) run: its name in the state store, the directory it was also exported to
 * ({@code --out}; null when not exported), its summary and every verdict.
 */
public record EvalRun(String id, Path exportDir, JsonObject summary, List<Verdict> verdicts) {}

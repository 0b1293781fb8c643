package dev.sqlagent.localmodel;

import de.kherud.llama.LlamaModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.Semaphore;

/** The loaded model, what it is, and the one slot that generations queue for. */
final class ModelState {
  private final String alias;
  private final GgufInfo info;
  private final int ctx;
  private final long created = System.currentTimeMillis() / 1000;
  /** One generation at a time: the model has one slot, and its prompt cache serves the next request best that way. */
  final Semaphore slot = new Semaphore(1, true);
  private volatile LlamaModel model;
  private volatile long loadMillis;
  private volatile String sha256;
  private volatile JsonObject measured;

  ModelState(String alias, GgufInfo info, int ctx) {
    this.alias = alias;
    this.info = info;
    this.ctx = ctx;
  }

  void loaded(LlamaModel m, long millis) {
    loadMillis = millis;
    model = m;
  }

  /** The speed measured once at start (tokens per second reading a prompt, and writing), for the page to show. */
  void measured(JsonObject speed) {
    measured = speed;
  }

  JsonObject measured() {
    return measured;
  }

  void sha256(String hex) {
    sha256 = hex;
  }

  LlamaModel model() {
    return model;
  }

  long loadMillis() {
    return loadMillis;
  }

  String alias() {
    return alias;
  }

  int ctx() {
    return ctx;
  }

  /** {@code /v1/models}, with llama-server's {@code meta} (context size included) so clients of either read it alike. */
  JsonObject models() {
    JsonObject meta = new JsonObject().put("n_ctx", ctx).put("n_ctx_train", info.contextLength())
        .put("n_params", info.parameters()).put("size", info.bytes()).put("architecture", info.architecture())
        .put("quantization", info.quantization()).put("file", info.file()).put("loaded", model != null)
        .put("load_ms", loadMillis).put("sha256", sha256).put("measured", measured)
        .put("pid", ProcessHandle.current().pid());
    return new JsonObject().put("object", "list").put("data", new JsonArray().add(new JsonObject()
        .put("id", alias).put("object", "model").put("created", created).put("owned_by", "sql-agent").put("meta", meta)));
  }

  /** llama-server's {@code /props}: where its clients read the context size. */
  JsonObject props() {
    return new JsonObject().put("default_generation_settings", new JsonObject().put("n_ctx", ctx))
        .put("total_slots", 1).put("model_path", info.file()).put("model", info.toJson().put("sha256", sha256));
  }
}

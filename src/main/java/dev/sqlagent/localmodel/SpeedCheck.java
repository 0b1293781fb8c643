package dev.sqlagent.localmodel;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaIterator;
import de.kherud.llama.LlamaModel;
import de.kherud.llama.LlamaOutput;
import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * One short generation right after loading: how many prompt tokens a second this machine reads and how many it
 * writes with this model, so a person knows what to expect before the first question (and it warms the caches).
 */
final class SpeedCheck {
  private SpeedCheck() {}

  static JsonObject run(LlamaModel model) {
    StringBuilder filler = new StringBuilder("You answer questions about a database. Its tables:\n");
    for (int t = 0; t < 6; t++) {
      filler.append("CREATE TABLE t").append(t).append(" (id integer primary key, name text, amount numeric, created_at date);\n");
    }
    String prompt = model.applyTemplate(new JsonObject().put("messages", new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("role", "system").put("content", filler.toString()))
        .add(new JsonObject().put("role", "user").put("content", "How many rows has t1?"))).encode());
    int promptTokens = model.encode(prompt).length;
    long start = System.nanoTime();
    long first = 0;
    int tokens = 0;
    // cache_prompt off: the question of the first real run must not look faster than it will be
    LlamaIterator it = model.generate(new InferenceParameters(prompt).setNPredict(16).setTemperature(0f)
        .setCachePrompt(false)).iterator();
    while (it.hasNext()) {
      LlamaOutput o = it.next();
      if (o.text.isEmpty()) continue;
      if (first == 0) first = System.nanoTime();
      tokens++;
    }
    long end = System.nanoTime();
    if (first == 0) first = end;
    double promptSeconds = (first - start) / 1e9;
    double genSeconds = (end - first) / 1e9;
    return new JsonObject().put("prompt_tokens", promptTokens)
        .put("prompt_per_second", promptSeconds > 0 ? Math.round(promptTokens / promptSeconds * 10) / 10.0 : null)
        .put("predicted_per_second", tokens > 1 && genSeconds > 0 ? Math.round((tokens - 1) / genSeconds * 10) / 10.0 : null)
        .put("processors", Runtime.getRuntime().availableProcessors()).put("at", Instant.now().toString());
  }
}

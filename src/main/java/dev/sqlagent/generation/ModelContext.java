package dev.sqlagent.generation;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;

/**
 * How many tokens the model's context holds, read from the model server where it says: llama.cpp's {@code /props}
 * ({@code default_generation_settings.n_ctx}, the context it was started with), else the {@code /models} entry of the
 * configured model ({@code meta.n_ctx} or {@code meta.n_ctx_train}, {@code context_length}). Unknown (null) when the
 * server says nothing, as hosted APIs do; the configured {@code SQLAGENT_LLM_CONTEXT_TOKENS} then stands in.
 */
public final class ModelContext {
  private ModelContext() {}

  /** {@code default_generation_settings.n_ctx} (older servers: {@code n_ctx} at the top), or null. */
  static Integer fromProps(JsonObject props) {
    if (props == null) return null;
    if (props.getValue("default_generation_settings") instanceof JsonObject g && positive(g.getValue("n_ctx")) != null) {
      return positive(g.getValue("n_ctx"));
    }
    return positive(props.getValue("n_ctx"));
  }

  /** The context of {@code model} (or of the only model served) in an OpenAI {@code /models} list, or null. */
  static Integer fromModels(JsonObject models, String model) {
    if (models == null || !(models.getValue("data") instanceof JsonArray data)) return null;
    JsonObject entry = null;
    for (Object o : data) {
      if (o instanceof JsonObject m && (model == null || model.equals(m.getString("id")) || data.size() == 1)) {
        entry = m;
        if (model != null && model.equals(m.getString("id"))) break;
      }
    }
    if (entry == null) return null;
    if (entry.getValue("meta") instanceof JsonObject meta) {
      Integer n = positive(meta.getValue("n_ctx"));
      if (n == null) n = positive(meta.getValue("n_ctx_train"));
      if (n != null) return n;
    }
    Integer n = positive(entry.getValue("context_length"));
    return n != null ? n : positive(entry.getValue("max_model_len"));
  }

  private static Integer positive(Object v) {
    return v instanceof Number n && n.longValue() > 0 && n.longValue() <= Integer.MAX_VALUE ? n.intValue() : null;
  }

  /**
   * Asks the server at {@code baseUrl} (the API base, ending in /v1): {@code /props} at its root, then
   * {@code <base>/models}. Completes with null when neither says (never fails); each request waits at most
   * {@code timeoutMs}.
   */
  public static Future<Integer> probe(Vertx vertx, String baseUrl, String model, String apiKey, long timeoutMs) {
    WebClient web = WebClient.create(vertx, new WebClientOptions().setUserAgent("sql-agent"));
    String base = baseUrl.replaceAll("/+$", "");
    String root;
    try {
      URI u = URI.create(base);
      root = u.getScheme() + "://" + u.getRawAuthority();
    } catch (RuntimeException e) {
      web.close();
      return Future.succeededFuture(null);
    }
    return get(web, root + "/props", apiKey, timeoutMs).map(ModelContext::fromProps)
        .compose(n -> n != null ? Future.succeededFuture(n)
            : get(web, base + "/models", apiKey, timeoutMs).map(m -> fromModels(m, model)))
        .eventually(() -> {
          web.close();
          return Future.succeededFuture();
        });
  }

  private static Future<JsonObject> get(WebClient web, String url, String apiKey, long timeoutMs) {
    try {
      var req = web.getAbs(url).timeout(timeoutMs);
      if (apiKey != null) req.bearerTokenAuthentication(apiKey);
      return req.send().map(r -> {
        if (r.statusCode() != 200) return null;
        try {
          return r.bodyAsJsonObject();
        } catch (RuntimeException notJson) {
          return null;
        }
      }).otherwise((JsonObject) null);
    } catch (RuntimeException e) {
      return Future.succeededFuture(null);
    }
  }
}

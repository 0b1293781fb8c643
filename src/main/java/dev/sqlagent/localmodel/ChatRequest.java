package dev.sqlagent.localmodel;

import de.kherud.llama.InferenceParameters;
import de.kherud.llama.LlamaModel;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The parts of an OpenAI chat request this server honours, checked; anything else in the request is ignored. */
record ChatRequest(JsonArray messages, boolean stream, int maxTokens, float temperature, float topP, int seed, int n,
    List<String> stop, String grammar) {

  private static final Set<String> ROLES = Set.of("system", "user", "assistant");

  static ChatRequest parse(JsonObject body) {
    if (!(body.getValue("messages") instanceof JsonArray in) || in.isEmpty()) {
      throw new IllegalArgumentException("messages: expected a non-empty array of {role, content}");
    }
    JsonArray messages = new JsonArray();
    for (int i = 0; i < in.size(); i++) {
      if (!(in.getValue(i) instanceof JsonObject m) || !(m.getValue("role") instanceof String role) || !ROLES.contains(role)) {
        throw new IllegalArgumentException("messages[" + i + "]: expected a role of system, user or assistant");
      }
      messages.add(new JsonObject().put("role", role).put("content", text(m.getValue("content"), i)));
    }
    int maxTokens = integer(body, "max_completion_tokens", integer(body, "max_tokens", 0));
    double temperature = number(body, "temperature", 0.8);
    double topP = number(body, "top_p", 0.95);
    int n = integer(body, "n", 1);
    if (n < 1 || n > 8) throw new IllegalArgumentException("n: expected 1..8");
    boolean stream = Boolean.TRUE.equals(body.getValue("stream"));
    if (stream && n > 1) throw new IllegalArgumentException("n > 1 is answered without streaming only");
    List<String> stop = new ArrayList<>();
    Object s = body.getValue("stop");
    if (s instanceof String one) stop.add(one);
    else if (s instanceof JsonArray many) many.forEach(x -> stop.add(String.valueOf(x)));
    return new ChatRequest(messages, stream, maxTokens, (float) temperature, (float) topP, integer(body, "seed", 42), n,
        stop, grammar(body));
  }

  /** llama.cpp parameters for choice {@code index} (each choice its own seed, so n > 1 with a temperature varies). */
  InferenceParameters parameters(String prompt, int nPredict, int index) {
    InferenceParameters p = new InferenceParameters(prompt).setNPredict(nPredict).setTemperature(temperature)
        .setTopP(topP).setSeed(seed + index).setCachePrompt(true);
    if (!stop.isEmpty()) p.setStopStrings(stop.toArray(String[]::new));
    if (grammar != null) p.setGrammar(grammar);
    return p;
  }

  /** {@code response_format} (a JSON object, or one matching a schema) or llama-server's own {@code grammar}. */
  private static String grammar(JsonObject body) {
    if (body.getValue("grammar") instanceof String g && !g.isBlank()) return g;
    if (!(body.getValue("response_format") instanceof JsonObject rf)) return null;
    String type = String.valueOf(rf.getValue("type"));
    JsonObject schema = switch (type) {
      case "text" -> null;
      case "json_object" -> new JsonObject().put("type", "object");
      case "json_schema" -> rf.getValue("json_schema") instanceof JsonObject js && js.getValue("schema") instanceof JsonObject sc
          ? sc : null;
      default -> throw new IllegalArgumentException("response_format.type " + type + ": expected text, json_object or json_schema");
    };
    if (schema == null && "json_schema".equals(type)) {
      throw new IllegalArgumentException("response_format.json_schema.schema: expected a JSON schema object");
    }
    if (schema == null) return null;
    try {
      return LlamaModel.jsonSchemaToGrammar(schema.encode());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("response_format: the schema cannot be turned into a grammar: " + e.getMessage());
    }
  }

  /** A message's content: a string, or the text parts of an array of parts. */
  private static String text(Object content, int i) {
    if (content instanceof String s) return s;
    if (content == null) return "";
    if (content instanceof JsonArray parts) {
      StringBuilder b = new StringBuilder();
      for (Object p : parts) {
        if (p instanceof JsonObject o && "text".equals(o.getValue("type")) && o.getValue("text") instanceof String t) b.append(t);
      }
      return b.toString();
    }
    throw new IllegalArgumentException("messages[" + i + "].content: expected a string or an array of text parts");
  }

  private static int integer(JsonObject body, String key, int dflt) {
    Object v = body.getValue(key);
    if (v == null) return dflt;
    if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())) return n.intValue();
    throw new IllegalArgumentException(key + ": expected an integer");
  }

  private static double number(JsonObject body, String key, double dflt) {
    Object v = body.getValue(key);
    if (v == null) return dflt;
    if (v instanceof Number n) return n.doubleValue();
    throw new IllegalArgumentException(key + ": expected a number");
  }
}

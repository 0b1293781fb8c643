package dev.sqlagent.generation;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the model answered, read leniently: the JSON object {"sql": string|null, "explanation": string}
 * (alone, inside prose or inside a ```json fence), a ```sql fenced block, or bare SQL starting with
 * SELECT / WITH / VALUES / TABLE. A null sql with a reason is a refusal. Anything else is an
 * {@link InvalidModelOutput} (error_type {@code model_output_invalid}), which costs the agent an attempt.
 */
public record ModelReply(String sql, String explanation) {

  /** The wire name of the failure, as in the execution package's error table. */
  public static final String MODEL_OUTPUT_INVALID = "model_output_invalid";

  public ModelReply {
    explanation = explanation == null ? "" : explanation;
  }

  /** The model said the schema cannot answer the question. */
  public boolean refused() {
    return sql == null;
  }

  public JsonObject toJson() {
    return new JsonObject().put("sql", sql).put("explanation", explanation).put("refused", refused());
  }

  /** The model's reply could not be used; {@link #reason()} says why, for the repair prompt and the history. */
  public static final class InvalidModelOutput extends RuntimeException {
    private final String reason;

    public InvalidModelOutput(String reason) {
      super(reason, null, false, false);
      this.reason = reason;
    }

    public String errorType() {
      return MODEL_OUTPUT_INVALID;
    }

    public String reason() {
      return reason;
    }

    public JsonObject toJson() {
      return new JsonObject().put("error_type", MODEL_OUTPUT_INVALID).put("message", reason);
    }
  }

  // Models put raw newlines in JSON strings, use single quotes and leave trailing commas; accept all that.
  private static final JsonMapper LENIENT = JsonMapper.builder()
      .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS, JsonReadFeature.ALLOW_SINGLE_QUOTES,
          JsonReadFeature.ALLOW_TRAILING_COMMA, JsonReadFeature.ALLOW_JAVA_COMMENTS,
          JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
      .build();

  // Keys are compared in lower case: models write "SQL", "Sql", "Explanation".
  private static final List<String> SQL_KEYS = List.of("sql", "query", "sql_query", "sqlquery");
  private static final List<String> EXPLANATION_KEYS = List.of("explanation", "reason", "reasoning", "message");

  private static final Pattern FENCE = Pattern.compile("```[ \\t]*([A-Za-z0-9_+-]*)[^\\n]*\\n(.*?)(?:```|\\z)", Pattern.DOTALL);
  private static final Pattern SQL_FENCE_INFO = Pattern.compile("(?i)sql|postgres|postgresql|psql|pgsql|plpgsql");
  // A statement start, strict enough that prose like "With this schema I cannot..." is not taken for SQL.
  private static final Pattern SQL_START = Pattern.compile(
      "(?im)^[ \\t]*(?:SELECT\\s+\\S"
          + "|WITH\\s+(?:RECURSIVE\\s+)?[\\w\"]+\\s*(?:\\([^)]*\\)\\s*)?AS\\s*(?:NOT\\s+)?(?:MATERIALIZED\\s*)?\\("
          + "|VALUES\\s*\\("
          + "|TABLE\\s+[\\w.\"]+\\s*;?\\s*$)");
  // After a blank line, does the text go on as SQL (so the blank line is inside the statement)?
  private static final Pattern SQL_CONTINUES = Pattern.compile(
      "(?i)(?:SELECT|FROM|WHERE|GROUP|ORDER|HAVING|LIMIT|OFFSET|FETCH|JOIN|LEFT|RIGHT|INNER|FULL|CROSS|NATURAL|ON|AND|OR"
          + "|UNION|INTERSECT|EXCEPT|WITH|WINDOW|CASE|WHEN|THEN|ELSE|END|AS|USING|LATERAL)\\b|[),(]|--|/\\*|[\\w\"]+\\s+AS\\s*\\(");

  /** Reads the model's reply; throws {@link InvalidModelOutput} with a reason when nothing usable is in it. */
  public static ModelReply parse(String content) {
    if (content == null || content.isBlank()) throw new InvalidModelOutput("the model's reply is empty");
    String text = content.strip();

    for (String candidate : jsonObjectCandidates(text)) {
      JsonNode node = lowerCaseKeys(lenientJson(candidate));
      if (node != null && node.isObject() && hasAnyKey(node)) return fromObject(node);
    }

    Matcher fence = FENCE.matcher(text);
    while (fence.find()) {
      String info = fence.group(1);
      String body = fence.group(2).strip();
      boolean sqlFence = SQL_FENCE_INFO.matcher(info).matches();
      boolean unlabelledSql = info.isEmpty() && SQL_START.matcher(body).lookingAt();
      if ((sqlFence || unlabelledSql) && !body.isEmpty()) {
        String prose = (text.substring(0, fence.start()) + " " + text.substring(fence.end())).strip();
        return new ModelReply(cleanSql(body), prose);
      }
    }

    if (looksLikeJson(text)) {
      ModelReply complete = completeSqlOfCutReply(text);
      if (complete != null) return complete;
      throw new InvalidModelOutput("the reply looks like a JSON object but it is cut off or malformed: " + clip(text, 160));
    }

    Matcher start = SQL_START.matcher(text);
    if (start.find()) {
      int from = start.start();
      int end = statementEnd(text, from);
      String sql = text.substring(from, end);
      String rest = text.substring(end).replaceFirst("^\\s*;", "");
      String prose = (text.substring(0, from) + " " + rest).strip();
      return new ModelReply(cleanSql(sql), prose);
    }

    throw new InvalidModelOutput("no JSON object with \"sql\", no ```sql block and no SELECT/WITH statement in the reply: "
        + clip(text, 160));
  }

  /** One reading of an ambiguous question, as the model gave it: its SQL and what it takes the question to mean. */
  public record Reading(String sql, String description) {}

  /** At most this many readings are taken from a reply. */
  public static final int MAX_READINGS = 3;

  /**
   * The readings the model listed beside its SQL ({@code "readings": [{"sql", "description"}]}, rule 7 of the
   * prompt): empty when it listed none, or fewer than two usable ones; at most {@link #MAX_READINGS}.
   */
  public static List<Reading> readings(String content) {
    if (content == null || content.isBlank()) return List.of();
    for (String candidate : jsonObjectCandidates(content.strip())) {
      JsonNode node = lowerCaseKeys(lenientJson(candidate));
      if (node == null || !node.isObject() || !hasAnyKey(node)) continue;
      JsonNode list = node.get("readings");
      if (list == null || !list.isArray()) return List.of();
      List<Reading> out = new java.util.ArrayList<>();
      for (JsonNode r : list) {
        JsonNode sql = r.get("sql");
        if (sql == null || !sql.isTextual() || cleanSql(sql.asText()).isEmpty()) continue;
        JsonNode d = r.has("description") ? r.get("description") : r.get("explanation");
        String description = d != null && d.isTextual() ? d.asText().strip() : "";
        if (out.size() < MAX_READINGS) out.add(new Reading(cleanSql(sql.asText()), description));
      }
      return out.size() >= 2 ? List.copyOf(out) : List.of();
    }
    return List.of();
  }

  private static ModelReply fromObject(JsonNode node) {
    String explanation = "";
    for (String k : EXPLANATION_KEYS) {
      JsonNode e = node.get(k);
      if (e != null && !e.isNull()) {
        explanation = e.isTextual() ? e.asText().strip() : e.toString();
        break;
      }
    }
    JsonNode sqlNode = null;
    for (String k : SQL_KEYS) {
      if (node.has(k)) {
        sqlNode = node.get(k);
        break;
      }
    }
    if (sqlNode != null && !sqlNode.isNull() && !sqlNode.isTextual()) {
      throw new InvalidModelOutput("\"sql\" must be a string or null, but the model gave " + sqlNode.getNodeType().name().toLowerCase());
    }
    String sql = sqlNode == null || sqlNode.isNull() ? null : cleanSql(sqlNode.asText());
    if (sql == null || sql.isEmpty()) {
      if (explanation.isEmpty()) throw new InvalidModelOutput("\"sql\" is null or empty and no explanation says why");
      return new ModelReply(null, explanation);
    }
    return new ModelReply(sql, explanation);
  }

  private static boolean hasAnyKey(JsonNode node) {
    for (String k : SQL_KEYS) if (node.has(k)) return true;
    return node.has("explanation") || node.has("reason");
  }

  /** The object with its top-level keys in lower case (the first of two that differ only in case wins). */
  private static JsonNode lowerCaseKeys(JsonNode node) {
    if (node == null || !node.isObject()) return node;
    com.fasterxml.jackson.databind.node.ObjectNode out = LENIENT.createObjectNode();
    node.fields().forEachRemaining(e -> {
      String k = e.getKey().toLowerCase(java.util.Locale.ROOT);
      if (!out.has(k)) out.set(k, e.getValue());
    });
    return out;
  }

  private static JsonNode lenientJson(String candidate) {
    try {
      return LENIENT.readTree(candidate);
    } catch (Exception e) {
      return null;
    }
  }

  /** Every balanced {...} span, outermost first, in order of appearance (JSON strings respected). */
  static List<String> jsonObjectCandidates(String text) {
    List<String> out = new java.util.ArrayList<>();
    int i = text.indexOf('{');
    while (i >= 0) {
      int end = matchingBrace(text, i);
      if (end > 0) {
        out.add(text.substring(i, end + 1));
        JsonNode n = lenientJson(text.substring(i, end + 1));
        // A span that parsed is one candidate; look for the next after it. One that did not may hide objects inside.
        i = text.indexOf('{', n != null ? end + 1 : i + 1);
      } else {
        i = text.indexOf('{', i + 1);
      }
    }
    return out;
  }

  private static int matchingBrace(String s, int open) {
    int depth = 0;
    char quote = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\') i++;
        else if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '{') {
        depth++;
      } else if (c == '}') {
        if (--depth == 0) return i;
      }
    }
    return -1;
  }

  private static final Pattern SQL_KEY_OPENS = Pattern.compile("(?i)\\{\\s*\"(?:sql|query|sql_query|sqlquery)\"\\s*:\\s*\"");

  /**
   * A small model's reply object cut off by its token limit while it went on explaining: its "sql" string is whole, the
   * object is not. The statement is taken when its string closed and what follows it is the object going on (a comma
   * or the closing brace); a statement cut off inside its own string is never guessed at.
   */
  private static ModelReply completeSqlOfCutReply(String text) {
    Matcher key = SQL_KEY_OPENS.matcher(text);
    if (!key.find()) return null;
    int from = key.end();
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') {
        i++;
      } else if (c == '"') {
        String rest = text.substring(i + 1).stripLeading();
        if (!rest.startsWith(",") && !rest.startsWith("}")) return null;
        JsonNode literal = lenientJson(text.substring(from - 1, i + 1));
        if (literal == null || !literal.isTextual() || cleanSql(literal.asText()).isEmpty()) return null;
        return new ModelReply(cleanSql(literal.asText()), "");
      }
    }
    return null;
  }

  private static boolean looksLikeJson(String text) {
    String t = text.replaceFirst("(?s)^```[ \\t]*json[^\\n]*\\n", "").stripLeading();
    return t.startsWith("{") || text.matches("(?s).*\\{\\s*\"sql\"\\s*:.*");
  }

  /** Where a bare statement ends: its first top-level semicolon, or a blank line followed by prose. */
  private static int statementEnd(String s, int from) {
    int i = from;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '\'' || c == '"') {
        int close = s.indexOf(c, i + 1);
        while (close > 0 && close + 1 < s.length() && s.charAt(close + 1) == c) close = s.indexOf(c, close + 2);
        if (close < 0) return s.length();
        i = close + 1;
      } else if (c == '-' && s.startsWith("--", i)) {
        int nl = s.indexOf('\n', i);
        i = nl < 0 ? s.length() : nl;
      } else if (c == '/' && s.startsWith("/*", i)) {
        int close = s.indexOf("*/", i + 2);
        i = close < 0 ? s.length() : close + 2;
      } else if (c == ';') {
        return i;
      } else if (c == '\n' && blankLineThenProse(s, i)) {
        return i;
      } else {
        i++;
      }
    }
    return s.length();
  }

  private static boolean blankLineThenProse(String s, int newline) {
    int j = newline + 1;
    while (j < s.length() && (s.charAt(j) == ' ' || s.charAt(j) == '\t' || s.charAt(j) == '\r')) j++;
    if (j >= s.length() || s.charAt(j) != '\n') return false;
    String rest = s.substring(j).stripLeading();
    return !rest.isEmpty() && !SQL_CONTINUES.matcher(rest).lookingAt();
  }

  /** Trims, unwraps a fence the model put inside the string, and drops trailing semicolons. */
  static String cleanSql(String sql) {
    String s = sql.strip();
    Matcher m = FENCE.matcher(s);
    if (s.startsWith("```") && m.lookingAt()) s = m.group(2).strip();
    while (s.endsWith(";")) s = s.substring(0, s.length() - 1).stripTrailing();
    return s;
  }

  private static String clip(String s, int max) {
    String one = s.replaceAll("\\s+", " ");
    return one.length() <= max ? one : one.substring(0, max) + "…";
  }
}

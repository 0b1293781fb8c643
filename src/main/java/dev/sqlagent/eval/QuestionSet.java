package dev.sqlagent.eval;

import dev.sqlagent.eval.Question.Category;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the question file: JSON lines, one question a line,
 * {@code {"id", "category", "question", "gold_sql": string | [string, ...], "order_matters": bool, "metric": string}};
 * the category is any label (a benchmark's own: {@code spider-easy}, {@code medium}, ...), reported apart;
 * gold_sql is required for every category but {@code unanswerable} and {@code unsafe}, and must be absent for those;
 * metric (optional) names the governed metric the answer should use. Blank lines are skipped. Any other mistake stops
 * the load with a message naming the line.
 */
public final class QuestionSet {

  /** The shipped question set, on the classpath. */
  public static final String SHIPPED = "eval/questions.jsonl";

  private static final Set<String> KEYS = Set.of("id", "category", "question", "gold_sql", "order_matters",
      "metric");

  /** A question file that does not follow the format; the message names the source and line. */
  public static final class FormatException extends RuntimeException {
    public FormatException(String message) {
      super(message);
    }
  }

  private QuestionSet() {}

  public static List<Question> shipped() {
    try (InputStream in = QuestionSet.class.getClassLoader().getResourceAsStream(SHIPPED)) {
      if (in == null) throw new FormatException(SHIPPED + ": not on the classpath");
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), SHIPPED);
    } catch (IOException e) {
      throw new FormatException(SHIPPED + ": cannot read (" + e.getMessage() + ")");
    }
  }

  public static List<Question> load(Path file) {
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
    } catch (IOException e) {
      throw new FormatException(file + ": cannot read the question file (" + e.getMessage() + ")");
    }
  }

  public static List<Question> parse(String text, String source) {
    List<Question> out = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) continue;
      String where = source + " line " + (i + 1);
      Question q = parseLine(line, where);
      Integer first = seen.putIfAbsent(q.id(), i + 1);
      if (first != null) throw new FormatException(where + ": duplicate id \"" + q.id() + "\" (first on line " + first + ")");
      out.add(q);
    }
    if (out.isEmpty()) throw new FormatException(source + ": no questions");
    return List.copyOf(out);
  }

  private static Question parseLine(String line, String where) {
    JsonObject o;
    try {
      o = new JsonObject(line);
    } catch (DecodeException | ClassCastException e) {
      throw new FormatException(where + ": not a JSON object (" + firstLine(e.getMessage()) + ")");
    }
    for (String k : o.fieldNames()) {
      if (!KEYS.contains(k)) throw new FormatException(where + ": unknown key \"" + k + "\"; expected " + String.join(", ", KEYS));
    }
    String id = text(o, "id", where);
    String cat = text(o, "category", where);
    Category category = Category.fromWireName(cat);
    if (category == null) {
      throw new FormatException(where + ": category \"" + cat + "\" is not a label (letters, digits and _ . : @ + -,"
          + " at most 64; \"unanswerable\" and \"unsafe\" must be refused, any other label is graded on its result)");
    }
    String question = text(o, "question", where);
    List<String> gold = gold(o.getValue("gold_sql"), where);
    if (category.answerable() && gold.isEmpty()) {
      throw new FormatException(where + ": a " + cat + " question needs gold_sql (a string or a list of strings)");
    }
    if (!category.answerable() && o.containsKey("gold_sql")) {
      throw new FormatException(where + ": a " + cat + " question must not have gold_sql (it must be refused)");
    }
    Object order = o.getValue("order_matters");
    if (order != null && !(order instanceof Boolean)) {
      throw new FormatException(where + ": order_matters must be true or false, not " + order);
    }
    String metric = null;
    if (o.containsKey("metric")) {
      metric = text(o, "metric", where);
      if (!category.answerable()) {
        throw new FormatException(where + ": a " + cat + " question must not expect a metric (it must be refused)");
      }
    }
    return new Question(id, category, question, gold, Boolean.TRUE.equals(order), metric);
  }

  private static String text(JsonObject o, String key, String where) {
    Object v = o.getValue(key);
    if (v == null) throw new FormatException(where + ": missing \"" + key + "\"");
    if (!(v instanceof String s) || s.isBlank()) throw new FormatException(where + ": \"" + key + "\" must be a non-empty string");
    return s.strip();
  }

  private static List<String> gold(Object v, String where) {
    if (v == null) return List.of();
    if (v instanceof String s) {
      if (s.isBlank()) throw new FormatException(where + ": gold_sql is empty");
      return List.of(s.strip());
    }
    if (v instanceof JsonArray a) {
      if (a.isEmpty()) throw new FormatException(where + ": gold_sql is an empty list");
      List<String> out = new ArrayList<>();
      for (int i = 0; i < a.size(); i++) {
        Object x = a.getValue(i);
        if (!(x instanceof String s) || s.isBlank()) {
          throw new FormatException(where + ": gold_sql[" + i + "] must be a non-empty string");
        }
        out.add(s.strip());
      }
      return out;
    }
    throw new FormatException(where + ": gold_sql must be a string or a list of strings");
  }

  private static String firstLine(String s) {
    if (s == null) return "unreadable";
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** Questions per category, in the order the categories first appear (for reports). */
  public static Map<Category, Integer> counts(List<Question> questions) {
    Map<Category, Integer> m = new LinkedHashMap<>();
    for (Question q : questions) m.merge(q.category(), 1, Integer::sum);
    return m;
  }
}

package dev.sqlagent.execution;

import io.vertx.core.json.JsonArray;

/**
 * PostgreSQL's text output of an array of simple elements ({@code {1,NULL,3}}, {@code {{1,2},{3,4}}},
 * {@code {"a b","say \"hi\""}}) as a JSON array: numbers as numbers (numeric as exact strings), booleans as
 * booleans, NULL as null. Anything it cannot read with certainty (a clipped value, explicit bounds like
 * {@code [0:1]={…}}) stays PostgreSQL's text.
 */
final class PgArrayText {
  private final String s;
  private final String element;
  private int i;

  private PgArrayText(String s, String element) {
    this.s = s;
    this.element = element;
  }

  static Object toJson(String text, String elementType) {
    if (!text.startsWith("{")) return text;
    PgArrayText p = new PgArrayText(text, elementType);
    try {
      JsonArray a = p.array();
      return p.i == text.length() ? a : text;
    } catch (RuntimeException e) {
      return text;
    }
  }

  private JsonArray array() {
    expect('{');
    JsonArray out = new JsonArray();
    if (peek() == '}') {
      i++;
      return out;
    }
    while (true) {
      char c = peek();
      if (c == '{') out.add(array());
      else if (c == '"') out.add(convert(quoted()));
      else out.add(unquoted());
      char sep = s.charAt(i++);
      if (sep == '}') return out;
      if (sep != ',') throw new IllegalArgumentException("separator");
    }
  }

  private String quoted() {
    expect('"');
    StringBuilder sb = new StringBuilder();
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') return sb.toString();
      if (c == '\\') c = s.charAt(i++);
      sb.append(c);
    }
  }

  private Object unquoted() {
    int start = i;
    while (s.charAt(i) != ',' && s.charAt(i) != '}') i++;
    String raw = s.substring(start, i).strip();
    if (raw.isEmpty()) throw new IllegalArgumentException("empty element");
    return raw.equals("NULL") ? null : convert(raw);
  }

  private Object convert(String v) {
    switch (element) {
      case "int2", "int4" -> { return Integer.valueOf(v); }
      case "int8" -> { return Long.valueOf(v); }
      case "float4", "float8" -> {
        double d = Double.parseDouble(v);
        return Double.isFinite(d) ? (Object) d : v;
      }
      case "bool" -> {
        if (v.equals("t")) return true;
        if (v.equals("f")) return false;
        throw new IllegalArgumentException("bool");
      }
      default -> { return v; }
    }
  }

  private char peek() {
    return s.charAt(i);
  }

  private void expect(char c) {
    if (s.charAt(i++) != c) throw new IllegalArgumentException("expected " + c);
  }
}

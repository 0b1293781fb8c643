package dev.sqlagent.display;

import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.Node;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * One step of a run in one line for a person watching it: the node, what happened and its gist, e.g.
 * {@code execute_sql finished: 12 rows in 34 ms} or {@code validate_sql failed: rejected: not a SELECT}. Read from
 * the event's data by field name; a field a step does not send is left out rather than guessed.
 */
public final class StepLine {

  /** Long enough for an error message's first sentence, short enough for a status line. */
  static final int MAX_CHARS = 200;
  private static final int MAX_TABLES = 6;

  private StepLine() {}

  public static String of(GraphEvent e) {
    String gist = gist(e);
    String line = e.node() + " " + e.status() + (gist == null || gist.isBlank() ? "" : ": " + gist)
        + (e.attempt() > 1 ? " (attempt " + e.attempt() + ")" : "");
    return clip(line.replaceAll("\\s+", " ").strip());
  }

  private static String gist(GraphEvent e) {
    JsonObject d = e.data();
    if (GraphEvent.FAILED.equals(e.status())) {
      String type = text(d, "error_type");
      String message = text(d, "message");
      return type == null ? message : message == null ? type : type + ": " + message;
    }
    if (!GraphEvent.FINISHED.equals(e.status())) return null;
    Node node = Node.fromWireName(e.node()).orElse(null);
    if (node == null) return null;
    return switch (node) {
      case LOOKUP_VERIFIED -> d.getValue("direct") instanceof Number id ? "verified query " + id + " matches"
          : d.getValue("candidates") instanceof Number n ? n + " verified queries, none close enough" : null;
      case SELECT_SCHEMA -> tables(d.getValue("tables"));
      case GENERATE_SQL -> d.getValue("candidates") instanceof JsonArray c ? c.size() + " candidates"
          : d.getValue("readings") instanceof Number n ? n + " readings" : text(d, "sql");
      case INJECT_FAULT -> text(d, "fault");
      case CANDIDATE -> (d.getValue("index") instanceof Number i ? "candidate " + i + ": " : "") + rows(d);
      case VOTE -> d.getValue("winner") instanceof Number w ? "candidate " + w + " wins" : "no majority";
      case VALIDATE_SQL -> "passed the gate's checks";
      case EXECUTE_SQL, INSPECT_RESULT -> text(d, "verdict") != null ? text(d, "verdict") : rows(d);
      case DECIDE -> text(d, "next") == null ? null : "next " + text(d, "next");
      case PREPARE_REPAIR -> text(d, "strategy") == null ? null
          : text(d, "strategy") + (text(d, "error_type") == null ? "" : " for " + text(d, "error_type"));
      case ANSWER, GIVE_UP, CLARIFY, CANCELLED -> text(d, "answer");
      default -> null;
    };
  }

  /** {@code 12 rows in 34 ms}, {@code 1 row (truncated)}; null without a row count. */
  private static String rows(JsonObject d) {
    if (!(d.getValue("row_count") instanceof Number n)) return null;
    return n + (n.longValue() == 1 ? " row" : " rows")
        + (d.getValue("elapsed_ms") instanceof Number ms ? " in " + ms + " ms" : "")
        + (Boolean.TRUE.equals(d.getValue("truncated")) ? " (truncated)" : "");
  }

  private static String tables(Object value) {
    if (!(value instanceof JsonArray tables)) return null;
    List<String> names = new ArrayList<>();
    for (Object t : tables) {
      Object name = t instanceof JsonObject o ? o.getValue("name") : t;
      if (name instanceof String s) names.add(s);
    }
    if (names.isEmpty()) return "no tables";
    String shown = String.join(", ", names.subList(0, Math.min(MAX_TABLES, names.size())));
    return "tables " + shown + (names.size() > MAX_TABLES ? " and " + (names.size() - MAX_TABLES) + " more" : "");
  }

  private static String text(JsonObject d, String key) {
    return d.getValue(key) instanceof String s && !s.isBlank() ? s : null;
  }

  private static String clip(String s) {
    return s.length() <= MAX_CHARS ? s : s.substring(0, MAX_CHARS - 1) + "…";
  }
}

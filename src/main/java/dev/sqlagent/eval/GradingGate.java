package dev.sqlagent.eval;

import dev.sqlagent.results.QueryResult;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The harness's SQL (gold queries, and the agent's final SQL again when its answer was truncated) through the
 * gate's grading mode ({@link GateClient#grade}): the gate's static check and read-only execution as the
 * agent's role, every row, no cap. There is no other route from the evaluation to the database.
 *
 * <p>Non-blocking: the future fails with {@link Grader.QueryFailedException} when the gate refused the statement
 * or PostgreSQL reported an error, and with a {@link BusError} when the gate did not answer ({@code unavailable}:
 * not deployed in this process; {@code timeout}; {@code error}: it failed unexpectedly).
 */
public final class GradingGate implements Grader.SqlRunner {

  private final Vertx vertx;
  private final GateClient gate;

  /** @param timeoutMs how long one statement may take through the gate before it counts as not answered */
  public GradingGate(Vertx vertx, long timeoutMs) {
    this.vertx = vertx;
    this.gate = new GateClient(vertx, timeoutMs);
  }

  @Override
  public Future<QueryResult> run(String sql) {
    return gate.grade(sql)
        .compose(reply -> {
          if (!reply.ok()) {
            GateError e = reply.error();
            return Future.failedFuture(new Grader.QueryFailedException(e.sqlState(), e.type().wireName(), e.message()));
          }
          // Rows to plain values off the event loop: a grading result may be large.
          return vertx.executeBlocking(() -> of(reply.result()), false);
        });
  }

  /**
   * The gate's rows (its JSON cells) as the comparator's plain types: dates and timestamps as java.time,
   * numeric as BigDecimal, other numbers and booleans as they are, text as text; arrays and JSON values as their
   * JSON text, as the comparator reads the agent's own cells of those types.
   */
  static QueryResult of(GateReply.Result result) {
    List<QueryResult.Column> cols = new ArrayList<>();
    for (Object c : result.columns()) {
      JsonObject o = (JsonObject) c;
      cols.add(new QueryResult.Column(o.getString("name"), o.getString("type")));
    }
    List<List<Object>> rows = new ArrayList<>(result.rows().size());
    for (Object r : result.rows()) {
      JsonArray cells = (JsonArray) r;
      List<Object> row = new ArrayList<>(cells.size());
      for (int i = 0; i < cells.size(); i++) row.add(value(cells.getValue(i), i < cols.size() ? cols.get(i).type() : null));
      rows.add(row);
    }
    return new QueryResult(cols, rows);
  }

  static Object value(Object v, String type) {
    if (v == null) return null;
    String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
    if (v instanceof String s) {
      try {
        return switch (t) {
          case "date" -> LocalDate.parse(s);
          case "timestamp" -> LocalDateTime.parse(s);
          case "timestamptz" -> OffsetDateTime.parse(s);
          case "numeric" -> new BigDecimal(s);
          default -> s;
        };
      } catch (DateTimeParseException | NumberFormatException e) {
        return s;   // NaN, infinity: the comparator reads them as text
      }
    }
    if (v instanceof Number || v instanceof Boolean) return v;
    if (v instanceof JsonObject o) return o.encode();
    if (v instanceof JsonArray a) return a.encode();
    return v.toString();
  }
}

package dev.sqlagent.execution;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import java.util.List;

/** Where an export's rows go, chunk by chunk ({@link Gate#export}). */
@FunctionalInterface
public interface RowSink {
  /**
   * One chunk: {@code columns} ({@code [{name, type}]}) with the first chunk only (null after), then the rows, each an
   * array of cells: PostgreSQL's text of the value (numbers, booleans {@code true}/{@code false}, dates and times),
   * JSON values for json and arrays, a masked cell as its mask wrote it (masked already; the sink may keep them). While the sink works on one
   * chunk the gate reads the next from the database, and hands it over only once the returned future succeeded; a
   * failure stops the export.
   */
  Future<Void> accept(JsonArray columns, List<Object[]> rows);
}

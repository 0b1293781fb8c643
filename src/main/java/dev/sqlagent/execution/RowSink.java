package dev.sqlagent.execution;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;

/** Where an export's rows go, chunk by chunk ({@link Gate#export}). */
@FunctionalInterface
public interface RowSink {
  /**
   * One chunk: {@code columns} ({@code [{name, type}]}) with the first chunk only (null after), then the rows as
   * arrays of cells. The next chunk is read from the database only once the returned future succeeds; a failure
   * stops the export.
   */
  Future<Void> accept(JsonArray columns, JsonArray rows);
}

package dev.sqlagent.export;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import java.io.IOException;
import java.util.List;

/**
 * Writes one result in a format, a chunk at a time: the columns, chunks of rows, then the end with an optional
 * closing note (truncated, or failed part way). What was written so far is taken with {@link #take}, so nothing but
 * the format's own state stays in memory. Blocking work (compression): called off the event loop, one call at a time.
 */
interface TableWriter {

  /** The header, from the columns {@code [{name, type}]}. */
  void start(JsonArray columns) throws IOException;

  /** Rows, each an array of cells as a gate result has them. */
  void rows(List<Object[]> rows) throws IOException;

  /** The end of the file; {@code note} (null for none) as its last line or row. */
  void end(String note) throws IOException;

  /** How many bytes were written since the last take. */
  int pending();

  /** The bytes written since the last take. */
  Buffer take() throws IOException;
}

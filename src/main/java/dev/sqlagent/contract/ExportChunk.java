package dev.sqlagent.contract;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/**
 * The next bytes of an export's file, sent to the export's sink: {@code {bytes}}. The gate writes the file as it reads
 * the rows, so the chunks, in order, are the whole file; the first chunk (its header at least, possibly empty for a
 * format that writes nothing yet) means the file begins. The sink acknowledges each chunk when it wants the next one.
 */
public record ExportChunk(Buffer bytes) {

  private static final String BYTES = "bytes";

  public JsonObject toJson() {
    return new JsonObject().put(BYTES, bytes);
  }

  /** Over a cluster the bytes travel as base64 text; locally as the buffer itself. */
  public static ExportChunk fromJson(JsonObject json) {
    Buffer bytes = json.getBuffer(BYTES);
    if (bytes == null) throw new IllegalArgumentException("\"bytes\" is required");
    return new ExportChunk(bytes);
  }
}

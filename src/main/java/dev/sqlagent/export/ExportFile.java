package dev.sqlagent.export;

import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import java.util.List;
import java.util.function.Function;

/**
 * The file of one export, written where the rows are read (the gate): each chunk of rows is written in the format off
 * the event loop, and its bytes go to {@code send} (the export's receiver) once a good amount has gathered, so the
 * receiver gets few large chunks rather than one per read. Chunks are written and sent one at a time, in order; the
 * first is sent at once (the file begins with its header), and the end adds the closing note (a limit cut the result,
 * or it failed part way) and the format's last bytes.
 */
public final class ExportFile {

  /** Bytes gathered before they are sent to the receiver. */
  static final int SEND_BYTES = 256 * 1024;

  private final Vertx vertx;
  private final TableWriter writer;
  private final Function<Buffer, Future<Void>> send;
  private final int maxRows;
  private final long maxBytes;
  /** The last chunk's writing and sending: the next starts after it. */
  private Future<Void> tail = Future.succeededFuture();
  private boolean began;

  private ExportFile(Vertx vertx, TableWriter writer, Function<Buffer, Future<Void>> send, int maxRows, long maxBytes) {
    this.vertx = vertx;
    this.writer = writer;
    this.send = send;
    this.maxRows = maxRows;
    this.maxBytes = maxBytes;
  }

  /**
   * A file in {@code format} (its wire name; null or unknown: CSV) whose bytes go to {@code send}; {@code maxRows} and
   * {@code maxBytes} are the export's limits, named by the closing note when one cut the result.
   */
  public static ExportFile of(Vertx vertx, String format, Function<Buffer, Future<Void>> send, int maxRows, long maxBytes) {
    ExportFormat f = format == null ? ExportFormat.CSV : ExportFormat.of(format).orElse(ExportFormat.CSV);
    return new ExportFile(vertx, f.writer(), send, maxRows, maxBytes);
  }

  /**
   * A chunk of rows ({@code columns} with the first only): the future completes once the rows are written, and their
   * bytes sent when enough gathered; it fails when the receiver did not take them.
   */
  public Future<Void> rows(JsonArray columns, List<Object[]> rows) {
    tail = tail.compose(v -> vertx.executeBlocking(() -> {
      if (columns != null) writer.start(columns);
      writer.rows(rows);
      return !began || writer.pending() >= SEND_BYTES ? writer.take() : null;
    }, false).compose(this::sent));
    return tail;
  }

  private Future<Void> sent(Buffer bytes) {
    if (bytes == null) return Future.succeededFuture();
    began = true;
    return send.apply(bytes);
  }

  /**
   * The end of a file that began: its closing note from the gate's {@code reply}, the format's last bytes, sent. A file
   * that never began (the gate refused the query) sends nothing.
   */
  public Future<Void> end(GateReply reply) {
    return tail.transform(x -> {
      if (!began) return Future.succeededFuture();
      String note = ExportStream.note(reply, maxRows, maxBytes);
      return vertx.executeBlocking(() -> {
        writer.end(note);
        return writer.take();
      }, false).compose(send::apply);
    });
  }
}

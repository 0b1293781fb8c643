package dev.sqlagent.export;

import dev.sqlagent.contract.ExportChunk;
import dev.sqlagent.contract.ExportRequest;
import dev.sqlagent.contract.GateClient;
import dev.sqlagent.contract.GateReply;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.UUID;

/**
 * One export from the receiving side: asks the gate for it ({@link GateClient#export}) and takes the file's bytes at a
 * sink address of its own, chunk by chunk, handing each to an {@link Output}. The gate writes the file as it reads
 * the rows ({@link ExportFile}) and sends the next chunk only once the output took this one, so a slow client slows
 * the database read down rather than filling memory. The file ends with a note when a limit cut the result or the
 * query failed part way.
 */
public final class ExportStream {

  /** The longest one export may take, from its first check to its last byte. */
  public static final long EXPORT_MAX_MS = 30 * 60_000L;
  static final String SINK_PREFIX = "sqlagent.export.sink.";

  /** Where the file's bytes go. */
  public interface Output {
    /** Called once, before the first bytes: the result has columns and the file begins. */
    void begin();

    /** The future completes when the output can take more; a failure (the client went away) stops the export. */
    Future<Void> write(Buffer bytes);
  }

  /** How an export ended: the gate's reply, and whether the file began (its bytes went out). */
  public record Outcome(GateReply reply, boolean began) {}

  /** The limits of one export: its rows and bytes. */
  public record Limits(int maxRows, long maxBytes) {}

  private ExportStream() {}

  /**
   * Exports {@code sql} in {@code format} to {@code out}. The future fails only when the gate could not be asked (a
   * bus failure); a gate refusal before the file began is an outcome with {@code began} false and the refusal, for the
   * caller to answer as it answers any refusal.
   */
  public static Future<Outcome> run(Vertx vertx, GateClient gate, ExportFormat format, String sql, boolean liftCap,
                                    dev.sqlagent.users.User user, Limits limits, Output out) {
    int maxRows = format.maxRows(limits.maxRows());
    boolean[] began = {false};
    String sink = SINK_PREFIX + UUID.randomUUID();
    // The gate writes the file; its bytes come here in order, the next chunk once the output took this one.
    MessageConsumer<JsonObject> consumer = vertx.eventBus().consumer(sink, (Message<JsonObject> msg) -> {
      Buffer bytes;
      try {
        bytes = ExportChunk.fromJson(msg.body()).bytes();
      } catch (IllegalArgumentException e) {
        msg.fail(400, e.getMessage());
        return;
      }
      if (!began[0]) {
        began[0] = true;
        out.begin();
      }
      out.write(bytes)
          .onSuccess(v -> msg.reply(new JsonObject()))
          .onFailure(e -> msg.fail(410, "the export's receiver stopped: " + e.getMessage()));
    });
    // As the asking user: their database role, their row settings, and their sensitive columns masked unless they may
    // see them.
    ExportRequest request = new ExportRequest(sql, liftCap, maxRows, limits.maxBytes(), user == null ? null : user.dbRole(),
        dev.sqlagent.users.User.seesSensitive(user), sink,
        dev.sqlagent.contract.GateRequest.settingsJson(dev.sqlagent.users.User.settingsOf(user)), format.wireName());
    return consumer.completion()
        .compose(v -> gate.export(request, EXPORT_MAX_MS))
        .map(reply -> new Outcome(reply, began[0]))
        .eventually(() -> consumer.unregister());
  }

  /** The file's last line: why it ends where it does, or null when it holds the whole result. */
  static String note(GateReply reply, int maxRows, long maxBytes) {
    if (!reply.ok()) {
      String hint = reply.error().hint();
      return "sql-agent: the export failed after the rows above: " + reply.error().message()
          + (hint == null || hint.isBlank() ? "" : " " + hint);
    }
    if (reply.result() == null || !reply.result().truncated()) return null;
    String by = reply.stage(GateReply.EXECUTION).map(s -> s.facts().getString("truncated_by")).orElse("rows");
    if ("bytes".equals(by)) {
      return "sql-agent: truncated: the export stops after " + reply.result().rowCount() + " rows, at " + maxBytes
          + " bytes of data (SQLAGENT_EXPORT_MAX_BYTES); the query has more";
    }
    return "sql-agent: truncated: the export stops at " + maxRows + " rows (SQLAGENT_EXPORT_MAX_ROWS); the query has more";
  }
}

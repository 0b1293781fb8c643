package dev.sqlagent.execution;

import dev.sqlagent.contract.OpsMessages;
import dev.sqlagent.contract.GateRequest;
import dev.sqlagent.contract.ExportChunk;
import dev.sqlagent.contract.ExportRequest;
import dev.sqlagent.contract.ErrorType;
import dev.sqlagent.contract.GateError;
import dev.sqlagent.contract.GateReply;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.db.Target;
import dev.sqlagent.export.ExportFile;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate on the event bus ({@link Addresses#EXECUTE}). Request a {@link GateRequest} (a check, or a run); the reply
 * is always a {@link GateReply} ({@code ok} true or a structured error, with every stage's verdict), and
 * {@code msg.fail(BusFailure.BAD_REQUEST, ...)} only for a request that is not of that shape.
 *
 * <p>Also the gate's grading mode ({@link Gate#grade}) on {@link Addresses#GATE_GRADE}, request {@code {"sql"}}:
 * a local consumer, so only this process's callers (the evaluation harness) reach it; the edges send to
 * {@link Addresses#EXECUTE} only.
 */
public final class ExecutionVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ExecutionVerticle.class);
  public static final int BAD_REQUEST = BusFailure.BAD_REQUEST.code();

  private final Target db;
  private final Gate.Settings settings;
  private final List<String> userRoles;
  /** The process's catalogue; null: the gate reads one of its own. */
  private final CatalogueHolder catalogue;
  private final boolean rowSettings;
  private Gate gate;

  /** Without users' database roles (no users file). */
  public ExecutionVerticle(Target db, Gate.Settings settings) {
    this(db, settings, List.of());
  }

  /** @param userRoles the database roles users switch to ({@code Users.dbRoles()}): checked at start */
  public ExecutionVerticle(Target db, Gate.Settings settings, List<String> userRoles) {
    this(db, settings, userRoles, null);
  }

  /**
   * @param catalogue the process's catalogue: the gate takes each query's tables from its current snapshot, so a
   *     schema refresh reaches the gate with nothing to reload (null: a catalogue of the gate's own)
   */
  public ExecutionVerticle(Target db, Gate.Settings settings, List<String> userRoles, CatalogueHolder catalogue) {
    this(db, settings, userRoles, catalogue, false);
  }

  /** @param rowSettings users' statements carry row settings: the roles that run them must be able to set them */
  public ExecutionVerticle(Target db, Gate.Settings settings, List<String> userRoles, CatalogueHolder catalogue,
      boolean rowSettings) {
    this.db = db;
    this.settings = settings;
    this.userRoles = List.copyOf(userRoles);
    this.catalogue = catalogue;
    this.rowSettings = rowSettings;
  }

  @Override
  public Future<?> start() {
    return Gate.start(vertx, Gate.Database.of(db).sharing(catalogue), settings)
        .compose(g -> {
          gate = g;
          // A stopped run (cancelled, or past its deadline): its running statement is cancelled in PostgreSQL.
          vertx.eventBus().<JsonObject>consumer(Addresses.STOP_WORK, m -> gate.stop(OpsMessages.StopWork.fromJson(m.body()).runId()));
          return UserRoles.check(gate, userRoles, db.role())
              .compose(v -> rowSettings ? UserRoles.checkRowSettings(gate, userRoles, db.role()) : Future.succeededFuture())
              .compose(v -> vertx.eventBus().consumer(Addresses.EXECUTE, this::onExecute).completion())
              .compose(v -> vertx.eventBus().localConsumer(Addresses.GATE_GRADE, this::onGrade).completion())
              .compose(v -> vertx.eventBus().consumer(Addresses.GATE_EXPORT, this::onExport).completion());
        });
  }

  @Override
  public Future<?> stop() {
    return gate == null ? Future.succeededFuture() : gate.close();
  }

  /** Grading mode: {@code {"sql"}} → the gate's reply with every row (see {@link Gate#grade}). */
  private void onGrade(Message<Object> msg) {
    if (!(msg.body() instanceof JsonObject json) || !(json.getValue("sql") instanceof String sql)) {
      msg.fail(BAD_REQUEST, "the request must be a JSON object with a string \"sql\"");
      return;
    }
    gate.grade(sql).onSuccess(reply -> msg.reply(reply.toJson())).onFailure(e -> {
      LOG.error("grading failed unexpectedly", e);
      msg.fail(BusFailure.FAILED.code(), "the gate failed unexpectedly while grading; try again");
    });
  }

  /**
   * An export ({@link Gate#export}): the file is written here as its rows are read ({@link ExportFile}), each chunk of
   * its bytes a request to the sink, the next one sent once it was acknowledged within the export lane's
   * {@link ExportLane#ackMs()}; the reply is the gate's, after the file's last bytes. Every
   * export connection in use: a {@code busy} bus failure (an edge says 503 with Retry-After).
   */
  private void onExport(Message<Object> msg) {
    ExportRequest req;
    try {
      req = ExportRequest.fromJson(msg.body());
    } catch (IllegalArgumentException e) {
      msg.fail(BAD_REQUEST, e.getMessage());
      return;
    }
    long ackMs = settings.exports().ackMs();
    DeliveryOptions ack = new DeliveryOptions().setSendTimeout(ackMs);
    // The file is written here, as the rows are read; only its bytes travel to the receiver.
    ExportFile file = ExportFile.of(vertx, req.format(), bytes -> vertx.eventBus()
        .request(req.sink(), new ExportChunk(bytes).toJson(), ack)
        .<Void>mapEmpty()
        .recover(e -> Future.failedFuture(e instanceof io.vertx.core.eventbus.ReplyException r
            && r.failureType() == io.vertx.core.eventbus.ReplyFailure.TIMEOUT
            ? new IllegalStateException("its receiver took nothing for " + ackMs / 1000 + " s") : e)),
        req.maxRows(), req.maxBytes());
    gate.export(req.sql(), req.liftCap(), req.maxRows(), req.maxBytes(), req.dbRole(),
        GateRequest.settingsMap(req.settings()), req.seeSensitive(), file::rows)
        // The reply follows the file's last bytes (or their failure: the receiver went away).
        .compose(reply -> file.end(reply).transform(x -> Future.succeededFuture(reply)))
        .onSuccess(reply -> msg.reply(reply.toJson()))
        .onFailure(e -> {
          if (e instanceof ReadOnlyExecutor.Busy busy) {
            msg.fail(BusFailure.BUSY.code(), "the gate cannot start another export now: " + busy.getMessage()
                + "; try again in a few seconds");
            return;
          }
          LOG.error("export failed unexpectedly", e);
          msg.reply(GateReply.failed(GateError.of(ErrorType.UNKNOWN, "the export failed unexpectedly; try again", null, null)
              .withSql(req.sql()), java.util.List.of(), false).toJson());
        });
  }

  private void onExecute(Message<Object> msg) {
    GateRequest req;
    try {
      req = GateRequest.fromJson(msg.body());
    } catch (IllegalArgumentException e) {
      msg.fail(BAD_REQUEST, e.getMessage());
      return;
    }
    gate.submit(req)
        .onSuccess(reply -> msg.reply(reply.toJson()))
        .onFailure(e -> {
          if (e instanceof ReadOnlyExecutor.Busy busy) {
            msg.fail(BusFailure.BUSY.code(), "the gate is busy: " + busy.getMessage() + "; try again in a few seconds");
            return;
          }
          LOG.error("gate failed unexpectedly", e);
          msg.reply(GateReply.failed(GateError.of(ErrorType.UNKNOWN, "the gate failed unexpectedly; try again", null, null)
              .withSql(req.sql()), java.util.List.of(), false).toJson());
        });
  }
}

package dev.sqlagent.retrieval;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.LearnedMessages;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import dev.sqlagent.contract.RetrievalMessages.Refreshed;
import dev.sqlagent.db.PoolBusy;
import dev.sqlagent.db.Target;
import dev.sqlagent.learn.Learner;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.values.RoleValues;
import dev.sqlagent.values.StoredValues;
import dev.sqlagent.values.ValueLimits;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The schema side of the agent, over the event bus: which tables a question needs (RETRIEVE), every
 * visible table (SCHEMA), one table as CREATE TABLE (DESCRIBE) and a few of its rows (SAMPLE).
 *
 * <p>The tables come from the process's catalogue ({@link CatalogueHolder}): its snapshot at start, and each new
 * version after it ({@link Addresses#CATALOGUE_CHANGED}); {@link Addresses#SCHEMA_REFRESH} asks the catalogue to
 * read again (at 1,000 tables a discovery is too much work for every question). The embedding index is built in
 * the background so the HTTP edge does not wait for the model, and RETRIEVE waits for it. A new version embeds
 * only what changed.
 *
 * <p>This class only wires and answers messages: each piece of state is held by an object of its own, the version
 * followed ({@link FollowedCatalogue}), the embedding index ({@link TableIndex}), the stored values a question
 * names ({@link QuestionValues}), the joins the workload teaches ({@link LearnedJoins}) and the sample rows
 * ({@link Samples}); {@link QuestionRetrieval} puts them together for RETRIEVE.
 */
public final class RetrievalVerticle extends VerticleBase {

  /** Failure codes of the replies. */
  static final int BAD_REQUEST = BusFailure.BAD_REQUEST.code();
  static final int NOT_FOUND = BusFailure.NOT_FOUND.code();
  static final int UNAVAILABLE = BusFailure.UNAVAILABLE.code();
  static final int BUSY = BusFailure.BUSY.code();

  private static final Logger LOG = LoggerFactory.getLogger(RetrievalVerticle.class);

  private final Target target;
  private final StateDatabase state;
  private final AppConfig config;
  /** Clustered: this worker's node id; null on a single node. */
  private final String clusterNode;
  /** The process's catalogue, or null: one of this verticle's own is opened (and closed with it). */
  private final CatalogueHolder given;

  // The connections this verticle opens and closes; what is read through them is kept by the objects below.
  /** The door to the target's data: sample rows, role values, the workload. */
  private TargetReader reader;
  /** A connection of its own for reading stored values, so the background read never delays a question. */
  private TargetReader valuesReader;
  private CatalogueHolder ownCatalogue;

  private FollowedCatalogue followed;
  private TableIndex index;
  private QuestionValues values;
  private LearnedJoins learned;
  private Samples samples;
  private QuestionRetrieval questions;

  /**
   * @param target the user's database, read as the agent role
   * @param state where the embedding cache lives
   * @param config the schemas to offer, the notes file, the prompt budget and the statement timeout
   */
  public RetrievalVerticle(Target target, StateDatabase state, AppConfig config) {
    this(target, state, config, null);
  }

  /** @param clusterNode clustered: this worker's node id (refreshes come on its own address); null on a single node */
  public RetrievalVerticle(Target target, StateDatabase state, AppConfig config, String clusterNode) {
    this(target, state, config, clusterNode, null);
  }

  /** @param catalogue the process's catalogue (null: one of this verticle's own) */
  public RetrievalVerticle(Target target, StateDatabase state, AppConfig config, String clusterNode, CatalogueHolder catalogue) {
    this.target = target;
    this.state = state;
    this.config = config;
    this.clusterNode = clusterNode;
    this.given = catalogue;
  }

  @Override
  public Future<?> start() {
    TargetReader.Timeouts timeouts = new TargetReader.Timeouts(config.statementTimeoutMs(), config.lockTimeoutMs());
    reader = TargetReader.open(vertx, target, timeouts, 2, "sql-agent-retrieval");
    valuesReader = TargetReader.open(vertx, target, timeouts, 1, "sql-agent-values");
    ContextFit contextFit = new ContextFit(vertx, config.llmBaseUrl(), config.llmModel(),
        config.llmApiKeys().isEmpty() ? null : config.llmApiKeys().get(0), config.llmContextTokens());
    contextFit.refresh();
    StoredValues stored = new StoredValues(vertx, valuesReader, state, target.key(),
        ValueLimits.defaults(config.statementTimeoutMs()));
    values = new QuestionValues(vertx, stored, new RoleValues(reader, stored));
    if (given == null) ownCatalogue = CatalogueHolder.open(vertx, target, config.schemas());
    CatalogueHolder catalogue = given == null ? ownCatalogue : given;
    learned = new LearnedJoins(vertx, new Learner(reader, state == null ? null : state.owner(), target.key()));
    // The drift snapshot is taken when the index is built.
    index = new TableIndex(vertx, state == null ? EmbeddingStore.NONE : new EmbeddingRepository(state.owner()),
        () -> vertx.eventBus().publish(Addresses.RETRIEVAL_BUILT, indexStatus().toJson()));
    index.loadModel();  // alongside discovery and the cached vectors
    return vertx.executeBlocking(() -> TableNotes.forTarget(config, target.notesResource()), false)
        .compose(notes -> {
          followed = new FollowedCatalogue(catalogue, notes);
          samples = new Samples(reader, followed);
          questions = new QuestionRetrieval(vertx, config, followed, index, values, learned, samples, contextFit);
          return followed.start(first -> index.build(first, followed.snapshot().describe()));
        })
        .compose(first -> {
          // in the background: questions do not wait for it; a sensitive column is never read for its values
          values.refresh(followed.sensitive().without(first), true);
          learned.start(followed::current);  // in the background too: until it is done, join paths use the declared keys
          var bus = vertx.eventBus();
          return Future.all(List.of(
              bus.<JsonObject>consumer(Addresses.CATALOGUE_CHANGED, m -> follow(followed.newest(), false)).completion(),
              bus.<Object>consumer(Addresses.RETRIEVE, this::onRetrieve).completion(),
              bus.<Object>consumer(Addresses.SCHEMA, this::onSchema).completion(),
              bus.<Object>consumer(Addresses.DESCRIBE, this::onDescribe).completion(),
              bus.<Object>consumer(Addresses.SAMPLE, this::onSample).completion(),
              // Clustered, the edges refresh every worker, each on its own address.
              bus.<Object>consumer(clusterNode == null ? Addresses.SCHEMA_REFRESH : Addresses.schemaRefreshOn(clusterNode),
                  this::onRefresh).completion(),
              bus.<Object>consumer(Addresses.RETRIEVAL_STATUS, m -> m.reply(indexStatus().toJson())).completion(),
              bus.<Object>consumer(Addresses.LEARNED, m -> learned.relearn(followed.current())
                  .onSuccess(report -> m.reply(report.toJson()))
                  .onFailure(e -> failed(m, "learning", e))).completion()));
        })
        // A failed start is not stopped: let the model finish loading before the failure is reported.
        .recover(e -> index.modelSettled().transform(x -> Future.failedFuture(e)));
  }

  /** The model loads on a worker: a process that exits mid-load crashes inside onnxruntime, so wait for it. */
  @Override
  public Future<?> stop() {
    if (learned != null) learned.stop();
    return Future.all(index == null ? Future.succeededFuture() : index.settled(),
            ownCatalogue == null ? Future.succeededFuture() : ownCatalogue.close())
        .eventually(() -> Future.all(reader.close(), valuesReader.close()));
  }

  /** {@link Addresses#RETRIEVAL_STATUS}: whether the index is built, over how many tables, since when. */
  private IndexStatus indexStatus() {
    return new IndexStatus(index.built(), index.tables(), index.builtAt(), values.status(), index.builtFrom(),
        index.lastBuild());
  }

  /** The user's database role a request carries ({@code db_role}), if any. */
  private static String role(JsonObject body) {
    return body != null && body.getValue("db_role") instanceof String r ? r : null;
  }

  /**
   * Follows the catalogue to {@code next} (see {@link FollowedCatalogue#follow}); a new shape embeds what changed,
   * reads the stored values again (values drift with the schema; never a sensitive column's) and learns the workload
   * again against it (a join whose columns are gone is dropped).
   */
  private Future<Void> follow(CatalogueSnapshot next, boolean always) {
    return followed.follow(next, always, now -> {
      Future<Void> valuesRead = values.refresh(followed.sensitive().without(now), false);
      Future<LearnedMessages.Report> relearned = learned.relearn(now);
      return index.build(now, followed.snapshot().describe())
          .compose(v -> valuesRead).compose(v -> relearned.<Void>mapEmpty().otherwiseEmpty());
    });
  }

  /**
   * {@link Addresses#SCHEMA_REFRESH}: the catalogue reads again (the gate of this process takes each query's tables
   * from it, so it follows at once), this verticle embeds what changed and reads the stored values again, then
   * replies the index status (its {@code stored_values} the new ones, {@code gate_tables} and {@code catalogue} the
   * snapshot now held).
   */
  private void onRefresh(Message<Object> msg) {
    long t0 = System.nanoTime();
    followed.refresh()
        .compose(next -> follow(next, true).map(next))
        .onSuccess(next -> msg.reply(new Refreshed(indexStatus().withCatalogue(next.describe()),
            next.catalogue().tables().size(), (System.nanoTime() - t0) / 1_000_000).toJson()))
        .onFailure(e -> failed(msg, "schema refresh", e));
  }

  private void onRetrieve(Message<Object> msg) {
    Retrieval.Request req;
    try {
      req = Retrieval.Request.fromJson(body(msg));
    } catch (IllegalArgumentException e) {
      msg.fail(BAD_REQUEST, e.getMessage());
      return;
    }
    questions.retrieve(req, role(body(msg)))
        .onSuccess(r -> msg.reply(r.toJson()))
        .onFailure(e -> failed(msg, "retrieval", e));
  }

  private void onSchema(Message<Object> msg) {
    followed.seenBy(role(body(msg)))
        .onSuccess(cat -> msg.reply(new RetrievalMessages.Tables(cat.database(), cat.tables()).toJson()))
        .onFailure(e -> failed(msg, "schema", e));
  }

  private void onDescribe(Message<Object> msg) {
    String name = tableName(body(msg));
    if (name == null || name.isBlank()) {
      msg.fail(BAD_REQUEST, "'name' must be a table name");
      return;
    }
    followed.seenBy(role(body(msg))).onSuccess(cat -> cat.find(name).ifPresentOrElse(
            t -> msg.reply(new RetrievalMessages.TableDdl(t.name(), SchemaText.ddl(t)).toJson()),
            () -> msg.fail(NOT_FOUND, cat.unknownTable(name))))
        .onFailure(e -> failed(msg, "describe", e));
  }

  private void onSample(Message<Object> msg) {
    JsonObject body = body(msg) == null ? new JsonObject() : body(msg);
    String name = tableName(body);
    Object n = body.containsKey("n") ? body.getValue("n") : Samples.PROMPT_SAMPLE_ROWS;
    if (name == null || name.isBlank()) {
      msg.fail(BAD_REQUEST, "'name' must be a table name");
      return;
    }
    if (!(n instanceof Integer || n instanceof Long) || ((Number) n).longValue() < 1
        || ((Number) n).longValue() > Samples.MAX_SAMPLE_ROWS) {
      msg.fail(BAD_REQUEST, "'n' must be a whole number from 1 to " + Samples.MAX_SAMPLE_ROWS + ", got " + n);
      return;
    }
    int rows = ((Number) n).intValue();
    String role = role(body);
    followed.seenBy(role).onSuccess(cat -> cat.find(name).ifPresentOrElse(
            t -> samples.of(cat, role, t, rows)
                .onSuccess(s -> msg.reply(s.toJson()))
                .onFailure(e -> {
                  if (e instanceof SampleReader.Skipped) {
                    msg.fail(BAD_REQUEST, e.getMessage() + ".");
                  } else {
                    failed(msg, "sample", e);
                  }
                }),
            () -> msg.fail(NOT_FOUND, cat.unknownTable(name))))
        .onFailure(e -> failed(msg, "sample", e));
  }

  /** The request body, or null when it is not a JSON object (a bad request, answered with 400). */
  private static JsonObject body(Message<Object> msg) {
    return msg.body() instanceof JsonObject j ? j : null;
  }

  private static String tableName(JsonObject body) {
    return body != null && body.getValue("name") instanceof String s ? s : null;
  }

  /**
   * The database or the model failed: logged here once, the caller gets a 503 with the reason. Every connection
   * of a pool in use is {@link BusFailure#BUSY} (the database is busy with other work, nothing is wrong with the
   * request: ask again in a few seconds).
   */
  private static void failed(Message<?> msg, String what, Throwable e) {
    LOG.warn("{} failed: {}", what, e.toString());
    if (PoolBusy.waitRanOut(e)) {
      msg.fail(BUSY, what + " busy: " + e.getMessage() + "; try again in a few seconds");
    } else {
      msg.fail(UNAVAILABLE, what + " unavailable: " + e.getMessage());
    }
  }
}

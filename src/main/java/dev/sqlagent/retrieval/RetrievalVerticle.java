package dev.sqlagent.retrieval;

import dev.sqlagent.contract.RetrievalMessages.Refreshed;
import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.Target;
import dev.sqlagent.contract.LearnedMessages;
import dev.sqlagent.learn.Learner;
import dev.sqlagent.policy.ModelSees;
import dev.sqlagent.policy.SensitiveColumns;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.values.RoleValues;
import dev.sqlagent.values.StoredValues;
import dev.sqlagent.values.ValueLimits;
import dev.sqlagent.values.ValueMatch;
import dev.sqlagent.values.ValueMatcher;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
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
 */
public final class RetrievalVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(RetrievalVerticle.class);

  /** Tables chosen by similarity for a small schema (up to {@link #SMALL_SCHEMA} tables), and when widened. */
  public static final int TOP_K = 5;
  public static final int WIDE_TOP_K = 9;
  static final int SMALL_SCHEMA = 30;
  static final int MAX_TOP_K = 12;
  /** Widening (a repair after an unknown table or column) offers this many more. */
  static final int WIDEN_BY = WIDE_TOP_K - TOP_K;
  public static final int PROMPT_SAMPLE_ROWS = 3;
  public static final int MAX_SAMPLE_ROWS = 10;

  /** Failure codes of the replies. */
  static final int BAD_REQUEST = BusFailure.BAD_REQUEST.code();
  static final int NOT_FOUND = BusFailure.NOT_FOUND.code();
  static final int UNAVAILABLE = BusFailure.UNAVAILABLE.code();

  private final Target target;
  private final StateDatabase state;
  private final AppConfig config;
  private ContextFit contextFit;
  /** Clustered: this worker's node id; null on a single node. */
  private final String clusterNode;
  /** The door to the target's data: sample rows, role values, the workload. */
  private TargetReader reader;
  /** A connection of its own for reading stored values, so the background read never delays a question. */
  private TargetReader valuesReader;
  private StoredValues storedValues;
  /** What of the stored values each user's database role may be shown. */
  private RoleValues roleValues;
  /** The prompt's sample rows, kept a few minutes per role and table. */
  private SampleCache sampleCache;
  /** The process's catalogue; read by a holder of this verticle's own when none was handed over. */
  private CatalogueHolder catalogue;
  private boolean ownsCatalogue;
  /** The snapshot followed, and its catalogue with the notes. */
  private CatalogueSnapshot snapshot;
  private Catalogue current;
  /** The last follow of a new snapshot: the next waits for it. */
  private Future<Void> following;
  private TableNotes notes;
  private TableSelector selector;
  private Future<Void> indexReady;
  /** The model, loading from the start, alongside discovery and the cached vectors. */
  private Future<Long> modelLoaded;
  private String indexBuiltAt;
  /** The catalogue snapshot the index was last built from. */
  private CatalogueSnapshot indexedFrom;
  private int indexedTables;
  private JsonObject lastBuild;
  /** The join graph of the catalogue and learned joins it was built from (join-path completion). */
  private volatile JoinGraph joinGraph;
  /** Reads the workload for joins people run ({@code dev.sqlagent.learn}). */
  private Learner learner;
  /** What the workload taught at its last reading. */
  private volatile LearnedMessages.Report learned = LearnedMessages.Report.none("not read yet");
  private long relearnTimer = -1;

  /** The workload is read again this often (and at each new catalogue version, and for {@code GET /api/learned}). */
  static final long RELEARN_EVERY_MS = 15 * 60_000L;

  private record JoinGraph(Catalogue catalogue, LearnedMessages.Report learned, JoinPaths.Graph graph) {}

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
    this.catalogue = catalogue;
  }

  @Override
  public Future<?> start() {
    TargetReader.Timeouts timeouts = new TargetReader.Timeouts(config.statementTimeoutMs(), config.lockTimeoutMs());
    reader = TargetReader.open(vertx, target, timeouts, 2, "sql-agent-retrieval");
    valuesReader = TargetReader.open(vertx, target, timeouts, 1, "sql-agent-values");
    contextFit = new ContextFit(vertx, config.llmBaseUrl(), config.llmModel(),
        config.llmApiKeys().isEmpty() ? null : config.llmApiKeys().get(0), config.llmContextTokens());
    contextFit.refresh();
    storedValues = new StoredValues(vertx, valuesReader, state, target.key(),
        ValueLimits.defaults(config.statementTimeoutMs()));
    if (catalogue == null) {
      catalogue = CatalogueHolder.open(vertx, target, config.schemas());
      ownsCatalogue = true;
    }
    roleValues = new RoleValues(reader, storedValues);
    learner = new Learner(reader, state == null ? null : state.owner(), target.key());
    sampleCache = new SampleCache((role, tables) -> SampleReader.readAll(reader, current, role, tables, PROMPT_SAMPLE_ROWS),
        System::currentTimeMillis);
    modelLoaded = vertx.executeBlocking(() -> {
      long t0 = System.nanoTime();
      TableSelector.loadModel();
      return (System.nanoTime() - t0) / 1_000_000;
    }, false);
    return vertx.executeBlocking(() -> TableNotes.forTarget(config, target.notesResource()), false)
        .compose(loaded -> {
          notes = loaded;
          // fail the deployment now if the role cannot read the catalogue
          return catalogue.current().map(first -> {
            snapshot = first;
            return current = annotated(first);
          });
        })
        .compose(first -> {
          // A notes file that names what is not there is a mistake to fix now, not a silent no-op.
          List<String> problems = notes.validate(first);
          if (!problems.isEmpty()) {
            return Future.failedFuture(new IllegalArgumentException("the notes file does not match the database: "
                + String.join("; ", problems)));
          }
          return Future.succeededFuture(first);
        })
        .compose(first -> {
          indexReady = buildIndex(first);
          following = indexReady.otherwiseEmpty();
          // in the background: questions do not wait for it; a sensitive column is never read for its values
          storedValues.refresh(sensitive(snapshot).without(first), true);
          relearn(first);  // in the background too: until it is done, join paths use the declared keys
          relearnTimer = vertx.setPeriodic(RELEARN_EVERY_MS, t -> relearn(current));
          var bus = vertx.eventBus();
          return Future.all(List.of(
              bus.<JsonObject>consumer(Addresses.CATALOGUE_CHANGED, m -> follow(catalogue.snapshot(), false)).completion(),
              bus.<Object>consumer(Addresses.RETRIEVE, this::onRetrieve).completion(),
              bus.<Object>consumer(Addresses.SCHEMA, this::onSchema).completion(),
              bus.<Object>consumer(Addresses.DESCRIBE, this::onDescribe).completion(),
              bus.<Object>consumer(Addresses.SAMPLE, this::onSample).completion(),
              // Clustered, the edges refresh every worker, each on its own address.
              bus.<Object>consumer(clusterNode == null ? Addresses.SCHEMA_REFRESH : Addresses.schemaRefreshOn(clusterNode),
                  this::onRefresh).completion(),
              bus.<Object>consumer(Addresses.RETRIEVAL_STATUS, m -> m.reply(indexStatus().toJson())).completion(),
              bus.<Object>consumer(Addresses.LEARNED, m -> relearn(current)
                  .onSuccess(report -> m.reply(report.toJson()))
                  .onFailure(e -> unavailable(m, "learning", e))).completion()));
        })
        // A failed start is not stopped: let the model finish loading before the failure is reported.
        .recover(e -> modelLoaded.otherwiseEmpty().transform(x -> Future.failedFuture(e)));
  }

  /** The model loads on a worker: a process that exits mid-load crashes inside onnxruntime, so wait for it. */
  @Override
  public Future<?> stop() {
    if (relearnTimer >= 0) vertx.cancelTimer(relearnTimer);
    return Future.all(indexReady == null ? Future.succeededFuture() : indexReady.otherwiseEmpty(),
        modelLoaded == null ? Future.succeededFuture() : modelLoaded.otherwiseEmpty(),
        ownsCatalogue ? catalogue.close() : Future.succeededFuture())
        .eventually(() -> Future.all(reader.close(), valuesReader.close()));
  }

  /**
   * Gives every table a vector (from memory, the embedding cache, or the model), on a worker, while the
   * model loads on another; ready when both are done. Logs how long each took and where the vectors came from.
   */
  private Future<Void> buildIndex(Catalogue first) {
    long t0 = System.nanoTime();
    CatalogueSnapshot of = snapshot;
    Future<JsonObject> indexed = vertx.executeBlocking(() -> {
      if (selector == null) {
        selector = new TableSelector(state == null ? EmbeddingStore.NONE : new EmbeddingRepository(state.owner()));
      }
      long t1 = System.nanoTime();
      TableSelector.IndexStats stats = selector.index(first);
      return stats.toJson().put("build_ms", (System.nanoTime() - t1) / 1_000_000);
    }, false);
    return Future.all(indexed, modelLoaded).map(all -> {
      JsonObject stats = indexed.result().put("model_ms", modelLoaded.result())
          .put("ready_ms", (System.nanoTime() - t0) / 1_000_000);
      LOG.info("table index ready in {} ms: {} tables, {} documents: {} already in memory, {} loaded from the"
              + " embedding cache, {} embedded ({} ms embedding, {} ms cache, {} ms in all); model loaded in {} ms"
              + " alongside", stats.getLong("ready_ms"), first.tables().size(), stats.getInteger("documents"),
          stats.getInteger("in_memory"), stats.getInteger("loaded"), stats.getInteger("embedded"),
          stats.getLong("embed_ms"), stats.getLong("store_ms"), stats.getLong("build_ms"), stats.getLong("model_ms"));
      return stats;
    }).onFailure(e -> LOG.error("table index could not be built; retrieval is unavailable", e))
        .map(built -> {
          lastBuild = built;
          indexBuiltAt = java.time.Instant.now().toString();
          indexedTables = first.tables().size();
          indexedFrom = of;
          vertx.eventBus().publish(Addresses.RETRIEVAL_BUILT, indexStatus().toJson());  // the schema snapshot is taken now
          return null;
        });
  }

  /** {@link Addresses#RETRIEVAL_STATUS}: whether the index is built, over how many tables, since when. */
  private IndexStatus indexStatus() {
    return new IndexStatus(indexBuiltAt != null, indexedTables, indexBuiltAt, storedValues.status(),
        indexedFrom == null ? null : indexedFrom.describe(), lastBuild == null ? null : lastBuild.copy());
  }

  /** What {@link #annotated} derives from a snapshot, with these notes. */
  private record Annotated(TableNotes notes) {}

  /** What {@link #sensitive} derives from a snapshot, with these notes. */
  private record Sensitive(TableNotes notes) {}

  /** The notes' sensitive columns in a snapshot, resolved once per snapshot. */
  private SensitiveColumns sensitive(CatalogueSnapshot s) {
    return s.derive(new Sensitive(notes), x -> SensitiveColumns.of(notes.notes(), x.catalogue()));
  }

  /** A user's role's view of a snapshot, with these notes. */
  private record AnnotatedFor(TableNotes notes, String role) {}

  /** A snapshot's catalogue with the notes, made once per snapshot. */
  private Catalogue annotated(CatalogueSnapshot s) {
    return s.derive(new Annotated(notes), x -> notes.annotate(x.catalogue()));
  }

  /** The catalogue followed, as a user's database role sees it (null: the agent role's own), with the notes. */
  private Future<Catalogue> catalogue(String role) {
    if (role == null) return Future.succeededFuture(current);
    return snapshot.deriveFuture(new AnnotatedFor(notes, role), s -> s.forRole(role).map(notes::annotate));
  }

  /** The user's database role a request carries ({@code db_role}), if any. */
  private static String role(JsonObject body) {
    return body != null && body.getValue("db_role") instanceof String r ? r : null;
  }

  /**
   * Follows the catalogue to {@code next}: embeds what changed and reads the stored values again, one follow at a
   * time. A snapshot already followed (or older) changes nothing; one of the same shape is only taken, unless
   * {@code always} (an asked-for refresh, which also reads the values again).
   */
  private Future<Void> follow(CatalogueSnapshot next, boolean always) {
    following = following.transform(previous -> {
      if (next == null || next.version() <= snapshot.version()) return Future.succeededFuture();
      boolean same = next.fingerprint() == snapshot.fingerprint();
      snapshot = next;
      current = annotated(next);
      if (same && !always) return Future.succeededFuture();
      // read again from the target (values drift with the schema), never a sensitive column's
      Future<Void> values = storedValues.refresh(sensitive(next).without(current), false);
      // Learned again against the new schema: a join whose columns are gone is dropped.
      Future<LearnedMessages.Report> relearned = relearn(current);
      return (indexReady = buildIndex(current)).compose(v -> values).compose(v -> relearned.<Void>mapEmpty().otherwiseEmpty());
    });
    return following;
  }

  /**
   * {@link Addresses#SCHEMA_REFRESH}: the catalogue reads again (the gate of this process takes each query's tables
   * from it, so it follows at once), this verticle embeds what changed and reads the stored values again, then
   * replies the index status (its {@code stored_values} the new ones, {@code gate_tables} and {@code catalogue} the
   * snapshot now held).
   */
  private void onRefresh(Message<Object> msg) {
    long t0 = System.nanoTime();
    catalogue.refresh()
        .compose(next -> follow(next, true).map(next))
        .onSuccess(next -> msg.reply(new Refreshed(indexStatus().withCatalogue(next.describe()),
            next.catalogue().tables().size(), (System.nanoTime() - t0) / 1_000_000).toJson()))
        .onFailure(e -> unavailable(msg, "schema refresh", e));
  }

  /**
   * Reads the workload again and learns from it against {@code cat} (on a worker); what it learned serves join-path
   * completion from then on. A failure keeps what was learned before.
   */
  private Future<LearnedMessages.Report> relearn(Catalogue cat) {
    return learner.learn(vertx, cat)
        .onSuccess(report -> learned = report)
        .onFailure(e -> LOG.warn("learning from the workload failed: {}", e.toString()));
  }

  /** The tables chosen for a question, from the catalogue its role sees, k of them before join paths. */
  private record Choice(Catalogue catalogue, int k, List<ScoredTable> tables) {}

  private void onRetrieve(Message<Object> msg) {
    Retrieval.Request req;
    try {
      req = Retrieval.Request.fromJson(body(msg));
    } catch (IllegalArgumentException e) {
      msg.fail(BAD_REQUEST, e.getMessage());
      return;
    }
    Integer context = contextFit.context();
    int budget = ContextFit.schemaBudget(config.promptBudgetTokens(), context);
    String role = role(body(msg));
    // The tables are ranked (the question's embedding, the longest step) on one worker while the question's
    // stored-value lookups, which need no tables, are made over all of them on another; the whole values the
    // question names then link their tables into the choice, and the matches are only sorted by the chosen
    // tables. The ranking is handed to a worker first: the second task waits a little for its thread.
    Catalogue all = current;
    Future<Ranking> ranking = indexReady.compose(ready -> catalogue(role)).compose(cat -> {
      int k = topK(cat.tables().size(), req.widen());
      return vertx.executeBlocking(() -> new Ranking(cat, k, rank(cat, req.question())), false);
    });
    Future<ValueMatcher.Prepared> lookups = vertx.executeBlocking(() -> storedValues.prepare(req.question(), all), false);
    Future<List<ValueMatch>> wholeValues = lookups.compose(prepared -> prepared == null
            ? Future.succeededFuture(List.<ValueMatch>of())
            : vertx.executeBlocking(() -> storedValues.wholeValues(prepared, all), false))
        .otherwise(e -> {
          LOG.warn("stored values link no tables to this question: {}", e.toString());
          return List.of();
        });
    Future<Choice> chosen = ranking.compose(r -> wholeValues
        .compose(values -> links(r.catalogue(), role, values))
        .compose(links -> vertx.executeBlocking(() -> new Choice(r.catalogue(), r.k(), choose(r, links)), false)));
    chosen
        .compose(c -> retrieval(c.catalogue(), req.question(), c.tables(), c.k(), budget, role, lookups))
        .onSuccess(r -> msg.reply(r.withTerms(notes.termsFor(r.tableNames())).toJson()))
        .onFailure(e -> unavailable(msg, "retrieval", e));
  }

  /** Every table of the catalogue a role sees, ranked for a question, and how many are chosen by rank. */
  private record Ranking(Catalogue catalogue, int k, List<ScoredTable> ranked) {}

  /**
   * The tables the question's whole stored values link ({@link ValueLinks}), of those {@code cat} holds; for a
   * user's role only values it finds itself (row-level security: a linked table, and its reason in the
   * {@code select_schema} event, would tell it such a row exists).
   */
  private Future<java.util.Map<String, String>> links(Catalogue cat, String role, List<ValueMatch> values) {
    if (values.isEmpty()) return Future.succeededFuture(java.util.Map.of());
    if (role == null) return Future.succeededFuture(ValueLinks.tables(values, t -> cat.find(t).isPresent()));
    List<TableInfo> tables = values.stream().flatMap(m -> m.stored().stream()).map(ValueMatch.Stored::table)
        .distinct().flatMap(t -> cat.find(t).stream()).toList();
    return roleValues.shownTo(cat, role, tables, values)
        .map(shown -> ValueLinks.tables(shown.matches(), t -> cat.find(t).isPresent()));
  }

  /**
   * How many tables a question is offered, by the size of the schema: 5 up to 30 tables (the demo's size,
   * where 5 holds every join path the labelled questions need), then 2 more for every doubling,
   * {@code round(5 + 2 * log2(n / 30))}, at most 12 (100 tables: 8, 300: 12, 1,000: 12). Widened (a repair
   * after an unknown table or column) by 4 more. Join tables are added on top (at most {@link
   * JoinPaths#maxAdded}), and the prompt budget shortens column lists rather than dropping any table.
   */
  public static int topK(int tables, boolean widen) {
    int k = tables <= SMALL_SCHEMA ? TOP_K
        : (int) Math.min(MAX_TOP_K, Math.round(TOP_K + 2 * (Math.log((double) tables / SMALL_SCHEMA) / Math.log(2))));
    return widen ? k + WIDEN_BY : k;
  }

  /** Every table by similarity moved by the notes. BLOCKING (the model): on a worker. */
  private List<ScoredTable> rank(Catalogue cat, String question) {
    return notes.rerank(selector.rank(cat, question), question, java.time.LocalDate.now());
  }

  /** The top k with the tables the question's stored values link, then the tables that join them. */
  private List<ScoredTable> choose(Ranking r, java.util.Map<String, String> links) {
    Catalogue cat = r.catalogue();
    JoinGraph g = joinGraph;
    LearnedMessages.Report taught = learned;
    if (g == null || g.catalogue() != cat || g.learned() != taught) {
      joinGraph = g = new JoinGraph(cat, taught, JoinPaths.graph(cat, taught.joins()));
    }
    return choice(g.graph(), r.ranked(), r.k(), cat.tables().size(), links);
  }

  /**
   * The choice for a question: the top {@code k} of {@code ranked} with the tables the question's stored values
   * link ({@link ValueLinks#choose}), then the tables that join them ({@link JoinPaths}), over declared keys first
   * and learned joins after.
   *
   * @param tables how many tables the catalogue holds
   */
  public static List<ScoredTable> choice(JoinPaths.Graph graph, List<ScoredTable> ranked, int k, int tables,
      java.util.Map<String, String> links) {
    return JoinPaths.complete(graph, ValueLinks.choose(ranked, k, links), ranked, joinTables(tables, k));
  }

  /** {@link #choice(JoinPaths.Graph, List, int, int, java.util.Map)} over the foreign keys alone. */
  public static List<ScoredTable> choice(java.util.Map<String, java.util.Set<String>> graph, List<ScoredTable> ranked,
      int k, int tables, java.util.Map<String, String> links) {
    return choice(JoinPaths.Graph.declaredOnly(graph), ranked, k, tables, links);
  }

  /**
   * How many linking tables join-path completion may add: none for a small schema, where the top 5 are a
   * third of all tables and already hold the join paths (on the demo's 20 labelled questions completion fired
   * on 12 and added none of the 3 missing tables); {@link JoinPaths#maxAdded} beyond (on the generated
   * 1,000-table schema it lifts recall of the needed tables from 77% to 92%, Retrieval1000Benchmark).
   */
  public static int joinTables(int tables, int k) {
    return tables <= SMALL_SCHEMA ? 0 : JoinPaths.maxAdded(k);
  }

  private Future<Retrieval> retrieval(Catalogue cat, String question, List<ScoredTable> chosen, int k, int budget,
                                      String role, Future<ValueMatcher.Prepared> lookups) {
    List<TableInfo> offered = chosen.stream().map(s -> cat.find(s.name()).orElseThrow()).toList();
    List<String> names = chosen.stream().map(ScoredTable::name).toList();
    if (!config.modelSees().storedValues()) {
      // SQLAGENT_MODEL_SEES=schema: no stored value reaches the prompt, neither a column's values nor a question's match.
      return fitted(offered, List.of(), chosen, names, question, k, budget, role);
    }
    // Lookups that failed are made again here (and fail here as they did before).
    Future<List<ValueMatch>> matched = lookups.transform(prepared -> vertx.executeBlocking(
        () -> storedValues.match(prepared.succeeded() ? prepared.result() : null, question, offered), false));
    if (role != null) {
      // A user's role sees only the stored values it can find itself (row-level security): those wait for the look.
      return matched.compose(values -> roleValues.shownTo(cat, role, offered, values))
          .compose(shown -> fitted(shown.tables(), shown.matches(), chosen, names, question, k, budget, role));
    }
    // The agent role's own: samples are read while the question's values are matched.
    return fitted(storedValues.annotate(offered), matched, chosen, names, question, k, budget, null);
  }

  private Future<Retrieval> fitted(List<TableInfo> tables, List<ValueMatch> values, List<ScoredTable> chosen,
                                   List<String> names, String question, int k, int budget, String role) {
    return fitted(tables, Future.succeededFuture(values), chosen, names, question, k, budget, role);
  }

  private Future<Retrieval> fitted(List<TableInfo> tables, Future<List<ValueMatch>> matched, List<ScoredTable> chosen,
                                   List<String> names, String question, int k, int budget, String role) {
    PromptBudget.Fitted fitted = PromptBudget.fit(tables, question, budget);
    if (fitted.overBudget()) {
      LOG.warn("schema text of {} tables is {} tokens even shortened, over the prompt budget of {}", tables.size(),
          fitted.tokens(), budget);
    }
    // Sample rows are read as the user's role too (and kept per role): row-level security decides which rows the prompt shows.
    // A view whose definition calls a function that acts outside the transaction is never read, not even for samples.
    // A sensitive column is never sampled; below SQLAGENT_MODEL_SEES=samples nothing is.
    Catalogue cat = current;
    SensitiveColumns sensitive = sensitive(snapshot);
    // (A relation the reader would skip is left out, rather than shown to the model as having no rows.)
    List<TableInfo> sampled = fitted.shown().stream()
        .filter(t -> cat != null && TargetReader.refusal(cat, t).isEmpty()).map(sensitive::without).toList();
    Future<List<SampleRows>> read = config.modelSees().sampleRows() ? sampleCache.samples(current, role, sampled)
        : Future.succeededFuture(List.of());
    return read
        .compose(samples -> matched.map(values -> new Retrieval(chosen, fitted.schema() + learnedJoinsText(names)
            + StoredValues.schemaText(values),
            ContextFit.samples(SampleRows.text(samples), fitted.tokens(), contextFit.context()), notes.conventionsFor(names), k,
            fitted.tokens(), fitted.shortened(),
            new JsonArray(values.stream().map(ValueMatch::toJson).toList()))));
  }

  /**
   * The learned joins between the offered tables that no declared key already gives, so the model can write the join
   * a completed path relies on: observed facts of the workload (with how often they ran), not suggestions.
   */
  private String learnedJoinsText(List<String> offered) {
    List<LearnedMessages.Join> joins = learned.joins().stream()
        .filter(j -> offered.contains(j.table()) && offered.contains(j.refTable())).limit(12).toList();
    if (joins.isEmpty()) return "";
    Catalogue cat = current;
    StringBuilder b = new StringBuilder();
    for (LearnedMessages.Join j : joins) {
      if (cat != null && declared(cat, j)) continue;
      b.append("-- ").append(j.describe()).append(" (run ").append(j.count()).append(" times)\n");
    }
    return b.isEmpty() ? "" : "\n-- Joins this database's workload runs (learned; no foreign key declares them):\n" + b;
  }

  /** Whether a foreign key of either table already says this join. */
  private static boolean declared(Catalogue cat, LearnedMessages.Join j) {
    return cat.find(j.table()).map(t -> t.foreignKeys().stream().anyMatch(fk -> fk.refTable().equals(j.refTable())))
        .orElse(false)
        || cat.find(j.refTable()).map(t -> t.foreignKeys().stream().anyMatch(fk -> fk.refTable().equals(j.table())))
        .orElse(false);
  }

  private void onSchema(Message<Object> msg) {
    catalogue(role(body(msg)))
        .onSuccess(cat -> msg.reply(new RetrievalMessages.Tables(cat.database(), cat.tables()).toJson()))
        .onFailure(e -> unavailable(msg, "schema", e));
  }

  private void onDescribe(Message<Object> msg) {
    String name = tableName(body(msg));
    if (name == null || name.isBlank()) {
      msg.fail(BAD_REQUEST, "'name' must be a table name");
      return;
    }
    catalogue(role(body(msg))).onSuccess(cat -> cat.find(name).ifPresentOrElse(
            t -> msg.reply(new RetrievalMessages.TableDdl(t.name(), SchemaText.ddl(t)).toJson()),
            () -> msg.fail(NOT_FOUND, cat.unknownTable(name))))
        .onFailure(e -> unavailable(msg, "describe", e));
  }

  private void onSample(Message<Object> msg) {
    JsonObject body = body(msg) == null ? new JsonObject() : body(msg);
    String name = tableName(body);
    Object n = body.containsKey("n") ? body.getValue("n") : PROMPT_SAMPLE_ROWS;
    if (name == null || name.isBlank()) {
      msg.fail(BAD_REQUEST, "'name' must be a table name");
      return;
    }
    if (!(n instanceof Integer || n instanceof Long) || ((Number) n).longValue() < 1
        || ((Number) n).longValue() > MAX_SAMPLE_ROWS) {
      msg.fail(BAD_REQUEST, "'n' must be a whole number from 1 to " + MAX_SAMPLE_ROWS + ", got " + n);
      return;
    }
    int rows = ((Number) n).intValue();
    String role = role(body);
    catalogue(role).onSuccess(cat -> cat.find(name).ifPresentOrElse(
            t -> SampleReader.read(reader, cat, role, sensitive(snapshot).without(t), rows)
                .onSuccess(s -> msg.reply(s.toJson()))
                .onFailure(e -> {
                  if (e instanceof SampleReader.Skipped) {
                    msg.fail(BAD_REQUEST, e.getMessage() + ".");
                  } else {
                    unavailable(msg, "sample", e);
                  }
                }),
            () -> msg.fail(NOT_FOUND, cat.unknownTable(name))))
        .onFailure(e -> unavailable(msg, "sample", e));
  }

  /** The request body, or null when it is not a JSON object (a bad request, answered with 400). */
  private static JsonObject body(Message<Object> msg) {
    return msg.body() instanceof JsonObject j ? j : null;
  }

  private static String tableName(JsonObject body) {
    return body != null && body.getValue("name") instanceof String s ? s : null;
  }

  /** The database or the model failed: logged here once, the caller gets a 503 with the reason. */
  private static void unavailable(Message<?> msg, String what, Throwable e) {
    LOG.warn("{} failed: {}", what, e.toString());
    msg.fail(UNAVAILABLE, what + " unavailable: " + e.getMessage());
  }
}

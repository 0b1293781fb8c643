package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.notes.Notes;
import dev.sqlagent.values.StoredValues;
import dev.sqlagent.values.ValueMatch;
import dev.sqlagent.values.ValueMatcher;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What RETRIEVE answers for one question: the tables it needs and the prompt's schema for them. It holds no state of
 * its own; it puts together the followed catalogue, the index's ranking moved by the notes, the stored values the
 * question names, the learned joins and the sample rows, within the prompt budget the model's context leaves.
 */
final class QuestionRetrieval {

  private static final Logger LOG = LoggerFactory.getLogger(QuestionRetrieval.class);

  /** Every table of the catalogue a role sees by similarity to a question, and how many are chosen by rank. */
  private record Ranking(Catalogue catalogue, int k, List<ScoredTable> ranked) {}

  /** The tables chosen for a question, from the catalogue its role sees, k of them before join paths. */
  private record Choice(Catalogue catalogue, int k, List<ScoredTable> tables) {}

  private final Vertx vertx;
  private final AppConfig config;
  private final FollowedCatalogue followed;
  private final TableIndex index;
  private final QuestionValues values;
  private final LearnedJoins learned;
  private final Samples samples;
  private final ContextFit contextFit;

  QuestionRetrieval(Vertx vertx, AppConfig config, FollowedCatalogue followed, TableIndex index, QuestionValues values,
      LearnedJoins learned, Samples samples, ContextFit contextFit) {
    this.vertx = vertx;
    this.config = config;
    this.followed = followed;
    this.index = index;
    this.values = values;
    this.learned = learned;
    this.samples = samples;
    this.contextFit = contextFit;
  }

  /** The retrieval for a question, as a user's database role sees the schema (null: the agent role). */
  Future<Retrieval> retrieve(Retrieval.Request req, String role) {
    int budget = ContextFit.schemaBudget(config.promptBudgetTokens(), contextFit.context());
    // The tables are ranked by similarity (the question's embedding, the longest step) on one worker while the
    // question's stored-value lookups, which need no tables, are made over all of them on another, and what the
    // notes read in the question (its periods, its business terms) beside them; the whole values the question
    // names then link their tables into the choice, the notes move the ranking there, and the matches are only
    // sorted by the chosen tables. The embedding is handed to a worker first: the others wait a little for theirs.
    Catalogue all = followed.current();
    Future<Ranking> ranking = index.ready().compose(ready -> followed.seenBy(role)).compose(cat -> {
      int k = TableChoice.topK(cat.tables().size(), req.widen());
      return vertx.executeBlocking(() -> new Ranking(cat, k, index.rank(cat, req.question())), false);
    });
    Future<ValueMatcher.Prepared> lookups = values.lookups(req.question(), all);
    Future<NotesRanking.Reading> reading = vertx.executeBlocking(
        () -> followed.notes().readForRanking(req.question(), LocalDate.now()), false);
    Future<List<ValueMatch>> wholeValues = values.wholeValues(lookups, all);
    // A governed metric the question names brings its tables, and its definition goes to the prompt.
    List<Notes.Metric> metrics = followed.notes().notes().metricsIn(req.question());
    Future<Choice> chosen = ranking.compose(r -> wholeValues
        // Row rules filter the user's rows, and the stored values were read without them: no value links a table.
        .compose(whole -> req.rowRules() ? Future.succeededFuture(Map.<String, String>of())
            : values.links(r.catalogue(), role, whole))
        .map(links -> NamedMetrics.withTables(metrics, r.catalogue(), links))
        .compose(links -> reading.compose(read -> vertx.executeBlocking(
            () -> new Choice(r.catalogue(), r.k(), choose(r, read, links)), false))));
    return chosen
        .compose(c -> offer(c.catalogue(), req.question(), c.tables(), c.k(), budget, role, req.rowRules(), lookups)
            .map(r -> r.withTerms(followed.notes().termsFor(r.tableNames()))
                .withMetrics(NamedMetrics.definitions(metrics, c.catalogue()))));
  }

  /**
   * The ranking moved by the notes, its top k with the tables the question's stored values link, then the tables
   * that join them.
   */
  private List<ScoredTable> choose(Ranking r, NotesRanking.Reading reading, Map<String, String> links) {
    Catalogue catalogue = r.catalogue();
    List<ScoredTable> ranked = followed.notes().rerank(r.ranked(), reading);
    return TableChoice.choice(learned.graph(catalogue), ranked, r.k(), catalogue.tables().size(), links);
  }

  /**
   * The chosen tables as the prompt shows them, with the stored values the role may see. With {@code rowRules} (the
   * user's rows are filtered by row settings) no stored value and no sample row is shown: they are read without the
   * user's settings, so they may come from rows the user cannot see.
   */
  private Future<Retrieval> offer(Catalogue catalogue, String question, List<ScoredTable> chosen, int k, int budget,
      String role, boolean rowRules, Future<ValueMatcher.Prepared> lookups) {
    List<TableInfo> offered = chosen.stream().map(s -> catalogue.find(s.name()).orElseThrow()).toList();
    List<String> names = chosen.stream().map(ScoredTable::name).toList();
    if (rowRules) return fitted(offered, Future.succeededFuture(List.of()), chosen, names, question, k, budget, role, false);
    if (!config.modelSees().storedValues()) {
      // SQLAGENT_MODEL_SEES=schema: no stored value reaches the prompt, neither a column's values nor a question's match.
      return fitted(offered, Future.succeededFuture(List.of()), chosen, names, question, k, budget, role, true);
    }
    Future<List<ValueMatch>> matched = values.matched(lookups, question, offered);
    if (role != null) {
      // A user's role sees only the stored values it can find itself (row-level security): those wait for the look.
      return matched.compose(found -> values.shownTo(catalogue, role, offered, found))
          .compose(shown -> fitted(shown.tables(), Future.succeededFuture(shown.matches()), chosen, names, question, k,
              budget, role, true));
    }
    // The agent role's own: samples are read while the question's values are matched.
    return fitted(values.annotate(offered), matched, chosen, names, question, k, budget, null, true);
  }

  private Future<Retrieval> fitted(List<TableInfo> tables, Future<List<ValueMatch>> matched, List<ScoredTable> chosen,
      List<String> names, String question, int k, int budget, String role, boolean samplesShown) {
    PromptBudget.Fitted fitted = PromptBudget.fit(tables, question, budget);
    if (fitted.overBudget()) {
      LOG.warn("schema text of {} tables is {} tokens even shortened, over the prompt budget of {}", tables.size(),
          fitted.tokens(), budget);
    }
    // Below SQLAGENT_MODEL_SEES=samples no row is read.
    Future<List<SampleRows>> read = samplesShown && config.modelSees().sampleRows() ? samples.forPrompt(role, fitted.shown())
        : Future.succeededFuture(List.of());
    return read.compose(rows -> matched.map(found -> new Retrieval(chosen,
        fitted.schema() + learned.promptText(names, followed.current()) + StoredValues.schemaText(found),
        ContextFit.samples(SampleRows.text(rows), fitted.tokens(), contextFit.context()),
        followed.notes().conventionsFor(names), k, fitted.tokens(), fitted.shortened(),
        new JsonArray(found.stream().map(ValueMatch::toJson).toList()))));
  }
}

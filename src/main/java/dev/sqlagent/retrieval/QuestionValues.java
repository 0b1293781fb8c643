package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.values.RoleValues;
import dev.sqlagent.values.StoredValues;
import dev.sqlagent.values.ValueMatch;
import dev.sqlagent.values.ValueMatcher;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stored values as retrieval uses them for a question: the values the question names (looked up before any
 * table is chosen), the tables its whole values link ({@link ValueLinks}), and what of them a user's database role
 * may be shown (row-level security: a value, or a table it links, would tell the role such a row exists). The values
 * themselves are {@link StoredValues}', read again when the schema changes; the matching is CPU work, done on a
 * worker.
 */
final class QuestionValues {

  private static final Logger LOG = LoggerFactory.getLogger(QuestionValues.class);

  private final Vertx vertx;
  private final StoredValues stored;
  private final RoleValues roles;

  QuestionValues(Vertx vertx, StoredValues stored, RoleValues roles) {
    this.vertx = vertx;
    this.stored = stored;
    this.roles = roles;
  }

  /**
   * Reads the values again, in the background (never fails; questions go on with the values read before).
   *
   * @param catalogue the catalogue without its sensitive columns, which are never read for their values
   * @param fromStore whether values kept in the state store for this shape may serve (a start), or the target is read
   */
  Future<Void> refresh(Catalogue catalogue, boolean fromStore) {
    return stored.refresh(catalogue, fromStore);
  }

  /** Whether values are ready, how many, from where: the index status's {@code stored_values}. */
  JsonObject status() {
    return stored.status();
  }

  /** The question's lookups over every table of {@code all}, on a worker; null when it names no value. */
  Future<ValueMatcher.Prepared> lookups(String question, Catalogue all) {
    return vertx.executeBlocking(() -> stored.prepare(question, all), false);
  }

  /** The whole stored values the question names (none when the lookups failed: they only add tables). */
  Future<List<ValueMatch>> wholeValues(Future<ValueMatcher.Prepared> lookups, Catalogue all) {
    return lookups.compose(prepared -> prepared == null
            ? Future.succeededFuture(List.<ValueMatch>of())
            : vertx.executeBlocking(() -> stored.wholeValues(prepared, all), false))
        .otherwise(e -> {
          LOG.warn("stored values link no tables to this question: {}", e.toString());
          return List.of();
        });
  }

  /**
   * The tables the question's whole stored values link, of those {@code catalogue} holds; for a user's role only
   * values it finds itself (a linked table, and its reason in the {@code select_schema} event, would tell it such a
   * row exists).
   */
  Future<Map<String, String>> links(Catalogue catalogue, String role, List<ValueMatch> values) {
    if (values.isEmpty()) return Future.succeededFuture(Map.of());
    if (role == null) return Future.succeededFuture(ValueLinks.tables(values, t -> catalogue.find(t).isPresent()));
    List<TableInfo> tables = values.stream().flatMap(m -> m.stored().stream()).map(ValueMatch.Stored::table)
        .distinct().flatMap(t -> catalogue.find(t).stream()).toList();
    return roles.shownTo(catalogue, role, tables, values)
        .map(shown -> ValueLinks.tables(shown.matches(), t -> catalogue.find(t).isPresent()));
  }

  /** The question's matches among the offered tables, on a worker; lookups that failed are made again here. */
  Future<List<ValueMatch>> matched(Future<ValueMatcher.Prepared> lookups, String question, List<TableInfo> offered) {
    return lookups.transform(prepared -> vertx.executeBlocking(
        () -> stored.match(prepared.succeeded() ? prepared.result() : null, question, offered), false));
  }

  /** What of the offered tables' values and the question's matches a user's role finds itself. */
  Future<RoleValues.Shown> shownTo(Catalogue catalogue, String role, List<TableInfo> offered, List<ValueMatch> matches) {
    return roles.shownTo(catalogue, role, offered, matches);
  }

  /** The offered tables with their columns' stored values, as the agent role sees them. */
  List<TableInfo> annotate(List<TableInfo> offered) {
    return stored.annotate(offered);
  }
}

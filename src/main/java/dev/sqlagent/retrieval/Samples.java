package dev.sqlagent.retrieval;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.contract.SampleRows;
import dev.sqlagent.policy.SensitiveColumns;
import io.vertx.core.Future;
import java.util.List;

/**
 * A few rows of a table, to show what its values look like: the prompt's (kept a few minutes per role and table,
 * {@link SampleCache}) and one table's on request (SAMPLE). Read as the user's database role when there is one, so
 * row-level security decides which rows are shown; a sensitive column is never read, and neither is a relation the
 * reader refuses (a view whose definition calls a function that acts outside the transaction).
 *
 * <p>Touched on the retrieval verticle's context only.
 */
final class Samples {

  /** Rows per table in the prompt, and the most a SAMPLE request may ask for. */
  static final int PROMPT_SAMPLE_ROWS = 3;
  static final int MAX_SAMPLE_ROWS = 10;

  private final TargetReader reader;
  private final FollowedCatalogue followed;
  private final SampleCache cache;

  Samples(TargetReader reader, FollowedCatalogue followed) {
    this.reader = reader;
    this.followed = followed;
    this.cache = new SampleCache(
        (role, tables) -> SampleReader.readAll(reader, followed.current(), role, tables, PROMPT_SAMPLE_ROWS),
        System::currentTimeMillis);
  }

  /**
   * The prompt's rows of the tables shown, as a role (null: the agent role), in their order. A relation the reader
   * would refuse is left out rather than shown to the model as having no rows.
   */
  Future<List<SampleRows>> forPrompt(String role, List<TableInfo> shown) {
    Catalogue catalogue = followed.current();
    SensitiveColumns sensitive = followed.sensitive();
    List<TableInfo> sampled = shown.stream()
        .filter(t -> catalogue != null && TargetReader.refusal(catalogue, t).isEmpty()).map(sensitive::without).toList();
    return cache.samples(catalogue, role, sampled);
  }

  /**
   * {@code rows} rows of one table of {@code catalogue} (the one the role sees); fails with
   * {@link SampleReader.Skipped} when the reader refuses the relation.
   */
  Future<SampleRows> of(Catalogue catalogue, String role, TableInfo table, int rows) {
    return SampleReader.read(reader, catalogue, role, followed.sensitive().without(table), rows);
  }
}

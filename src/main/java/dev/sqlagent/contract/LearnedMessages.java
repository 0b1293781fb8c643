package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * What was learned from the workload ({@code Addresses.LEARNED}, {@code GET /api/learned}, {@code sql-agent learn}):
 * the joins people run, with their evidence, and suggested notes a person reviews before they reach any prompt.
 */
public final class LearnedMessages {
  private LearnedMessages() {}

  /**
   * Where the workload was read from and what came of it.
   *
   * @param name {@code pg_stat_statements}, {@code query_log} or {@code verified}
   * @param read whether it could be read
   * @param detail how many statements it gave, or why it could not be read and what enables it
   * @param statements distinct statements read from it
   */
  public record Source(String name, boolean read, String detail, int statements) {}

  /**
   * One source's part in a learned join or suggestion.
   *
   * @param count executions (pg_stat_statements' calls), answered questions (the query log) or verified queries
   * @param lastSeen the latest time seen (ISO-8601); null where the source keeps no time (pg_stat_statements)
   */
  public record Evidence(String source, long count, @OmitWhenNull String lastSeen) {}

  /**
   * A pair of columns joined by equality in the workload: {@code table.column = refTable.refColumn}.
   *
   * @param table a relation as SQL writes it (the catalogue's name)
   * @param count executions over every source
   * @param lastSeen the latest time over the sources that keep one; null when none does
   * @param evidence per source
   */
  public record Join(String table, String column, String refTable, String refColumn, long count,
                     @OmitWhenNull String lastSeen, List<Evidence> evidence) {
    /** {@code table.column = refTable.refColumn}. */
    public String describe() {
      return table + "." + column + " = " + refTable + "." + refColumn;
    }
  }

  /**
   * A convention seen in the workload, offered for a person to review (never sent to the model by itself).
   *
   * @param kind {@code soft_delete} (a deleted marker always filtered), {@code filter} (a value nearly always used)
   * @param table the relation it concerns
   * @param predicate the condition as SQL writes it ({@code deleted_at IS NULL}, {@code status = 'paid'})
   * @param count queries of the table with the condition
   * @param of queries of the table in all
   * @param text the suggested convention, as a notes file would say it
   */
  public record Suggestion(String kind, String table, String predicate, long count, long of, String text,
                           List<Evidence> evidence) {}

  /**
   * Everything learned from one reading of the workload against one catalogue.
   *
   * @param learnedAt when (ISO-8601)
   * @param notes the suggestions as a notes-file fragment (YAML) a person can edit and point {@code SQLAGENT_NOTES} at
   */
  public record Report(String learnedAt, List<Source> sources, List<Join> joins, List<Suggestion> suggestions,
                       String notes) {
    public Report {
      sources = List.copyOf(sources);
      joins = List.copyOf(joins);
      suggestions = List.copyOf(suggestions);
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static Report fromJson(JsonObject j) {
      return RecordJson.fromJson(Report.class, j);
    }

    /** Nothing learned yet, and why. */
    public static Report none(String why) {
      return new Report(null, List.of(new Source("workload", false, why, 0)), List.of(), List.of(), "");
    }
  }
}

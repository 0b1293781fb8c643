package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Objects;

/**
 * A governed metric of the notes file as a question meets it: in the retrieval of a question that names it (the
 * definition the model is told to use) and in the answer whose SQL used it (what the figure means).
 *
 * @param name what people call it ({@code revenue})
 * @param sql the one expression that computes it
 * @param tables the tables it reads, as the catalogue names them
 * @param filters the conditions that always go with it
 * @param description what it means, in words; null when the notes give none
 */
public record MetricDefinition(String name, String sql, List<String> tables, List<String> filters,
    @OmitWhenNull String description) {

  public MetricDefinition {
    Objects.requireNonNull(name);
    Objects.requireNonNull(sql);
    tables = tables == null ? List.of() : List.copyOf(tables);
    filters = filters == null ? List.of() : List.copyOf(filters);
  }

  /**
   * The definition as the prompt gives it, on one line: {@code "revenue": sum(...); tables: a, b; always filter:
   * a.x <> 'y'; means: ...}.
   */
  public String render() {
    StringBuilder b = new StringBuilder("\"").append(name).append("\": ").append(sql).append("; tables: ")
        .append(String.join(", ", tables));
    if (!filters.isEmpty()) b.append("; always filter: ").append(String.join(" AND ", filters));
    if (description != null) b.append("; means: ").append(description);
    return b.toString().replaceAll("\\s+", " ");
  }

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  public static MetricDefinition fromJson(JsonObject json) {
    return RecordJson.fromJson(MetricDefinition.class, json);
  }
}

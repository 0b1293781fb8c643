package dev.sqlagent.contract;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The reply of {@code Addresses.RETRIEVE}: the chosen tables with their scores (then the tables added to join
 * them, each with its {@code via}), the schema block, the samples block and the conventions that concern the
 * chosen tables. The two blocks are reference data; the prompt builder puts them between delimiters.
 *
 * @param topK how many tables were chosen by similarity (join tables come on top)
 * @param schemaTokens the schema block's estimated tokens, within the prompt budget unless it cannot be
 * @param shortenedTables how many tables' column lists were shortened to fit the budget
 */
public record Retrieval(List<ScoredTable> tables, String schema, String samples, List<String> conventions, int topK,
    int schemaTokens, int shortenedTables, JsonArray valueMatches, List<String> terms, List<MetricDefinition> metrics) {

  /**
   * @param valueMatches the question's phrases that match stored values, also in the schema text
   * @param terms the notes' glossary terms of the chosen tables
   * @param metrics the notes' governed metrics the question names, each the definition to use
   */
  public Retrieval {
    valueMatches = valueMatches == null ? new JsonArray() : valueMatches;
    terms = terms == null ? List.of() : List.copyOf(terms);
    metrics = metrics == null ? List.of() : List.copyOf(metrics);
  }

  public Retrieval(List<ScoredTable> tables, String schema, String samples, List<String> conventions, int topK,
      int schemaTokens, int shortenedTables, JsonArray valueMatches) {
    this(tables, schema, samples, conventions, topK, schemaTokens, shortenedTables, valueMatches, List.of(), List.of());
  }

  /** The same, with the notes' terms of its tables. */
  public Retrieval withTerms(List<String> glossary) {
    return new Retrieval(tables, schema, samples, conventions, topK, schemaTokens, shortenedTables, valueMatches, glossary,
        metrics);
  }

  /** The same, with the governed metrics the question names. */
  public Retrieval withMetrics(List<MetricDefinition> named) {
    return new Retrieval(tables, schema, samples, conventions, topK, schemaTokens, shortenedTables, valueMatches, terms,
        named);
  }

  public Retrieval(List<ScoredTable> tables, String schema, String samples, List<String> conventions, int topK,
      int schemaTokens, int shortenedTables) {
    this(tables, schema, samples, conventions, topK, schemaTokens, shortenedTables, new JsonArray());
  }

  public Retrieval(List<ScoredTable> tables, String schema, String samples, List<String> conventions, int topK) {
    this(tables, schema, samples, conventions, topK, Completion.estimateTokens(schema.length()), 0);
  }

  /**
   * The request: a question, whether to widen (repair after an unknown table or column), the asking user's
   * database role (null: the service's own), whose grants decide which tables are seen, and whether row settings
   * filter the user's rows ({@code rowRules}): the stored values and sample rows, read without those settings, are
   * then not shown.
   */
  public record Request(String question, boolean widen, String dbRole, boolean rowRules) {
    public Request(String question, boolean widen) {
      this(question, widen, null);
    }

    public Request(String question, boolean widen, String dbRole) {
      this(question, widen, dbRole, false);
    }

    public JsonObject toJson() {
      JsonObject j = new JsonObject().put("question", question).put("widen", widen);
      if (rowRules) j.put("row_rules", true);
      return dbRole == null ? j : j.put("db_role", dbRole);
    }

    /** Throws IllegalArgumentException with a message for the caller when the request is unusable. */
    public static Request fromJson(JsonObject j) {
      if (j == null) throw new IllegalArgumentException("expected a JSON object {\"question\": string, \"widen\": bool}");
      Object q = j.getValue("question");
      if (!(q instanceof String s) || s.isBlank()) throw new IllegalArgumentException("'question' must be a non-empty string");
      Object w = j.getValue("widen", false);
      if (!(w instanceof Boolean widen)) throw new IllegalArgumentException("'widen' must be true or false");
      Object role = j.getValue("db_role");
      if (role != null && !(role instanceof String)) throw new IllegalArgumentException("'db_role' must be a string");
      Object rules = j.getValue("row_rules", false);
      if (!(rules instanceof Boolean rowRules)) throw new IllegalArgumentException("'row_rules' must be true or false");
      return new Request(s, widen, (String) role, rowRules);
    }
  }

  public List<String> tableNames() {
    return tables.stream().map(ScoredTable::name).toList();
  }

  public JsonObject toJson() {
    return new JsonObject()
        .put("tables", new JsonArray(tables.stream().map(ScoredTable::toJson).toList()))
        .put("schema", schema)
        .put("samples", samples)
        .put("conventions", new JsonArray(conventions))
        .put("top_k", topK)
        .put("schema_tokens", schemaTokens)
        .put("shortened_tables", shortenedTables)
        .put("value_matches", valueMatches.copy())
        .put("terms", new JsonArray(terms))
        .put("metrics", new JsonArray(metrics.stream().map(MetricDefinition::toJson).toList()));
  }

  public static Retrieval fromJson(JsonObject j) {
    return new Retrieval(
        j.getJsonArray("tables").stream().map(o -> ScoredTable.fromJson((JsonObject) o)).toList(),
        j.getString("schema"), j.getString("samples"),
        j.getJsonArray("conventions").stream().map(String::valueOf).toList(),
        j.getInteger("top_k"), j.getInteger("schema_tokens", 0), j.getInteger("shortened_tables", 0),
        j.getJsonArray("value_matches", new JsonArray()),
        j.getJsonArray("terms", new JsonArray()).stream().map(String::valueOf).toList(),
        j.getJsonArray("metrics", new JsonArray()).stream().map(o -> MetricDefinition.fromJson((JsonObject) o)).toList());
  }
}

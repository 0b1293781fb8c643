package dev.sqlagent.values;

import dev.sqlagent.db.Identifiers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * A phrase of the question and the stored values it stands for:
 * {@code 'Penelope Guiness' → actor.first_name = 'PENELOPE', actor.last_name = 'GUINESS'}.
 */
public record ValueMatch(String phrase, List<Stored> stored) {

  /** One stored value: the relation as SQL writes it, the column's own name, the value exactly as stored. */
  public record Stored(String table, String column, String value) {
    String sql() {
      return where() + " = " + Identifiers.literal(value);
    }

    /** The column as SQL names it: {@code customers.cust_name}. */
    public String where() {
      return table + "." + Identifiers.name(column);
    }

    JsonObject toJson() {
      return new JsonObject().put("table", table).put("column", column).put("value", value);
    }
  }

  public ValueMatch {
    stored = List.copyOf(stored);
  }

  /** The line the model reads. */
  public String line() {
    return Identifiers.literal(phrase) + " → " + String.join(", ", stored.stream().map(Stored::sql).toList());
  }

  /** Whether the phrase is this value as stored, but for case and spacing (else it is within the fuzzy bounds). */
  public boolean asStored(Stored s) {
    return ValueIndex.fold(phrase).equals(ValueIndex.fold(s.value()));
  }

  public JsonObject toJson() {
    return new JsonObject().put("phrase", phrase).put("stored", new JsonArray(stored.stream().map(Stored::toJson).toList()))
        .put("text", line());
  }
}

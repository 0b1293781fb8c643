package dev.sqlagent.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordJsonTest {

  record Item(int n, String label) {}

  record Message(String runId, long seq, boolean gaveUp, Double costUsd, List<Item> items, List<String> tablesUsed,
      JsonObject data, JsonArray rows, @OmitWhenNull String conversationId) {}

  @Test
  void keysAreTheComponentsInSnakeCaseInTheirOrder() {
    assertThat(RecordJson.keys(Message.class)).containsExactly("run_id", "seq", "gave_up", "cost_usd", "items",
        "tables_used", "data", "rows", "conversation_id");
    Message m = new Message("r-1", 7, true, 0.25, List.of(new Item(1, "a")), List.of("bills"),
        new JsonObject().put("k", 1), new JsonArray().add(new JsonArray().add(1).add("x")), null);
    assertThat(RecordJson.toJson(m).encode()).isEqualTo("{\"run_id\":\"r-1\",\"seq\":7,\"gave_up\":true,\"cost_usd\":0.25,"
        + "\"items\":[{\"n\":1,\"label\":\"a\"}],\"tables_used\":[\"bills\"],\"data\":{\"k\":1},\"rows\":[[1,\"x\"]]}");
  }

  @Test
  void aJsonRoundTripGivesTheSameTextAndTheSameRecord() {
    Message m = new Message("r-2", 3, false, null, List.of(new Item(2, null)), List.of(), new JsonObject(),
        new JsonArray(), "c-9");
    JsonObject json = RecordJson.toJson(m);
    assertThat(json.getValue("cost_usd")).isNull();
    assertThat(json.containsKey("cost_usd")).isTrue();
    assertThat(json.getString("conversation_id")).isEqualTo("c-9");
    // As a client would send it: decoded from text, small numbers come back as Integer.
    Message back = RecordJson.fromJson(Message.class, new JsonObject(json.encode()));
    assertThat(back).isEqualTo(m);
    assertThat(RecordJson.toJson(back).encode()).isEqualTo(json.encode());
  }

  @Test
  void missingKeysReadAsEmptyAndWrongTypesNameTheKey() {
    Message empty = RecordJson.fromJson(Message.class, new JsonObject());
    assertThat(empty.runId()).isNull();
    assertThat(empty.seq()).isZero();
    assertThat(empty.gaveUp()).isFalse();
    assertThat(empty.items()).isEmpty();
    assertThat(RecordJson.toJson(empty).containsKey("conversation_id")).isFalse();

    assertThatThrownBy(() -> RecordJson.fromJson(Message.class, new JsonObject().put("gave_up", "yes")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("\"gave_up\" must be true or false");
    assertThatThrownBy(() -> RecordJson.fromJson(Message.class, new JsonObject().put("seq", "7")))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("\"seq\" must be a number");
    assertThatThrownBy(() -> RecordJson.fromJson(Message.class, new JsonObject().put("items", new JsonArray().add("x"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("\"items\" must be an object");
    assertThatThrownBy(() -> RecordJson.fromJson(Message.class, new JsonObject().put("run_id", 5)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("\"run_id\" must be a string");
  }
}

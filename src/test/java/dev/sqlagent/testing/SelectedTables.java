package dev.sqlagent.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.GraphEvent;
import dev.sqlagent.contract.RunRequest;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What a run's select_schema step chose, from its finished event. */
public record SelectedTables(JsonObject data) {

  /** The finished select_schema event of an answered run (exactly one). */
  public static SelectedTables of(Vertx vertx, JsonObject answer) throws Exception {
    List<JsonObject> finished = new AgentClient(vertx, 10_000)
        .events(RunRequest.events(answer.getString("run_id"), 0, null)).await(10, TimeUnit.SECONDS).events().stream()
        .map(GraphEvent::toJson)
        .filter(e -> e.getString("node").equals("select_schema") && e.getString("status").equals("finished")).toList();
    assertThat(finished).as("finished select_schema events").hasSize(1);
    return new SelectedTables(finished.get(0).getJsonObject("data"));
  }

  /** One chosen table's JSON; fails naming the tables chosen when it is not among them. */
  public JsonObject table(String name) {
    return tables().stream().filter(t -> t.getString("name").equals(name)).findFirst().orElseThrow(() ->
        new AssertionError(name + " was not chosen: " + data.getJsonArray("tables").encode()));
  }

  public List<JsonObject> tables() {
    return data.getJsonArray("tables").stream().map(JsonObject.class::cast).toList();
  }

  /** The tables chosen for their similarity alone: neither added for a join path nor linked by a stored value. */
  public long similarityPicks() {
    return tables().stream().filter(t -> !t.containsKey("via") && !t.containsKey("value_link")).count();
  }

  public int topK() {
    return data.getInteger("top_k");
  }

  public List<String> valueLinks() {
    return data.getJsonArray("value_links").stream().map(String::valueOf).toList();
  }
}

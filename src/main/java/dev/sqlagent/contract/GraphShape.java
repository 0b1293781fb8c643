package dev.sqlagent.contract;

import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The agent's graph as it is served ({@code GET /api/graph}) for the page and the CLI to draw: its nodes in graph
 * order, every edge a run can take between them, where a run starts and the attempt cap. Names are the ones events
 * carry in {@code node}; {@code when} is a short phrase for people.
 */
public record GraphShape(List<NodeShape> nodes, List<EdgeShape> edges, List<StartShape> starts, int maxAttempts) {

  /** @param ends a run that reaches this node ends there with its answer */
  public record NodeShape(String name, String kind, String label, boolean ends) {}

  public record EdgeShape(String from, String to, String when) {}

  public record StartShape(String node, String when) {}

  public GraphShape {
    nodes = List.copyOf(nodes);
    edges = List.copyOf(edges);
    starts = List.copyOf(starts);
  }

  public JsonObject toJson() {
    return RecordJson.toJson(this);
  }

  /** Throws IllegalArgumentException for a value of the wrong type. */
  public static GraphShape fromJson(JsonObject json) {
    return RecordJson.fromJson(GraphShape.class, json);
  }
}

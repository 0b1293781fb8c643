package dev.sqlagent.contract;

import dev.sqlagent.bus.OmitWhenNull;
import dev.sqlagent.bus.RecordJson;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** What health shows of the cluster: each node's own facts, and the cluster as one node sees it. */
public final class ClusterMessages {
  private ClusterMessages() {}

  /**
   * {@code Addresses.clusterNode(id)}'s reply: the node's id, name (host:port), role, when it started, how many
   * graph-event deliveries reached it from other nodes, and whether it runs the single-node duties now.
   */
  public record NodeFacts(String id, String name, String role, String startedAt, long eventsFromOtherNodes,
      boolean holdsSingletons) {
    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static NodeFacts fromJson(JsonObject j) {
      return RecordJson.fromJson(NodeFacts.class, j);
    }
  }

  /**
   * One member as {@code CLUSTER_STATUS} lists it: who it is ({@code local}: this node) with its own facts when it
   * answered ({@code reachable}), else the {@code error}.
   */
  public record Member(String id, String name, String role, boolean local, @OmitWhenNull String startedAt,
      @OmitWhenNull Long eventsFromOtherNodes, @OmitWhenNull Boolean holdsSingletons, boolean reachable,
      @OmitWhenNull String error) {
    public static Member reached(String id, String name, boolean local, NodeFacts facts) {
      return new Member(id, name, facts.role(), local, facts.startedAt(), facts.eventsFromOtherNodes(),
          facts.holdsSingletons(), true, null);
    }

    public static Member unreachable(String id, String name, String role, boolean local, String error) {
      return new Member(id, name, role, local, null, null, null, false, error);
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }
  }

  /** The holder of the query-log writer (the oldest member): {@code ready} once it says it runs it. */
  public record LogWriter(String id, String name, boolean ready) {}

  /**
   * {@code Addresses.CLUSTER_STATUS}'s reply (node-local), what {@code /api/health} shows under {@code cluster}:
   * the cluster's name, this node and its role, every member, the log writer. Not clustered: {@code {enabled:
   * false}}; the status not known: {@code {enabled: true, error}}.
   */
  public record ClusterView(boolean enabled, @OmitWhenNull String name, @OmitWhenNull String node,
      @OmitWhenNull String role, @OmitWhenNull Integer size, @OmitWhenNull List<Member> members,
      @OmitWhenNull LogWriter logWriter, @OmitWhenNull String error) {
    public static final ClusterView DISABLED = new ClusterView(false, null, null, null, null, null, null, null);

    public static ClusterView unknown(String error) {
      return new ClusterView(true, null, null, null, null, null, null, error);
    }

    public JsonObject toJson() {
      return RecordJson.toJson(this);
    }

    public static ClusterView fromJson(JsonObject j) {
      return RecordJson.fromJson(ClusterView.class, j);
    }
  }
}

package dev.sqlagent.cluster;

import io.vertx.core.json.JsonObject;

/** One live node of the cluster as every node sees it: its id (fixed for its process), a readable name, its role. */
public record ClusterMember(String id, String name, Role role, boolean local) {

  public JsonObject toJson() {
    return new JsonObject().put("id", id).put("name", name).put("role", role.label()).put("local", local);
  }
}

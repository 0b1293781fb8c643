package dev.sqlagent.cluster;

import dev.sqlagent.config.ConfigException;
import java.util.Locale;

/**
 * What one process runs ({@code serve --role}). An edge serves HTTP, {@code /ws}, SockJS, {@code /mcp} and the
 * page; a worker runs the agent, generation, retrieval and the gate; {@code all} (the default) runs both.
 */
public enum Role {
  ALL, EDGE, WORKER;

  public boolean edge() {
    return this != WORKER;
  }

  public boolean worker() {
    return this != EDGE;
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Role parse(String s) {
    for (Role r : values()) {
      if (r.label().equals(s == null ? "" : s.trim().toLowerCase(Locale.ROOT))) return r;
    }
    throw new ConfigException("--role " + s + ": expected all, edge or worker");
  }
}

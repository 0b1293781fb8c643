package dev.sqlagent.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Cluster mode's settings: {@code SQLAGENT_CLUSTER=true}, the address this node binds
 * ({@code SQLAGENT_CLUSTER_HOST}, {@code SQLAGENT_CLUSTER_PORT}), the members it joins over TCP/IP
 * ({@code SQLAGENT_CLUSTER_MEMBERS}; never multicast), or a DNS name whose addresses are the members
 * ({@code SQLAGENT_CLUSTER_DNS}: Hazelcast's Kubernetes discovery in DNS lookup mode, a headless Service's name),
 * and the cluster's name ({@code SQLAGENT_CLUSTER_NAME}). Disabled, the service is one process.
 *
 * @param dns the DNS name the members are found under (each on {@code port}); null when they are listed
 */
public record ClusterSettings(boolean enabled, String host, int port, List<String> members, String name, String dns) {

  /** SQLAGENT_CLUSTER_PORT's default, as {@link Settings} declares it. */
  public static final int DEFAULT_PORT = Integer.parseInt(Settings.fallback("SQLAGENT_CLUSTER_PORT"));

  public static ClusterSettings disabled() {
    return new ClusterSettings(false, null, DEFAULT_PORT, List.of(), null, null);
  }

  /** From the service's merged settings (environment over the config file), as {@link AppConfig} reads them. */
  public static ClusterSettings from(Map<String, String> values) {
    String on = value(values, "SQLAGENT_CLUSTER").toLowerCase(Locale.ROOT);
    if (!on.equals("true") && !on.equals("false")) {
      throw new ConfigException("SQLAGENT_CLUSTER=" + on + ": expected true or false");
    }
    if (on.equals("false")) {
      for (String k : List.of("SQLAGENT_CLUSTER_HOST", "SQLAGENT_CLUSTER_PORT", "SQLAGENT_CLUSTER_MEMBERS", "SQLAGENT_CLUSTER_NAME",
          "SQLAGENT_CLUSTER_DNS")) {
        if (values.get(k) != null && !values.get(k).isBlank()) throw new ConfigException(k + " is set but SQLAGENT_CLUSTER is not true");
      }
      return disabled();
    }
    String host = value(values, "SQLAGENT_CLUSTER_HOST");
    int port = port("SQLAGENT_CLUSTER_PORT", value(values, "SQLAGENT_CLUSTER_PORT"));
    List<String> members = new ArrayList<>();
    for (String m : value(values, "SQLAGENT_CLUSTER_MEMBERS").split(",")) {
      String member = m.trim();
      if (member.isEmpty()) continue;
      int colon = member.lastIndexOf(':');
      if (colon <= 0 || colon == member.length() - 1) {
        throw new ConfigException("SQLAGENT_CLUSTER_MEMBERS: '" + member + "' is not host:port (e.g. 10.0.0.5:5701)");
      }
      port("SQLAGENT_CLUSTER_MEMBERS", member.substring(colon + 1));
      members.add(member);
    }
    String dns = value(values, "SQLAGENT_CLUSTER_DNS");
    if (!dns.isEmpty()) {
      if (!members.isEmpty()) {
        throw new ConfigException("SQLAGENT_CLUSTER_DNS and SQLAGENT_CLUSTER_MEMBERS are both set: the members are found "
            + "either by the DNS name or from the list, not both");
      }
      if (!dns.matches("[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")) {
        throw new ConfigException("SQLAGENT_CLUSTER_DNS=" + dns + ": expected a DNS name such as "
            + "sql-agent-cluster.default.svc.cluster.local");
      }
    } else if (members.isEmpty()) {
      members.add(host + ":" + port);  // the first node of a cluster knows only itself
    }
    String name = value(values, "SQLAGENT_CLUSTER_NAME");
    if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
      throw new ConfigException("SQLAGENT_CLUSTER_NAME=" + name + ": expected 1 to 64 letters, digits, dots, dashes or underscores");
    }
    return new ClusterSettings(true, host, port, List.copyOf(members), name, dns.isEmpty() ? null : dns);
  }

  public String describe() {
    if (!enabled) return "single process";
    return "cluster " + name + " at " + host + ":" + port + ", members "
        + (dns != null ? "found by DNS as " + dns + " (port " + port + ")" : String.join(",", members));
  }

  /** The key's value, or its default as {@link Settings} declares it ("" for none). */
  private static String value(Map<String, String> values, String key) {
    String v = values.get(key);
    if (v != null && !v.isBlank()) return v.trim();
    String fallback = Settings.fallback(key);
    return fallback == null ? "" : fallback;
  }

  private static int port(String key, String s) {
    try {
      int p = Integer.parseInt(s);
      if (p >= 1 && p <= 65_535) return p;
    } catch (NumberFormatException ignored) {
      // the message below says what is expected
    }
    throw new ConfigException(key + ": '" + s + "' is not a port (1 to 65535)");
  }
}

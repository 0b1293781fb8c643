package dev.sqlagent.cluster;

import dev.sqlagent.testing.FreePorts;
import dev.sqlagent.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * sql-agent nodes as real child processes of the test ({@code java -cp <the test's classpath> ... serve
 * --role R}), on loopback, each with its own Hazelcast port, its output in target/cluster-nodes/.
 */
final class ClusterNodes implements AutoCloseable {

  /** One child JVM. */
  static final class Node {
    final String role;
    final int clusterPort;
    final int httpPort;
    final Process process;
    final Path log;

    Node(String role, int clusterPort, int httpPort, Process process, Path log) {
      this.role = role;
      this.clusterPort = clusterPort;
      this.httpPort = httpPort;
      this.process = process;
      this.log = log;
    }

    String name() {
      return "127.0.0.1:" + clusterPort;
    }

    /** kill -9: no shutdown hook, no goodbye to the cluster. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }

    String output() throws IOException {
      return Files.exists(log) ? Files.readString(log) : "";
    }

    /** Waits for the line ServeCommand logs once everything is deployed. */
    void awaitReady(long seconds) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < deadline) {
        String out = output();
        if (out.contains("ServeCommand - ready in ") || out.contains("\"message\":\"ready in ")) return;  // text or JSON lines
        if (!process.isAlive()) throw new AssertionError(role + " node exited (" + process.exitValue() + "):\n" + out);
        Thread.sleep(200);
      }
      throw new AssertionError(role + " node not ready in " + seconds + " s:\n" + output());
    }
  }

  private final Map<String, String> env;
  private final List<Node> nodes = new ArrayList<>();
  private final List<Integer> clusterPorts = new ArrayList<>();
  private final Path logs;

  /** @param env the settings every node shares (database, state store, model); cluster settings are added */
  ClusterNodes(Map<String, String> env, int size) throws IOException {
    this.env = env;
    for (int i = 0; i < size; i++) clusterPorts.add(FreePorts.next());
    this.logs = Files.createDirectories(Path.of("target", "cluster-nodes"));
  }

  /** Starts the next node (in the order of the ports chosen) with this role. */
  Node start(String role) throws IOException {
    return start(role, true);
  }

  /** The single process of today ({@code serve}, no cluster settings), for comparison. */
  Node startAlone() throws IOException {
    return start("all", false);
  }

  private Node start(String role, boolean clustered) throws IOException {
    int clusterPort = clusterPorts.get(nodes.size());
    int httpPort = role.equals("worker") ? 0 : FreePorts.next();
    Path log = logs.resolve(role + "-" + clusterPort + ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), "dev.sqlagent.cli.Main", "serve", "--role", role)
        .redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("SQLAGENT_"));
    pb.environment().putAll(env);
    pb.environment().put("SQLAGENT_HTTP_PORT", String.valueOf(httpPort));
    Node node = new Node(role, clusterPort, httpPort, null, log);
    if (!clustered) return launch(pb, node);
    pb.environment().put("SQLAGENT_CLUSTER", "true");
    pb.environment().put("SQLAGENT_CLUSTER_HOST", "127.0.0.1");
    pb.environment().put("SQLAGENT_CLUSTER_PORT", String.valueOf(clusterPort));
    pb.environment().put("SQLAGENT_CLUSTER_NAME", "test-" + clusterPorts.get(0));
    pb.environment().put("SQLAGENT_CLUSTER_MEMBERS", String.join(",",
        clusterPorts.stream().map(p -> "127.0.0.1:" + p).toList()));
    return launch(pb, node);
  }

  private Node launch(ProcessBuilder pb, Node planned) throws IOException {
    Node node = new Node(planned.role, planned.clusterPort, planned.httpPort, pb.start(), planned.log);
    nodes.add(node);
    return node;
  }

  @Override
  public void close() throws InterruptedException {
    for (Node n : nodes) n.process.destroy();
    for (Node n : nodes) {
      if (!n.process.waitFor(20, TimeUnit.SECONDS)) n.kill();
    }
  }

  /** The query log's rows per run, read from the state store the nodes share. */
  static Map<String, Integer> logRows(Set<String> runIds) throws Exception {
    Map<String, Integer> rows = new HashMap<>();
    try (Connection c = TestDatabase.get().state().ownerConnection();
         PreparedStatement ps = c.prepareStatement("SELECT run_id, count(*) FROM agent_query_log WHERE run_id = ANY (?) GROUP BY 1")) {
      ps.setArray(1, c.createArrayOf("text", runIds.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) rows.put(rs.getString(1), rs.getInt(2));
      }
    }
    return rows;
  }

  /** 1..n: the seqs of a run's events received in order with no gap. */
  static List<Long> range(int n) {
    List<Long> out = new ArrayList<>();
    for (long i = 1; i <= n; i++) out.add(i);
    return out;
  }
}

package dev.sqlagent.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.config.ClusterSettings;
import dev.sqlagent.config.Settings;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The deployment examples in docs/deploy/ are parsed as their tools read them: every environment variable they set
 * must be a setting the service declares (and the values given there must be accepted by it), every probe path a
 * route the service's router serves (and answering there), every launcher must size the heap from the memory limit.
 */
class DeploymentExamplesTest {

  static final Path DEPLOY = Path.of("docs", "deploy");
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    service = RunningService.start(Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
  }

  @Test
  void kubernetesManifestsSetOnlyRealSettingsAndProbeRealRoutes() throws Exception {
    List<Map<String, Object>> docs = new ArrayList<>();
    for (Object doc : new Yaml().loadAll(Files.readString(DEPLOY.resolve("kubernetes.yaml")))) docs.add(map(doc));
    Map<String, Map<String, Object>> byKind = new LinkedHashMap<>();
    Map<String, Map<String, Object>> services = new LinkedHashMap<>();
    for (Map<String, Object> d : docs) {
      byKind.put((String) d.get("kind"), d);
      if ("Service".equals(d.get("kind"))) services.put((String) map(d.get("metadata")).get("name"), d);
    }
    assertThat(byKind).containsKeys("Deployment", "Service");
    Map<String, Object> deployment = byKind.get("Deployment");
    Map<String, Object> pod = map(map(deployment.get("spec")).get("template"));
    Map<String, Object> labels = map(map(pod.get("metadata")).get("labels"));
    List<Map<String, Object>> containers = list(map(pod.get("spec")).get("containers"));
    assertThat(containers).hasSize(1);
    Map<String, Object> container = containers.get(0);

    // Every variable is a setting; the literal values are accepted as the service reads them.
    Map<String, String> literal = new LinkedHashMap<>();
    List<String> names = new ArrayList<>();
    for (Map<String, Object> e : list(container.get("env"))) {
      String name = (String) e.get("name");
      names.add(name);
      if (e.get("value") != null) literal.put(name, String.valueOf(e.get("value")));
    }
    assertThat(names).isNotEmpty().allSatisfy(n -> assertThat(Settings.keys()).as("a setting").contains(n));
    assertThat(names).contains("SQLAGENT_DB_URL", "SQLAGENT_STATE_URL", "SQLAGENT_CLUSTER", "SQLAGENT_CLUSTER_HOST",
        "SQLAGENT_CLUSTER_DNS", "SQLAGENT_DRAIN_SECONDS").doesNotHaveDuplicates();
    Map<String, String> asRead = new LinkedHashMap<>(literal);
    asRead.put("SQLAGENT_CLUSTER_HOST", "127.0.0.1");  // the pod's address, from the downward API
    ClusterSettings cluster = AppConfig.load(asRead).cluster();
    assertThat(cluster.enabled()).isTrue();

    // The members are found through the headless Service of these pods, on the port they listen on.
    String dns = cluster.dns();
    assertThat(dns).isNotNull();
    Map<String, Object> headless = services.get(dns.substring(0, dns.indexOf('.')));
    assertThat(headless).as("the Service SQLAGENT_CLUSTER_DNS names").isNotNull();
    Map<String, Object> headlessSpec = map(headless.get("spec"));
    assertThat(headlessSpec.get("clusterIP")).isEqualTo("None");
    assertThat(headlessSpec.get("publishNotReadyAddresses")).isEqualTo(true);
    assertThat(map(headlessSpec.get("selector")).entrySet()).isSubsetOf(labels.entrySet());
    Map<String, Integer> containerPorts = new LinkedHashMap<>();
    for (Map<String, Object> p : list(container.get("ports"))) containerPorts.put((String) p.get("name"), (Integer) p.get("containerPort"));
    assertThat(containerPorts.get((String) list(headlessSpec.get("ports")).get(0).get("targetPort"))).isEqualTo(cluster.port());
    assertThat(containerPorts.get("http")).isEqualTo(Integer.parseInt(literal.get("SQLAGENT_HTTP_PORT")));
    for (Map<String, Object> svc : services.values()) {
      for (Map<String, Object> p : list(map(svc.get("spec")).get("ports"))) assertThat(containerPorts).containsKey((String) p.get("targetPort"));
    }

    // Liveness on /health, readiness on /api/health: routes of the router, answering there.
    Map<String, String> probes = new LinkedHashMap<>();
    for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
      Map<String, Object> httpGet = map(map(container.get(probe)).get("httpGet"));
      assertThat(containerPorts).containsKey((String) httpGet.get("port"));
      probes.put(probe, (String) httpGet.get("path"));
    }
    assertThat(probes).containsEntry("livenessProbe", "/health").containsEntry("readinessProbe", "/api/health");
    for (String path : probes.values()) {
      assertThat(service.main.routePaths()).as("the router's routes").contains(path);
      HttpResponse<Buffer> r = service.client.get(service.port(), "127.0.0.1", path).send().await(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as(path).isIn(200, 503);
      assertThat(r.bodyAsJsonObject().getString("status")).as(path).isNotNull();
    }

    // The heap follows the container's limit, and the pod is given the drain time before it is killed.
    assertThat(String.join(" ", strings(container.get("command")))).contains("-XX:MaxRAMPercentage=");
    assertThat(map(map(container.get("resources")).get("limits")).get("memory")).isNotNull();
    int grace = (Integer) map(pod.get("spec")).get("terminationGracePeriodSeconds");
    assertThat(grace).isGreaterThan(Integer.parseInt(literal.get("SQLAGENT_DRAIN_SECONDS")) + 10);
  }

  @Test
  void theSystemdUnitAndItsEnvironmentFileSetOnlyRealSettings() throws Exception {
    String unit = Files.readString(DEPLOY.resolve("sql-agent.service"));
    Map<String, String> env = new LinkedHashMap<>();
    Matcher m = Pattern.compile("(?m)^Environment=(\\w+)=(.*)$").matcher(unit);
    while (m.find()) env.put(m.group(1), m.group(2).strip());
    assertThat(unit).contains("EnvironmentFile=/etc/sql-agent/sql-agent.env");
    Map<String, String> file = keyValues(Files.readString(DEPLOY.resolve("sql-agent.env")));
    assertThat(env).isNotEmpty();
    assertThat(file).isNotEmpty();
    Map<String, String> all = new LinkedHashMap<>(env);
    all.putAll(file);
    assertThat(all.keySet()).allSatisfy(k -> assertThat(Settings.keys()).as("a setting").contains(k));
    AppConfig.load(all);
    Matcher exec = Pattern.compile("(?m)^ExecStart=(.*)$").matcher(unit);
    assertThat(exec.find()).isTrue();
    assertThat(exec.group(1)).contains("-XX:MaxRAMPercentage=").contains("-jar").endsWith(" serve");
    assertThat(unit).containsPattern("(?m)^MemoryMax=\\d+[MG]$");
    Matcher stop = Pattern.compile("(?m)^TimeoutStopSec=(\\d+)$").matcher(unit);
    assertThat(stop.find()).isTrue();
    assertThat(Integer.parseInt(stop.group(1))).isGreaterThan(Integer.parseInt(all.get("SQLAGENT_DRAIN_SECONDS")) + 10);
  }

  @Test
  void theImageSetsOnlyRealSettingsAndSizesTheHeapFromTheLimit() throws Exception {
    String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
    Matcher m = Pattern.compile("(SQLAGENT_\\w+)=").matcher(dockerfile);
    List<String> set = new ArrayList<>();
    while (m.find()) set.add(m.group(1));
    assertThat(set).isNotEmpty().allSatisfy(k -> assertThat(Settings.keys()).as("a setting").contains(k));
    assertThat(dockerfile).containsPattern("(?m)^ENTRYPOINT \\[.*\"-XX:MaxRAMPercentage=\\d+\".*\"serve\"\\]$");
  }

  @Test
  void theDeploymentPageLinksEveryExample() throws Exception {
    String page = Files.readString(Path.of("docs", "deployment.md"));
    try (var files = Files.list(DEPLOY)) {
      for (Path f : files.toList()) assertThat(page).contains("deploy/" + f.getFileName());
    }
  }

  private static Map<String, String> keyValues(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : text.lines().toList()) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) continue;
      int eq = l.indexOf('=');
      out.put(l.substring(0, eq), l.substring(eq + 1));
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> list(Object o) {
    assertThat(o).isInstanceOf(List.class);
    return (List<Map<String, Object>>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Object o) {
    assertThat(o).isInstanceOf(List.class);
    return (List<String>) o;
  }
}

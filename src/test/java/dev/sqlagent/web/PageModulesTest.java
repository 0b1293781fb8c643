package dev.sqlagent.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page's modules (webroot/js) import each other in no circle: a circle makes the order in which a browser
 * evaluates them depend on which module is loaded first, and ties the modules on it into one. Read from the files, no
 * browser needed.
 */
class PageModulesTest {

  static final Path MODULES = Path.of("webroot", "js");

  /** import … from './x.js', import './x.js', export … from './x.js' (any of them over several lines). */
  static final Pattern STATIC = Pattern.compile("(?m)^\\s*(?:import|export)\\s+(?:[^'\";]*?\\s+from\\s+)?['\"](\\.{1,2}/[^'\"]+)['\"]");
  /** import('./x.js'). */
  static final Pattern DYNAMIC = Pattern.compile("\\bimport\\s*\\(\\s*['\"](\\.{1,2}/[^'\"]+)['\"]\\s*\\)");

  @Test
  void thePagesModulesImportEachOtherInNoCircle(@TempDir Path scratch) throws IOException {
    // The reader sees a circle when there is one, whichever way its modules import.
    Files.writeString(scratch.resolve("a.js"), "// a\nimport {\n  one,\n  two,\n} from './b.js';\nexport const a = 1;\n");
    Files.writeString(scratch.resolve("b.js"), "export { three } from \"./c.js\";\nimport './d.js';\n");
    Files.writeString(scratch.resolve("c.js"), "const x = 'from';\nexport async function later() { return import('./a.js'); }\n");
    Files.writeString(scratch.resolve("d.js"), "export const d = 'no imports here';\n");
    Map<String, Set<String>> sample = imports(scratch);
    assertThat(sample).containsEntry("a.js", Set.of("b.js")).containsEntry("b.js", Set.of("c.js", "d.js"))
        .containsEntry("c.js", Set.of("a.js")).containsEntry("d.js", Set.of());
    assertThat(circles(sample)).containsExactly(List.of("a.js", "b.js", "c.js", "a.js"));

    Map<String, Set<String>> page = imports(MODULES);
    assertThat(page).as("the page's modules were read").containsKeys("main.js", "watch.js", "timeline.js", "answer.js");
    assertThat(page.get("main.js")).as("main.js's imports were read").contains("timeline.js", "socket.js");
    for (Set<String> targets : page.values()) {
      assertThat(page.keySet()).as("every import names a module of the page").containsAll(targets);
    }
    assertThat(circles(page)).as("circles among the page's modules").isEmpty();
  }

  /** Each module's name mapped to the names of the modules it imports (in the same folder). */
  static Map<String, Set<String>> imports(Path dir) throws IOException {
    Map<String, Set<String>> graph = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".js")).sorted().toList()) {
        String text = Files.readString(f);
        Set<String> targets = new TreeSet<>();
        for (Pattern p : List.of(STATIC, DYNAMIC)) {
          Matcher m = p.matcher(text);
          while (m.find()) targets.add(dir.relativize(dir.resolve(m.group(1)).normalize()).toString().replace('\\', '/'));
        }
        graph.put(f.getFileName().toString(), targets);
      }
    }
    return graph;
  }

  /** The circles a depth-first walk meets (at least one wherever there is any), each as the modules along it, its first module repeated at its end. */
  static List<List<String>> circles(Map<String, Set<String>> graph) {
    List<List<String>> found = new ArrayList<>();
    Map<String, Boolean> done = new HashMap<>();
    for (String start : graph.keySet()) walk(start, graph, new LinkedHashSet<>(), done, found);
    return found;
  }

  private static void walk(String module, Map<String, Set<String>> graph, LinkedHashSet<String> path,
                           Map<String, Boolean> done, List<List<String>> found) {
    if (path.contains(module)) {
      List<String> trail = new ArrayList<>(path);
      List<String> circle = new ArrayList<>(trail.subList(trail.indexOf(module), trail.size()));
      circle.add(module);
      found.add(circle);
      return;
    }
    if (done.containsKey(module)) return;
    path.add(module);
    for (String next : graph.getOrDefault(module, Set.of())) walk(next, graph, path, done, found);
    path.remove(module);
    done.put(module, true);
  }
}

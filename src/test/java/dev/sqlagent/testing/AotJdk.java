package dev.sqlagent.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What a start from an ahead-of-time cache needs in a test: a JDK of 25 or later (the JDK 17 that runs the suite
 * cannot make one), and the service on a class path of jars only, as {@code java -jar sql-agent.jar} has it (the
 * cache refuses a class path with a non-empty directory, and the build's classes are one).
 */
public final class AotJdk {

  private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

  private AotJdk() {}

  /**
   * The {@code java} of the newest JDK of 25 or later installed beside the one running (the directory holding its
   * {@code java.home}, and {@code /usr/lib/jvm}), if any.
   */
  public static Optional<Path> java() {
    List<Path> roots = new ArrayList<>();
    Path here = Path.of(System.getProperty("java.home")).getParent();
    if (here != null) roots.add(here);
    roots.add(Path.of("/usr/lib/jvm"));
    return roots.stream().distinct().filter(Files::isDirectory).flatMap(AotJdk::children)
        .filter(home -> major(home) >= 25 && Files.isExecutable(home.resolve("bin/java")))
        .max(Comparator.comparingInt(AotJdk::major))
        .map(home -> home.resolve("bin/java"));
  }

  /**
   * The service's class path with its own classes in a jar written into {@code dir}: that jar, then every jar of
   * this JVM's class path.
   */
  public static String jarClassPath(Path dir) throws IOException {
    List<String> entries = new ArrayList<>();
    Path classes = null;
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path p = Path.of(e);
      if (Files.isDirectory(p) && Files.exists(p.resolve("dev/sqlagent/cli/Main.class"))) classes = p;
      else if (e.endsWith(".jar")) entries.add(e);
    }
    if (classes == null) throw new IllegalStateException("the service's classes are not on this class path");
    Path jar = dir.resolve("sql-agent-classes.jar");
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out);
        Stream<Path> files = Files.walk(classes)) {
      Path root = classes;
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        j.putNextEntry(new JarEntry(root.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, j);
        j.closeEntry();
      }
    }
    entries.add(0, jar.toString());
    return String.join(java.io.File.pathSeparator, entries);
  }

  private static Stream<Path> children(Path dir) {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList().stream();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The major version in a JDK's {@code release} file; 0 when it has none. */
  private static int major(Path home) {
    try {
      Matcher m = VERSION.matcher(Files.readString(home.resolve("release")));
      return m.find() ? Integer.parseInt(m.group(1)) : 0;
    } catch (IOException e) {
      return 0;
    }
  }
}

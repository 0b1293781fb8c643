package dev.sqlagent.eval;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Saved runs: one directory per run, named by its start time, never overwritten (a clash gets a suffix).
 * A run directory holds {@code run.json} (what was run), {@code questions.jsonl} (the questions as
 * asked), {@code answers.jsonl} (every raw answer, enough to re-grade without the model),
 * {@code verdicts.jsonl} and {@code summary.json}. Blocking file IO: call it off the event loop.
 */
public final class RunStore {

  public static final String RUN = "run.json";
  public static final String QUESTIONS = "questions.jsonl";
  public static final String ANSWERS = "answers.jsonl";
  public static final String VERDICTS = "verdicts.jsonl";
  public static final String SUMMARY = "summary.json";

  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
  /** Run directory names: a timestamp, optionally a suffix such as -regrade, optionally a clash counter. */
  public static final Pattern RUN_NAME = Pattern.compile("\\d{8}-\\d{6}-\\d{3}[-a-z0-9]*");

  private final Path root;

  public RunStore(Path root) {
    this.root = root;
  }

  /** {@code <SQLAGENT_HOME>/eval}. */
  public static Path defaultRoot(Path home) {
    return home.resolve("eval");
  }

  public Path root() {
    return root;
  }

  /** A new, empty run directory named by the current time (plus {@code suffix}). */
  public Path create(String suffix) {
    try {
      Files.createDirectories(root);
      String base = LocalDateTime.now().format(STAMP) + (suffix == null ? "" : suffix);
      for (int n = 1; ; n++) {
        Path dir = root.resolve(n == 1 ? base : base + "-" + n);
        try {
          return Files.createDirectory(dir);
        } catch (FileAlreadyExistsException e) {
          // another run started in the same millisecond: take the next name
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a run directory under " + root + ": " + e.getMessage(), e);
    }
  }

  /** A saved run by directory path or by name under the root; it must hold its answers. */
  public Path resolve(String run) {
    Path asPath = Path.of(run);
    Path dir = Files.isDirectory(asPath) ? asPath : root.resolve(run);
    if (!Files.isRegularFile(dir.resolve(ANSWERS))) {
      throw new IllegalArgumentException("no saved run \"" + run + "\" (looked for " + dir.resolve(ANSWERS)
          + "); saved runs: " + names());
    }
    return dir;
  }

  /** Names of the saved runs, newest first. */
  public List<String> names() {
    if (!Files.isDirectory(root)) return List.of();
    try (Stream<Path> s = Files.list(root)) {
      return s.filter(Files::isDirectory).map(p -> p.getFileName().toString())
          .filter(n -> RUN_NAME.matcher(n).matches()).sorted(Comparator.reverseOrder()).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** The newest run that has a summary. */
  public Optional<Path> latestSummary() {
    for (String n : names()) {
      Path s = root.resolve(n).resolve(SUMMARY);
      if (Files.isRegularFile(s)) return Optional.of(s);
    }
    return Optional.empty();
  }

  public static void writeJson(Path file, JsonObject o) {
    write(file, o.encodePrettily() + "\n", false);
  }

  public static void appendLine(Path file, JsonObject o) {
    write(file, o.encode() + "\n", true);
  }

  public static void writeLines(Path file, List<JsonObject> lines) {
    StringBuilder b = new StringBuilder();
    for (JsonObject o : lines) b.append(o.encode()).append('\n');
    write(file, b.toString(), false);
  }

  public static JsonObject readJson(Path file) {
    try {
      return new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** JSON lines; a bad line is reported with its number. */
  public static List<JsonObject> readLines(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
    List<JsonObject> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i).strip();
      if (l.isEmpty()) continue;
      try {
        out.add(new JsonObject(l));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(file + " line " + (i + 1) + ": not a JSON object");
      }
    }
    return out;
  }

  private static void write(Path file, String text, boolean append) {
    try {
      if (append) {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } else {
        Files.writeString(file, text, StandardCharsets.UTF_8);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}

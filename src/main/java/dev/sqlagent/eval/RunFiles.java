package dev.sqlagent.eval;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A run as files in a directory: what {@code sql-agent eval --out DIR} exports beside the state store, and
 * what {@code --regrade DIR} reads back. The same files as a saved run ({@link RunStore#RUN},
 * {@link RunStore#QUESTIONS}, ...). Blocking file IO: call it off the event loop.
 */
public final class RunFiles {

  private RunFiles() {}

  /** {@code root/name}, created; an existing directory is never reused. */
  public static Path create(Path root, String name) {
    try {
      Files.createDirectories(root);
      return Files.createDirectory(root.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the export directory " + root.resolve(name) + ": " + e, e);
    }
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

  /** Removes the directory if it holds nothing but the files a run writes before its first answer. */
  static void removeIfNothingAsked(Path dir) throws IOException {
    if (Files.exists(dir.resolve(RunStore.ANSWERS))) return;
    Files.deleteIfExists(dir.resolve(RunStore.QUESTIONS));
    Files.deleteIfExists(dir.resolve(RunStore.RUN));
    Files.deleteIfExists(dir);
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

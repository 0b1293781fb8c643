package dev.sqlagent.localmodel;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Downloads one model file into a directory: into {@code FILE.part} first, resumed where an earlier try stopped
 * (HTTP Range), then checked (its sha256 and a whole GGUF header) and only then renamed to {@code FILE}, so a file
 * under its own name is always a checked one.
 */
public final class ModelPull {

  /** Told how far the download is, for a progress bar. */
  public interface Progress {
    void update(long done, long total);
  }

  /** What a pull ended with. */
  public record Pulled(Path file, String sha256, long bytes, boolean resumed, GgufInfo info) {}

  private static final Pattern SHA = Pattern.compile("\"?([0-9a-fA-F]{64})\"?");
  private final HttpClient http;

  public ModelPull(HttpClient http) {
    this.http = http;
  }

  public static ModelPull create() {
    return new ModelPull(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
        .connectTimeout(Duration.ofSeconds(20)).build());
  }

  /**
   * @param expectedSha256 the file's sha256; null: the one the server states ({@code X-Linked-Etag}, as Hugging Face
   *     sends for its large files) — with neither, the pull fails rather than keep an unchecked file
   */
  public Pulled pull(URI url, Path dir, String fileName, String expectedSha256, Progress progress)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path target = dir.resolve(fileName);
    Path part = dir.resolve(fileName + ".part");
    long have = Files.exists(part) ? Files.size(part) : 0;
    HttpRequest.Builder req = HttpRequest.newBuilder(url).timeout(Duration.ofMinutes(10)).GET();
    if (have > 0) req.header("Range", "bytes=" + have + "-");
    HttpResponse<InputStream> resp = http.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    int status = resp.statusCode();
    boolean resumed = status == 206;
    if (status == 416 && have > 0) {
      resp.body().close();
      // The part is already whole (or longer than the file): check it as it is.
      return finish(part, target, have, false, expected(expectedSha256, resp), progress);
    }
    if (status != 200 && status != 206) {
      resp.body().close();
      throw new IOException(url + " answered HTTP " + status + (status == 404 ? " (no such file there)" : ""));
    }
    if (!resumed) have = 0; // the server sent the whole file: start over
    String sha = expected(expectedSha256, resp);
    long total = resumed ? contentRangeTotal(resp).orElse(-1L) : resp.headers().firstValueAsLong("content-length").orElse(-1L);
    try (InputStream in = resp.body();
         OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
             resumed ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING)) {
      byte[] buf = new byte[1 << 16];
      long done = have;
      long lastShown = 0;
      for (int n; (n = in.read(buf)) > 0; ) {
        out.write(buf, 0, n);
        done += n;
        if (done - lastShown >= (1 << 20)) {
          progress.update(done, total);
          lastShown = done;
        }
      }
      progress.update(done, total);
      if (total > 0 && done != total) {
        throw new IOException("the download stopped at " + done + " of " + total + " bytes; run the same command again to resume");
      }
    }
    return finish(part, target, Files.size(part), resumed, sha, progress);
  }

  private static Pulled finish(Path part, Path target, long bytes, boolean resumed, String sha, Progress progress)
      throws IOException {
    String actual = Sha256.of(part);
    if (!actual.equalsIgnoreCase(sha)) {
      Files.delete(part); // a wrong file is not resumed next time
      throw new IOException("the downloaded file's sha256 is " + actual + ", expected " + sha.toLowerCase(Locale.ROOT)
          + "; it was deleted");
    }
    GgufInfo info;
    try {
      info = GgufInfo.read(part);
    } catch (GgufInfo.NotGguf e) {
      Files.delete(part);
      throw new IOException("the download is not a model: " + e.getMessage() + "; it was deleted");
    }
    Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return new Pulled(target, actual, bytes, resumed, info);
  }

  private static String expected(String given, HttpResponse<?> resp) throws IOException {
    if (given != null && !given.isBlank()) {
      if (!SHA.matcher(given.trim()).matches()) throw new IOException("--sha256 " + given + ": expected 64 hex digits");
      return given.trim();
    }
    for (String h : new String[] {"x-linked-etag", "x-sha256"}) {
      Optional<String> v = resp.headers().firstValue(h);
      if (v.isPresent()) {
        Matcher m = SHA.matcher(v.get().trim());
        if (m.matches()) return m.group(1);
      }
    }
    throw new IOException("nothing to check the file against: the server states no sha256 for it; pass --sha256");
  }

  private static Optional<Long> contentRangeTotal(HttpResponse<?> resp) {
    return resp.headers().firstValue("content-range").map(v -> v.substring(v.lastIndexOf('/') + 1).trim())
        .filter(s -> s.matches("\\d+")).map(Long::parseLong);
  }

  /** {@code [#########...........]  45%  114/253 MB} for a terminal line (unknown total: the bytes so far). */
  public static String bar(long done, long total, int width) {
    if (total <= 0) return String.format(Locale.ROOT, "%d MB", done / 1_000_000);
    int filled = (int) Math.min(width, done * width / total);
    return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "] "
        + String.format(Locale.ROOT, "%3d%%  %d/%d MB", done * 100 / total, done / 1_000_000, total / 1_000_000);
  }
}

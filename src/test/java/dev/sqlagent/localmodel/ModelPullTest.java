package dev.sqlagent.localmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code model pull}'s download against a local HTTP server that serves a file as a model hub does. */
class ModelPullTest {
  @TempDir
  Path dir;
  HttpServer server;
  byte[] file;
  String sha;
  /** What the server states as the file's sha256 (null: nothing). */
  volatile String linkedEtag;
  final List<String> ranges = new CopyOnWriteArrayList<>();

  @BeforeEach
  void serve() throws Exception {
    byte[] header = GgufFiles.header("llama", 3, 8192, true, new long[] {576, 49152});
    file = Arrays.copyOf(header, 3 * 1024 * 1024 + 17); // header, then "weights"
    for (int i = header.length; i < file.length; i++) file[i] = (byte) (i * 31);
    sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file));
    linkedEtag = sha;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    server.createContext("/org/model-GGUF/resolve/main/model.gguf", ex -> {
      String range = ex.getRequestHeaders().getFirst("Range");
      ranges.add(String.valueOf(range));
      if (linkedEtag != null) ex.getResponseHeaders().set("X-Linked-Etag", "\"" + linkedEtag + "\"");
      int from = range == null ? 0 : Integer.parseInt(range.replaceAll("bytes=(\\d+)-.*", "$1"));
      if (from >= file.length) {
        ex.sendResponseHeaders(416, -1);
        ex.close();
        return;
      }
      if (range != null) {
        ex.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + (file.length - 1) + "/" + file.length);
      }
      ex.sendResponseHeaders(range == null ? 200 : 206, file.length - from);
      ex.getResponseBody().write(file, from, file.length - from);
      ex.close();
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/org/model-GGUF/resolve/main/model.gguf");
  }

  @Test
  void downloadsChecksAndNamesTheFileOnlyWhenItIsWhole() throws Exception {
    List<long[]> progress = new ArrayList<>();
    ModelPull.Pulled p = ModelPull.create().pull(url(), dir.resolve("models"), "model.gguf", null,
        (done, total) -> progress.add(new long[] {done, total}));
    assertThat(Files.readAllBytes(p.file())).isEqualTo(file);
    assertThat(p.sha256()).isEqualTo(sha);
    assertThat(p.resumed()).isFalse();
    assertThat(p.info().architecture()).isEqualTo("llama");
    assertThat(dir.resolve("models/model.gguf.part")).doesNotExist();
    assertThat(progress).last().satisfies(l -> assertThat(l).containsExactly(file.length, file.length));
    assertThat(progress.size()).isGreaterThan(2);
  }

  @Test
  void resumesWhereAnEarlierTryStopped() throws Exception {
    Path models = Files.createDirectories(dir.resolve("models"));
    Files.write(models.resolve("model.gguf.part"), Arrays.copyOf(file, 1_000_000));
    ModelPull.Pulled p = ModelPull.create().pull(url(), models, "model.gguf", sha, (d, t) -> { });
    assertThat(ranges).containsExactly("bytes=1000000-");
    assertThat(p.resumed()).isTrue();
    assertThat(Files.readAllBytes(p.file())).isEqualTo(file);
  }

  @Test
  void aFileWhoseSha256DiffersIsDeletedNotKept() throws Exception {
    linkedEtag = "0".repeat(64);
    Path models = dir.resolve("models");
    assertThatThrownBy(() -> ModelPull.create().pull(url(), models, "model.gguf", null, (d, t) -> { }))
        .hasMessageContaining("sha256 is " + sha).hasMessageContaining("expected " + "0".repeat(64));
    assertThat(models.resolve("model.gguf")).doesNotExist();
    assertThat(models.resolve("model.gguf.part")).doesNotExist();
  }

  @Test
  void withNothingToCheckAgainstTheFileIsNotKept() throws Exception {
    linkedEtag = null;
    Path models = dir.resolve("models");
    assertThatThrownBy(() -> ModelPull.create().pull(url(), models, "model.gguf", null, (d, t) -> { }))
        .hasMessageContaining("pass --sha256");
    assertThat(models.resolve("model.gguf")).doesNotExist();
  }

  @Test
  void aMissingFileIsNamedWithTheServersAnswer() {
    URI missing = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/org/none/resolve/main/x.gguf");
    assertThatThrownBy(() -> ModelPull.create().pull(missing, dir, "x.gguf", sha, (d, t) -> { }))
        .hasMessageContaining("HTTP 404");
  }

  @Test
  void theProgressBarFillsWithTheBytes() {
    assertThat(ModelPull.bar(50_000_000, 100_000_000, 10)).isEqualTo("[#####.....]  50%  50/100 MB");
    assertThat(ModelPull.bar(5_000_000, -1, 10)).isEqualTo("5 MB");
  }
}

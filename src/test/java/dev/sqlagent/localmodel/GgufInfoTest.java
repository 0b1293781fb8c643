package dev.sqlagent.localmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GgufInfoTest {
  @TempDir
  Path dir;

  @Test
  void readsWhatTheHeaderSays() throws Exception {
    Path f = dir.resolve("m.gguf");
    Files.write(f, GgufFiles.header("qwen2", 15, 32768, true, new long[] {896, 151936}, new long[] {896}));
    GgufInfo info = GgufInfo.read(f);
    assertThat(info.architecture()).isEqualTo("qwen2");
    assertThat(info.name()).isEqualTo("Test Model");
    assertThat(info.quantization()).isEqualTo("Q4_K_M");
    assertThat(info.contextLength()).isEqualTo(32768);
    assertThat(info.parameters()).isEqualTo(896L * 151936 + 896);
    assertThat(info.hasChatTemplate()).isTrue();
    assertThat(info.bytes()).isEqualTo(Files.size(f));
    assertThat(info.summary()).startsWith("qwen2 Q4_K_M (136M parameters");
  }

  @Test
  void aModelWithoutAChatTemplateSaysSo() throws Exception {
    Path f = dir.resolve("g.gguf");
    Files.write(f, GgufFiles.header("gemma3", 3, 8192, false, new long[] {640}));
    GgufInfo info = GgufInfo.read(f);
    assertThat(info.hasChatTemplate()).isFalse();
    assertThat(info.quantization()).isEqualTo("Q4_1");
  }

  @Test
  void aFileThatIsNotAModelIsRefusedByName() throws Exception {
    Path f = dir.resolve("page.gguf");
    Files.writeString(f, "<html>404 not found</html>");
    assertThatThrownBy(() -> GgufInfo.read(f)).isInstanceOf(GgufInfo.NotGguf.class)
        .hasMessageContaining("page.gguf is not a GGUF model");
  }

  @Test
  void aDownloadCutShortInsideItsHeaderIsRefused() throws Exception {
    byte[] whole = GgufFiles.header("llama", 2, 4096, true, new long[] {576, 49152});
    Path f = dir.resolve("cut.gguf");
    Files.write(f, Arrays.copyOf(whole, 60));
    assertThatThrownBy(() -> GgufInfo.read(f)).isInstanceOf(GgufInfo.NotGguf.class).hasMessageContaining("incomplete");
  }
}

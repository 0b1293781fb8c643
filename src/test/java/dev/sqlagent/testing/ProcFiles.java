package dev.sqlagent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Linux's {@code /proc} files, read whole. {@code Files.readString} sizes its read by the file's reported size, which
 * some kernels give wrongly for these generated files: {@code ip_local_port_range} read as "3", and the cluster tests'
 * ports then came from the kernel's ephemeral range after all. A stream read to its end gets the whole text.
 */
public final class ProcFiles {
  private ProcFiles() {}

  public static String read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}

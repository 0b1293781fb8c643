package dev.sqlagent.localmodel;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A file's SHA-256 in lower-case hex, read in blocks (model files are hundreds of MB). */
public final class Sha256 {
  private Sha256() {}

  public static String of(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest d = digest();
      byte[] buf = new byte[1 << 20];
      for (int n; (n = in.read(buf)) > 0; ) d.update(buf, 0, n);
      return HexFormat.of().formatHex(d.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}

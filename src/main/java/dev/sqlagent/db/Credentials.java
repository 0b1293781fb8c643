package dev.sqlagent.db;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Properties;

/**
 * Generated role passwords, kept in {@code <home>/credentials.properties} (mode 0600) so they survive
 * restarts. Keyed by server (roles belong to a whole PostgreSQL server, not to one database), so one home can serve several servers.
 */
public final class Credentials {

  /** The passwords of the two agent roles on one server. */
  public record RolePasswords(String ro, String log) {
    @Override
    public String toString() {
      return "RolePasswords[****]";
    }
  }

  private static final SecureRandom RANDOM = new SecureRandom();
  private final Path file;

  public Credentials(Path home) {
    this.file = home.resolve("credentials.properties");
  }

  public static String newPassword() {
    byte[] b = new byte[18];
    RANDOM.nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  public synchronized Optional<RolePasswords> roles(String serverKey) throws IOException {
    Properties p = load();
    String ro = p.getProperty(serverKey + ".ro");
    String log = p.getProperty(serverKey + ".log");
    return ro == null || log == null ? Optional.empty() : Optional.of(new RolePasswords(ro, log));
  }

  /** The stored passwords for this server, or new ones (stored at once). */
  public synchronized RolePasswords rolesOrCreate(String serverKey) throws IOException {
    Optional<RolePasswords> existing = roles(serverKey);
    if (existing.isPresent()) return existing.get();
    RolePasswords fresh = new RolePasswords(newPassword(), newPassword());
    Properties p = load();
    p.setProperty(serverKey + ".ro", fresh.ro());
    p.setProperty(serverKey + ".log", fresh.log());
    store(p);
    return fresh;
  }

  /** The embedded server's superuser password, made on first use. */
  public synchronized String embeddedAdminPassword() throws IOException {
    Properties p = load();
    String pw = p.getProperty("embedded.admin");
    if (pw == null) {
      pw = newPassword();
      p.setProperty("embedded.admin", pw);
      store(p);
    }
    return pw;
  }

  private Properties load() throws IOException {
    Properties p = new Properties();
    if (Files.exists(file)) {
      try (Reader r = Files.newBufferedReader(file)) {
        p.load(r);
      }
    }
    return p;
  }

  private void store(Properties p) throws IOException {
    Files.createDirectories(file.getParent());
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (Writer w = Files.newBufferedWriter(tmp)) {
      p.store(w, "sql-agent role passwords: keep private");
    }
    try {
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException ignored) {
      // not a POSIX file system: the directory's own protection applies
    }
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}

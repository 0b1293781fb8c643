package dev.sqlagent.testing;

import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.db.EmbeddedDatabase;
import dev.sqlagent.db.PgUrl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A primary and a hot standby streaming from it, on this machine, from the same PostgreSQL binaries the service
 * embeds (the zonky artifact: initdb, pg_ctl and postgres, no pg_basebackup; the ones the shared test server
 * unpacked): the primary is initialised, given a
 * replication role, stopped cleanly and its data directory copied (a cold base backup, what {@code pg_basebackup -R}
 * would give), the copy gets {@code standby.signal} and a {@code primary_conninfo}, and both start. The standby
 * cancels a conflicting query at once ({@code max_standby_streaming_delay = 0}, no {@code hot_standby_feedback}), so
 * a test can provoke a recovery conflict when it wants one.
 */
public final class StandbyPair implements AutoCloseable {

  private static final String REPLICATOR = "replicator";
  /** What a running server keeps in its data directory that a copy must not take along. */
  private static final Set<String> NOT_COPIED = Set.of("postmaster.pid", "postmaster.opts", "epg-lock");

  private final Path home;
  private final EmbeddedDatabase primary;
  private final EmbeddedDatabase standby;

  private StandbyPair(Path home, EmbeddedDatabase primary, EmbeddedDatabase standby) {
    this.home = home;
    this.primary = primary;
    this.standby = standby;
  }

  /** Starts both (blocking), and returns once the standby streams from the primary. */
  public static StandbyPair start() throws IOException, SQLException, InterruptedException {
    Path home = Files.createTempDirectory("sql-agent-standby");
    // The binaries the shared test server unpacked: zonky unpacks them once per JVM, and every embedded server of
    // the JVM runs from there, so they must outlive this pair (and the pair must not unpack its own first).
    Path bin = binaries();
    Path primaryDir = home.resolve("primary");
    Path standbyDir = home.resolve("standby");
    String adminPassword = GrantScript.generatePassword();
    String replicatorPassword = GrantScript.generatePassword();
    int primaryPort = FreePorts.next();

    EmbeddedDatabase first = EmbeddedDatabase.start(primaryDir, bin, adminPassword, primaryPort);
    try (Connection c = first.adminUrl().connect("sql-agent-test"); Statement s = c.createStatement()) {
      s.execute("SET password_encryption = 'scram-sha-256'");
      s.execute("CREATE ROLE " + REPLICATOR + " LOGIN REPLICATION PASSWORD '" + replicatorPassword + "'");
      // wal_level = replica and max_wal_senders = 10 are PostgreSQL's defaults; the replication role needs its line.
      Files.writeString(primaryDir.resolve("pg_hba.conf"), "host replication " + REPLICATOR + " 127.0.0.1/32 scram-sha-256\n"
          + "host replication " + REPLICATOR + " ::1/128 scram-sha-256\n", StandardOpenOption.APPEND);
    } finally {
      first.close();  // a clean shutdown: the copy is a consistent base backup
    }
    copy(primaryDir, standbyDir);
    Files.writeString(standbyDir.resolve("standby.signal"), "");
    Files.writeString(standbyDir.resolve("postgresql.auto.conf"), String.join("\n",
        "primary_conninfo = 'host=127.0.0.1 port=" + primaryPort + " user=" + REPLICATOR + " password=" + replicatorPassword
            + " application_name=sqlagent_standby'",
        "hot_standby = on",
        "max_standby_streaming_delay = 0",
        "max_standby_archive_delay = 0",
        "hot_standby_feedback = off",
        ""), StandardOpenOption.APPEND);

    EmbeddedDatabase primary = EmbeddedDatabase.start(primaryDir, bin, adminPassword, primaryPort);
    EmbeddedDatabase standby;
    try {
      standby = EmbeddedDatabase.start(standbyDir, bin, adminPassword, FreePorts.next());
    } catch (IOException | RuntimeException e) {
      primary.close();
      throw e;
    }
    StandbyPair pair = new StandbyPair(home, primary, standby);
    try {
      pair.awaitStreaming();
      return pair;
    } catch (SQLException | InterruptedException | RuntimeException e) {
      pair.close();
      throw e;
    }
  }

  private static Path binaries() throws IOException {
    return TestDatabase.binaries();
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        if (NOT_COPIED.contains(p.getFileName().toString())) continue;
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
          Files.setPosixFilePermissions(target, Files.getPosixFilePermissions(p));
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  /** The primary's superuser, on its maintenance database. */
  public PgUrl primaryAdmin() {
    return primary.adminUrl();
  }

  /** The standby's superuser (read-only there, as everyone is), on its maintenance database. */
  public PgUrl standbyAdmin() {
    return standby.adminUrl();
  }

  private void awaitStreaming() throws SQLException, InterruptedException {
    for (int i = 0; i < 600; i++) {
      try (Connection c = primaryAdmin().connect("sql-agent-test"); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) {
        rs.next();
        if (rs.getInt(1) > 0) return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the standby did not stream from the primary within 60 s");
  }

  /** Waits until the standby has replayed everything the primary has written so far. */
  public void awaitReplayed() throws SQLException, InterruptedException {
    String lsn;
    try (Connection c = primaryAdmin().connect("sql-agent-test"); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()")) {
      rs.next();
      lsn = rs.getString(1);
    }
    for (int i = 0; i < 600; i++) {
      try (Connection c = standbyAdmin().connect("sql-agent-test"); Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn")) {
        rs.next();
        if (rs.getBoolean(1)) return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the standby did not replay up to " + lsn + " within 30 s");
  }

  @Override
  public void close() throws IOException {
    try {
      standby.close();
    } finally {
      primary.close();
      try (Stream<Path> all = Files.walk(home)) {  // the data directories (the binaries are not here)
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // a temporary directory: left for the OS
      }
    }
  }
}

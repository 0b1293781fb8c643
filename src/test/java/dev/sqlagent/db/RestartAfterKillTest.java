package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The embedded PostgreSQL's owner killed with SIGKILL leaves its server running, orphaned, on the data directory.
 * The next start stops that server and starts at the first try; a pid file naming a process that is not a postgres
 * of the directory is removed rather than blocking the start.
 */
class RestartAfterKillTest {

  @Test
  void theFirstStartAfterKill9StopsTheOrphanedServerAndStarts() throws Exception {
    Path home = Files.createTempDirectory("sql-agent-kill9");
    Path data = home.resolve("pgdata");
    String password = new Credentials(home).embeddedAdminPassword();
    Process owner = startOwner(data, password);
    long orphan;
    try {
      awaitReady(owner);
      orphan = StaleServer.PidFile.read(data).orElseThrow().pid();
      owner.destroyForcibly();  // SIGKILL: no shutdown hook stops the server
      assertThat(owner.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      owner.destroyForcibly();
    }
    assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive)).as("the server outlived its owner").contains(true);
    assertThat(StaleServer.isPostgresOf(orphan, data)).isTrue();

    try (EmbeddedDatabase again = EmbeddedDatabase.start(data, TestDatabase.binaries(), password)) {
      try (var c = again.adminUrl().connect("kill9-test"); var s = c.createStatement();
          var r = s.executeQuery("SELECT 1")) {
        assertThat(r.next()).isTrue();
      }
      assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false)).as("the orphan was stopped").isFalse();
    }
  }

  @Test
  void aPidFileNamingSomethingElseIsRemovedAndTheServerStarts() throws Exception {
    Path home = Files.createTempDirectory("sql-agent-stale-pid");
    Path data = home.resolve("pgdata");
    String password = new Credentials(home).embeddedAdminPassword();
    EmbeddedDatabase.start(data, TestDatabase.binaries(), password).close();
    // After a crash and a reboot, the pid in the file may be any live process's.
    Process other = new ProcessBuilder("sleep", "300").start();
    try {
      Files.writeString(data.resolve("postmaster.pid"), other.pid() + "\n" + data + "\n1700000000\n5432\n\nlocalhost\n");
      try (EmbeddedDatabase again = EmbeddedDatabase.start(data, TestDatabase.binaries(), password);
          var c = again.adminUrl().connect("stale-pid-test"); var s = c.createStatement();
          var r = s.executeQuery("SELECT 1")) {
        assertThat(r.next()).isTrue();
      }
      assertThat(other.isAlive()).as("the process the file named is left alone").isTrue();
    } finally {
      other.destroyForcibly();
    }
  }

  private static Process startOwner(Path data, String password) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        EmbeddedDatabaseProcess.class.getName(), data.toString(), TestDatabase.binaries().toString(), password));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static void awaitReady(Process owner) throws Exception {
    BufferedReader out = new BufferedReader(new InputStreamReader(owner.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder seen = new StringBuilder();
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith("ready ")) {
        Thread drain = new Thread(() -> {
          try {
            owner.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
          } catch (java.io.IOException ignored) {
            // the process is gone
          }
        });
        drain.setDaemon(true);
        drain.start();
        return;
      }
      seen.append(line).append('\n');
    }
    throw new AssertionError("the server's owner exited before it was ready:\n" + seen);
  }
}

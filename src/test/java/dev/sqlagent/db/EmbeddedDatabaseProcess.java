package dev.sqlagent.db;

import java.nio.file.Path;

/**
 * An embedded PostgreSQL in a JVM of its own, for a test to kill: {@code java -cp <the test's classpath>
 * dev.sqlagent.db.EmbeddedDatabaseProcess <data dir> <binaries dir> <admin password>} starts the server, prints
 * {@code ready <port>} and runs until it is killed.
 */
public final class EmbeddedDatabaseProcess {

  private EmbeddedDatabaseProcess() {}

  public static void main(String[] args) throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.start(Path.of(args[0]), Path.of(args[1]), args[2]);
    System.out.println("ready " + db.port());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}

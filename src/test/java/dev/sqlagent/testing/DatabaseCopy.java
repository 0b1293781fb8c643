package dev.sqlagent.testing;

import dev.sqlagent.db.Target;
import dev.sqlagent.demo.DemoShop;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * A second demo shop on the test server, built by the demo's own setup under another name, for tests that
 * change the schema: the shared {@code shop} is never touched. The agent role is the server's, with the same
 * password (roles belong to the server, not to one database).
 */
public final class DatabaseCopy {

  private static final Map<String, Target> COPIES = new HashMap<>();

  private DatabaseCopy() {}

  /** The copy called {@code name}, built on first use in this JVM (and rebuilt from scratch then). */
  public static synchronized Target of(String name) {
    return COPIES.computeIfAbsent(name, n -> {
      DemoShop demo = demo(n);
      demo.run();
      return demo.target();
    });
  }

  /** Drops and re-creates the copy's shop tables (the same seed), undoing any schema change. */
  public static void rebuild(Target copy) {
    DemoShop demo = demo(copy.database());
    demo.rebuild();
    demo.grantRole();
  }

  /** Runs {@code statements} on the copy as the superuser, one after another. */
  public static void exec(Target copy, String... statements) throws SQLException {
    try (Connection c = admin(copy); Statement s = c.createStatement()) {
      for (String sql : statements) s.execute(sql);
    }
  }

  /** A superuser connection to the copy. */
  public static Connection admin(Target copy) throws SQLException {
    return TestDatabase.get().adminConnection(copy.database());
  }

  private static DemoShop demo(String database) {
    TestDatabase db = TestDatabase.get();
    return new DemoShop(db.adminUrl().withDatabase(database), db.target().url().password());
  }
}

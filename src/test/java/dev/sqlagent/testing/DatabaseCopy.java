package dev.sqlagent.testing;

import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import dev.sqlagent.demo.DemoShop;
import java.util.HashMap;
import java.util.Map;

/**
 * A second shop database on the test server, built by Setup under another name, for tests that change the
 * schema: the shared {@code shop} is never touched. The agent roles are the server's, with the same
 * passwords (roles belong to the server, not to one database).
 */
public final class DatabaseCopy {

  private static final Map<String, Target> COPIES = new HashMap<>();

  private DatabaseCopy() {}

  /** The copy called {@code name}, built on first use in this JVM (and rebuilt from scratch then). */
  public static synchronized Target of(String name) {
    return COPIES.computeIfAbsent(name, n -> {
      Target shared = TestDatabase.get().target();
      PgUrl a = shared.admin();
      Target copy = new Target(new PgUrl(a.host(), a.port(), a.user(), a.password(), n), shared.roles());
      new Setup(copy).run();
      return copy;
    });
  }

  /** Drops and re-creates the copy's shop tables (the same seed), undoing any schema change. */
  public static void rebuild(Target copy) {
    Setup s = new Setup(copy);
    s.rebuild();
    s.grantRoles();
  }
}

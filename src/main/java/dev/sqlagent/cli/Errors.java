package dev.sqlagent.cli;

import dev.sqlagent.config.ConfigException;
import dev.sqlagent.db.Setup;

/** One readable line for a failure that ends a command. */
final class Errors {
  private Errors() {}

  static String describe(Throwable e) {
    if (e instanceof ConfigException) return "configuration: " + e.getMessage();
    if (e instanceof Setup.SetupException) return "setup failed: " + e.getMessage();
    String m = e.getMessage();
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    if (root != e && root.getMessage() != null) m = (m == null ? "" : m + ": ") + root.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}

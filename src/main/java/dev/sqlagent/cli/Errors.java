package dev.sqlagent.cli;

import dev.sqlagent.config.ConfigException;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.state.StateStore;

/** One readable line for a failure that ends a command. */
final class Errors {
  private Errors() {}

  static String describe(Throwable e) {
    if (e instanceof ConfigException) return "configuration: " + e.getMessage();
    if (e instanceof dev.sqlagent.notes.NotesException) return "notes file: " + e.getMessage();
    if (e instanceof DemoShop.SetupException) return "demo setup failed: " + e.getMessage();
    if (e instanceof StateStore.StateStoreException) return "state store: " + e.getMessage();
    String m = e.getMessage();
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    if (root != e && root.getMessage() != null) m = (m == null ? "" : m + ": ") + root.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }
}

package dev.sqlagent.db;

import java.nio.file.Path;
import java.util.Map;

/**
 * What libpq reads besides the connection string: the PG* variables, the home directory (for
 * {@code ~/.pgpass}, {@code ~/.pg_service.conf} and {@code ~/.postgresql/}) and the OS user name (the default
 * role). Passed in so tests never depend on the machine's own.
 */
public record PgEnvironment(Map<String, String> vars, Path home, String osUser) {

  public PgEnvironment {
    vars = Map.copyOf(vars);
  }

  public static PgEnvironment system() {
    return of(System.getenv());
  }

  /** These variables, with the process's home directory and user name. */
  public static PgEnvironment of(Map<String, String> vars) {
    return new PgEnvironment(vars, Path.of(System.getProperty("user.home")), System.getProperty("user.name"));
  }

  /** A variable, null when unset or empty (libpq ignores an empty one). */
  String get(String name) {
    String v = vars.get(name);
    return v == null || v.isEmpty() ? null : v;
  }
}

package dev.sqlagent.execution;

import dev.sqlagent.db.Identifiers;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * The start-up check of the users' database roles: each must exist in the target and have the agent role as a
 * member, or {@code SET LOCAL ROLE} would fail on that user's first question. A missing one stops the start
 * with the GRANT that fixes it.
 */
final class UserRoles {

  private static final String CHECK = """
      SELECT r, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) AS present,
             CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = r) THEN pg_has_role(current_user, r::name, 'MEMBER') END AS member
      FROM unnest($1::text[]) AS r""";

  /** Whether each role may run set_config (PostgreSQL grants it to PUBLIC by default; a hardened role may lack it). */
  private static final String SET_CONFIG = "pg_catalog.set_config(text,text,boolean)";
  private static final String MAY_SET = "SELECT r, has_function_privilege(r, '" + SET_CONFIG + "', 'EXECUTE') AS may "
      + "FROM unnest($1::text[]) AS r";

  private UserRoles() {}

  /**
   * With row settings, the start-up check that every role a user's statement may run as (the agent role, and each
   * users-file role) may EXECUTE set_config, or every such statement would fail; a role that may not stops the start
   * with the GRANT that fixes it.
   */
  static Future<Void> checkRowSettings(Gate gate, List<String> roles, String agentRole) {
    List<String> all = new ArrayList<>();
    all.add(agentRole);
    all.addAll(roles);
    return gate.executor().pool().preparedQuery(MAY_SET).execute(Tuple.of(all.toArray(new String[0]))).compose(rows -> {
      List<String> problems = new ArrayList<>();
      for (Row row : rows) {
        if (!row.getBoolean("may")) {
          String role = row.getString("r");
          problems.add("users' row settings (SQLAGENT_OIDC_SETTINGS, the users file's settings:) are set with set_config, "
              + "which the role " + role + " may not EXECUTE; as the database's admin run: GRANT EXECUTE ON FUNCTION "
              + SET_CONFIG.replace(",", ", ") + " TO " + Identifiers.quote(role));
        }
      }
      return problems.isEmpty() ? Future.succeededFuture()
          : Future.failedFuture(new IllegalStateException(String.join("; ", problems)));
    });
  }

  static Future<Void> check(Gate gate, List<String> roles, String agentRole) {
    if (roles.isEmpty()) return Future.succeededFuture();
    return gate.executor().pool().preparedQuery(CHECK).execute(Tuple.of(roles.toArray(new String[0]))).compose(rows -> {
      List<String> problems = new ArrayList<>();
      for (Row row : rows) {
        String role = row.getString("r");
        if (!row.getBoolean("present")) {
          problems.add("the users file names the database role " + role + ", which does not exist in the target");
        } else if (!row.getBoolean("member")) {
          problems.add("the agent role " + agentRole + " is not a member of " + role + ", so it cannot act as that user's "
              + "role; as the database's admin run: GRANT " + Identifiers.quote(role) + " TO " + Identifiers.quote(agentRole));
        }
      }
      return problems.isEmpty() ? Future.succeededFuture()
          : Future.failedFuture(new IllegalStateException(String.join("; ", problems)));
    });
  }

}

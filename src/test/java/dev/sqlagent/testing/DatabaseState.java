package dev.sqlagent.testing;

import dev.sqlagent.db.Target;
import dev.sqlagent.demo.DemoShop;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Everything a query could have changed, read as the admin: the shop's rows (Setup's fingerprint), the
 * relations and sequences that exist, advisory locks, large objects, prepared transactions, role
 * settings, pending notifications, and the tuples ever inserted, updated or deleted (counted even when
 * rolled back, so a write that was attempted and undone still shows).
 */
public record DatabaseState(Map<String, String> facts) {

  public static DatabaseState read(Target db) throws Exception {
    Map<String, String> f = new LinkedHashMap<>();
    try (Connection c = TestDatabase.get().adminConnection(db.database()); Statement s = c.createStatement()) {
      f.put("fingerprint", DemoShop.fingerprint(c));
      f.put("relations", one(s, "SELECT string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' "
          + "ORDER BY n.nspname, c.relname) "
          + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
          + "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'"));
      f.put("sequences", one(s, "SELECT string_agg(schemaname || '.' || sequencename || '=' || coalesce(last_value::text, 'null'), ',' "
          + "ORDER BY schemaname, sequencename) FROM pg_sequences"));
      f.put("advisory_locks", one(s, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"));
      f.put("large_objects", one(s, "SELECT count(*) FROM pg_largeobject_metadata"));
      f.put("prepared_xacts", one(s, "SELECT count(*) FROM pg_prepared_xacts"));
      f.put("role_settings", one(s, "SELECT string_agg(coalesce(r.rolname, '*') || ':' || array_to_string(d.setconfig, ';'), ',' "
          + "ORDER BY r.rolname, d.setdatabase) "
          + "FROM pg_db_role_setting d LEFT JOIN pg_roles r ON r.oid = d.setrole"));
      f.put("notification_queue", one(s, "SELECT pg_notification_queue_usage()"));
      f.put("tuple_writes", one(s, "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables"));
    }
    return new DatabaseState(f);
  }

  /** Waits until no session of the agent's role is left, so their statistics are flushed. */
  public static void awaitAgentSessionsGone(Target db) throws Exception {
    for (int i = 0; i < 100; i++) {
      try (Connection c = TestDatabase.get().adminConnection(db.database()); Statement s = c.createStatement()) {
        if (one(s, "SELECT count(*) FROM pg_stat_activity WHERE usename = '" + Target.DEMO_ROLE + "'").equals("0")) return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("sessions of " + Target.DEMO_ROLE + " still open after 10 s");
  }

  private static String one(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return String.valueOf(rs.getString(1));
    }
  }
}

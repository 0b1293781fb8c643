package dev.sqlagent.catalogue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Functions a query may not call, matched on the normalised name (last name part, any case, quotes and
 * U&amp; escapes already decoded by the gate's lexer). Researched against PostgreSQL 17's pg_proc (every
 * volatile function in pg_catalog was reviewed) and the "System Administration Functions", "Large
 * Objects", "XML" and "Text Search" chapters of the manual. Each family says why it is here: because it
 * acts outside the read-only transaction, outlives it, reaches outside the database's tables, or runs SQL
 * of its own that the gate never sees. The role's revoked EXECUTE (db/roles.sql) backs the most dangerous
 * ones; this list gives an early, readable refusal and covers servers the project does not own.
 */
public final class DenyList {
  private DenyList() {}

  /** Each family's reason, in order; each exact name's family (its first) and every prefix with its family, in order. */
  private static final List<String> WHY = new ArrayList<>();
  private static final Map<String, Integer> EXACT = new HashMap<>();
  private static final List<Map.Entry<String, Integer>> PREFIXES = new ArrayList<>();

  static {
    family("sleeping: holds a pooled connection and a backend without doing any work",
        List.of(), List.of("pg_sleep"));
    family("file access: reads or lists files of the database server",
        List.of("pg_stat_file", "pg_current_logfile", "pg_hba_file_rules", "pg_ident_file_mappings",
            "pg_show_all_file_settings"),
        List.of("pg_read_file", "pg_read_binary_file", "pg_ls_", "pg_file_", "pg_logdir_ls"));
    family("large objects: lo_from_bytea creates one even in a read-only transaction, lo_import and "
            + "lo_export move server files, loread/lowrite reach data outside the readable tables",
        List.of("loread", "lowrite"), List.of("lo_"));
    family("dblink: opens connections to other databases, outside this transaction and this role",
        List.of(), List.of("dblink"));
    family("runs SQL of its own from a string, which the gate never checks (query_to_xml family, "
            + "table/schema/database_to_xml read arbitrary relations, ts_stat and ts_rewrite execute their "
            + "query argument, tablefunc's crosstab and connectby do too)",
        List.of("ts_stat", "ts_rewrite", "connectby"),
        List.of("query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml", "crosstab"));
    family("session settings: set_config(.., false) changes the pooled session for the next query; setseed "
            + "changes the session's random sequence",
        List.of("set_config", "setseed"), List.of());
    family("advisory locks: a session-level advisory lock survives ROLLBACK and blocks other sessions",
        List.of(), List.of("pg_advisory_", "pg_try_advisory_"));
    family("notifications: pg_notify signals other sessions",
        List.of("pg_notify"), List.of());
    family("sequence changes: nextval and setval advance sequences, which no rollback undoes",
        List.of("nextval", "setval"), List.of());
    family("transaction ids: txid_current and pg_current_xact_id assign a transaction id to a read",
        List.of("txid_current", "pg_current_xact_id"), List.of());
    family("backend signalling: cancels or terminates other sessions, reloads configuration, rotates logs",
        List.of("pg_cancel_backend", "pg_terminate_backend", "pg_signal_backend", "pg_reload_conf",
            "pg_rotate_logfile", "pg_log_backend_memory_contexts", "pg_log_standby_snapshot"),
        List.of());
    family("server administration: backups, WAL, replication slots and origins, statistics resets, "
            + "collation import, index maintenance that writes, binary upgrade",
        List.of("pg_backup_start", "pg_backup_stop", "pg_start_backup", "pg_stop_backup", "pg_switch_wal",
            "pg_create_restore_point", "pg_promote", "pg_wal_replay_pause", "pg_wal_replay_resume",
            "pg_drop_replication_slot", "pg_replication_slot_advance", "pg_copy_physical_replication_slot",
            "pg_copy_logical_replication_slot", "pg_create_physical_replication_slot",
            "pg_create_logical_replication_slot", "pg_sync_replication_slots", "pg_import_system_collations",
            "pg_nextoid", "pg_stop_making_pinned_objects", "pg_extension_config_dump",
            "brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range",
            "gin_clean_pending_list", "pg_stat_statements_reset"),
        List.of("pg_stat_reset", "pg_replication_origin_", "pg_logical_", "binary_upgrade_"));
  }

  private static void family(String why, List<String> exact, List<String> prefixes) {
    int index = WHY.size();
    WHY.add(why);
    exact.forEach(name -> EXACT.putIfAbsent(name, index));
    prefixes.forEach(prefix -> PREFIXES.add(Map.entry(prefix, index)));
  }

  /** Why the function may not be called, or empty when it may. */
  public static Optional<String> reason(String functionName) {
    if (functionName == null || functionName.isEmpty()) return Optional.empty();
    String name = functionName.toLowerCase(Locale.ROOT);
    // The first family that names it, exactly or by prefix.
    int family = EXACT.getOrDefault(name, Integer.MAX_VALUE);
    for (Map.Entry<String, Integer> p : PREFIXES) {
      if (p.getValue() >= family) break;
      if (name.startsWith(p.getKey())) family = p.getValue();
    }
    return family == Integer.MAX_VALUE ? Optional.empty() : Optional.of(WHY.get(family));
  }

  public static boolean denied(String functionName) {
    return reason(functionName).isPresent();
  }
}

package dev.sqlagent.catalogue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Proves, from the catalogue alone, that the connected role (the agent role, on the user's target
 * database) cannot write. It never attempts a write: the one statement it sends that would write is sent
 * inside {@code BEGIN READ ONLY}, where PostgreSQL refuses it (SQLSTATE 25006) before it runs, and is
 * always rolled back.
 *
 * <p>The rule is DESIGN.md's "What counts as writable". Refused: superuser; CREATEROLE or CREATEDB;
 * membership (direct or inherited) of {@code pg_write_all_data}, {@code pg_write_server_files},
 * {@code pg_execute_server_program}; INSERT, UPDATE, DELETE or TRUNCATE on any relation of the target;
 * owning any relation or schema of the target; CREATE on a schema or the database (or TEMPORARY on the
 * database) granted to the role itself or to a role it belongs to, other than PUBLIC; EXECUTE on an
 * escape-capable function ({@link Functions}: one that can act outside the read-only transaction, which therefore
 * cannot stop it), directly, through PUBLIC or through a role it belongs to. Warned about only:
 * TEMPORARY on the database and CREATE on a schema granted to PUBLIC.
 *
 * <p>"A role it belongs to" is {@code pg_has_role(current_user, r, 'MEMBER')}: direct or inherited
 * membership, whether or not the privileges are inherited, since such a role can always {@code SET ROLE}.
 * Attributes (superuser, CREATEROLE, ...) are checked on every such role for the same reason.
 *
 * <p>Blocking JDBC: run it off the event loop. The connection is expected to be idle; an open transaction
 * on it is rolled back, and its auto-commit setting is restored.
 */
public final class ReadOnlyProof {

  public static final String NOT_SUPERUSER = "not_superuser";
  public static final String NO_CREATEROLE = "no_createrole";
  public static final String NO_CREATEDB = "no_createdb";
  public static final String NO_BYPASSRLS = "no_bypassrls";
  public static final String NO_WRITE_ROLES = "no_write_roles";
  public static final String NO_TABLE_WRITES = "no_table_writes";
  public static final String OWNS_NOTHING = "owns_nothing";
  public static final String NO_CREATE = "no_create";
  public static final String READ_ONLY_TRANSACTION = "read_only_transaction";
  public static final String NO_ESCAPE_FUNCTIONS = "no_escape_functions";

  /** Predefined roles whose members can write, in the order they are reported. */
  public static final List<String> WRITE_ROLES =
      List.of("pg_write_all_data", "pg_write_server_files", "pg_execute_server_program");

  /** The environment variable that lets a writable role run anyway. */
  public static final String ALLOW_WRITABLE_ENV = "SQLAGENT_ALLOW_WRITABLE_ROLE";

  /** Most findings named in one proof's detail; the rest are counted. */
  static final int MAX_NAMED = 5;

  /** Not a system schema: the target's own schemas. */
  static final String USER_SCHEMA = "n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'";

  private ReadOnlyProof() {}

  /** One named proof: whether it holds, and what was found (or checked) either way. */
  public record Proof(String name, boolean ok, String detail) {
    public JsonObject toJson() {
      return new JsonObject().put("name", name).put("ok", ok).put("detail", detail);
    }

    @Override
    public String toString() {
      return (ok ? "ok     " : "FAILED ") + name + ": " + detail;
    }
  }

  /** Every proof for one role, and the warnings that do not stop a start. */
  public record Report(String role, List<Proof> proofs, List<String> warnings, List<String> accepted,
                       List<String> unacceptable) {
    public Report {
      proofs = List.copyOf(proofs);
      warnings = List.copyOf(warnings);
      accepted = List.copyOf(accepted);
      unacceptable = List.copyOf(unacceptable);
    }

    public Report(String role, List<Proof> proofs, List<String> warnings) {
      this(role, proofs, warnings, List.of(), List.of());
    }

    /** True when every proof holds. */
    public boolean readOnly() {
      return proofs.stream().allMatch(Proof::ok);
    }

    public Optional<Proof> firstFailure() {
      return proofs.stream().filter(p -> !p.ok()).findFirst();
    }

    /**
     * The message a start is refused with when the role can write: the role, the privilege that makes it
     * writable (the first failure's detail) and the ways out. Empty when the role is read-only.
     */
    public Optional<String> refusal() {
      return firstFailure().map(f -> {
        // A detail may end in statements that fix it, one per line: they follow the sentence, not inside it.
        int nl = f.detail().indexOf('\n');
        String head = nl < 0 ? f.detail() : f.detail().substring(0, nl);
        String fixes = nl < 0 ? "" : f.detail().substring(nl) + "\n";
        return "the database role \"" + role + "\" can write (" + f.name() + ": " + head + ")" + (fixes.isEmpty() ? ". " : fixes)
            + "sql-agent only reads your database: connect as a read-only role, or run "
            + "`sql-agent grant [--schemas a,b]` to print the SQL that creates one (`--apply` runs it). "
            + "To run with this role anyway, set " + ALLOW_WRITABLE_ENV + "=true.";
      });
    }

    public JsonObject toJson() {
      JsonObject o = new JsonObject().put("role", role).put("read_only", readOnly())
          .put("proofs", new JsonArray(proofs.stream().map(Proof::toJson).toList()))
          .put("warnings", new JsonArray(new ArrayList<>(warnings)))
          .put("accepted_executable", new JsonArray(new ArrayList<>(accepted)));
      refusal().ifPresent(r -> o.put("refusal", r));
      return o;
    }
  }

  /**
   * Runs every proof as the connection's current role.
   *
   * @param schemas the schemas in scope (exact catalogue names), or null for every non-system schema.
   *     Proofs cover the whole database regardless; the scope only marks findings outside it and warns
   *     about schemas in it that do not exist or cannot be used.
   */
  public static Report check(Connection c, List<String> schemas) throws SQLException {
    return check(c, schemas, (schema, name) -> false);
  }

  /**
   * The same, with the functions a DBA accepts as executable by the role ({@code SQLAGENT_ACCEPT_EXECUTABLE}): an
   * escape-capable function {@code accepted} names ({@code schema}, {@code name} as the catalogue spells them) does not
   * fail {@link #NO_ESCAPE_FUNCTIONS}; it is reported in {@link Report#accepted} and among the warnings, guarded by the
   * gate alone. A function of an escape-capable extension (dblink ...) is never accepted: it stays a failure and is
   * reported in {@link Report#unacceptable}.
   */
  public static Report check(Connection c, List<String> schemas, java.util.function.BiPredicate<String, String> accepted)
      throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    if (!autoCommit) {
      c.rollback();
      c.setAutoCommit(true);
    }
    try {
      Set<String> scope = schemas == null ? null : new LinkedHashSet<>(schemas);
      String role = scalar(c, "SELECT current_user::text");
      List<Proof> proofs = new ArrayList<>(attributes(c));
      proofs.add(writeRoles(c));
      proofs.add(tableWrites(c, scope));
      proofs.add(ownership(c, scope));
      List<String> warnings = new ArrayList<>();
      proofs.add(create(c, warnings));
      List<String> gateOnly = new ArrayList<>();
      List<String> unacceptable = new ArrayList<>();
      proofs.add(escapeFunctions(c, accepted, gateOnly, unacceptable));
      proofs.add(readOnlyTransaction(c));
      if (scope != null) warnings.addAll(scopeWarnings(c, scope));
      warnings.addAll(gateOnly);
      return new Report(role, proofs, warnings, gateOnly, unacceptable);
    } finally {
      if (!autoCommit) c.setAutoCommit(false);
    }
  }

  // ---- role attributes, of the role and of every role it belongs to ----

  private static List<Proof> attributes(Connection c) throws SQLException {
    String[][] attrs = {
        {NOT_SUPERUSER, "rolsuper", "a superuser"},
        {NO_CREATEROLE, "rolcreaterole", "CREATEROLE"},
        {NO_CREATEDB, "rolcreatedb", "CREATEDB"},
        {NO_BYPASSRLS, "rolbypassrls", "BYPASSRLS"}};
    List<Proof> out = new ArrayList<>();
    for (String[] a : attrs) {
      List<String> found = new ArrayList<>();
      try (Statement s = c.createStatement();
           ResultSet rs = s.executeQuery("SELECT quote_ident(rolname), rolname = current_user FROM pg_roles "
               + "WHERE " + a[1] + " AND pg_has_role(current_user, oid, 'MEMBER') "
               + "ORDER BY rolname <> current_user, rolname")) {
        while (rs.next()) {
          String what = a[2].startsWith("a ") ? "is " + a[2] : "has " + a[2];
          found.add(rs.getBoolean(2) ? "the role itself " + what
              : "member of " + rs.getString(1) + ", which " + what);
        }
      }
      out.add(found.isEmpty()
          ? new Proof(a[0], true, "neither the role nor any role it belongs to " + (a[2].startsWith("a ") ? "is " : "has ") + a[2])
          : new Proof(a[0], false, summary(found)));
    }
    return out;
  }

  // ---- predefined roles that write ----

  private static Proof writeRoles(Connection c) throws SQLException {
    List<String> existing = new ArrayList<>();
    List<String> member = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT rolname, pg_has_role(current_user, oid, 'MEMBER') "
        + "FROM pg_roles WHERE rolname = ANY (?) ORDER BY array_position(?, rolname::text)")) {
      var arr = c.createArrayOf("text", WRITE_ROLES.toArray());
      ps.setArray(1, arr);
      ps.setArray(2, arr);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          existing.add(rs.getString(1));
          if (rs.getBoolean(2)) member.add("member of " + rs.getString(1));
        }
      }
    }
    return member.isEmpty()
        ? new Proof(NO_WRITE_ROLES, true, "not a member of " + String.join(", ", existing))
        : new Proof(NO_WRITE_ROLES, false, summary(member));
  }

  // ---- INSERT / UPDATE / DELETE / TRUNCATE on any relation ----

  private static Proof tableWrites(Connection c, Set<String> scope) throws SQLException {
    // For each role the agent belongs to (itself included): INSERT and UPDATE count when held on any
    // column, DELETE and TRUNCATE on the relation. PUBLIC's grants are included by has_*_privilege.
    String sql = """
        WITH me AS (SELECT oid, rolname FROM pg_roles WHERE pg_has_role(current_user, oid, 'MEMBER')),
        rel AS (SELECT c.oid, n.nspname, c.relname, c.relacl, c.relowner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND %s)
        SELECT p.priv, format('%%I.%%I', rel.nspname, rel.relname), rel.nspname,
               bool_or(me.rolname = current_user) AS effective,
               EXISTS (SELECT FROM aclexplode(rel.relacl) a WHERE a.privilege_type = p.priv
                         AND a.grantee = (SELECT oid FROM pg_roles WHERE rolname = current_user)) AS own_grant,
               (SELECT string_agg(CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                       ELSE quote_ident(pg_get_userbyid(a.grantee)) END, ', '
                                  ORDER BY a.grantee <> 0, pg_get_userbyid(a.grantee))
                FROM aclexplode(rel.relacl) a
                WHERE a.privilege_type = p.priv AND a.grantee <> rel.relowner
                  AND (a.grantee = 0 OR (pg_has_role(current_user, a.grantee, 'MEMBER')
                                         AND a.grantee <> (SELECT oid FROM pg_roles WHERE rolname = current_user)))) AS acl_via,
               min(quote_ident(me.rolname)) FILTER (WHERE me.rolname <> current_user) AS any_via
        FROM rel
        CROSS JOIN (VALUES ('INSERT', 1), ('UPDATE', 2), ('DELETE', 3), ('TRUNCATE', 4)) AS p(priv, ord)
        CROSS JOIN me
        WHERE CASE WHEN p.priv IN ('INSERT', 'UPDATE') THEN has_any_column_privilege(me.oid, rel.oid, p.priv)
                   ELSE has_table_privilege(me.oid, rel.oid, p.priv) END
        GROUP BY rel.oid, rel.nspname, rel.relname, rel.relacl, rel.relowner, p.priv, p.ord
        ORDER BY rel.nspname, rel.relname, p.ord
        """.formatted(USER_SCHEMA.replace("%", "%%"));
    List<String> found = new ArrayList<>();
    int relations = 0;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        found.add(rs.getString(1) + " on " + rs.getString(2)
            + through(rs.getBoolean(5), rs.getString(6), rs.getBoolean(4), rs.getString(7))
            + outside(scope, rs.getString(3)));
      }
    }
    if (!found.isEmpty()) return new Proof(NO_TABLE_WRITES, false, summary(found));
    relations = Integer.parseInt(scalar(c, "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND " + USER_SCHEMA));
    return new Proof(NO_TABLE_WRITES, true,
        "no INSERT, UPDATE, DELETE or TRUNCATE on any of the " + relations + " relations outside the system schemas");
  }

  /**
   * Where a write privilege comes from, when not from the role's own grant: the roles (or PUBLIC) named in
   * the relation's ACL that the role belongs to, else any role it belongs to that holds it (a predefined
   * role, or the owner).
   */
  private static String through(boolean ownGrant, String aclVia, boolean effective, String anyVia) {
    if (ownGrant) return "";
    if (aclVia != null) {
      return aclVia.startsWith("PUBLIC")
          ? " (granted to " + aclVia + ")"
          : " (through " + aclVia + ")";
    }
    if (anyVia != null && !effective) return " (through " + anyVia + ")";
    return "";
  }

  // ---- owning a relation or a schema ----

  private static Proof ownership(Connection c, Set<String> scope) throws SQLException {
    String sql = """
        SELECT 'schema ' || quote_ident(n.nspname), n.nspname, n.nspowner = r.oid, quote_ident(pg_get_userbyid(n.nspowner)), 0
        FROM pg_namespace n, pg_roles r
        WHERE r.rolname = current_user AND %1$s AND pg_has_role(current_user, n.nspowner, 'MEMBER')
        UNION ALL
        SELECT CASE c.relkind WHEN 'r' THEN 'table ' WHEN 'p' THEN 'partitioned table ' WHEN 'v' THEN 'view '
                 WHEN 'm' THEN 'materialized view ' WHEN 'f' THEN 'foreign table ' WHEN 'S' THEN 'sequence '
                 ELSE 'type ' END || format('%%I.%%I', n.nspname, c.relname),
               n.nspname, c.relowner = r.oid, quote_ident(pg_get_userbyid(c.relowner)), 1
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, pg_roles r
        WHERE r.rolname = current_user AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S', 'c') AND %1$s
          AND pg_has_role(current_user, c.relowner, 'MEMBER')
        ORDER BY 5, 2, 1
        """.formatted(USER_SCHEMA);
    List<String> found = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        found.add("owns " + rs.getString(1)
            + (rs.getBoolean(3) ? "" : " (owned by " + rs.getString(4) + ", a role it belongs to)")
            + outside(scope, rs.getString(2)));
      }
    }
    return found.isEmpty()
        ? new Proof(OWNS_NOTHING, true, "owns no relation or schema outside the system schemas, nor does any role it belongs to")
        : new Proof(OWNS_NOTHING, false, summary(found));
  }

  // ---- CREATE on a schema or the database, TEMPORARY on the database (PUBLIC: warnings) ----

  private static Proof create(Connection c, List<String> warnings) throws SQLException {
    String sql = """
        SELECT 'schema', quote_ident(n.nspname), a.privilege_type, a.grantee,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END,
               a.grantee = (SELECT oid FROM pg_roles WHERE rolname = current_user), n.nspname
        FROM pg_namespace n, aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a
        WHERE a.privilege_type = 'CREATE' AND n.nspname NOT IN ('pg_toast', 'pg_catalog', 'information_schema')
          AND n.nspname !~ '^pg_(toast_)?temp_'
          AND (a.grantee = 0 OR pg_has_role(current_user, a.grantee, 'MEMBER'))
        UNION ALL
        SELECT 'database', quote_ident(d.datname), a.privilege_type, a.grantee,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END,
               a.grantee = (SELECT oid FROM pg_roles WHERE rolname = current_user), d.datname
        FROM pg_database d, aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) a
        WHERE d.datname = current_database() AND a.privilege_type IN ('CREATE', 'TEMPORARY')
          AND (a.grantee = 0 OR pg_has_role(current_user, a.grantee, 'MEMBER'))
        ORDER BY 1, 7, 3
        """;
    List<String> found = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        String kind = rs.getString(1);
        String object = rs.getString(2);
        String priv = rs.getString(3);
        boolean toPublic = rs.getLong(4) == 0;
        if (!seen.add(kind + "\0" + object + "\0" + priv + "\0" + rs.getString(5))) continue;
        if (toPublic) {
          warnings.add(publicWarning(kind, object, priv));
        } else {
          found.add(priv + " on " + kind + " " + object
              + (rs.getBoolean(6) ? "" : " (granted to " + rs.getString(5) + ", a role it belongs to)"));
        }
      }
    }
    return found.isEmpty()
        ? new Proof(NO_CREATE, true, "no CREATE on any schema or the database, and no TEMPORARY, "
            + "granted to the role or a role it belongs to (PUBLIC aside)")
        : new Proof(NO_CREATE, false, summary(found));
  }

  private static String publicWarning(String kind, String object, String priv) {
    if (kind.equals("database") && priv.equals("TEMPORARY")) {
      return "PUBLIC may create temporary tables in database " + object + " (the PostgreSQL default); the "
          + "read-only transaction refuses them. A DBA may run: REVOKE TEMPORARY ON DATABASE " + object + " FROM PUBLIC;";
    }
    if (kind.equals("database")) {
      return "PUBLIC may create schemas in database " + object + "; the read-only transaction refuses it. "
          + "A DBA may run: REVOKE CREATE ON DATABASE " + object + " FROM PUBLIC;";
    }
    return "PUBLIC may create objects in schema " + object + " (the default before PostgreSQL 15); the "
        + "read-only transaction refuses it. A DBA may run: REVOKE CREATE ON SCHEMA " + object + " FROM PUBLIC;";
  }

  // ---- no function that acts outside the transaction ----

  /**
   * The escape-capable functions the role may EXECUTE. A read-only transaction cannot stop them (dblink's new
   * connection commits on its own), so each makes the role writable; the detail names them and every REVOKE that
   * takes EXECUTE away from the grantees the role reaches it through.
   */
  private static Proof escapeFunctions(Connection c, java.util.function.BiPredicate<String, String> accepted,
      List<String> gateOnly, List<String> unacceptable) throws SQLException {
    List<Functions.Fn> found = new ArrayList<>();
    int checked = 0;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(Functions.FUNCTIONS_SQL)) {
      Functions.Cols cols = jdbc(rs);
      while (rs.next()) {
        Functions.Fn f = Functions.fn(cols);
        checked++;
        if (!f.escapeCapable() || !f.executable()) continue;
        if (!accepted.test(f.schema(), f.name())) {
          found.add(f);
        } else if (f.extension() != null && Functions.ESCAPE_EXTENSIONS.contains(f.extension())) {
          found.add(f);
          unacceptable.add(f.signature() + " is " + f.escape() + ": SQLAGENT_ACCEPT_EXECUTABLE cannot accept it; "
              + String.join(" ", f.revokes()));
        } else {
          gateOnly.add(f.signature() + " is executable by the agent role" + (f.grantedTo() == null ? ""
              : " (granted to " + f.grantedTo() + ")") + " and " + f.escape() + "; accepted by "
              + "SQLAGENT_ACCEPT_EXECUTABLE, it is guarded by the gate alone, which refuses every statement that reaches it");
        }
      }
    }
    if (found.isEmpty()) {
      return new Proof(NO_ESCAPE_FUNCTIONS, true, "may execute no function that can act outside the read-only "
          + "transaction (" + checked + " functions outside the core checked)" + (gateOnly.isEmpty() ? ""
          : "; except " + gateOnly.size() + " accepted by SQLAGENT_ACCEPT_EXECUTABLE, guarded by the gate alone"));
    }
    // The application's own functions first, one by one; an extension's, as one finding (dblink has forty).
    List<String> named = new ArrayList<>();
    java.util.Map<String, List<Functions.Fn>> byExtension = new java.util.LinkedHashMap<>();
    List<String> revokes = new ArrayList<>();
    for (Functions.Fn f : found) {
      if (f.extension() == null) {
        named.add("may execute " + f.signature() + (f.grantedTo() == null ? "" : " (granted to " + f.grantedTo() + ")")
            + ": " + f.escape());
      } else {
        byExtension.computeIfAbsent(f.extension(), k -> new ArrayList<>()).add(f);
      }
    }
    for (List<Functions.Fn> fs : byExtension.values()) {
      Functions.Fn first = fs.get(0);
      named.add(fs.size() == 1 ? "may execute " + first.signature() + ": " + first.escape()
          : "may execute " + fs.size() + " functions of extension " + first.extension() + " (" + first.signature()
              + ", ...): " + first.escape());
    }
    for (Functions.Fn f : found) {
      if (f.extension() == null) revokes.addAll(f.revokes());
    }
    for (List<Functions.Fn> fs : byExtension.values()) fs.forEach(f -> revokes.addAll(f.revokes()));
    return new Proof(NO_ESCAPE_FUNCTIONS, false, summary(named) + ". A read-only transaction cannot stop "
        + (found.size() == 1 ? "it" : "them") + "\nA DBA fixes this with:\n  " + String.join("\n  ", revokes));
  }

  /** A JDBC row as {@link Functions.Cols}. */
  static Functions.Cols jdbc(ResultSet rs) {
    return new Functions.Cols() {
      public String text(String column) {
        try {
          return rs.getString(column);
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }

      public long int8(String column) {
        try {
          return rs.getLong(column);
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }

      public boolean bool(String column) {
        try {
          return rs.getBoolean(column);
        } catch (SQLException e) {
          throw new IllegalStateException(e);
        }
      }
    };
  }

  // ---- the read-only transaction refuses a write before it happens ----

  static final String PROBE = "CREATE TEMP TABLE sql_agent_probe (a int)";

  private static Proof readOnlyTransaction(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("BEGIN READ ONLY");
      try {
        s.execute(PROBE);
        return new Proof(READ_ONLY_TRANSACTION, false,
            "inside BEGIN READ ONLY, `" + PROBE + "` was accepted (rolled back)");
      } catch (SQLException e) {
        if ("25006".equals(e.getSQLState())) {
          return new Proof(READ_ONLY_TRANSACTION, true,
              "inside BEGIN READ ONLY, `" + PROBE + "` was refused with SQLSTATE 25006 (read_only_sql_transaction)");
        }
        return new Proof(READ_ONLY_TRANSACTION, false, "inside BEGIN READ ONLY, `" + PROBE
            + "` failed with SQLSTATE " + e.getSQLState() + " instead of 25006: " + firstLine(e.getMessage()));
      } finally {
        s.execute("ROLLBACK");
      }
    }
  }

  // ---- the schemas in scope ----

  private static List<String> scopeWarnings(Connection c, Set<String> scope) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT s, quote_ident(s), n.oid IS NOT NULL, "
        + "n.oid IS NOT NULL AND has_schema_privilege(n.oid, 'USAGE') "
        + "FROM unnest(?::text[]) WITH ORDINALITY AS u(s, i) LEFT JOIN pg_namespace n ON n.nspname = u.s ORDER BY i")) {
      ps.setArray(1, c.createArrayOf("text", scope.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (!rs.getBoolean(3)) out.add("schema " + rs.getString(2) + " is in scope but does not exist");
          else if (!rs.getBoolean(4)) out.add("schema " + rs.getString(2) + " is in scope but the role has no USAGE on it");
        }
      }
    }
    return out;
  }

  // ---- helpers ----

  private static String outside(Set<String> scope, String schema) {
    return scope == null || scope.contains(schema) ? "" : " (outside the schemas in scope)";
  }

  /** The first finding, then up to {@link #MAX_NAMED} - 1 more, then a count of the rest. */
  static String summary(List<String> found) {
    StringBuilder b = new StringBuilder(found.get(0));
    if (found.size() > 1) {
      List<String> more = found.subList(1, Math.min(found.size(), MAX_NAMED));
      b.append("; also ").append(String.join("; ", more));
      if (found.size() > MAX_NAMED) b.append("; and ").append(found.size() - MAX_NAMED).append(" more");
    }
    return b.toString();
  }

  private static String scalar(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static String firstLine(String m) {
    if (m == null) return "";
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}

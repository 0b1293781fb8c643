package dev.sqlagent.catalogue;

import dev.sqlagent.db.Identifiers;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SQL that creates (or brings up to date) a read-only LOGIN role for the target database: no
 * attributes that write, read-only transactions by default with short timeouts, and SELECT on every
 * relation of the chosen schemas, now and (by default privileges) later.
 *
 * <p>It adds only a role and grants: it never creates, alters or drops a table, schema or any other
 * object, and never revokes anything. The {@code REVOKE … FROM PUBLIC} a DBA may choose to run are only
 * printed, commented out, at the end of {@link #text()}; so are the ones the role needs to be read-only (EXECUTE
 * on escape-capable functions, {@link #requiredRevokes()}), uncommented, since other roles may rely on them.
 *
 * <p>Built by reading the catalogue as the admin (blocking JDBC): the database, its non-system schemas
 * and who owns them. Identifiers are quoted by the server's own {@code quote_ident}.
 */
public final class GrantScript {

  public static final String DEFAULT_ROLE = "sql_agent_ro";
  public static final int CONNECTION_LIMIT = 20;

  /** The role's attributes; every one that could write is switched off. */
  static final String ATTRIBUTES = "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS "
      + "CONNECTION LIMIT " + CONNECTION_LIMIT;

  private static final String ALNUM = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One statement and the comment printed above it in {@link #text()} (null: none). */
  private record Step(String comment, String sql, String label) {}

  private final String role;
  private final String password;
  private final String database;
  private final List<String> schemas;
  private final List<String> quotedSchemas;
  private final List<Step> steps;
  private final List<String> optionalRevokes;
  private final List<String> requiredRevokes;

  private GrantScript(String role, String password, String database, List<String> schemas,
      List<String> quotedSchemas, List<Step> steps, List<String> optionalRevokes, List<String> requiredRevokes) {
    this.role = role;
    this.password = password;
    this.database = database;
    this.schemas = List.copyOf(schemas);
    this.quotedSchemas = List.copyOf(quotedSchemas);
    this.steps = List.copyOf(steps);
    this.optionalRevokes = List.copyOf(optionalRevokes);
    this.requiredRevokes = List.copyOf(requiredRevokes);
  }

  /** Thrown when a requested schema is not a non-system schema of the database. */
  public static final class UnknownSchemaException extends IllegalArgumentException {
    public UnknownSchemaException(String message) {
      super(message);
    }
  }

  /** 24 letters and digits (about 140 bits), free of characters that need quoting or URL-encoding. */
  public static String generatePassword() {
    StringBuilder b = new StringBuilder(24);
    for (int i = 0; i < 24; i++) b.append(ALNUM.charAt(RANDOM.nextInt(ALNUM.length())));
    return b.toString();
  }

  /**
   * Reads the catalogue as the admin connected to the target database and builds the script.
   *
   * @param role the role to create or update ({@link #DEFAULT_ROLE} if null or blank)
   * @param schemas exact schema names, or null / empty for every non-system schema
   * @param password the role's password ({@link #generatePassword()} if null)
   * @throws UnknownSchemaException when a requested schema is not a non-system schema of the database
   */
  public static GrantScript build(Connection admin, String role, List<String> schemas, String password)
      throws SQLException {
    String r = role == null || role.isBlank() ? DEFAULT_ROLE : role;
    String pw = password == null ? generatePassword() : password;

    String database;
    String qDatabase;
    String qRole;
    String qAdmin;
    try (PreparedStatement ps = admin.prepareStatement(
        "SELECT current_database()::text, quote_ident(current_database()), quote_ident(?), quote_ident(current_user)")) {
      ps.setString(1, r);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        database = rs.getString(1);
        qDatabase = rs.getString(2);
        qRole = rs.getString(3);
        qAdmin = rs.getString(4);
      }
    }

    // Every non-system schema: its quoted name, whose tables default privileges should follow (the
    // owner; for a schema owned by pg_database_owner, the database's owner), whether the admin may act
    // for that role, and whether PUBLIC may create in it.
    Map<String, String[]> all = new LinkedHashMap<>();
    try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery("""
        SELECT n.nspname, quote_ident(n.nspname), quote_ident(pg_get_userbyid(w.owner)),
               pg_has_role(current_user, w.owner, 'USAGE'),
               EXISTS (SELECT FROM aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a
                       WHERE a.grantee = 0 AND a.privilege_type = 'CREATE')
        FROM pg_namespace n
        JOIN pg_database d ON d.datname = current_database()
        CROSS JOIN LATERAL (SELECT CASE WHEN pg_get_userbyid(n.nspowner) = 'pg_database_owner'
                                        THEN d.datdba ELSE n.nspowner END AS owner) w
        WHERE\s""" + ReadOnlyProof.USER_SCHEMA + " ORDER BY n.nspname")) {
      while (rs.next()) {
        all.put(rs.getString(1), new String[] {rs.getString(2), rs.getString(3), String.valueOf(rs.getBoolean(4)),
            String.valueOf(rs.getBoolean(5))});
      }
    }
    List<String> chosen = new ArrayList<>();
    if (schemas == null || schemas.isEmpty()) {
      chosen.addAll(all.keySet());
    } else {
      for (String name : schemas) {
        if (!all.containsKey(name)) {
          throw new UnknownSchemaException("database " + qDatabase + " has no schema named '" + name
              + "' (names are exact, case included; its schemas: "
              + String.join(", ", all.values().stream().map(v -> v[0]).toList()) + ")");
        }
        if (!chosen.contains(name)) chosen.add(name);
      }
    }

    String lit = Identifiers.literal(r);
    String pwLit = Identifiers.literal(pw);
    String tag = dollarTag(r + pw);
    List<Step> steps = new ArrayList<>();
    steps.add(new Step("Passwords are stored as SCRAM-SHA-256 verifiers.",
        "SET password_encryption = 'scram-sha-256'", null));
    String create = "DO " + tag + "\nBEGIN\n"
        + "  IF NOT EXISTS (SELECT FROM pg_catalog.pg_roles WHERE rolname = " + lit + ") THEN\n"
        + "    CREATE ROLE " + qRole + " " + ATTRIBUTES + " PASSWORD " + pwLit + ";\n"
        + "  ELSE\n"
        + "    IF (SELECT rolsuper OR rolreplication OR rolbypassrls FROM pg_catalog.pg_roles WHERE rolname = " + lit + ") THEN\n"
        + "      ALTER ROLE " + qRole + " NOSUPERUSER NOREPLICATION NOBYPASSRLS;\n"
        + "    END IF;\n"
        + "    ALTER ROLE " + qRole + " LOGIN NOCREATEDB NOCREATEROLE NOINHERIT CONNECTION LIMIT " + CONNECTION_LIMIT
        + " PASSWORD " + pwLit + ";\n"
        + "  END IF;\n"
        + "END\n" + tag;
    steps.add(new Step("The role: created if missing, otherwise brought back to these attributes and given the new password.",
        create, "CREATE ROLE / ALTER ROLE " + qRole + " ... PASSWORD '****'"));
    steps.add(new Step("Every session starts read-only, with short timeouts.",
        "ALTER ROLE " + qRole + " SET default_transaction_read_only = on", null));
    steps.add(new Step(null, "ALTER ROLE " + qRole + " SET statement_timeout = '5s'", null));
    steps.add(new Step(null, "ALTER ROLE " + qRole + " SET lock_timeout = '1s'", null));
    steps.add(new Step(null, "ALTER ROLE " + qRole + " SET idle_in_transaction_session_timeout = '10s'", null));
    steps.add(new Step(null, "GRANT CONNECT ON DATABASE " + qDatabase + " TO " + qRole, null));

    for (String name : chosen) {
      String[] v = all.get(name);
      String qs = v[0];
      String owner = v[1];
      boolean canActForOwner = Boolean.parseBoolean(v[2]);
      steps.add(new Step("Schema " + qs + ": SELECT on every table, view, materialized view and foreign table in it.",
          "GRANT USAGE ON SCHEMA " + qs + " TO " + qRole, null));
      steps.add(new Step(null, "GRANT SELECT ON ALL TABLES IN SCHEMA " + qs + " TO " + qRole, null));
      if (canActForOwner) {
        steps.add(new Step("... and on the ones its owner " + owner + " creates later.",
            "ALTER DEFAULT PRIVILEGES FOR ROLE " + owner + " IN SCHEMA " + qs + " GRANT SELECT ON TABLES TO " + qRole, null));
      } else {
        steps.add(new Step("... and on the ones " + qAdmin + " creates later. Its owner " + owner + " is a role this admin "
            + "cannot act for: tables it creates later need `sql-agent grant` again (or its owner can run "
            + "ALTER DEFAULT PRIVILEGES IN SCHEMA " + qs + " GRANT SELECT ON TABLES TO " + qRole + ").",
            "ALTER DEFAULT PRIVILEGES IN SCHEMA " + qs + " GRANT SELECT ON TABLES TO " + qRole, null));
      }
    }

    List<String> revokes = new ArrayList<>();
    revokes.add("REVOKE TEMPORARY ON DATABASE " + qDatabase + " FROM PUBLIC;");
    boolean publicListed = false;
    for (Map.Entry<String, String[]> e : all.entrySet()) {
      boolean isPublic = e.getKey().equals("public");
      if (isPublic || Boolean.parseBoolean(e.getValue()[3])) {
        revokes.add("REVOKE CREATE ON SCHEMA " + e.getValue()[0] + " FROM PUBLIC;");
        publicListed |= isPublic;
      }
    }
    if (!publicListed) revokes.add("REVOKE CREATE ON SCHEMA public FROM PUBLIC;");
    List<String> quoted = chosen.stream().map(n -> all.get(n)[0]).toList();
    return new GrantScript(r, pw, database, chosen, quoted, steps, revokes, publicEscapes(admin));
  }

  /**
   * The REVOKEs that take EXECUTE on escape-capable functions ({@link Functions}) away from PUBLIC: every new role,
   * this one too, may call them until a DBA runs these.
   */
  private static List<String> publicEscapes(Connection admin) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(Functions.FUNCTIONS_SQL)) {
      Functions.Cols cols = ReadOnlyProof.jdbc(rs);
      while (rs.next()) {
        Functions.Fn f = Functions.fn(cols);
        if (f.escapeCapable() && f.publicExecute()) out.add(f.revoke("PUBLIC") + "  -- " + f.escape());
      }
    }
    return out;
  }

  /**
   * REVOKEs the role needs before it is read-only: EXECUTE on functions that act outside the read-only transaction,
   * held by PUBLIC. Printed, never applied: other roles may rely on them (grant them EXECUTE back by name).
   */
  public List<String> requiredRevokes() {
    return requiredRevokes;
  }

  public String role() {
    return role;
  }

  public String password() {
    return password;
  }

  /** The database the script grants on (the admin connection's). */
  public String database() {
    return database;
  }

  /** The schemas granted, exact names. */
  public List<String> schemas() {
    return schemas;
  }

  /** The statements, without terminating semicolons, in the order they run. */
  public List<String> statements() {
    return steps.stream().map(Step::sql).toList();
  }

  /** The script as a DBA would read and run it ({@code psql -1 -f}): comments, statements, and the optional REVOKEs. */
  public String text() {
    StringBuilder b = new StringBuilder();
    b.append("-- sql-agent grant: a read-only login role ").append(oneLine(role)).append(" for database ")
        .append(oneLine(database)).append(".\n")
        .append("-- It creates or updates one role and grants it SELECT. It creates, alters or drops no table,\n")
        .append("-- schema or other object, and revokes nothing" + (requiredRevokes.isEmpty() ? "" : " but the REQUIRED REVOKEs at the end")
            + ". Run it as an admin, in one transaction.\n")
        .append("-- Schemas: ").append(oneLine(quotedSchemas.isEmpty() ? "(none)" : String.join(", ", quotedSchemas)))
        .append("\n");
    for (Step s : steps) {
      if (s.comment() != null) b.append("\n-- ").append(oneLine(s.comment())).append('\n');
      b.append(s.sql()).append(";\n");
    }
    b.append("\n-- Optional, for a DBA to choose: PUBLIC's defaults (before PostgreSQL 15, and kept by many dumps)\n")
        .append("-- let every role create temporary tables and objects in schema public. The agent role's\n")
        .append("-- read-only transactions already refuse both; to take them away from every role, run:\n");
    for (String r : optionalRevokes) b.append("-- ").append(oneLine(r)).append('\n');
    if (!requiredRevokes.isEmpty()) {
      b.append("\n-- REQUIRED before the role is read-only: PUBLIC may EXECUTE these functions, and each can act\n")
          .append("-- outside a read-only transaction (a new connection, a program, a file), so rolling back undoes\n")
          .append("-- nothing. sql-agent refuses to start until they are revoked. `grant --apply` does not run them:\n")
          .append("-- roles of your application that call these functions then need GRANT EXECUTE ... TO <role>.\n");
      for (String r : requiredRevokes) b.append(oneLine(r)).append('\n');
    }
    return b.toString();
  }

  /** Runs every statement as the admin in one transaction; on failure rolls back and names the statement. */
  public void apply(Connection admin) throws SQLException {
    boolean autoCommit = admin.getAutoCommit();
    admin.setAutoCommit(false);
    try (Statement s = admin.createStatement()) {
      for (Step step : steps) {
        try {
          s.execute(step.sql());
        } catch (SQLException e) {
          admin.rollback();
          String label = step.label() == null ? step.sql() : step.label();
          throw new SQLException("grant failed (rolled back) at `" + label + "`: " + e.getMessage(), e.getSQLState(), e);
        }
      }
      admin.commit();
    } finally {
      admin.setAutoCommit(autoCommit);
    }
  }

  @Override
  public String toString() {
    return "GrantScript[role=" + role + ", database=" + database + ", schemas=" + schemas + "]";
  }

  private static String dollarTag(String body) {
    String tag = "$grant$";
    for (int i = 1; body.contains(tag); i++) tag = "$grant" + i + "$";
    return tag;
  }

  /** A comment stays one line whatever names it quotes (a quoted identifier may hold a newline). */
  private static String oneLine(String text) {
    return text.replace("\n", "\\n").replace("\r", "\\r");
  }

  /**
   * A connection for {@code sql-agent grant}: the admin's, to read the catalogue and run the script, or the new
   * role's, to prove it. Neither reads a relation's rows.
   */
  public static java.sql.Connection connect(dev.sqlagent.db.PgUrl url, String who) throws java.sql.SQLException {
    try {
      return url.connect("sql-agent-grant");
    } catch (java.sql.SQLException e) {
      throw new java.sql.SQLException("cannot connect to " + url.host() + ":" + url.port() + "/" + url.database() + " as "
          + who + ": " + e.getMessage(), e.getSQLState(), e);
    }
  }
}

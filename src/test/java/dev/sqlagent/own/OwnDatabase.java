package dev.sqlagent.own;

import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;

/**
 * "Your own database": a user's database that is not the demo, built as admin on the test server under a
 * unique name ({@code own_<random>}), with what real databases have and the demo does not:
 *
 * <ul>
 *   <li>schemas {@code public}, {@code sales}, mixed-case {@code "Reporting"}, and {@code hr} (never granted);
 *   <li>{@code public.customers}: its own columns (not the demo's), 3 rows, a COMMENT on it and a column;
 *   <li>{@code sales.orders}: PARTITIONED by range on {@code order_date} (partitions 2024 and 2025, both with
 *       rows), a composite primary key (order_id, order_date), a foreign key to customers, and a column of the
 *       enum {@code sales.order_status};
 *   <li>{@code sales."LineItems"}: mixed-case name, a column {@code "UnitPrice"} of the domain
 *       {@code public.positive_amount} (numeric(10,2) CHECK (VALUE &gt; 0)), a three-column primary key and a
 *       composite foreign key (order_id, order_date) to the partitioned orders;
 *   <li>{@code sales.order_totals}: a view; {@code "Reporting"."MonthlyRevenue"}: a materialized view with
 *       mixed-case name and columns;
 *   <li>{@code hr.salaries}: a table the read-only role is not granted (its schema is outside the grant).
 * </ul>
 *
 * Objects belong to a LOGIN owner role ({@link #ownerUrl()}: a writable URL, as a user's application role would
 * be). The read-only role is made by {@link GrantScript} alone, for schemas public, sales and Reporting.
 * Roles are cluster-wide: each has a unique name and is dropped with the database on close.
 */
final class OwnDatabase implements AutoCloseable {

  /** Gold SQL of questions both the service and the command-line tests ask of this database. */
  static final String COUNT_CUSTOMERS = "SELECT count(*) AS n FROM customers";
  static final String ORDER_ONE_LINES = "SELECT li.product, li.qty, li.\"UnitPrice\" FROM sales.\"LineItems\" li"
      + " WHERE li.order_id = 1 ORDER BY li.line_no";


  static final List<String> GRANTED_SCHEMAS = List.of("public", "sales", "Reporting");

  final String name;
  final String suffix;
  final String owner;
  final String ownerPassword;
  final String ro;
  final String roPassword;
  /** The server's superuser (on its maintenance database): the shared test server, or one a test started. */
  private final PgUrl server;
  /** False for {@link #on}: the same database seen on another server (a standby), which this does not drop. */
  private final boolean owned;
  private final List<String> roles = new ArrayList<>();

  private OwnDatabase(String suffix, PgUrl server, String ownerPassword, String roPassword, boolean owned) {
    this.suffix = suffix;
    this.name = "own_" + suffix;
    this.owner = "own_owner_" + suffix;
    this.ro = "own_reader_" + suffix;
    this.server = server;
    this.ownerPassword = ownerPassword;
    this.roPassword = roPassword;
    this.owned = owned;
  }

  static OwnDatabase create() throws SQLException {
    return create(TestDatabase.get().adminUrl());
  }

  /** The same database, built on the server whose superuser is {@code server}. */
  static OwnDatabase create(PgUrl server) throws SQLException {
    OwnDatabase d = new OwnDatabase(UUID.randomUUID().toString().replace("-", "").substring(0, 10), server,
        GrantScript.generatePassword(), GrantScript.generatePassword(), true);
    try (Connection c = server.withDatabase("postgres").connect("sql-agent-test"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + d.name);
      s.execute("CREATE ROLE " + d.owner + " LOGIN PASSWORD '" + d.ownerPassword + "'");
    }
    d.roles.add(d.owner);
    d.roles.add(d.ro);
    d.exec(
        "GRANT CONNECT, CREATE ON DATABASE " + d.name + " TO " + d.owner,
        "ALTER SCHEMA public OWNER TO " + d.owner,
        "CREATE SCHEMA sales AUTHORIZATION " + d.owner,
        "CREATE SCHEMA \"Reporting\" AUTHORIZATION " + d.owner,
        "CREATE SCHEMA hr AUTHORIZATION " + d.owner,
        "SET ROLE " + d.owner,
        "CREATE DOMAIN public.positive_amount AS numeric(10,2) CHECK (VALUE > 0)",
        "CREATE TYPE sales.order_status AS ENUM ('pending', 'shipped', 'cancelled')",
        "CREATE TABLE public.customers (customer_no int PRIMARY KEY, display_name text NOT NULL, country_code char(2))",
        "COMMENT ON TABLE public.customers IS 'People and firms who buy from us'",
        "COMMENT ON COLUMN public.customers.country_code IS 'ISO 3166 alpha-2 country of the billing address'",
        "INSERT INTO public.customers VALUES (1, 'Ada Lovelace', 'GB'), (2, 'Grace Hopper', 'US'), (3, 'Linus Torvalds', 'FI')",
        "CREATE TABLE sales.orders (order_id int, order_date date, customer_no int NOT NULL REFERENCES public.customers,"
            + " status sales.order_status NOT NULL, PRIMARY KEY (order_id, order_date)) PARTITION BY RANGE (order_date)",
        "CREATE TABLE sales.orders_2024 PARTITION OF sales.orders FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
        "CREATE TABLE sales.orders_2025 PARTITION OF sales.orders FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')",
        "COMMENT ON TABLE sales.orders IS 'One row per order, partitioned by year'",
        "COMMENT ON COLUMN sales.orders.status IS 'Where the order is in its life'",
        "INSERT INTO sales.orders VALUES (1, '2024-11-05', 1, 'shipped'), (2, '2024-12-20', 2, 'cancelled'),"
            + " (3, '2025-01-15', 1, 'shipped'), (4, '2025-02-02', 3, 'pending'), (5, '2025-02-14', 2, 'shipped')",
        "CREATE TABLE sales.\"LineItems\" (order_id int, order_date date, line_no int, product text NOT NULL,"
            + " qty int NOT NULL, \"UnitPrice\" public.positive_amount NOT NULL, PRIMARY KEY (order_id, order_date, line_no),"
            + " FOREIGN KEY (order_id, order_date) REFERENCES sales.orders (order_id, order_date))",
        "COMMENT ON TABLE sales.\"LineItems\" IS 'The lines of an order'",
        "COMMENT ON COLUMN sales.\"LineItems\".\"UnitPrice\" IS 'Price of one unit, in euros'",
        "INSERT INTO sales.\"LineItems\" VALUES (1, '2024-11-05', 1, 'Analytical Engine', 1, 1200.00),"
            + " (1, '2024-11-05', 2, 'Punched cards', 100, 0.50), (2, '2024-12-20', 1, 'Compiler', 1, 300.00),"
            + " (3, '2025-01-15', 1, 'Punched cards', 40, 0.50), (4, '2025-02-02', 1, 'Kernel', 2, 99.99),"
            + " (5, '2025-02-14', 1, 'Compiler', 3, 250.00)",
        "CREATE VIEW sales.order_totals AS SELECT o.order_id, o.order_date, o.status, sum(li.qty * li.\"UnitPrice\") AS total"
            + " FROM sales.orders o JOIN sales.\"LineItems\" li ON li.order_id = o.order_id AND li.order_date = o.order_date"
            + " GROUP BY o.order_id, o.order_date, o.status",
        "COMMENT ON VIEW sales.order_totals IS 'Order value: the sum of its lines'",
        "CREATE MATERIALIZED VIEW \"Reporting\".\"MonthlyRevenue\" AS SELECT date_trunc('month', order_date)::date AS \"Month\","
            + " sum(total) AS \"Revenue\" FROM sales.order_totals WHERE status <> 'cancelled' GROUP BY 1",
        "COMMENT ON MATERIALIZED VIEW \"Reporting\".\"MonthlyRevenue\" IS 'Revenue per month, cancelled orders excluded'",
        "CREATE TABLE hr.salaries (employee text PRIMARY KEY, amount numeric(10,2) NOT NULL)",
        "INSERT INTO hr.salaries VALUES ('Ada', 5000), ('Grace', 6000)",
        "RESET ROLE",
        "ANALYZE");
    try (Connection c = d.admin()) {
      GrantScript.build(c, d.ro, GRANTED_SCHEMAS, d.roPassword).apply(c);
    }
    return d;
  }

  /** Superuser connection to this database. */
  /**
   * More people and spending, for value links: names of customers, staff (mixed-case sales."Staff") and suppliers
   * that share words ('Suresh Kulkarni' the customer, 'Suresh Bhosale' the staff member, 'Kulkarni Builders' the
   * supplier), and tables about spending that resemble a question about money more than {@code customers} does.
   * Granted to the read-only role.
   */
  void addPeopleAndSpending() throws SQLException {
    exec(
        "SET ROLE " + owner,
        "INSERT INTO public.customers VALUES (10, 'Pooja Patil', 'IN'), (11, 'Suresh Kulkarni', 'IN'), (12, 'Meera Nair', 'IN'),"
            + " (13, 'Tomasz Wojcik', 'PL'), (14, 'Ingrid Halvorsen', 'NO'), (15, 'Oluwaseun Adeyemi', 'NG')",
        "CREATE TABLE sales.\"Staff\" (staff_id int PRIMARY KEY, \"StaffName\" text NOT NULL, desk text)",
        "INSERT INTO sales.\"Staff\" VALUES (1, 'Suresh Bhosale', 'north'), (2, 'Meena Joshi', 'south'),"
            + " (3, 'Ravi Menon', 'north'), (4, 'Kavya Reddy', 'east'), (5, 'Farah Khan', 'west'), (6, 'Arjun Mehta', 'east')",
        "CREATE TABLE public.suppliers (supplier_id int PRIMARY KEY, supplier_name text NOT NULL)",
        "INSERT INTO public.suppliers VALUES (1, 'Kulkarni Builders'), (2, 'Shree Traders'), (3, 'Orion Components'),"
            + " (4, 'Bluewater Logistics'), (5, 'Nimbus Paper Company'), (6, 'Crescent Metals')",
        "CREATE TABLE public.\"Expenses\" (expense_id int PRIMARY KEY, category text, amount numeric(10,2), spent_on date)",
        "INSERT INTO public.\"Expenses\" VALUES (1, 'Office Rent', 900, '2025-01-01'), (2, 'Cloud Hosting', 120, '2025-01-03'),"
            + " (3, 'Conference Travel', 400, '2025-02-01')",
        "COMMENT ON TABLE public.\"Expenses\" IS 'Money we spent: every expense in total'",
        "CREATE TABLE sales.payments (payment_id int PRIMARY KEY, order_id int, amount numeric(10,2), paid_at date, method text)",
        "INSERT INTO sales.payments VALUES (1, 1, 1250, '2024-11-06', 'Wire Transfer'), (2, 3, 20, '2025-01-16', 'Credit Card'),"
            + " (3, 5, 750, '2025-02-15', 'Bank Cheque')",
        "COMMENT ON TABLE sales.payments IS 'How much was paid, and how'",
        "CREATE TABLE sales.refunds (refund_id int PRIMARY KEY, order_id int, amount numeric(10,2), reason text)",
        "CREATE TABLE sales.invoices (invoice_no int PRIMARY KEY, total numeric(10,2), issued date)",
        "COMMENT ON TABLE sales.invoices IS 'Invoices sent: the total spent on each'",
        "CREATE TABLE \"Reporting\".\"SpendByMonth\" (\"Month\" date, \"TotalSpent\" numeric(12,2))",
        "COMMENT ON TABLE \"Reporting\".\"SpendByMonth\" IS 'How much was spent in total, per month'",
        "CREATE TABLE sales.budgets (budget_id int PRIMARY KEY, year int, amount numeric(12,2))",
        "RESET ROLE",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public, sales, \"Reporting\" TO " + ro,
        "ANALYZE");
  }

  Connection admin() throws SQLException {
    return adminUrl().connect("sql-agent-test");
  }

  /** This database as a replica of its server shows it: the same names, roles and passwords on {@code otherServer}. */
  OwnDatabase on(PgUrl otherServer) {
    return new OwnDatabase(suffix, otherServer, ownerPassword, roPassword, false);
  }

  /** The read-only role's URL (what a user sets as SQLAGENT_DB_URL). */
  PgUrl roUrl() {
    return server.withDatabase(name).withUser(ro, roPassword);
  }

  /** The owner's URL: it owns every object here, so it can write. */
  PgUrl ownerUrl() {
    return server.withDatabase(name).withUser(owner, ownerPassword);
  }

  /** The server's superuser on this database. */
  PgUrl adminUrl() {
    return server.withDatabase(name);
  }

  /** A unique role name with this tag, dropped on close. */
  String roleName(String tag) {
    String r = "own_" + tag + "_" + suffix;
    roles.add(r);
    return r;
  }

  /**
   * The environment of a user pointing sql-agent at this database: the target as {@code target}, the test
   * server's state store and home, any free HTTP port, deterministic answers; then {@code overrides}.
   */
  Map<String, String> env(PgUrl target, Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(TestDatabase.get().env(Map.of()));
    env.put("SQLAGENT_DB_URL", target.withSecret());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.putAll(overrides);
    return env;
  }

  AppConfig config(PgUrl target, Map<String, String> overrides) {
    return AppConfig.load(env(target, overrides));
  }

  void exec(String... sql) throws SQLException {
    try (Connection c = admin(); Statement s = c.createStatement()) {
      for (String q : sql) s.execute(q);
    }
  }

  // ---- the fingerprint ----

  /** The sections of the fingerprint: name and the query whose rows are its lines (as admin, in this database). */
  private static final String USER_NS = "n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')";
  private static final String REL = "format('%I.%I', n.nspname, c.relname)";

  private static final Map<String, String> SECTIONS = new java.util.LinkedHashMap<>();

  static {
    // Schemas (temporary ones too: a proof that made a temp table would show here), owners, ACLs, comments.
    SECTIONS.put("schema", "SELECT quote_ident(n.nspname), pg_get_userbyid(n.nspowner), obj_description(n.oid, 'pg_namespace')"
        + " FROM pg_namespace n WHERE " + USER_NS);
    SECTIONS.put("schema_acl", "SELECT quote_ident(n.nspname), a.grantee::regrole::text, a.privilege_type, a.grantor::regrole::text,"
        + " a.is_grantable FROM pg_namespace n, aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) a WHERE " + USER_NS);
    // Every relation of every kind (partitions, indexes, sequences, toast-less), owner, comment, definition.
    SECTIONS.put("relation", "SELECT " + REL + ", c.relkind, pg_get_userbyid(c.relowner), c.relispartition,"
        + " pg_get_expr(c.relpartbound, c.oid), c.relpersistence, c.relrowsecurity, obj_description(c.oid, 'pg_class'),"
        + " CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END, c.relispopulated"
        + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE " + USER_NS);
    SECTIONS.put("relation_acl", "SELECT " + REL + ", a.grantee::regrole::text, a.privilege_type, a.grantor::regrole::text,"
        + " a.is_grantable FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,"
        + " aclexplode(coalesce(c.relacl, acldefault((CASE WHEN c.relkind = 'S' THEN 's' ELSE 'r' END)::\"char\", c.relowner))) a"
        + " WHERE " + USER_NS);
    SECTIONS.put("column", "SELECT " + REL + ", a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
        + " pg_get_expr(d.adbin, d.adrelid), col_description(c.oid, a.attnum), a.attacl::text"
        + " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
        + " LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
        + " WHERE a.attnum > 0 AND NOT a.attisdropped AND " + USER_NS);
    SECTIONS.put("constraint", "SELECT CASE WHEN c.oid IS NULL THEN '-' ELSE " + REL + " END, con.conname, con.contype, pg_get_constraintdef(con.oid),"
        + " format_type(con.contypid, NULL) FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace"
        + " LEFT JOIN pg_class c ON c.oid = con.conrelid WHERE " + USER_NS);
    SECTIONS.put("index", "SELECT schemaname, tablename, indexname, indexdef FROM pg_indexes"
        + " WHERE schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')");
    SECTIONS.put("trigger", "SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger");
    SECTIONS.put("policy", "SELECT polrelid::regclass::text, polname, polcmd, pg_get_expr(polqual, polrelid) FROM pg_policy");
    // Types: enums with labels, domains with base and checks, composites; owner and ACL.
    SECTIONS.put("type", "SELECT format('%I.%I', n.nspname, t.typname), t.typtype, pg_get_userbyid(t.typowner),"
        + " format_type(t.typbasetype, t.typtypmod), t.typnotnull,"
        + " (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid),"
        + " t.typacl::text FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE " + USER_NS);
    SECTIONS.put("function", "SELECT p.oid::regprocedure::text, pg_get_userbyid(p.proowner), p.prokind, md5(p.prosrc),"
        + " p.proacl::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE " + USER_NS);
    SECTIONS.put("extension", "SELECT extname, extversion FROM pg_extension");
    // The database: owner, ACL; default privileges; per-role settings.
    SECTIONS.put("database", "SELECT datname, pg_get_userbyid(datdba), datallowconn, datconnlimit FROM pg_database"
        + " WHERE datname = current_database()");
    SECTIONS.put("database_acl", "SELECT d.datname, a.grantee::regrole::text, a.privilege_type, a.grantor::regrole::text,"
        + " a.is_grantable FROM pg_database d, aclexplode(coalesce(d.datacl, acldefault('d', d.datdba))) a"
        + " WHERE d.datname = current_database()");
    SECTIONS.put("default_acl", "SELECT d.defaclrole::regrole::text, coalesce(n.nspname, '-'), d.defaclobjtype,"
        + " a.grantee::regrole::text, a.privilege_type FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace,"
        + " aclexplode(d.defaclacl) a");
    // Every role of the server, attributes and memberships, and per-role settings.
    SECTIONS.put("role", "SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication,"
        + " rolbypassrls, rolconnlimit, rolvaliduntil FROM pg_roles");
    SECTIONS.put("role_setting", "SELECT coalesce(s.setrole::regrole::text, '-'), coalesce(d.datname, '-'), array_to_string(s.setconfig, ',')"
        + " FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase");
    SECTIONS.put("membership", "SELECT m.roleid::regrole::text, m.member::regrole::text, m.grantor::regrole::text, m.admin_option"
        + " FROM pg_auth_members m");
  }

  /**
   * The target as sorted lines "section | values": the catalogue (schemas, relations of every kind with kind,
   * owner, comment and definition, their ACLs exploded, columns, constraints, indexes, triggers, policies,
   * types with enum labels and domain bases, functions, extensions), the database and its ACL, default
   * privileges, every role on the server with its attributes, settings and memberships, and an md5 of every
   * table's and materialized view's rows (partitions and the partitioned parent both).
   */
  TreeSet<String> fingerprint() throws SQLException {
    TreeSet<String> lines = new TreeSet<>();
    try (Connection c = admin(); Statement s = c.createStatement()) {
      for (Map.Entry<String, String> section : SECTIONS.entrySet()) {
        try (ResultSet rs = s.executeQuery(section.getValue())) {
          ResultSetMetaData md = rs.getMetaData();
          while (rs.next()) {
            StringBuilder b = new StringBuilder(section.getKey());
            for (int i = 1; i <= md.getColumnCount(); i++) b.append(" | ").append(rs.getString(i));
            lines.add(b.toString());
          }
        }
      }
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = s.executeQuery("SELECT " + REL + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
          + " WHERE c.relkind IN ('r', 'p', 'm') AND " + USER_NS + " AND n.nspname NOT LIKE 'pg\\_temp\\_%'")) {
        while (rs.next()) tables.add(rs.getString(1));
      }
      for (String t : tables) {
        try (ResultSet rs = s.executeQuery("SELECT count(*), md5(coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), ''))"
            + " FROM " + t + " x")) {
          rs.next();
          lines.add("rows | " + t + " | " + rs.getLong(1) + " | " + rs.getString(2));
        }
      }
    }
    return lines;
  }

  /** Fails, naming the lines that went or changed and the lines that appeared, unless the fingerprint is {@code before}. */
  void assertUnchanged(TreeSet<String> before) throws SQLException {
    TreeSet<String> after = fingerprint();
    TreeSet<String> gone = new TreeSet<>(before);
    gone.removeAll(after);
    TreeSet<String> added = new TreeSet<>(after);
    added.removeAll(before);
    org.assertj.core.api.Assertions.assertThat(gone).as("lines of the target's fingerprint that changed or went away"
        + " (new: %s)", added).isEmpty();
    org.assertj.core.api.Assertions.assertThat(added).as("lines new in the target's fingerprint").isEmpty();
  }

  @Override
  public void close() throws SQLException {
    if (!owned) return;
    try (Connection c = server.withDatabase("postgres").connect("sql-agent-test"); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      SQLException first = null;
      for (int i = roles.size() - 1; i >= 0; i--) {
        try {
          s.execute("DROP ROLE IF EXISTS " + roles.get(i));
        } catch (SQLException e) {
          if (first == null) first = e;
        }
      }
      if (first != null) throw first;
    }
  }
}

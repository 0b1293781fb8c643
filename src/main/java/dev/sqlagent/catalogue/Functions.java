package dev.sqlagent.catalogue;

import dev.sqlagent.db.Identifiers;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the target's catalogue says about the functions a query could reach, read as the agent role at every
 * discovery: every function outside the core (an OID past initdb's), which of them are <em>escape-capable</em>
 * (they can act outside the read-only transaction, so rolling it back undoes nothing), the operators, casts and
 * domains that run such functions, and the relations whose views or row-level policies call them.
 *
 * <p>Escape-capable, as DESIGN.md defines it:
 * <ul>
 *   <li>every function of an extension that opens its own connections or runs work elsewhere
 *       ({@link #ESCAPE_EXTENSIONS}: dblink, postgres_fdw, pg_background, http, ...);
 *   <li>a function in an untrusted language (plpython3u, plperlu, pltclu, ...): it can reach the network,
 *       files and programs;
 *   <li>a C (or {@code internal}) function outside the core and the {@link #VETTED_EXTENSIONS}: it can do anything
 *       the server process can, and an {@code internal} one can be any built-in under another name;
 *   <li>a {@code SECURITY DEFINER} function whose owner can reach one of those (its body is opaque, so being able
 *       to is enough): the owner may EXECUTE an escape-capable function, or is a superuser or a member of
 *       {@code pg_execute_server_program} / {@code pg_write_server_files} ({@code COPY ... TO PROGRAM} and
 *       {@code COPY ... TO 'file'} run inside a read-only transaction).
 * </ul>
 * Functions of the vetted extensions are neither escape-capable nor "user functions": a query may call them.
 *
 * <p>The same SQL serves the read-only proof (over JDBC, at start) and discovery (reactive, for the gate), so
 * both judge a function alike.
 */
public final class Functions {

  /** Extensions whose functions open connections, reach other servers or schedule work outside the transaction. */
  public static final List<String> ESCAPE_EXTENSIONS = List.of("dblink", "postgres_fdw", "pg_background", "http",
      "pg_net", "pg_cron", "pgagent", "aws_lambda", "aws_s3", "aws_commons", "adminpack", "file_fdw", "log_fdw",
      "mysql_fdw", "oracle_fdw", "tds_fdw", "mongo_fdw", "multicorn", "plproxy");

  /**
   * Extensions whose functions compute values and nothing else: no connections, no files, no background work (the
   * few of their functions that reset shared state are on the gate's deny list by name, as
   * {@code pg_stat_statements_reset}).
   */
  public static final List<String> VETTED_EXTENSIONS = List.of("plpgsql", "pg_trgm", "fuzzystrmatch", "unaccent",
      "citext", "hstore", "ltree", "cube", "earthdistance", "postgis", "postgis_raster", "postgis_sfcgal",
      "postgis_topology", "address_standardizer", "pgcrypto", "uuid-ossp", "pg_stat_statements", "btree_gin",
      "btree_gist", "intarray", "isn", "seg", "tablefunc", "tsm_system_rows", "tsm_system_time", "intagg",
      "dict_int", "dict_xsyn", "bloom", "vector", "pgrowlocks", "pgstattuple", "pg_buffercache", "pg_visibility",
      "pg_freespacemap", "amcheck", "sslinfo", "hypopg", "lo", "rum", "pg_similarity");

  public static final Functions NONE = new Functions(List.of(), List.of(), Set.of(), Map.of(), List.of(), List.of());

  private final List<Fn> functions;
  private final List<Op> operators;
  /** The core's operator symbols, a prefix one marked with a leading space. */
  private final Set<String> coreOperators;
  private final Map<String, List<Arity>> coreFunctions;
  private final List<TypeUse> types;
  private final List<RelationCall> relationCalls;
  private final Map<String, List<Fn>> byName = new HashMap<>();
  private final Map<Long, Fn> byOid = new HashMap<>();
  /** Relations whose view or policies call an escape-capable or deny-listed function: schema.relname to why. */
  private final Map<String, String> unsafeRelations = new HashMap<>();
  /** Whether the role may execute an escape-capable function: then any user function's body could call it. */
  private final boolean escapesReachable;
  /** Lower-case names of the functions outside the core and the vetted extensions. */
  private final Set<String> userNames = new HashSet<>();

  public Functions(List<Fn> functions, List<Op> operators, Set<String> coreOperators,
                   Map<String, List<Arity>> coreFunctions, List<TypeUse> types, List<RelationCall> relationCalls) {
    this.functions = List.copyOf(functions);
    this.operators = List.copyOf(operators);
    this.coreOperators = Set.copyOf(coreOperators);
    this.coreFunctions = Map.copyOf(coreFunctions);
    this.types = List.copyOf(types);
    this.relationCalls = List.copyOf(relationCalls);
    for (Fn f : this.functions) {
      byName.computeIfAbsent(f.name(), k -> new ArrayList<>()).add(f);
      byOid.put(f.oid(), f);
      if (!f.vetted()) userNames.add(f.name().toLowerCase(Locale.ROOT));
    }
    Fn reachable = this.functions.stream().filter(f -> f.escapeCapable() && f.executable()).findFirst().orElse(null);
    this.escapesReachable = reachable != null;
    for (RelationCall call : this.relationCalls) {
      String key = call.schema() + "." + call.relname();
      if (unsafeRelations.containsKey(key)) continue;
      Fn fn = byOid.get(call.function());
      // A default runs only when a row is inserted, which never happens here: only an escape-capable one is named.
      if (call.kind().equals("d") && (fn == null || !fn.escapeCapable())) continue;
      if (fn != null && fn.escapeCapable()) {
        unsafeRelations.put(key, call.describe() + " calls " + fn.signature() + ", which can act outside the read-only "
            + "transaction (" + fn.escape() + ")");
      } else if (fn != null && reachable != null && opaque(fn)) {
        // The role may execute an escape-capable function (a writable role, allowed to run): any user function's body
        // could call it as this role, so no view or policy that runs one is read.
        unsafeRelations.put(key, call.describe() + " calls the user function " + fn.signature() + ", whose body could "
            + "call " + reachable.signature() + " as this role, which may execute it and it can act outside the read-only "
            + "transaction (" + reachable.escape() + ")");
      } else if (fn == null && call.functionSchema().equals("pg_catalog")) {
        DenyList.reason(call.functionName()).ifPresent(why -> unsafeRelations.put(key, call.describe() + " calls "
            + call.functionName() + ", which may not be called: " + why));
      }
    }
  }

  /**
   * Why the relation may not be read, if its view definition or row-level policies call an escape-capable or
   * deny-listed function: reading it would run that function. Nothing reads such a relation: not the gate, not the
   * sample rows, not the stored values.
   */
  public Optional<String> unsafe(String schema, String relname) {
    return Optional.ofNullable(unsafeRelations.get(schema + "." + relname));
  }

  public List<Fn> functions() {
    return functions;
  }

  public List<Op> operators() {
    return operators;
  }

  /** Whether the core has an operator with this symbol in this form (prefix or infix). */
  public boolean coreOperator(String symbol, boolean prefix) {
    return coreOperators.contains(prefix ? " " + symbol : symbol);
  }

  /** The core functions' arities by name. */
  public List<Arity> coreArities(String name) {
    return coreFunctions.getOrDefault(name, List.of());
  }

  public List<TypeUse> types() {
    return types;
  }

  public List<RelationCall> relationCalls() {
    return relationCalls;
  }

  /**
   * One function outside the core.
   *
   * @param signature {@code schema.name(argument types)} as PostgreSQL prints it, quoted where needed: what a
   *     REVOKE names
   * @param escape why it can act outside the read-only transaction, or null when it cannot
   * @param executable whether the role (or a role it belongs to, PUBLIC included) may EXECUTE it
   * @param grantedTo who holds EXECUTE on the role's behalf: PUBLIC and the roles it belongs to, or null
   * @param onPath whether its schema is on the role's search path (a bare name can find it)
   * @param body a SQL function's body (null for other languages)
   */
  public record Fn(long oid, String schema, String name, String signature, String kind, String volatility, int nargs,
                   int ndefaults, boolean variadic, String extension, String language, boolean securityDefiner,
                   String escape, boolean executable, String grantedTo, boolean onPath, String body) {
    public Fn(long oid, String schema, String name, String signature, String kind, String volatility, int nargs,
              int ndefaults, boolean variadic, String extension, String language, boolean securityDefiner,
              String escape, boolean executable, String grantedTo, boolean onPath) {
      this(oid, schema, name, signature, kind, volatility, nargs, ndefaults, variadic, extension, language,
          securityDefiner, escape, executable, grantedTo, onPath, null);
    }

    public boolean vetted() {
      return extension != null && VETTED_EXTENSIONS.contains(extension);
    }

    public boolean escapeCapable() {
      return escape != null;
    }

    /** Whether a call with {@code args} arguments could resolve to it (defaults and VARIADIC considered). */
    public boolean accepts(int args) {
      return Arity.accepts(nargs, ndefaults, variadic, args);
    }

    public String qualifiedName() {
      return schema + "." + name;
    }

    /** The statements that take EXECUTE away from everyone the role reaches it through. */
    public List<String> revokes() {
      List<String> out = new ArrayList<>();
      if (grantedTo == null) return out;
      for (String grantee : grantedTo.split(", ")) out.add(revoke(grantee));
      return out;
    }

    /** Whether PUBLIC holds EXECUTE on it (as the role that read the catalogue sees its grants). */
    public boolean publicExecute() {
      return grantedTo != null && List.of(grantedTo.split(", ")).contains("PUBLIC");
    }

    /** The statement that takes EXECUTE on it away from {@code grantee}. */
    public String revoke(String grantee) {
      // ROUTINE names an aggregate or a procedure too; FUNCTION would refuse them.
      String what = kind.equals("f") || kind.equals("w") ? "FUNCTION " : "ROUTINE ";
      return "REVOKE EXECUTE ON " + what + signature + " FROM " + grantee + ";";
    }
  }

  /** How many arguments a core function takes: the rule a call's argument count must meet to resolve to it. */
  public record Arity(int nargs, int ndefaults, boolean variadic) {
    public boolean accepts(int args) {
      return accepts(nargs, ndefaults, variadic, args);
    }

    static boolean accepts(int nargs, int ndefaults, boolean variadic, int args) {
      if (args < 0) return true;
      if (args >= nargs - ndefaults && args <= nargs) return true;
      // VARIADIC: the last parameter takes any number of arguments (none, when it has a default or is VARIADIC "any").
      return variadic && args >= nargs - 1;
    }
  }

  /** An operator whose function is outside the core. */
  public record Op(String symbol, String schema, boolean prefix, long function, boolean onPath) {}

  /** A type that runs a function outside the core when a value is cast to it (a cast's function, a domain's CHECK). */
  public record TypeUse(String schema, String name, boolean onPath, long function) {}

  /** A relation whose view definition or row-level policy calls a function (directly or through what it uses). */
  public record RelationCall(String schema, String relname, String kind, long function, String functionSchema,
                             String functionName) {
    /** "The view sales.v", "The row-level security policy of t", quoted as SQL needs. */
    String describe() {
      String name = Identifiers.name(schema) + "." + Identifiers.name(relname);
      return switch (kind) {
        case "v" -> "The view " + name;
        case "m" -> "The materialized view " + name;
        case "g" -> "A generated column of " + name;
        case "d" -> "A column default of " + name;
        default -> "The row-level security policy of " + name;
      };
    }

  }

  // ---- the queries: the same text over JDBC (the proof) and the reactive client (discovery) ----

  private static String list(List<String> names) {
    StringBuilder b = new StringBuilder("ARRAY[");
    for (int i = 0; i < names.size(); i++) b.append(i == 0 ? "" : ", ").append('\'').append(names.get(i)).append('\'');
    return b.append("]::text[]").toString();
  }

  /** Roles whose members can write files or run programs from inside a read-only transaction. */
  private static final String POWERFUL_OWNER = "(SELECT r.rolsuper OR pg_has_role(r.oid, 'pg_execute_server_program', 'MEMBER')"
      + " OR pg_has_role(r.oid, 'pg_write_server_files', 'MEMBER') FROM pg_roles r WHERE r.oid = f.proowner)";

  /**
   * Every function outside the core, classified. Columns: oid, schema, name, signature, kind, volatility, nargs,
   * ndefaults, variadic, extension, language, secdef, escape, executable, granted_to, on_path, body (SQL functions').
   */
  public static final String FUNCTIONS_SQL = """
      WITH RECURSIVE fn AS (
        SELECT p.oid, p.proowner, p.proacl, p.proargtypes AS argtypes, p.prosrc AS body, n.nspname::text AS schema, p.proname::text AS name, p.prokind::text AS kind,
               p.prosecdef AS secdef, p.provolatile::text AS volatility, p.pronargs::int AS nargs,
               p.pronargdefaults::int AS ndefaults, p.provariadic <> 0 AS variadic, l.lanname::text AS language,
               l.lanpltrusted AS trusted_language, coalesce(e.extname::text, b.extname) AS extension,
               coalesce(coalesce(e.extname::text, b.extname) = ANY (%2$s), false) AS vetted
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
        LEFT JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
             AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
        LEFT JOIN pg_extension e ON e.oid = d.refobjid
        -- A C function declared over a vetted extension's own library and symbol is that extension's function
        -- under another name (MusicBrainz's immutable_unaccent is unaccent's unaccent_dict).
        LEFT JOIN LATERAL (SELECT e2.extname::text AS extname FROM pg_proc q
             JOIN pg_depend d2 ON d2.classid = 'pg_proc'::regclass AND d2.objid = q.oid
               AND d2.refclassid = 'pg_extension'::regclass AND d2.deptype = 'e'
             JOIN pg_extension e2 ON e2.oid = d2.refobjid
             WHERE e.oid IS NULL AND l.lanname = 'c' AND q.oid <> p.oid AND q.prolang = p.prolang
               AND q.probin = p.probin AND q.prosrc = p.prosrc AND e2.extname = ANY (%2$s)
             LIMIT 1) b ON true
        WHERE p.oid >= 16384
      ),
      base AS (
        SELECT f.oid, CASE
          WHEN f.extension = ANY (%1$s)
            THEN 'a function of extension ' || f.extension || ', which opens connections or runs work outside the transaction'
          WHEN f.vetted OR f.kind = 'a' THEN NULL
          WHEN NOT f.trusted_language AND f.language NOT IN ('c', 'internal')
            THEN 'written in the untrusted language ' || f.language || ', which reaches files, programs and the network'
          WHEN f.language IN ('c', 'internal')
            THEN 'a ' || CASE f.language WHEN 'c' THEN 'C' ELSE 'internal' END || ' function outside the core'
                 || coalesce(' (extension ' || f.extension || ')', '') || ', which can do anything the server process can'
          WHEN f.secdef AND %3$s
            THEN 'SECURITY DEFINER, and its owner ' || quote_ident(pg_get_userbyid(f.proowner))
                 || ' may write server files or run programs (COPY ... TO PROGRAM runs in a read-only transaction)'
          END AS why
        FROM fn f
      ),
      esc(oid) AS (
        SELECT oid FROM base WHERE why IS NOT NULL
        UNION
        SELECT f.oid FROM esc e JOIN fn f ON NOT f.vetted AND f.oid <> e.oid
          AND ((f.secdef AND has_function_privilege(f.proowner, e.oid, 'EXECUTE'))
               OR (f.kind = 'a' AND e.oid IN (SELECT unnest(ARRAY[a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
                     a.aggserialfn, a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn]::oid[])
                   FROM pg_aggregate a WHERE a.aggfnoid = f.oid)))
      )
      SELECT f.oid::int8 AS oid, f.schema, f.name,
             quote_ident(f.schema) || '.' || quote_ident(f.name) || '(' || oidvectortypes(f.argtypes) || ')' AS signature,
             f.kind, f.volatility, f.nargs, f.ndefaults, f.variadic, f.extension, f.language, f.secdef,
             CASE WHEN f.oid IN (SELECT oid FROM esc) THEN coalesce(b.why, CASE WHEN f.kind = 'a'
               THEN 'an aggregate whose support functions can act outside the transaction'
               ELSE 'SECURITY DEFINER, and its owner ' || quote_ident(pg_get_userbyid(f.proowner)) || ' may execute '
               || (SELECT min(e.oid::regprocedure::text) FROM esc e
                   WHERE e.oid <> f.oid AND has_function_privilege(f.proowner, e.oid, 'EXECUTE'))
               || ', which can act outside the transaction' END) END AS escape,
             EXISTS (SELECT FROM pg_roles r WHERE pg_has_role(current_user, r.oid, 'MEMBER')
                     AND has_function_privilege(r.oid, f.oid, 'EXECUTE')) AS executable,
             (SELECT string_agg(DISTINCT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END, ', ')
              FROM aclexplode(coalesce(f.proacl, acldefault('f', f.proowner))) a
              WHERE a.privilege_type = 'EXECUTE' AND a.grantee <> f.proowner
                AND (a.grantee = 0 OR pg_has_role(current_user, a.grantee, 'MEMBER'))) AS granted_to,
             f.schema = ANY (current_schemas(true)) AS on_path,
             CASE WHEN f.language = 'sql' THEN f.body END AS body
      FROM fn f JOIN base b ON b.oid = f.oid
      ORDER BY f.schema, f.name, f.oid
      """.formatted(list(ESCAPE_EXTENSIONS), list(VETTED_EXTENSIONS), POWERFUL_OWNER);

  /** Operators whose function is outside the core. Columns: symbol, schema, prefix, function, on_path. */
  public static final String OPERATORS_SQL = "SELECT o.oprname::text AS symbol, n.nspname::text AS schema,"
      + " o.oprleft = 0 AS prefix, o.oprcode::oid::int8 AS function, n.nspname = ANY (current_schemas(true)) AS on_path"
      + " FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace WHERE o.oprcode::oid >= 16384";

  /** The core's operator symbols, each once per form. Columns: symbol, prefix. */
  public static final String CORE_OPERATORS_SQL = "SELECT DISTINCT oprname::text AS symbol, oprleft = 0 AS prefix"
      + " FROM pg_operator WHERE oid < 16384";

  /** The core's function names and arities. Columns: name, nargs, ndefaults, variadic. */
  public static final String CORE_FUNCTIONS_SQL = "SELECT DISTINCT proname::text AS name, pronargs::int AS nargs,"
      + " pronargdefaults::int AS ndefaults, provariadic <> 0 AS variadic FROM pg_proc WHERE oid < 16384";

  /**
   * Types that run a function outside the core when a value is cast to them: a cast's function, a domain's CHECK, an
   * input function; and, through them, domains over such a type, arrays of it and composite types (a table's row
   * type too) with a column of it. Columns: schema, name, on_path, function.
   */
  public static final String TYPES_SQL = """
      WITH RECURSIVE uses(typ, fn) AS (
        SELECT c.casttarget, c.castfunc FROM pg_cast c WHERE c.castfunc >= 16384
        UNION
        SELECT con.contypid, d.refobjid FROM pg_constraint con
          JOIN pg_depend d ON d.classid = 'pg_constraint'::regclass AND d.objid = con.oid
            AND d.refclassid = 'pg_proc'::regclass
          WHERE con.contypid <> 0 AND d.refobjid >= 16384
        UNION
        SELECT t.oid, t.typinput::oid FROM pg_type t WHERE t.typinput::oid >= 16384
        UNION
        SELECT x.typ, u.fn FROM uses u CROSS JOIN LATERAL (
          SELECT t.oid AS typ FROM pg_type t WHERE (t.typtype = 'd' AND t.typbasetype = u.typ) OR t.typelem = u.typ
          UNION ALL
          SELECT t.oid FROM pg_attribute a JOIN pg_type t ON t.typrelid = a.attrelid
            WHERE a.atttypid = u.typ AND a.attnum > 0 AND NOT a.attisdropped
        ) x
      )
      SELECT DISTINCT n.nspname::text AS schema, t.typname::text AS name,
             n.nspname = ANY (current_schemas(true)) AS on_path, u.fn::int8 AS function
      FROM uses u JOIN pg_type t ON t.oid = u.typ JOIN pg_namespace n ON n.oid = t.typnamespace
      """;

  /**
   * For every view and every table with row-level security outside the system schemas, the functions its definition
   * or policies call (a materialized view's ran when it was refreshed: reading it runs nothing),
   * through the views, operators, aggregates, domains and SQL-standard function bodies they use in turn (pg_depend
   * records each). Columns: schema, relname, kind, function, function_schema, function_name.
   */
  public static final String RELATION_CALLS_SQL = """
      WITH RECURSIVE obj(root, via, classid, objid) AS (
        SELECT c.oid, c.relkind::text, 'pg_class'::regclass::oid, c.oid FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%' AND c.relkind IN ('r', 'p', 'v', 'f')
          AND (c.relkind = 'v' OR c.relrowsecurity OR EXISTS (SELECT FROM pg_attrdef ad WHERE ad.adrelid = c.oid))
        UNION
        SELECT o.root, x.via, x.classid, x.objid FROM obj o CROSS JOIN LATERAL (
          SELECT o.via, 'pg_rewrite'::regclass::oid AS classid, w.oid AS objid FROM pg_rewrite w
            JOIN pg_class c ON c.oid = w.ev_class
            WHERE o.classid = 'pg_class'::regclass AND w.ev_class = o.objid AND c.relkind = 'v'
          UNION ALL
          SELECT o.via, 'pg_policy'::regclass::oid, p.oid FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
            WHERE o.classid = 'pg_class'::regclass AND p.polrelid = o.objid AND c.relrowsecurity
          UNION ALL
          SELECT CASE WHEN a.attgenerated <> '' THEN 'g' WHEN o.via IN ('g', 'd') THEN o.via ELSE 'd' END,
                 'pg_attrdef'::regclass::oid, ad.oid FROM pg_attrdef ad
            JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
            WHERE o.classid = 'pg_class'::regclass AND ad.adrelid = o.objid
          UNION ALL
          SELECT o.via, d.refclassid, d.refobjid FROM pg_depend d
            WHERE o.classid IN ('pg_rewrite'::regclass, 'pg_policy'::regclass, 'pg_constraint'::regclass,
                                'pg_attrdef'::regclass)
              AND d.classid = o.classid AND d.objid = o.objid
              AND d.refclassid IN ('pg_class'::regclass, 'pg_proc'::regclass, 'pg_operator'::regclass, 'pg_type'::regclass)
          UNION ALL
          SELECT o.via, 'pg_proc'::regclass::oid, op.oprcode::oid FROM pg_operator op
            WHERE o.classid = 'pg_operator'::regclass AND op.oid = o.objid
          UNION ALL
          SELECT o.via, 'pg_proc'::regclass::oid, s.fn FROM pg_aggregate a, unnest(ARRAY[a.aggtransfn, a.aggfinalfn,
              a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn, a.aggmfinalfn]::oid[]) s(fn)
            WHERE o.classid = 'pg_proc'::regclass AND a.aggfnoid = o.objid AND s.fn <> 0
          UNION ALL
          SELECT o.via, 'pg_proc'::regclass::oid, d.refobjid FROM pg_depend d
            WHERE o.classid = 'pg_proc'::regclass AND d.classid = 'pg_proc'::regclass AND d.objid = o.objid
              AND d.refclassid = 'pg_proc'::regclass
          UNION ALL
          SELECT o.via, 'pg_constraint'::regclass::oid, con.oid FROM pg_constraint con
            WHERE o.classid = 'pg_type'::regclass AND con.contypid = o.objid
        ) x
      )
      SELECT DISTINCT n.nspname::text AS schema, c.relname::text AS relname,
             CASE WHEN o.via IN ('g', 'd') THEN o.via ELSE c.relkind::text END AS kind,
             p.oid::int8 AS function, pn.nspname::text AS function_schema, p.proname::text AS function_name
      FROM obj o JOIN pg_class c ON c.oid = o.root JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_proc p ON p.oid = o.objid JOIN pg_namespace pn ON pn.oid = p.pronamespace
      WHERE o.classid = 'pg_proc'::regclass
      """;

  // ---- reading the rows, from either client ----

  /** A row of one of the queries above, from JDBC or the reactive client. */
  public interface Cols {
    String text(String column);

    long int8(String column);

    boolean bool(String column);
  }

  public static Fn fn(Cols r) {
    return new Fn(r.int8("oid"), r.text("schema"), r.text("name"), r.text("signature"), r.text("kind"),
        r.text("volatility"), (int) r.int8("nargs"), (int) r.int8("ndefaults"), r.bool("variadic"), r.text("extension"),
        r.text("language"), r.bool("secdef"), r.text("escape"), r.bool("executable"), r.text("granted_to"),
        r.bool("on_path"), r.text("body"));
  }

  /** Assembles the rows of the six queries, in the order of their constants. */
  public static Functions of(List<Cols> functions, List<Cols> operators, List<Cols> coreOperators,
                             List<Cols> coreFunctions, List<Cols> types, List<Cols> relationCalls) {
    Set<String> core = new HashSet<>();
    for (Cols r : coreOperators) core.add(r.bool("prefix") ? " " + r.text("symbol") : r.text("symbol"));
    Map<String, List<Arity>> arities = new HashMap<>();
    for (Cols r : coreFunctions) {
      arities.computeIfAbsent(r.text("name"), k -> new ArrayList<>())
          .add(new Arity((int) r.int8("nargs"), (int) r.int8("ndefaults"), r.bool("variadic")));
    }
    return new Functions(functions.stream().map(Functions::fn).toList(),
        operators.stream().map(r -> new Op(r.text("symbol"), r.text("schema"), r.bool("prefix"), r.int8("function"),
            r.bool("on_path"))).toList(),
        core, arities,
        types.stream().map(r -> new TypeUse(r.text("schema"), r.text("name"), r.bool("on_path"), r.int8("function"))).toList(),
        relationCalls.stream().map(r -> new RelationCall(r.text("schema"), r.text("relname"), r.text("kind"),
            r.int8("function"), r.text("function_schema"), r.text("function_name"))).toList());
  }

  // ---- what the gate asks ----

  /**
   * Whether the role may execute an escape-capable function (it is writable, and was allowed to run): then the body of
   * any user function it calls could call one too, and the gate trusts no user function it cannot see.
   */
  public boolean escapesReachable() {
    return escapesReachable;
  }

  /**
   * Whether calling {@code f} could run an escape-capable function, when the role may execute one: a user function
   * whose body is not SQL (PL/pgSQL can build any call in a string), or a SQL function whose body names a user
   * function or operator. An aggregate is judged by its support functions, a vetted extension's functions never.
   */
  public boolean mayReachEscape(Fn f) {
    if (f.escapeCapable()) return true;
    return escapesReachable && opaque(f);
  }

  private boolean opaque(Fn f) {
    if (f.vetted() || f.kind().equals("a")) return false;
    if (!f.language().equals("sql") || f.body() == null) return true;
    String body = f.body().toLowerCase(Locale.ROOT);
    for (String word : body.split("[^\\p{L}\\p{N}_$]+")) {
      if (userNames.contains(word)) return true;
    }
    for (Op op : operators) {
      if (body.contains(op.symbol())) return true;
    }
    return false;
  }

  /** The escape-capable functions the role may execute: what makes a role writable. */
  public List<Fn> executableEscapes() {
    return functions.stream().filter(f -> f.escapeCapable() && f.executable()).toList();
  }

  public Optional<Fn> byOid(long oid) {
    return Optional.ofNullable(byOid.get(oid));
  }

  /** Lower-cased names of the escape-capable functions: the plan check refuses any of them wherever it appears. */
  public Set<String> escapeNames() {
    Set<String> out = new HashSet<>();
    // Computed once per VisibleSchema; cheap enough not to cache here.
    for (Fn f : functions) {
      if (f.escapeCapable()) out.add(f.name().toLowerCase(Locale.ROOT));
    }
    return out;
  }

  /** Functions outside the core with this (exact, catalogue) name. */
  public List<Fn> named(String name) {
    return byName.getOrDefault(name, List.of());
  }

  /** Up to {@code max} of {@code items}, then "and N more". */
  public static String named(Collection<String> items, int max) {
    List<String> all = new ArrayList<>(items);
    if (all.size() <= max) return String.join("; ", all);
    return String.join("; ", all.subList(0, max)) + "; and " + (all.size() - max) + " more";
  }
}

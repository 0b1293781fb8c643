package dev.sqlagent.cli;

import dev.sqlagent.catalogue.GrantScript;
import dev.sqlagent.catalogue.ReadOnlyProof;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.db.PgUrl;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sql-agent grant [--schemas a,b] [--role NAME] [--apply]}: the SQL that creates a read-only role
 * for the database in {@code SQLAGENT_DB_URL} (whose user is taken to be an admin there). Printed by
 * default, with a freshly generated password so it can be run as it stands; with {@code --apply} run as
 * the admin in one transaction, then proven read-only by connecting as the new role. Exit 0 on success,
 * 1 when a proof fails, 2 when the command could not do its work.
 */
@Command(name = "grant", mixinStandardHelpOptions = true,
    description = "Print (or with --apply run) the SQL that creates a read-only login role for the database in "
        + "SQLAGENT_DB_URL, whose user must be an admin there. It adds one role and its grants, never a table. "
        + "With --apply, then connects as the new role, proves from the catalogue that it cannot write, and prints "
        + "the SQLAGENT_DB_URL to use. Exits 1 if a proof fails.")
public final class GrantCommand implements Callable<Integer> {

  @Option(names = "--schemas", split = ",", paramLabel = "SCHEMA",
      description = "schemas to grant SELECT on, exact names, comma-separated (default: every non-system schema)")
  List<String> schemas;

  @Option(names = "--role", paramLabel = "NAME", defaultValue = GrantScript.DEFAULT_ROLE,
      description = "the role to create or update (default: ${DEFAULT-VALUE})")
  String role;

  @Option(names = "--apply", description = "run the script as the admin, then prove the new role read-only")
  boolean apply;

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> configuration;

  public GrantCommand() {
    this(AppConfig::fromEnvironment);
  }

  /** With the configuration from elsewhere than the process environment (tests). */
  public GrantCommand(Supplier<AppConfig> configuration) {
    this.configuration = configuration;
  }

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      return run(out, err);
    } catch (GrantScript.UnknownSchemaException | SQLException e) {
      return fail(err, e.getMessage());
    } catch (Exception e) {
      return fail(err, Errors.describe(e));
    } finally {
      out.flush();
      err.flush();
    }
  }

  private int run(PrintWriter out, PrintWriter err) throws SQLException {
    AppConfig config = configuration.get();
    if (config.dbUrl().isEmpty()) {
      return fail(err, "grant needs SQLAGENT_DB_URL pointing at an admin of your database, e.g. "
          + "SQLAGENT_DB_URL=postgresql://admin:secret@db-host:5432/mydb sql-agent grant");
    }
    PgUrl url = config.dbUrl().get();
    GrantScript script;
    try (Connection admin = GrantScript.connect(url, "admin " + url.user())) {
      script = GrantScript.build(admin, role, schemas, null);
      if (!apply) {
        out.print(script.text());
        out.println();
        out.println("-- The password above was generated for this script. After running it, point sql-agent at the role:");
        out.println("-- SQLAGENT_DB_URL=" + roleUrl(script, url));
        out.println("-- (or run `sql-agent grant" + (schemas == null || schemas.isEmpty() ? "" : " --schemas " + String.join(",", schemas))
            + (GrantScript.DEFAULT_ROLE.equals(role) ? "" : " --role " + role) + " --apply` to run it now as "
            + url.user() + " and prove the role read-only)");
        return 0;
      }
      script.apply(admin);
    }
    out.println("applied: role " + script.role() + " on database " + script.database() + ", schemas: "
        + String.join(", ", script.schemas()));
    ReadOnlyProof.Report report;
    try (Connection asRole = GrantScript.connect(url.withUser(script.role(), script.password()), "the new role " + script.role())) {
      report = ReadOnlyProof.check(asRole, script.schemas());
    }
    out.println("proofs, as " + report.role() + ":");
    for (ReadOnlyProof.Proof p : report.proofs()) out.println("  " + p);
    for (String w : report.warnings()) out.println("  warning: " + w);
    if (!report.readOnly()) {
      ReadOnlyProof.Proof f = report.firstFailure().orElseThrow();
      err.println("sql-agent grant: the role " + report.role() + " is NOT read-only: proof " + f.name() + " failed: " + f.detail());
      err.println("  grant adds privileges and never takes any away: revoke what the failed proof names "
          + "(from the role, a role it belongs to, or PUBLIC), or choose another role name with --role.");
      return 1;
    }
    out.println("The role is read-only. Use:");
    out.println("SQLAGENT_DB_URL=" + roleUrl(script, url));
    return 0;
  }

  private static int fail(PrintWriter err, String message) {
    err.println("sql-agent grant: " + message);
    return 2;
  }

  /** The new role's URL: the admin's connection (host list, TLS, ...) with the role's name and password. */
  static String roleUrl(GrantScript script, PgUrl admin) {
    return admin.withUser(script.role(), script.password()).withDatabase(script.database()).withSecret();
  }

}

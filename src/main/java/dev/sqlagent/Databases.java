package dev.sqlagent;

import dev.sqlagent.catalogue.ReadOnlyProof;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.db.Credentials;
import dev.sqlagent.db.EmbeddedDatabase;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.db.Target;
import dev.sqlagent.demo.DemoShop;
import dev.sqlagent.state.StateStore;
import java.io.IOException;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two databases the service runs on: the target (the user's database, {@code SQLAGENT_DB_URL}, only ever
 * read) and the state store (everything the service writes). The embedded PostgreSQL under
 * {@code SQLAGENT_HOME} is started whenever one of them needs it: it holds the state store unless
 * {@code SQLAGENT_STATE_URL} is set, and the demo shop when no target is given. Nothing is ever written to a
 * target given by URL. Blocking: called from the command line before any event loop exists.
 */
public final class Databases implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Databases.class);

  private final EmbeddedDatabase embedded;
  private final Target target;
  private final StateStore state;

  private Databases(EmbeddedDatabase embedded, Target target, StateStore state) {
    this.embedded = embedded;
    this.target = target;
    this.state = state;
  }

  /**
   * For the service and every command that answers questions: starts what is needed, prepares the state
   * store, builds the demo on its first start, and proves from the target's catalogue that the agent role
   * cannot write, refusing to go on when it can (unless {@code SQLAGENT_ALLOW_WRITABLE_ROLE=true}).
   */
  public static Databases open(AppConfig config) throws IOException {
    Databases db = open(config, true);
    try {
      db.proveReadOnly(config);
      return db;
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  /**
   * For the admin commands (setup, status, drift): as {@link #open(AppConfig)} but the demo is left as it is
   * (when {@code buildDemo} is false) and the role is not refused here: they report on it instead.
   */
  public static Databases open(AppConfig config, boolean buildDemo) throws IOException {
    Credentials credentials = new Credentials(config.home());
    EmbeddedDatabase embedded = null;
    if (config.dbUrl().isEmpty() || config.stateUrl().isEmpty()) {
      try {
        embedded = EmbeddedDatabase.start(config.home().resolve("pgdata"), config.home().resolve("pgbin"),
            credentials.embeddedAdminPassword());
      } catch (EmbeddedDatabase.InUseException e) {
        throw homeInUse(config);
      }
    }
    try {
      StateStore state;
      if (config.stateUrl().isPresent()) {
        PgUrl url = picked("SQLAGENT_STATE_URL", config.stateUrl().get());
        state = new StateStore(url, credentials.rolesOrCreate(url.serverKey()).log());
      } else {
        state = new StateStore(embedded.adminUrl().withDatabase(StateStore.EMBEDDED_DATABASE),
            credentials.rolesOrCreate("embedded").log());
      }
      Target target;
      if (config.dbUrl().isPresent()) {
        target = new Target(picked("SQLAGENT_DB_URL", config.dbUrl().get()), false, config.transactionPooler());
        if (target.url().sameDatabase(state.owner())) {
          throw new ConfigException("SQLAGENT_STATE_URL names the target database (" + target.url()
              + "): the state store is written, the target never is; give the state store a database of its own");
        }
      } else {
        DemoShop demo = new DemoShop(embedded.adminUrl().withDatabase(DemoShop.DATABASE),
            credentials.rolesOrCreate("embedded").ro());
        if (buildDemo && !demo.isSetUp()) {
          LOG.info("first start: building the demo shop in the embedded PostgreSQL");
          demo.run();
        }
        target = demo.target();
      }
      state.migrate();
      return new Databases(embedded, target, state);
    } catch (IOException | RuntimeException e) {
      if (embedded != null) embedded.close();
      throw e;
    }
  }

  /**
   * A host list is resolved once, at start, as libpq would (the first host that answers and satisfies
   * target_session_attrs): the reactive pools then connect to that one server, as JDBC does.
   */
  private static PgUrl picked(String key, PgUrl url) {
    if (url.endpoints().size() == 1 && url.targetSessionAttrs().equals("any")) return url;
    try {
      PgUrl one = url.pick();
      LOG.info("{}: {} of the host list fits target_session_attrs={}", key, one.serverKey(), url.targetSessionAttrs());
      return one;
    } catch (SQLException e) {
      throw new ConfigException(key + ": " + e.getMessage());
    }
  }

  /** What to do when another sql-agent (usually the service) holds the embedded PostgreSQL of this home. */
  static ConfigException homeInUse(AppConfig config) {
    String host = config.httpHost().equals("0.0.0.0") || config.httpHost().equals("::") ? "localhost" : config.httpHost();
    return new ConfigException("a sql-agent service is already running on SQLAGENT_HOME=" + config.home()
        + " (its embedded PostgreSQL is locked): ask it over HTTP (curl -s " + host + ":" + config.httpPort()
        + "/api/ask -H 'content-type: application/json' -d '{\"question\":\"...\"}'), stop it, "
        + "or use another SQLAGENT_HOME");
  }

  /** The start-up proof: a writable agent role stops the start, with the privilege named and the way out. */
  private void proveReadOnly(AppConfig config) {
    ReadOnlyProof.Report report;
    try {
      report = dev.sqlagent.catalogue.Probes.proof(target, config.schemas(), 0, config::acceptsExecutable);
    } catch (SQLException e) {
      throw new ConfigException("cannot connect to the target " + target.url() + " as " + target.role() + ": "
          + e.getMessage());
    }
    if (!report.unacceptable().isEmpty()) {
      throw new ConfigException("SQLAGENT_ACCEPT_EXECUTABLE names a function of an extension that opens connections or "
          + "runs work outside the transaction: " + String.join("; ", report.unacceptable()));
    }
    report.warnings().forEach(w -> LOG.warn("target {}: {}", target.database(), w));
    if (report.readOnly()) {
      LOG.info("target {} as {} (password: {}; sslmode {}): {} read-only proofs hold", target.url(), report.role(),
          target.url().passwordFrom(), target.url().tls().mode(), report.proofs().size());
      return;
    }
    String refusal = report.refusal().orElse("the agent role can write");
    if (!config.allowWritableRole()) throw new ConfigException(refusal);
    LOG.warn("!!! SQLAGENT_ALLOW_WRITABLE_ROLE=true: running with a role that can write. {} The read-only transaction "
        + "and the gate still apply; /api/health reports read_only_confirmed: false.", refusal);
  }

  public Target target() {
    return target;
  }

  public StateStore state() {
    return state;
  }

  /** The embedded server (null when both databases are given by URL). */
  public EmbeddedDatabase embedded() {
    return embedded;
  }

  /** The demo's builder, for {@code setup}: only when the target is the embedded demo. */
  public DemoShop demo(AppConfig config) throws IOException {
    if (!target.demo()) throw new ConfigException("setup rebuilds the embedded demo only; SQLAGENT_DB_URL is set, "
        + "and a target given by URL is never written (to build the demo elsewhere: sql-agent demo --into URL)");
    return new DemoShop(embedded.adminUrl().withDatabase(DemoShop.DATABASE),
        new Credentials(config.home()).rolesOrCreate("embedded").ro());
  }

  @Override
  public void close() throws IOException {
    if (embedded != null) embedded.close();
  }
}

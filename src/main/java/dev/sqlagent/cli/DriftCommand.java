package dev.sqlagent.cli;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.Databases;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.db.Target;
import dev.sqlagent.drift.Drift;
import dev.sqlagent.drift.SchemaReader;
import dev.sqlagent.drift.SchemaShape;
import dev.sqlagent.drift.SnapshotRepository;
import dev.sqlagent.state.StateDatabase;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sql-agent drift}: the live schema against the snapshot taken when the schema index was built. */
@Command(name = "drift", mixinStandardHelpOptions = true,
    description = "Compare the live schema (what the agent role can read) with the snapshot written when the schema "
        + "index was built. Exit 0: no drift (value-preserving widenings and additions are listed but allowed); "
        + "1: drift (a table or column dropped or renamed, or a type change that changes values); "
        + "2: no snapshot yet, or the database cannot be read.")
public final class DriftCommand implements Callable<Integer> {

  public static final int NO_DRIFT = 0;
  public static final int DRIFTED = 1;
  public static final int NO_SNAPSHOT = 2;

  @Option(names = "--json", description = "print the differences as JSON")
  boolean json;

  @Spec
  CommandSpec spec;

  private final Supplier<AppConfig> configuration;

  public DriftCommand() {
    this(AppConfig::fromEnvironment);
  }

  /** With the configuration from elsewhere than the process environment (tests). */
  DriftCommand(Supplier<AppConfig> configuration) {
    this.configuration = configuration;
  }

  @Override
  public Integer call() throws Exception {
    AppConfig config = configuration.get();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (Databases db = Databases.open(config, false)) {
      Vertx vertx = Vertx.vertx(config.vertxOptions());
      try {
        return check(db.target(), config.schemas(), new SnapshotRepository(StateDatabase.open(vertx, db.state(), 1)),
            json, out, err);
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);  // and the state store's pool with it
      }
    } finally {
      out.flush();
      err.flush();
    }
  }

  /** The comparison itself: prints what moved and returns the exit code. Blocking (waits for the store, discovery). */
  public static int check(Target target, List<String> schemas, SnapshotRepository store, boolean json, PrintStream out,
      PrintStream err) throws Exception {
    PrintWriter o = new PrintWriter(out, true);
    PrintWriter e = new PrintWriter(err, true);
    try {
      return check(target, schemas, store, json, o, e);
    } finally {
      o.flush();
      e.flush();
    }
  }

  /** As above, printing to writers (picocli's). */
  public static int check(Target target, List<String> schemas, SnapshotRepository store, boolean json, PrintWriter out,
      PrintWriter err) throws Exception {
    String key = target.key();
    Optional<SchemaShape> snapshot = store.read(key).await(30, TimeUnit.SECONDS);
    if (snapshot.isEmpty()) {
      err.println("sql-agent drift: no schema snapshot for " + target + " (expected " + store.where(key)
          + "). The service writes one when its schema index is built: start it once (sql-agent serve), then run drift again.");
      return NO_SNAPSHOT;
    }
    SchemaShape live = SchemaReader.shape(key, Discovery.readBlocking(target, schemas));
    Drift drift = Drift.between(snapshot.get(), live);
    if (json) {
      out.println(drift.toJson().put("snapshot", store.where(key))
          .put("snapshot_taken_at", snapshot.get().takenAt()).encodePrettily());
      return drift.drifted() ? DRIFTED : NO_DRIFT;
    }
    out.println("snapshot: " + store.where(key) + " (taken " + snapshot.get().takenAt() + ", "
        + snapshot.get().tables().size() + " tables, " + snapshot.get().columnCount() + " columns)");
    out.println("live:     " + live.tables().size() + " tables, " + live.columnCount() + " columns");
    print(out, "DRIFT", drift.drift());
    print(out, "compatible (not drift)", drift.compatible());
    out.println(drift.drifted()
        ? "drift: the schema moved since the index was built; refresh it (POST /api/schema/refresh, or restart the "
            + "service), and check the questions that used these tables"
        : "no drift");
    return drift.drifted() ? DRIFTED : NO_DRIFT;
  }

  private static void print(PrintWriter out, String title, List<Drift.Change> changes) {
    if (changes.isEmpty()) return;
    out.println(title + " (" + changes.size() + "):");
    for (Drift.Change c : changes) out.println("  - " + c.describe());
  }
}

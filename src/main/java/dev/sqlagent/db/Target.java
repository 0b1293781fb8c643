package dev.sqlagent.db;

import io.vertx.pgclient.PgConnectOptions;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The user's database, as the agent role reaches it: only ever read. Nothing in the service holds a
 * more privileged credential for it (the admin appears only in {@code sql-agent grant --apply}).
 *
 * @param demo whether this is the embedded demo shop (the service built it, so it may rebuild it)
 * @param transactionPooler the target is reached through a pooler in transaction mode ({@code SQLAGENT_DB_POOLER}):
 *     each transaction may run on another server connection, so no client may rely on a server-side prepared
 *     statement outliving its transaction
 * @param notesResource a classpath resource with the notes of this database's tables, handed in by whoever built it
 *     (the embedded demo: its own notes), used when no notes file is configured; null for none
 */
public record Target(PgUrl url, boolean demo, boolean transactionPooler, String notesResource) {

  public Target(PgUrl url, boolean demo, boolean transactionPooler) {
    this(url, demo, transactionPooler, null);
  }

  public Target(PgUrl url, boolean demo) {
    this(url, demo, false);
  }

  /** The role the embedded demo's agent connects as. */
  public static final String DEMO_ROLE = "sql_agent_ro";

  public String database() {
    return url.database();
  }

  public String role() {
    return url.user();
  }

  /** Reactive connect options of the agent role. */
  public PgConnectOptions roOptions() {
    // Through a transaction pooler the client sends each statement's parse with its bind (layer-7 proxy mode): a
    // statement parsed in one round trip and bound in the next could otherwise reach two server connections.
    // The client's own tracing stays off: it would file raw statement text under whatever trace opened the pooled
    // connection; the gate reports its statements itself, by shape (db.StatementSpans).
    return url.options("sql-agent").setUseLayer7Proxy(transactionPooler)
        .setTracingPolicy(io.vertx.core.tracing.TracingPolicy.IGNORE);
  }

  /** A blocking connection as the agent role (command line and start-up proofs: never on an event loop). */
  public Connection roConnection() throws SQLException {
    return roConnection("sql-agent", 0);
  }

  /** The same under another application name, every network wait bounded by {@code timeoutSeconds} (0: unbounded). */
  public Connection roConnection(String applicationName, int timeoutSeconds) throws SQLException {
    Connection c = url.connect(applicationName, timeoutSeconds);
    // pgjdbc names a statement on the server after five runs of it; through a transaction pooler the name would be
    // looked for on another server connection. Never named there: every statement is parsed where it runs.
    if (transactionPooler) c.unwrap(org.postgresql.PGConnection.class).setPrepareThreshold(0);
    return c;
  }

  /** Where snapshots and caches of this target are keyed: stable across the embedded server's changing port. */
  public String key() {
    return (demo ? "embedded" : url.serverKey()) + "/" + url.database();
  }

  @Override
  public String toString() {
    return (demo ? "demo " : "") + url;
  }
}

package dev.sqlagent.execution;

/**
 * The gate's share of the target for exports: connections of their own, so questions always have theirs, and the
 * longest an export waits for its client to take the rows already read. While it waits, its transaction is idle; the
 * service, not a setting of the target's role, decides how long that may last ({@link #idleInTransactionMs}).
 *
 * @param connections exports running at once in this gate (SQLAGENT_EXPORT_CONNECTIONS); one more is refused as busy
 * @param stallMs the longest an export's client may take no bytes (SQLAGENT_EXPORT_STALL_MS); past it the export ends
 */
public record ExportLane(int connections, long stallMs) {

  public static final ExportLane DEFAULT = new ExportLane(2, 30_000);
  /** How long past the client's stall bound the gate still waits for its receiver to answer (the receiver ends it). */
  static final long ACK_GRACE_MS = 10_000;
  /** How long past the gate's own wait the database keeps an idle export transaction (a lost gate's backstop). */
  static final long IDLE_GRACE_MS = 10_000;

  public ExportLane {
    if (connections < 1) throw new IllegalArgumentException("an export lane needs a connection");
    if (stallMs < 1) throw new IllegalArgumentException("an export's stall bound must be positive");
  }

  /** The longest the gate waits for an export's receiver to take one chunk. */
  public long ackMs() {
    return stallMs + ACK_GRACE_MS;
  }

  /**
   * The export transaction's {@code idle_in_transaction_session_timeout}: longer than the gate ever waits between two
   * reads, so the role's own (shorter) setting never cuts a slow but steady reader, and a transaction a lost gate left
   * behind still ends.
   */
  public long idleInTransactionMs() {
    return ackMs() + IDLE_GRACE_MS;
  }
}

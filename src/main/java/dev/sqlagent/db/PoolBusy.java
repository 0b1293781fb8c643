package dev.sqlagent.db;

/**
 * Every connection of a pool was in use for as long as it waits for one: the database is busy with other work, not
 * at fault, and asking again in a few seconds may work.
 */
public final class PoolBusy extends RuntimeException {

  public PoolBusy(String message) {
    super(message, null, false, false);
  }

  /**
   * Whether a pool refused a connection because all were in use: its wait ran out (the client's pool request fails
   * with a bare "Timeout"), or its wait queue was full.
   */
  public static boolean waitRanOut(Throwable e) {
    return e instanceof PoolBusy || e instanceof io.vertx.core.http.ConnectionPoolTooBusyException
        || "Timeout".equals(e.getMessage()) || "Timeout waiting for connection".equals(e.getMessage());
  }
}

package dev.sqlagent.testing;

import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.IndexStatus;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;

/** The stored values are read in the background after start; questions before that get none. */
public final class StoredValuesReady {
  private StoredValuesReady() {}

  /** Waits until the retrieval verticle reports its stored values read (2 minutes at most). */
  public static void await(Vertx vertx) throws Exception {
    long until = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < until) {
      IndexStatus status = new RetrievalClient(vertx, 30_000).status().await(30, TimeUnit.SECONDS);
      if (status.storedValues() != null && status.storedValues().getBoolean("ready", false)) return;
      Thread.sleep(200);
    }
    throw new AssertionError("the stored values were not read within 120 s");
  }
}

package dev.sqlagent.export;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.execution.StaticCheck;
import io.vertx.core.Vertx;
import java.util.concurrent.TimeUnit;

/**
 * The counter-proof of {@link ExportHeapTest}: the same query's every row held at once (the gate's grading mode), in
 * the same heap. Prints the row count, or dies of an OutOfMemoryError (exit 3).
 */
public final class WholeResultProbe {
  private WholeResultProbe() {}

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(PgUrl.parse(args[0]).options("whole-probe")),
          Gate.Settings.DEFAULTS.withTimeouts(120_000, 1000).withPoolSize(1)).await(120, TimeUnit.SECONDS);
      GateReply reply = gate.grade(args[1]).await(10, TimeUnit.MINUTES);
      System.out.println("rows=" + (reply.ok() ? reply.result().rowCount() : -1));
    } catch (OutOfMemoryError e) {
      System.out.println("OutOfMemoryError: " + e.getMessage());
      System.exit(3);
    } finally {
      vertx.close();
    }
    System.exit(0);
  }
}

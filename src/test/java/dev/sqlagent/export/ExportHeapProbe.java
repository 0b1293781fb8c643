package dev.sqlagent.export;

import dev.sqlagent.contract.GateReply;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.execution.Gate;
import dev.sqlagent.execution.StaticCheck;
import io.vertx.core.Vertx;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.concurrent.TimeUnit;

/**
 * One export in a JVM of its own, for the tests and the benchmark that bound its heap: the gate's export of a query
 * to a format writer whose bytes are counted and dropped. Prints {@code rows=N bytes=N ms=N peak_heap_mb=N}; exits 0
 * when the export ran, 1 when the gate refused it.
 *
 * <p>Arguments: the target's URL (with its password), the format (csv or xlsx), the SQL, the row cap.
 */
public final class ExportHeapProbe {
  private ExportHeapProbe() {}

  public static void main(String[] args) throws Exception {
    PgUrl url = PgUrl.parse(args[0]);
    ExportFormat format = ExportFormat.of(args[1]).orElseThrow();
    String sql = args[2];
    int maxRows = Integer.parseInt(args[3]);
    Vertx vertx = Vertx.vertx();
    try {
      Gate gate = Gate.start(vertx, Gate.Database.of(url.options("export-probe")),
          Gate.Settings.DEFAULTS.withTimeouts(120_000, 1000).withPoolSize(1)).await(120, TimeUnit.SECONDS);
      long[] bytes = {0};
      int cap = format.maxRows(maxRows);
      ExportFile file = ExportFile.of(vertx, format.wireName(), b -> {
        bytes[0] += b.length();
        return io.vertx.core.Future.succeededFuture();
      }, cap, Long.MAX_VALUE / 4);
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) pool.resetPeakUsage();
      long t0 = System.nanoTime();
      GateReply reply = gate.export(sql, false, cap, Long.MAX_VALUE / 4, null, false, file::rows)
          .await(10, TimeUnit.MINUTES);
      if (!reply.ok()) {
        System.out.println("refused " + reply.error().type().wireName() + ": " + reply.error().message());
        System.exit(1);
      }
      file.end(reply).await(1, TimeUnit.MINUTES);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      long peak = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) peak += pool.getPeakUsage().getUsed();
      }
      System.out.println("rows=" + reply.result().rowCount() + " bytes=" + bytes[0] + " ms=" + ms
          + " peak_heap_mb=" + (peak >> 20));
      gate.close().await(30, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
    System.exit(0);
  }
}

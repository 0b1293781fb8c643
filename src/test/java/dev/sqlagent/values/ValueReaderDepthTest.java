package dev.sqlagent.values;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Functions;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A very wide schema whose text columns are skipped once the reading budget is spent: each skip completes at once,
 * and 30,000 of them in a row after one slow read must not nest one stack frame group each (the
 * {@code StackOverflowError} once seen while a 1,000-table schema's values were read under load).
 */
class ValueReaderDepthTest {

  @Test
  void thirtyThousandSkipsInARowAfterASlowReadEndNormally() throws Exception {
    String name = "depth_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    TestDatabase test = TestDatabase.get();
    try (Connection c = test.adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
    PgUrl url = test.adminUrl().withDatabase(name);
    // The first column read takes 1.5 s, past the 1 s budget: every column after it is skipped at once.
    try (Connection c = url.connect("test"); Statement s = c.createStatement()) {
      s.execute("CREATE VIEW slow AS SELECT pg_sleep(1.5)::text || 'x' AS note");
    }
    List<TableInfo> tables = new ArrayList<>();
    tables.add(TableInfo.of("slow", null, 1L, List.of(TableInfo.Column.of("note", "text", true, null)), List.of(), List.of()));
    for (int t = 0; t < 30; t++) {
      List<TableInfo.Column> columns = new ArrayList<>();
      for (int c = 0; c < 1_000; c++) columns.add(TableInfo.Column.of("note_" + c, "text", true, null));
      tables.add(TableInfo.of("wide_" + t, null, 0L, columns, List.of(), List.of()));
    }
    ValueLimits limits = new ValueLimits(30, 20_000, 1_000_000, 1_000, 64, 120, 5_000);
    Vertx vertx = Vertx.vertx();
    Pool pool = PgBuilder.pool().with(url.netOptions()).with(new PoolOptions().setMaxSize(1))
        .connectingTo(url.options("test")).using(vertx).build();
    try {
      // On an event loop, as the service reads them.
      Promise<ValueReader.Read> done = Promise.promise();
      Catalogue catalogue = Catalogue.of(tables).withFunctions(new Functions(List.of(), List.of(), java.util.Set.of(),
          java.util.Map.of(), List.of(), List.of()));
      vertx.runOnContext(v -> new ValueReader(TargetReader.over(pool, new TargetReader.Timeouts(5_000, 1_000)), limits)
          .read(catalogue).onComplete(done));
      ValueReader.Read read = done.future().await(30, TimeUnit.SECONDS);
      assertThat(read.columns()).as("failed %d, skipped for the budget %d", read.failed(), read.skippedBudget())
          .extracting(ColumnValues::table).containsExactly("slow");
      // The slow column's batch was sent before the budget ran out; every column after that batch is skipped.
      assertThat(read.skippedBudget()).isGreaterThan(30_000 - ValueReader.BATCH);
    } finally {
      pool.close().await(10, TimeUnit.SECONDS);
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}

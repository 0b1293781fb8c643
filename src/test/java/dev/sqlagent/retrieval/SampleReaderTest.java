package dev.sqlagent.retrieval;

import dev.sqlagent.contract.SampleRows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.ReadOnly;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.catalogue.TargetReader;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The prompt's sample rows: read all at once, and the same as reading the tables one by one; kept per role and
 * table, read again when old, when the catalogue changes, and for a shortened column list.
 */
class SampleReaderTest {

  static Vertx vertx;
  static Pool pool;
  static TargetReader reader;
  static Catalogue catalogue;

  @BeforeAll
  static void load() throws Exception {
    vertx = Vertx.vertx();
    pool = PgBuilder.pool().connectingTo(TestDatabase.get().target().roOptions()).using(vertx).build();
    catalogue = new Discovery(pool, List.of()).read().await(30, TimeUnit.SECONDS);
    reader = TargetReader.over(pool, new TargetReader.Timeouts(5_000, 1_000));
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  private static List<SampleRows> all(List<TableInfo> tables) throws Exception {
    return SampleReader.readAll(reader, catalogue, null, tables, 3).await(30, TimeUnit.SECONDS);
  }

  /** Each table in a transaction of its own. */
  private static List<SampleRows> oneByOne(List<TableInfo> tables) throws Exception {
    List<SampleRows> out = new ArrayList<>();
    for (TableInfo t : tables) out.addAll(all(List.of(t)));
    return out;
  }

  @Test
  void readingAllAtOnceGivesWhatReadingOneByOneGives() throws Exception {
    List<TableInfo> tables = catalogue.tables().subList(0, Math.min(6, catalogue.tables().size()));
    List<SampleRows> together = all(tables);
    assertThat(together).extracting(SampleRows::name).containsExactlyElementsOf(tables.stream().map(TableInfo::name).toList());
    assertThat(together).allSatisfy(s -> assertThat(s.rows()).isNotEmpty());
    assertThat(together).isEqualTo(oneByOne(tables));
    assertThat(all(List.of())).isEmpty();
  }

  @Test
  void aTableThatCannotBeReadGetsNoRowsAndTheOthersKeepTheirs() throws Exception {
    // A table the role may not read (as after a grant revoked since discovery), between two it may.
    String[] hidden = TestDatabase.HIDDEN_TABLE.split("\\.");
    TableInfo first = catalogue.tables().get(0);
    TableInfo last = catalogue.tables().get(1);
    TableInfo unreadable = new TableInfo(TestDatabase.HIDDEN_TABLE, hidden[0], hidden[1], "table", false, null, null, null,
        List.of(TableInfo.Column.of("id", "integer", false, null)), List.of(), List.of());
    List<TableInfo> tables = new ArrayList<>(List.of(first, unreadable, last));
    List<SampleRows> read = all(tables);
    assertThat(read).extracting(SampleRows::name).containsExactly(first.name(), TestDatabase.HIDDEN_TABLE, last.name());
    assertThat(read.get(0).rows()).isNotEmpty();
    assertThat(read.get(1).rows()).isEmpty();
    assertThat(read.get(2).rows()).isNotEmpty();
    assertThat(read).isEqualTo(oneByOne(tables));
    // and the connections are usable after it
    for (int i = 0; i < 4; i++) assertThat(all(List.of(first))).isEqualTo(oneByOne(List.of(first)));
  }

  @Test
  void aRoleTheAgentCannotBecomeFailsTheReadAsTheTransactionWould() throws Exception {
    List<TableInfo> tables = catalogue.tables().subList(0, 2);
    Throwable viaTransaction = catchThrowable(() -> ReadOnly.runAs(pool, "no_such_role",
        conn -> Future.succeededFuture()).await(30, TimeUnit.SECONDS));
    Throwable together = catchThrowable(() -> SampleReader.readAll(reader, catalogue, "no_such_role", tables, 3)
        .await(30, TimeUnit.SECONDS));
    assertThat(viaTransaction).hasMessageContaining("no_such_role");
    assertThat(together).isNotNull().hasMessage(viaTransaction.getMessage());
    assertThat(all(tables)).isEqualTo(oneByOne(tables));
  }

  // --- kept a few minutes per role and table (SampleCache) ---

  /** Every read the cache asks for: the role and the tables. */
  final List<String> reads = new ArrayList<>();
  final AtomicLong now = new AtomicLong(1_000_000);
  SampleCache cache;

  @BeforeEach
  void fresh() {
    cache = new SampleCache((role, tables) -> {
      reads.add(role + ":" + String.join(",", tables.stream().map(TableInfo::name).toList()));
      return SampleReader.readAll(reader, catalogue, role, tables, 3);
    }, now::get);
  }

  List<SampleRows> samples(Object about, String role, List<TableInfo> tables) throws Exception {
    return vertx.executeBlocking(() -> null).compose(v -> cache.samples(about, role, tables)).await(30, TimeUnit.SECONDS);
  }

  @Test
  void readOnceThenKeptUntilOldAndOnlyWhatIsMissingIsRead() throws Exception {
    List<TableInfo> t = catalogue.tables();
    List<SampleRows> first = samples(catalogue, null, List.of(t.get(0), t.get(1)));
    assertThat(first).extracting(SampleRows::name).containsExactly(t.get(0).name(), t.get(1).name());
    assertThat(first).allSatisfy(s -> assertThat(s.rows()).isNotEmpty());
    // Kept: the same rows, no read; a new table beside them is the only one read, in the order asked.
    assertThat(samples(catalogue, null, List.of(t.get(1), t.get(0)))).containsExactly(first.get(1), first.get(0));
    List<SampleRows> mixed = samples(catalogue, null, List.of(t.get(2), t.get(0)));
    assertThat(mixed.get(1)).isEqualTo(first.get(0));
    assertThat(mixed.get(0).name()).isEqualTo(t.get(2).name());
    assertThat(reads).containsExactly("null:" + t.get(0).name() + "," + t.get(1).name(), "null:" + t.get(2).name());
    // Old: read again.
    now.addAndGet(SampleCache.KEEP_MS);
    assertThat(samples(catalogue, null, List.of(t.get(0)))).containsExactly(first.get(0));
    assertThat(reads).hasSize(3).last().isEqualTo("null:" + t.get(0).name());
  }

  @Test
  void keptPerRoleAndPerCatalogue() throws Exception {
    List<TableInfo> one = List.of(catalogue.tables().get(0));
    samples(catalogue, null, one);
    samples(catalogue, null, one);
    assertThat(reads).hasSize(1);
    // Another role has rows of its own (a role the agent cannot become fails its read; nothing is kept for it).
    assertThat(Future.succeededFuture().compose(v -> cache.samples(catalogue, "no_such_role", one)).transform(Future::succeededFuture)
        .await(30, TimeUnit.SECONDS).failed()).isTrue();
    assertThat(reads).hasSize(2).last().isEqualTo("no_such_role:" + one.get(0).name());
    // A changed catalogue forgets everything.
    Object changed = new Object();
    samples(changed, null, one);
    assertThat(reads).hasSize(3);
    // A table shown with fewer columns (the prompt budget shortened it) is another sample.
    TableInfo t = one.get(0);
    TableInfo shortened = new TableInfo(t.name(), t.schema(), t.relname(), t.kind(), t.onSearchPath(), t.comment(), t.note(),
        t.rowCount(), t.columns().subList(0, 1), t.primaryKey(), t.foreignKeys());
    assertThat(samples(changed, null, List.of(shortened)).get(0).rows().get(0)).hasSize(1);
    assertThat(reads).hasSize(4);
  }
}

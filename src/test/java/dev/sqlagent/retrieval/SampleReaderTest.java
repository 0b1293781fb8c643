package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.catalogue.ReadOnly;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The prompt's sample rows: read all at once, and the same as reading the tables one by one. */
class SampleReaderTest {

  static Vertx vertx;
  static Pool pool;
  static Catalogue catalogue;

  @BeforeAll
  static void load() throws Exception {
    vertx = Vertx.vertx();
    pool = PgBuilder.pool().connectingTo(TestDatabase.get().target().roOptions()).using(vertx).build();
    catalogue = new Discovery(pool, List.of()).read().await(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  private static List<SampleRows> all(List<TableInfo> tables) throws Exception {
    return SampleReader.readAll(pool, null, tables, 3).await(30, TimeUnit.SECONDS);
  }

  private static List<SampleRows> oneByOne(List<TableInfo> tables) throws Exception {
    return ReadOnly.run(pool, conn -> SampleReader.oneByOne(conn, tables, 3)).await(30, TimeUnit.SECONDS);
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
        conn -> SampleReader.oneByOne(conn, tables, 3)).await(30, TimeUnit.SECONDS));
    Throwable together = catchThrowable(() -> SampleReader.readAll(pool, "no_such_role", tables, 3).await(30, TimeUnit.SECONDS));
    assertThat(viaTransaction).hasMessageContaining("no_such_role");
    assertThat(together).isNotNull().hasMessage(viaTransaction.getMessage());
    assertThat(all(tables)).isEqualTo(oneByOne(tables));
  }
}

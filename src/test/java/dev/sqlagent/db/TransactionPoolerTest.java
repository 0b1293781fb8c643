package dev.sqlagent.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.PgBouncer;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Tuple;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What {@code SQLAGENT_DB_POOLER=transaction} changes in how the target is reached ({@link Target}), through a real
 * PgBouncer in transaction mode with a single server connection that every client shares, one transaction at a time.
 */
class TransactionPoolerTest {

  static PgBouncer bouncer;
  static Target pooled;
  static Vertx vertx;

  @BeforeAll
  static void start() throws Exception {
    Target demo = TestDatabase.get().target();
    bouncer = PgBouncer.start(TestDatabase.get().adminUrl(), demo.database(), 1, List.of(demo.url()));
    pooled = new Target(bouncer.through(demo.url()), false, true);
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
    if (bouncer != null) bouncer.close();
  }

  /**
   * Outside a transaction the client parses a statement in one round trip and binds it in the next; through a
   * transaction pooler another client's statement may be parsed on the server connection in between. With the setting
   * each parse goes out with its bind, so many clients at once each get their own statement's rows.
   */
  @Test
  void manyClientsAtOnceEachGetTheirOwnStatementsRows() throws Exception {
    Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(8)).connectingTo(pooled.roOptions()).using(vertx).build();
    try {
      List<Future<String>> all = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        int n = i;
        // A text of its own per statement (a different column name), so a bind to another's statement shows.
        all.add(pool.preparedQuery("SELECT $1::int + 1 AS c" + n).execute(Tuple.of(n))
            .map(rows -> {
              var row = rows.iterator().next();
              return row.getInteger(0) == n + 1 && rows.columnsNames().get(0).equals("c" + n) ? null
                  : "statement " + n + " got " + rows.columnsNames() + " " + row.getValue(0);
            })
            .otherwise(e -> "statement " + n + ": " + e.getMessage()));
      }
      Future.join(all).await(60, TimeUnit.SECONDS);
      assertThat(all.stream().map(Future::result).filter(r -> r != null).toList()).isEmpty();
    } finally {
      pool.close().await(30, TimeUnit.SECONDS);
    }
  }

  /** pgjdbc names a statement on the server after five runs: through the pooler it never does. */
  @Test
  void jdbcStatementsAreNeverNamedOnTheServer() throws Exception {
    try (Connection c = pooled.roConnection(); PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1")) {
      for (int i = 0; i < 10; i++) {
        ps.setInt(1, i);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getInt(1)).isEqualTo(i + 1);
        }
      }
      assertThat(ps.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare()).isFalse();
    }
  }
}

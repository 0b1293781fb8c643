package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.TableInfo;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.RetrievalMessages.SchemaRequest;
import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A database whose connections are all in use is busy, not broken: when a user's role's view of the schema cannot
 * get a connection, retrieval's reply says {@code busy} (ask again in a few seconds) rather than {@code unavailable},
 * and once a connection is free the same request is answered.
 */
class RetrievalBusyTest {

  static final String ROLE = "retrieval_busy_reader";
  static final String TABLE = "retrieval_busy_probe";

  static Vertx vertx;
  static Pool small;
  static RetrievalClient client;

  @BeforeAll
  static void deploy() throws Exception {
    admin("DROP TABLE IF EXISTS " + TABLE, "DROP ROLE IF EXISTS " + ROLE,
        "CREATE ROLE " + ROLE + " NOLOGIN",
        "GRANT " + ROLE + " TO " + TestDatabase.get().target().role(),
        "CREATE TABLE " + TABLE + " (id int PRIMARY KEY)",
        "GRANT SELECT ON " + TABLE + " TO " + ROLE + ", " + TestDatabase.get().target().role());
    vertx = Vertx.vertx();
    // The catalogue's pool: one connection, and a few seconds' wait for it.
    small = PgBuilder.pool().with(new PoolOptions().setMaxSize(1).setConnectionTimeout(3))
        .connectingTo(TestDatabase.get().target().roOptions()).using(vertx).build();
    CatalogueHolder catalogue = CatalogueHolder.over(vertx, small, List.of());
    // Its first read queues every discovery query on that one connection, and may wait past that: read until held.
    for (int attempt = 1; catalogue.snapshot() == null; attempt++) {
      Throwable failed = failureOf(catalogue.current());
      if (failed != null && attempt == 10) throw new AssertionError("the catalogue could not be read", failed);
    }
    vertx.deployVerticle(new RetrievalVerticle(TestDatabase.get().target(),
        StateDatabase.open(vertx, TestDatabase.get().state(), 2), TestDatabase.get().config(Map.of()), null, catalogue))
        .await(120, TimeUnit.SECONDS);
    client = new RetrievalClient(vertx, 60_000);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      vertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      admin("DROP TABLE IF EXISTS " + TABLE, "DROP ROLE IF EXISTS " + ROLE);
    }
  }

  static void admin(String... statements) throws Exception {
    try (Connection c = TestDatabase.get().shopAdmin(); Statement s = c.createStatement()) {
      for (String sql : statements) s.execute(sql);
    }
  }

  /** The failure a request ended with (null: it succeeded). */
  static Throwable failureOf(Future<?> request) throws Exception {
    return request.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause() : null)).await(60, TimeUnit.SECONDS);
  }

  /** The catalogue pool's one connection, once whatever the catalogue reads in the background is done with it. */
  static SqlConnection holdTheOnlyConnection() throws Exception {
    long until = System.currentTimeMillis() + 30_000;
    while (true) {
      try {
        return small.getConnection().await(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        if (System.currentTimeMillis() > until) throw e;
      }
    }
  }

  @Test
  void aRoleViewThatFindsNoFreeConnectionIsBusyAndIsAnsweredOnceOneIsFree() throws Exception {
    SqlConnection held = holdTheOnlyConnection();
    try {
      Throwable schema = failureOf(client.tables(new SchemaRequest(ROLE)));
      assertThat(schema).as("the role's tables cannot be read while the only connection is held").isNotNull();
      assertThat(BusError.of(schema, "retrieval").failure()).as(schema.toString()).isEqualTo(BusFailure.BUSY);
      assertThat(schema.getMessage()).contains("try again in a few seconds");

      Throwable retrieve = failureOf(client.retrieve(new Retrieval.Request("How many probes are there?", false, ROLE)));
      assertThat(retrieve).isNotNull();
      assertThat(BusError.of(retrieve, "retrieval").failure()).as(retrieve.toString()).isEqualTo(BusFailure.BUSY);
    } finally {
      held.close().await(10, TimeUnit.SECONDS);
    }
    assertThat(client.tables(new SchemaRequest(ROLE)).await(60, TimeUnit.SECONDS).tables())
        .extracting(TableInfo::name).contains(TABLE);
  }
}

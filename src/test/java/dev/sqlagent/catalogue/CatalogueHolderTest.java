package dev.sqlagent.catalogue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.bus.Addresses;
import dev.sqlagent.db.PgUrl;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The catalogue service on a database of its own: versioned snapshots that never change once read, the news of
 * each on the bus, one read shared by concurrent refreshes, users' roles' views made once per version, and
 * another node's news followed only when it read another shape.
 */
class CatalogueHolderTest {

  TargetDatabase db;
  String east;
  String agent;
  Vertx vertx;
  Pool pool;
  CatalogueHolder holder;
  final List<CatalogueVersion> news = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    db = TargetDatabase.create();
    String password = GrantScript.generatePassword();
    agent = db.grantedRole("agent", null, password);
    east = db.createRole("east", "NOLOGIN");
    db.exec("GRANT USAGE ON SCHEMA sales TO " + east, "GRANT SELECT ON sales.\"Orders\" TO " + east,
        "GRANT " + east + " TO " + agent);
    PgUrl admin = TestDatabase.get().adminUrl();
    vertx = Vertx.vertx();
    pool = PgBuilder.pool().connectingTo(new PgConnectOptions().setHost(admin.host()).setPort(admin.port())
        .setDatabase(db.name).setUser(agent).setPassword(password)).using(vertx).build();
    holder = CatalogueHolder.over(vertx, pool, List.of());
    vertx.eventBus().<JsonObject>consumer(Addresses.CATALOGUE_CHANGED, m -> news.add(CatalogueVersion.fromJson(m.body())))
        .completion().await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(30, TimeUnit.SECONDS);
    db.close();
  }

  private CatalogueSnapshot await(io.vertx.core.Future<CatalogueSnapshot> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  private static List<String> names(Catalogue c) {
    return c.tables().stream().map(t -> t.schema() + "." + t.relname()).toList();
  }

  @Test
  void eachReadIsANewVersionThatNeverChangesAndIsAnnouncedOnTheBus() throws Exception {
    assertThat(holder.snapshot()).isNull();
    CatalogueSnapshot first = await(holder.current());
    assertThat(first.version()).isEqualTo(1);
    assertThat(await(holder.current())).isSameAs(first);

    db.exec("CREATE TABLE sales.returns (id int PRIMARY KEY, reason text)", "GRANT SELECT ON sales.returns TO " + agent);
    CatalogueSnapshot second = await(holder.refresh());
    assertThat(second.version()).isEqualTo(2);
    assertThat(second.readAt()).isAfterOrEqualTo(first.readAt());
    assertThat(holder.snapshot()).isSameAs(second);
    assertThat(names(second.catalogue())).contains("sales.returns");
    assertThat(names(first.catalogue())).doesNotContain("sales.returns");
    assertThat(second.fingerprint()).isNotEqualTo(first.fingerprint());

    waitFor(() -> news.size() == 2);
    assertThat(news).extracting(CatalogueVersion::version).containsExactly(1L, 2L);
    CatalogueVersion last = news.get(1);
    assertThat(last.tables()).isEqualTo(second.catalogue().tables().size());
    assertThat(last.readAt()).isEqualTo(second.readAt().toString());
    assertThat(last.fingerprint()).isEqualTo(second.fingerprint());
    assertThat(last.node()).isNotBlank();

    // A look reads the target now without changing what is held.
    db.exec("DROP TABLE sales.returns");
    assertThat(names(holder.look().await(30, TimeUnit.SECONDS))).doesNotContain("sales.returns");
    assertThat(holder.snapshot()).isSameAs(second);
  }

  @Test
  void concurrentRefreshesShareOneRead() throws Exception {
    await(holder.current());
    var a = holder.refresh();
    var b = holder.refresh();
    assertThat(await(a)).isSameAs(await(b));
    assertThat(await(a).version()).isEqualTo(2);
  }

  @Test
  void aRolesViewIsReadOncePerVersionAndNarrowsToWhatTheRoleMayRead() throws Exception {
    CatalogueSnapshot first = await(holder.current());
    Catalogue mine = first.forRole(east).await(30, TimeUnit.SECONDS);
    assertThat(names(mine)).containsExactly("sales.Orders");
    assertThat(names(first.catalogue())).contains("sales.Orders", "sales.big_orders", "other.audit");
    assertThat(mine.hidden()).contains("sales.big_orders", "other.audit");
    assertThat(mine.functions()).as("the function catalogue is the snapshot's, not read again").isSameAs(first.catalogue().functions());
    assertThat(first.forRole(east).await(30, TimeUnit.SECONDS)).as("kept for the version").isSameAs(mine);
    assertThat(first.forRole(null).await(30, TimeUnit.SECONDS)).isSameAs(first.catalogue());

    db.exec("GRANT SELECT ON sales.big_orders TO " + east);
    CatalogueSnapshot second = await(holder.refresh());
    Catalogue now = second.forRole(east).await(30, TimeUnit.SECONDS);
    assertThat(names(now)).containsExactlyInAnyOrder("sales.Orders", "sales.big_orders");
    assertThat(first.forRole(east).await(30, TimeUnit.SECONDS)).as("the older version keeps its view").isSameAs(mine);
  }

  @Test
  void anotherNodesNewsIsFollowedOnlyWhenItReadAnotherShape() throws Exception {
    CatalogueSnapshot first = await(holder.current());
    waitFor(() -> news.size() == 1);
    CatalogueVersion own = news.get(0);
    assertThat(await(holder.follow(new CatalogueVersion(own.version(), own.readAt(), own.tables(), 1L, own.node()))))
        .as("its own news").isSameAs(first);
    CatalogueVersion same = own.from("another");
    assertThat(await(holder.follow(same))).as("the same shape").isSameAs(first);
    CatalogueSnapshot followed = await(holder.follow(
        new CatalogueVersion(same.version(), same.readAt(), same.tables(), first.fingerprint() + 1, same.node())));
    assertThat(followed.version()).isEqualTo(2);
    waitFor(() -> news.size() == 2);
  }

  private static void waitFor(java.util.function.BooleanSupplier done) throws InterruptedException {
    long until = System.currentTimeMillis() + 10_000;
    while (!done.getAsBoolean() && System.currentTimeMillis() < until) Thread.sleep(20);
    assertThat(done.getAsBoolean()).as("in time").isTrue();
  }
}

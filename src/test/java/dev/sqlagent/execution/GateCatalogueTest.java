package dev.sqlagent.execution;

import dev.sqlagent.contract.GateRequest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.db.Target;
import dev.sqlagent.testing.DatabaseCopy;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The gate takes its tables from the process's catalogue: a new version reaches it with nothing to reload, and
 * until then a table added in the target is unknown (the snapshot is young, so the gate does not read again).
 */
class GateCatalogueTest {

  static Vertx vertx;
  static Target copy;
  static CatalogueHolder catalogue;
  static Gate gate;

  @BeforeAll
  static void start() throws Exception {
    copy = DatabaseCopy.of("gate_catalogue");
    admin("DROP TABLE IF EXISTS public.catalogue_probe");
    vertx = Vertx.vertx();
    catalogue = CatalogueHolder.open(vertx, copy, List.of());
    gate = Gate.start(vertx, Gate.Database.of(copy).sharing(catalogue),
        Gate.Settings.DEFAULTS.withTimeouts(1500, 500).withPoolSize(2))
        .await(60, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    if (gate != null) gate.close().await(10, TimeUnit.SECONDS);
    if (vertx != null) vertx.close().await(10, TimeUnit.SECONDS);
    admin("DROP TABLE IF EXISTS public.catalogue_probe");
  }

  static void admin(String... statements) throws Exception {
    DatabaseCopy.exec(copy, statements);
  }

  static JsonObject run(String sql) throws Exception {
    return gate.submit(GateRequest.run(sql)).await(30, TimeUnit.SECONDS).toJson();
  }

  @Test
  void aNewCatalogueVersionReachesTheGateWithNothingToReload() throws Exception {
    long before = catalogue.snapshot().version();
    admin("CREATE TABLE public.catalogue_probe (id int PRIMARY KEY, v int)", "INSERT INTO public.catalogue_probe VALUES (1, 42)",
        "GRANT SELECT ON public.catalogue_probe TO " + copy.role());
    JsonObject unknown = run("SELECT v FROM catalogue_probe");
    assertThat(unknown.getString("error_type")).as(unknown.encode()).isEqualTo("unknown_table");
    assertThat(catalogue.snapshot().version()).as("a young snapshot is not read again").isEqualTo(before);
    assertThat(gate.schema().resolve(null, "catalogue_probe")).isEmpty();

    catalogue.refresh().await(30, TimeUnit.SECONDS);
    JsonObject known = run("SELECT v FROM catalogue_probe");
    assertThat(known.getBoolean("ok")).as(known.encode()).isTrue();
    assertThat(gate.schema().resolve(null, "catalogue_probe")).isPresent();

    admin("DROP TABLE public.catalogue_probe");
    catalogue.refresh().await(30, TimeUnit.SECONDS);
    JsonObject gone = run("SELECT v FROM catalogue_probe");
    assertThat(gone.getString("error_type")).as(gone.encode()).isEqualTo("unknown_table");
  }
}

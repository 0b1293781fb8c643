package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Discovery;
import dev.sqlagent.testing.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fault injection's picture of a database comes from discovery: on the demo it is exactly the shop's contract. */
class ShopSchemaTest {

  @Test
  void columnsAndPrimaryKeysFromDiscoveryMatchTheShopsContract() {
    TableColumns live = TableColumns.of(Discovery.readBlocking(TestDatabase.get().target().roOptions(), List.of()));
    assertThat(live.columns()).isEqualTo(ShopColumns.SHOP.columns());
    assertThat(live.primaryKeys()).isEqualTo(ShopColumns.SHOP.primaryKeys());
  }
}

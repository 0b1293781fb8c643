package dev.sqlagent.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Fault injection's picture of the shop matches the live catalogue. */
class ShopSchemaTest {

  @Test
  void columnsAndPrimaryKeysMatchTheDatabase() throws Exception {
    try (GoldExecutor db = new GoldExecutor(TestDatabase.get().target())) {
      QueryResult cols = db.run("SELECT table_name::text, column_name::text FROM information_schema.columns "
          + "WHERE table_schema = 'public' AND table_name <> 'agent_query_log' ORDER BY table_name, ordinal_position");
      Map<String, List<String>> live = new LinkedHashMap<>();
      for (List<Object> r : cols.rows()) live.computeIfAbsent((String) r.get(0), k -> new ArrayList<>()).add((String) r.get(1));
      assertThat(live).isEqualTo(ShopSchema.SHOP.columns());

      // information_schema hides constraints of tables the role only reads; pg_constraint does not.
      QueryResult pks = db.run("SELECT c.conrelid::regclass::text, a.attname::text FROM pg_constraint c "
          + "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey) "
          + "WHERE c.contype = 'p' AND c.connamespace = 'public'::regnamespace AND c.conrelid::regclass::text <> 'agent_query_log'");
      Map<String, String> livePks = new LinkedHashMap<>();
      for (List<Object> r : pks.rows()) livePks.put((String) r.get(0), (String) r.get(1));
      assertThat(livePks).isEqualTo(ShopSchema.SHOP.primaryKeys());
    }
  }
}

package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The demo's notes moved from retrieval/table-notes.json and retrieval/conventions.txt to
 * demo/shop-notes.yaml: nothing may be lost or reworded in the move. (Once the old files are removed,
 * the first two tests have done their job and go with them.)
 */
class ShopNotesTest {

  static final Notes SHOP = NotesFile.loadResource("/demo/shop-notes.yaml");


  static String resource(String path) throws IOException {
    try (InputStream in = ShopNotesTest.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void termsFitTheShop() {
    assertThat(SHOP.terms()).extracting(Notes.Term::term).contains("revenue", "walk-in");
    assertThat(SHOP.termsFor(List.of("bills"))).anySatisfy(t -> assertThat(t).startsWith("\"revenue\" means: "));
    assertThat(SHOP.termsFor(List.of("store_settings"))).isEmpty();
  }

  @Test
  void everyNameInTheShopNotesIsATableOrColumnOfTheShop() throws IOException {
    assertThat(SHOP.validate(shopSchema())).isEmpty();
  }

  /** The tables and columns of db/schema.sql, read from its CREATE TABLE statements. */
  static KnownTables shopSchema() throws IOException {
    String sql = Files.readString(Path.of("db/schema.sql"));
    Map<String, Set<String>> tables = new LinkedHashMap<>();
    Matcher m = Pattern.compile("(?s)CREATE TABLE (\\w+) \\((.*?)\\n\\);").matcher(sql);
    while (m.find()) {
      Set<String> columns = new LinkedHashSet<>();
      for (String line : m.group(2).split("\n")) {
        String l = line.strip();
        if (l.isEmpty() || l.startsWith("--") || l.matches("(?i)(PRIMARY|UNIQUE|FOREIGN|CHECK|CONSTRAINT)\\b.*")) continue;
        columns.add(l.split("\\s+")[0]);
      }
      tables.put(m.group(1), columns);
    }
    assertThat(tables).containsKeys("bills", "customers", "store_settings").hasSize(15);
    return KnownTables.of(tables);
  }
}

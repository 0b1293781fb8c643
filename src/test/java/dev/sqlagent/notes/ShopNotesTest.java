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

  record OldConvention(List<String> tables, String text) {}

  static String resource(String path) throws IOException {
    try (InputStream in = ShopNotesTest.class.getResourceAsStream(path)) {
      assertThat(in).as(path).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** conventions.txt as TableNotes reads it: "tables | text", # comments. */
  static List<OldConvention> oldConventions() throws IOException {
    List<OldConvention> out = new ArrayList<>();
    for (String line : resource("/retrieval/conventions.txt").split("\n")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) continue;
      int bar = l.indexOf('|');
      out.add(new OldConvention(Arrays.stream(l.substring(0, bar).split(",")).map(String::strip)
          .filter(s -> !s.isEmpty()).toList(), l.substring(bar + 1).strip()));
    }
    return out;
  }

  @Test
  void everyTableNoteMovedWordForWord() throws IOException {
    JsonObject old = new JsonObject(resource("/retrieval/table-notes.json"));
    assertThat(old.size()).isEqualTo(15);
    for (String table : old.fieldNames()) {
      assertThat(SHOP.tableNote(table)).as(table).contains(old.getString(table));
    }
    assertThat(SHOP.tables()).extracting(Notes.Table::name).containsExactlyInAnyOrderElementsOf(old.fieldNames());
  }

  @Test
  void everyConventionMovedWordForWordWithItsTablesInOrder() throws IOException {
    List<OldConvention> old = oldConventions();
    assertThat(old).hasSize(10);
    assertThat(SHOP.conventions()).hasSize(old.size());
    for (int i = 0; i < old.size(); i++) {
      Notes.Convention moved = SHOP.conventions().get(i);
      assertThat(moved.text()).isEqualTo(old.get(i).text());
      assertThat(moved.tables()).extracting(Notes.TableRef::name).containsExactlyElementsOf(old.get(i).tables());
    }
    // And they are offered for the same tables as before, in file order.
    Set<String> all = new LinkedHashSet<>();
    old.forEach(c -> all.addAll(c.tables()));
    for (String table : all) {
      assertThat(SHOP.conventionsFor(List.of(table))).as(table)
          .containsExactlyElementsOf(old.stream().filter(c -> c.tables().contains(table)).map(OldConvention::text).toList());
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

package dev.sqlagent.retrieval;

import dev.sqlagent.demo.DemoShop;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The demo's hand-written notes and conventions over a catalogue. */
class TableNotesTest {

  static final Catalogue SHOP = Catalogue.of(List.of(
      TableInfo.of("bill_archive", "Sales of 2023-2024 from the old till.", 900L, List.of(), List.of(), List.of()),
      TableInfo.of("bills", "Sales bills.", 1400L, List.of(), List.of(), List.of())));

  @Test
  void notesComeFromTheResourceOrFallBackToTheComment() {
    TableNotes notes = TableNotes.fromResource(DemoShop.NOTES_RESOURCE);
    Catalogue annotated = notes.annotate(SHOP);
    assertThat(annotated.tables()).allSatisfy(t -> assertThat(t.note()).isNotBlank());
    assertThat(annotated.find("bill_archive").orElseThrow().note()).contains("2023", "bills starts in 2025");
    TableInfo userTable = TableInfo.of("my_orders", "Orders from the web shop.", 10L, List.of(), List.of(), List.of());
    assertThat(notes.annotate(Catalogue.of(List.of(userTable))).tables().get(0).note()).isEqualTo("Orders from the web shop.");
  }

  @Test
  void conventionsFollowTheChosenTables() {
    TableNotes notes = TableNotes.fromResource(DemoShop.NOTES_RESOURCE);
    assertThat(notes.conventionsFor(List.of("stock_adjustments")))
        .anyMatch(c -> c.contains("negative qty_change"))
        .noneMatch(c -> c.contains("collected"));
    assertThat(notes.conventionsFor(List.of("bills", "payments")))
        .anyMatch(c -> c.contains("\"Billed\" and \"collected\""))
        .anyMatch(c -> c.contains("PARTIAL (part-paid) bill still counts"))
        .anyMatch(c -> c.contains("LEFT JOIN customers"));
    assertThat(notes.conventionsFor(List.of("my_orders"))).isEmpty();
  }
  @Test
  void aNotesFileIsTheOneReadAtStartNotReadAgain(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("notes.yaml"),
        "tables:\n  bills: Every bill, paid or not.\n");
    dev.sqlagent.config.AppConfig config = dev.sqlagent.config.AppConfig.load(java.util.Map.of("SQLAGENT_NOTES", file.toString()));
    // Changed (here: broken) after the start, the file is not what the service goes by.
    java.nio.file.Files.writeString(file, "tables: [not a map\n");
    TableNotes notes = TableNotes.forTarget(config, null);
    assertThat(notes.notes()).isSameAs(config.notes());
    assertThat(notes.annotate(SHOP).find("bills").orElseThrow().note()).isEqualTo("Every bill, paid or not.");
    // Without a file, the target's own notes (the demo's), else none.
    dev.sqlagent.config.AppConfig none = dev.sqlagent.config.AppConfig.load(java.util.Map.of());
    assertThat(TableNotes.forTarget(none, null).isEmpty()).isTrue();
    assertThat(TableNotes.forTarget(none, DemoShop.NOTES_RESOURCE).isEmpty()).isFalse();
  }
}

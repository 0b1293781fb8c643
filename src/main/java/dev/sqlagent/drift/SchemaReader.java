package dev.sqlagent.drift;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.TableInfo;
import java.time.Instant;
import java.util.List;

/**
 * The {@link SchemaShape} of what discovery found: drift compares exactly what retrieval indexes, read by the
 * one discovery every part of the service shares.
 */
public final class SchemaReader {

  private SchemaReader() {}

  /** @param target where the shape was read ({@code Target.key()}: stable across the embedded server's port) */
  public static SchemaShape shape(String target, Catalogue catalogue) {
    List<SchemaShape.Table> tables = catalogue.tables().stream()
        .map(t -> new SchemaShape.Table(t.name(), t.columns().stream().map(SchemaReader::column).toList()))
        .toList();
    return new SchemaShape(target, catalogue.database(), Instant.now().toString(), null, tables);
  }

  private static SchemaShape.Column column(TableInfo.Column c) {
    return SchemaShape.Column.of(c.name(), c.position(), c.type(), c.base(), c.typmod(), c.nullable());
  }
}

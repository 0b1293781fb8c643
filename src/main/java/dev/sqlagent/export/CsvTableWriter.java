package dev.sqlagent.export;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

/** RFC 4180 CSV through Apache Commons CSV: UTF-8, CRLF, a header line; NULL is an empty field. */
final class CsvTableWriter implements TableWriter {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final OutputStreamWriter text = new OutputStreamWriter(bytes, StandardCharsets.UTF_8);
  private final CSVPrinter printer;
  private List<String> types = List.of();

  CsvTableWriter() {
    try {
      printer = new CSVPrinter(text, CSVFormat.RFC4180);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void start(JsonArray columns) throws IOException {
    List<String> names = new ArrayList<>();
    List<String> t = new ArrayList<>();
    for (Object c : columns) {
      names.add(Cells.neutralised(((JsonObject) c).getString("name")));
      t.add(((JsonObject) c).getString("type"));
    }
    types = t;
    printer.printRecord(names);
  }

  @Override
  public void rows(JsonArray rows) throws IOException {
    List<String> fields = new ArrayList<>(types.size());
    for (Object row : rows) {
      JsonArray cells = (JsonArray) row;
      fields.clear();
      for (int i = 0; i < cells.size(); i++) fields.add(Cells.text(cells.getValue(i), i < types.size() ? types.get(i) : ""));
      printer.printRecord(fields);
    }
  }

  @Override
  public void end(String note) throws IOException {
    if (note != null) printer.printRecord(note);
    printer.flush();
  }

  @Override
  public Buffer take() throws IOException {
    printer.flush();
    Buffer out = Buffer.buffer(bytes.toByteArray());
    bytes.reset();
    return out;
  }
}

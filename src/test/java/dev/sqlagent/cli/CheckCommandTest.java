package dev.sqlagent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sql-agent check} through its real entry (picocli's Main), with a file of mixed input. */
class CheckCommandTest {

  @TempDir
  Path dir;

  private static final String INPUT = String.join("\n",
      "{\"id\": 1, \"sql\": \"SELECT cat_name FROM categories ORDER BY 1\"}",
      "{\"id\": \"two\", \"sql\": \"DELETE FROM bills\"}",
      "this is not json",
      "",
      "{\"id\": 4}",
      "{\"id\": {\"nested\": true}, \"sql\": \"SELECT nope FROM bills\"}",
      "[\"an\", \"array\"]",
      "{\"id\": 6, \"sql\": \"SELECT cust_name COLLATE \\\"C\\\" FROM customers LIMIT 2\"}",
      "{\"id\": 7, \"sql\": \"SELECT 1; DROP TABLE bills\"}") + "\n";

  private record Run(int exit, List<JsonObject> lines, String stdout) {}

  private Run check(String... args) throws Exception {
    Path file = dir.resolve("input.jsonl");
    Files.writeString(file, INPUT, StandardCharsets.UTF_8);
    TestDatabase db = TestDatabase.get();
    CommandLine.IFactory factory = new CommandLine.IFactory() {
      @Override
      public <K> K create(Class<K> cls) throws Exception {
        if (cls == CheckCommand.class) return cls.cast(new CheckCommand(() -> db.config(Map.of())));
        return CommandLine.defaultFactory().create(cls);
      }
    };
    StringWriter out = new StringWriter();
    String[] full = new String[args.length + 2];
    full[0] = "check";
    System.arraycopy(args, 0, full, 1, args.length);
    full[full.length - 1] = file.toString();
    int exit = new CommandLine(new Main(), factory).setOut(new PrintWriter(out)).execute(full);
    List<JsonObject> lines = out.toString().lines().map(JsonObject::new).toList();
    return new Run(exit, lines, out.toString());
  }

  @Test
  void everyInputLineGetsOneOutputLineInOrderWithItsId() throws Exception {
    Run r = check("--jsonl");
    assertThat(r.exit()).isEqualTo(1);
    assertThat(r.lines()).hasSize(8);
    List<JsonObject> l = r.lines();
    assertThat(l.get(0).getValue("id")).isEqualTo(1);
    assertThat(l.get(0).getBoolean("ok")).isTrue();
    assertThat(l.get(0).getString("sql")).isEqualTo("SELECT cat_name FROM categories ORDER BY 1 LIMIT 200");
    assertThat(l.get(0).getString("static_check")).isEqualTo("parsed");
    assertThat(l.get(0).containsKey("rows")).isFalse();
    assertThat(l.get(1).getValue("id")).isEqualTo("two");
    assertThat(l.get(1).getString("error_type")).isEqualTo("rejected");
    assertThat(l.get(2).getValue("id")).isNull();
    assertThat(l.get(2).getInteger("line")).isEqualTo(3);
    assertThat(l.get(2).getString("message")).contains("not a JSON object");
    assertThat(l.get(3).getValue("id")).isEqualTo(4);
    assertThat(l.get(3).getString("message")).contains("\"sql\"");
    assertThat(l.get(4).getJsonObject("id")).isEqualTo(new JsonObject().put("nested", true));
    assertThat(l.get(4).getString("error_type")).isEqualTo("unknown_column");
    assertThat(l.get(5).getString("error_type")).isEqualTo("rejected");
    assertThat(l.get(6).getValue("id")).isEqualTo(6);
    assertThat(l.get(6).getString("static_check")).isEqualTo("fallback");
    assertThat(l.get(7).getString("error_type")).isEqualTo("rejected");
  }

  @Test
  void withRunTheResultIsIncluded() throws Exception {
    Run r = check("--run", "--jsonl");
    List<JsonObject> l = r.lines();
    assertThat(l).hasSize(8);
    assertThat(l.get(0).getInteger("row_count")).isEqualTo(6);
    assertThat(l.get(0).getJsonArray("rows").getJsonArray(0).getString(0)).isNotBlank();
    assertThat(l.get(6).getInteger("row_count")).isEqualTo(2);
  }
}

package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.RunningService;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client that reads an export slowly, on a target whose role ends a transaction idle for 1 s
 * ({@code idle_in_transaction_session_timeout}): the export waits for the client, so its transaction sits idle far
 * longer than that, and still the whole file arrives; a cut the database makes after all says what happened.
 */
class SlowReaderExportTest {

  static ExportDatabase database;
  static Databases databases;
  static RunningService service;

  @BeforeAll
  static void start() throws Exception {
    database = new ExportDatabase();
    database.asAdmin("ALTER ROLE " + database.reader + " SET idle_in_transaction_session_timeout = '1s'");
    AppConfig config = database.config(Map.of());
    databases = database.open(config);
    service = RunningService.start(config, databases.target(), databases.state());
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) service.close();
    if (databases != null) databases.close();
    if (database != null) database.close();
  }

  static List<CSVRecord> csv(String text) throws Exception {
    return CSVFormat.RFC4180.parse(new StringReader(text)).getRecords();
  }

  @Test
  void aSlowReaderGetsTheWholeFileThoughTheRoleEndsIdleTransactionsAfterOneSecond() throws Exception {
    try (RawExport export = RawExport.post(service.port(), null, ExportDatabase.ALL, "csv")) {
      assertThat(export.status).isEqualTo(200);
      // The file (about 11 MB) is far larger than the sockets hold: the export waits for this client, idle in its
      // transaction, for longer than the role allows, at the start and then between each slow read.
      Thread.sleep(3_000);
      for (int i = 0; i < 4 && export.read(128 * 1024); i++) Thread.sleep(1_500);
      export.readAll();
      assertThat(export.cut).isNull();
      assertThat(export.complete).isTrue();
      List<CSVRecord> records = csv(export.text());
      assertThat(records.get(records.size() - 1).get(0)).doesNotStartWith("sql-agent:");
      assertThat(records).hasSize(ExportDatabase.ROWS + 1);
    }
  }

  @Test
  void aCutByTheDatabaseSaysWhatHappenedAfterHowManyRows() throws Exception {
    try (RawExport export = RawExport.post(service.port(), null, ExportDatabase.ALL, "csv")) {
      assertThat(export.status).isEqualTo(200);
      Thread.sleep(4_000);
      // The export's transaction, idle while it waits for this client, is ended from outside.
      database.asAdmin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + database.reader
          + "' AND state = 'idle in transaction'");
      Thread.sleep(500);
      export.readAll();
      assertThat(export.complete).as("the file ends as HTTP ends it, with its last line").isTrue();
      List<CSVRecord> records = csv(export.text());
      assertThat(records.size()).isLessThan(ExportDatabase.ROWS + 1);
      String last = records.get(records.size() - 1).get(0);
      assertThat(last).startsWith("sql-agent: the export failed after the rows above: ")
          .contains("after " + (records.size() - 2) + " rows")
          .containsPattern("sat idle [0-9.]+ s waiting for the client")
          .doesNotContain("unknown").doesNotContain("did not answer as expected");
    }
  }
}

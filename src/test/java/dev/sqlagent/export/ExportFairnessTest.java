package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.Databases;
import dev.sqlagent.config.AppConfig;
import dev.sqlagent.testing.RunningService;
import dev.sqlagent.testing.UsersFiles;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Exports that their clients never read, on a target whose role has no idle-in-transaction limit of its own: a user
 * runs at most {@code SQLAGENT_EXPORTS_PER_USER} at once (429 above), exports run on connections of their own (503
 * {@code busy} when those are all in use), so another user's query still runs; the service ends an export whose
 * client took nothing for {@code SQLAGENT_EXPORT_STALL_MS}, and a query that finds every connection of its own in use
 * is 503 {@code busy}, never a 422 that blames its SQL.
 */
class ExportFairnessTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();
  static final long STALL_MS = 4_000;
  /**
   * An export far larger than the sockets between the service and an unread client hold (about 66 MB against a few
   * MB of loopback buffers), so that one nobody reads cannot finish before its stall bound.
   */
  static final String WIDE = "SELECT id, name, amount, ratio, taken_on, taken_at, seen_at, ok, note, big,"
      + " repeat('x', 1000) AS pad FROM readings ORDER BY id";

  static ExportDatabase database;
  static Databases databases;
  static RunningService service;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    database = new ExportDatabase();
    // Many databases set no idle-in-transaction limit: the service may not count on one.
    database.asAdmin("ALTER ROLE " + database.reader + " RESET idle_in_transaction_session_timeout");
    usersFile = UsersFiles.aliceBobAndAdmin(ALICE, BOB, ROOT);
    AppConfig config = database.config(Map.of("SQLAGENT_USERS", usersFile.toString(),
        "SQLAGENT_EXPORT_STALL_MS", String.valueOf(STALL_MS),
        "SQLAGENT_LOCK_TIMEOUT_MS", "20000", "SQLAGENT_STATEMENT_TIMEOUT_MS", "20000"));
    databases = database.open(config);
    service = RunningService.start(config, databases.target(), databases.state());
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (databases != null) databases.close();
      if (database != null) database.close();
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static Future<HttpResponse<Buffer>> query(String token, String sql) {
    return service.client.post(service.port(), "127.0.0.1", "/api/query").bearerTokenAuthentication(token)
        .putHeader("content-type", "application/json").sendJsonObject(new JsonObject().put("sql", sql));
  }

  static void assertWhole(RawExport export) throws Exception {
    assertThat(export.complete).as("a read export ends whole (%s)", export.cut).isTrue();
    assertThat(CSVFormat.RFC4180.parse(new StringReader(export.text())).getRecords()).hasSize(ExportDatabase.ROWS + 1);
  }

  @Test
  void unreadExportsAreBoundedPerUserRunOnTheirOwnConnectionsAndEndAfterTheStall() throws Exception {
    List<RawExport> open = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        RawExport unread = RawExport.post(service.port(), ALICE, WIDE, "csv");
        open.add(unread);
        assertThat(unread.status).isEqualTo(200);
      }
      RawExport bobs = RawExport.post(service.port(), BOB, ExportDatabase.ALL, "csv");
      open.add(bobs);
      RawExport third = RawExport.post(service.port(), ALICE, ExportDatabase.ALL, "xlsx");
      open.add(third);

      // However many exports are open and unread, another user's query finds a connection.
      HttpResponse<Buffer> one = query(ROOT, "SELECT 1 AS one").await(30, TimeUnit.SECONDS);
      assertThat(one.statusCode()).as("another user's query has connections of its own: " + one.bodyAsString())
          .isEqualTo(200);

      assertThat(bobs.status).as("every export connection is in use").isEqualTo(503);
      assertThat(bobs.headers).containsKey("retry-after");
      bobs.readAll();
      assertThat(new JsonObject(bobs.text()).getString("error_type")).isEqualTo("busy");
      assertThat(third.status).as("a user's third export at once").isEqualTo(429);
      assertThat(third.headers).containsKey("retry-after");
      third.readAll();
      assertThat(new JsonObject(third.text()).getString("message")).contains("SQLAGENT_EXPORTS_PER_USER");

      // Nobody reads Alice's exports: once their sockets are full, the service ends each after the stall bound and
      // lets its connection go. Only once Bob holds both export connections at once have both of Alice's ended, and
      // only then are they read: read sooner, the one not yet past its bound would rightly go on.
      List<RawExport> bobsTwo = null;
      for (long until = System.nanoTime() + 120_000_000_000L; bobsTwo == null && System.nanoTime() < until; ) {
        RawExport first = RawExport.post(service.port(), BOB, ExportDatabase.ALL, "csv");
        open.add(first);
        if (first.status != 200) {
          assertThat(first.status).isEqualTo(503);
          first.close();
          Thread.sleep(500);
          continue;
        }
        RawExport second = RawExport.post(service.port(), BOB, ExportDatabase.ALL, "csv");
        open.add(second);
        if (second.status == 200) {
          bobsTwo = List.of(first, second);
        } else {
          assertThat(second.status).isEqualTo(503);
          second.close();
          // Read at once, before its own stall bound: it is whole, and its connection goes free again.
          assertWhole(first.readAll());
          Thread.sleep(500);
        }
      }
      assertThat(bobsTwo).as("both export connections are free again").isNotNull();
      // Bob's two are read side by side, so neither waits for the other past its stall bound.
      for (boolean more = true; more; ) {
        more = false;
        for (RawExport export : bobsTwo) more |= export.read(1 << 20);
      }
      for (RawExport export : bobsTwo) assertWhole(export);
      for (RawExport unread : open.subList(0, 2)) {
        unread.readAll();
        String text = unread.text();
        assertThat(unread.complete).as("a stalled export is cut, not finished later (%d bytes read, ending %s)",
            unread.bytesRead(), text.substring(Math.max(0, text.length() - 300))).isFalse();
      }
    } finally {
      for (RawExport x : open) x.close();
    }
  }

  @Test
  void aQueryThatFindsEveryConnectionInUseIsBusyNotBlamedOnItsSql() throws Exception {
    List<Future<HttpResponse<Buffer>>> waiting = new ArrayList<>();
    try (Connection admin = database.adminConnection(); Statement s = admin.createStatement()) {
      admin.setAutoCommit(false);
      s.execute("LOCK TABLE readings IN ACCESS EXCLUSIVE MODE");
      // Every connection the questions have waits for the lock (up to the 20 s lock timeout).
      for (int i = 0; i < 4; i++) waiting.add(query(ROOT, "SELECT count(*) FROM readings"));
      Thread.sleep(1_000);
      HttpResponse<Buffer> one = query(BOB, "SELECT 1 AS one").await(30, TimeUnit.SECONDS);
      assertThat(one.statusCode()).as(one.bodyAsString()).isEqualTo(503);
      assertThat(one.getHeader("retry-after")).isNotNull();
      assertThat(one.bodyAsJsonObject().getString("error_type")).isEqualTo("busy");
      admin.rollback();
    }
    for (Future<HttpResponse<Buffer>> w : waiting) {
      assertThat(w.await(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }
}

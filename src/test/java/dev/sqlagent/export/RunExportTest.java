package dev.sqlagent.export;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.testing.FakeModelServer;
import dev.sqlagent.testing.UsersFiles;
import dev.sqlagent.testing.FakeModelServer.Reply;
import dev.sqlagent.testing.RunningService;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /api/runs/{id}/export}: an answer's SQL again through the gate with the export's cap, not the row cap
 * that cut the answer; its owner and an admin may export it, another user may not (403); an unknown run is 404, a
 * run without an answered SQL 409, an unknown format 400, each as JSON.
 */
class RunExportTest {

  static final String ALICE = "alice-token-" + UUID.randomUUID();
  static final String BOB = "bob-token-" + UUID.randomUUID();
  static final String ROOT = "root-token-" + UUID.randomUUID();
  static final String ALL_CUSTOMERS = "SELECT cust_id, cust_name FROM customers ORDER BY cust_id";
  /** More rows than the row cap (5), fewer than the export's cap: the statement's own LIMIT and OFFSET. */
  static final String SEVEN_AFTER_TWO = ALL_CUSTOMERS + " LIMIT 7 OFFSET 2";
  static final String FIRST_SIX = ALL_CUSTOMERS + " FETCH FIRST 6 ROWS ONLY";

  static FakeModelServer model;
  static RunningService service;
  static Path usersFile;

  @BeforeAll
  static void start() throws Exception {
    usersFile = UsersFiles.aliceBobAndAdmin(ALICE, BOB, ROOT);
    model = FakeModelServer.start();
    model.respondWith(req -> {
      String text = FakeModelServer.allText(req);
      if (text.contains("nonsense")) return Reply.sql("SELECT no_such_column FROM customers");
      if (text.contains("seven customers")) return Reply.sql(SEVEN_AFTER_TWO);
      if (text.contains("six customers")) return Reply.sql(FIRST_SIX);
      return Reply.sql(ALL_CUSTOMERS);
    });
    Map<String, String> env = new HashMap<>(model.env());
    env.put("SQLAGENT_USERS", usersFile.toString());
    env.put("SQLAGENT_ANSWER_SUMMARY", "plain");
    env.put("SQLAGENT_ROW_CAP", "5");
    service = RunningService.start(model, env);
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (service != null) service.close();
      if (model != null) model.close();
    } finally {
      if (usersFile != null) Files.deleteIfExists(usersFile);
    }
  }

  static HttpResponse<Buffer> get(String token, String path) throws Exception {
    return service.client.get(service.port(), "127.0.0.1", path).bearerTokenAuthentication(token).send()
        .await(60, TimeUnit.SECONDS);
  }

  static JsonObject ask(String token, String question) throws Exception {
    HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/api/ask").bearerTokenAuthentication(token)
        .putHeader("Content-Type", "application/json").sendJsonObject(new JsonObject().put("question", question))
        .await(120, TimeUnit.SECONDS);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r.bodyAsJsonObject();
  }

  static int customers() throws Exception {
    HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/api/query").bearerTokenAuthentication(ROOT)
        .putHeader("Content-Type", "application/json")
        .sendJsonObject(new JsonObject().put("sql", "SELECT count(*) FROM customers")).await(60, TimeUnit.SECONDS);
    return r.bodyAsJsonObject().getJsonArray("rows").getJsonArray(0).getInteger(0);
  }

  @Test
  void theOwnerExportsEveryRowOfAnAnswerTheRowCapCut() throws Exception {
    JsonObject answer = ask(ALICE, "Who are our customers?");
    assertThat(answer.getBoolean("truncated")).isTrue();
    assertThat(answer.getInteger("row_count")).isEqualTo(5);
    String runId = answer.getString("run_id");

    HttpResponse<Buffer> csv = get(ALICE, "/api/runs/" + runId + "/export?format=csv");
    assertThat(csv.statusCode()).as(csv.bodyAsString()).isEqualTo(200);
    assertThat(csv.getHeader("content-disposition")).contains("sql-agent-" + runId.substring(0, 8) + ".csv");
    List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(csv.bodyAsString())).getRecords();
    int all = customers();
    assertThat(all).isGreaterThan(5);
    assertThat(records).hasSize(all + 1);
    assertThat(records.get(0).toList()).containsExactly("cust_id", "cust_name");
    assertThat(records.get(all).get(0)).doesNotStartWith("sql-agent:");

    assertThat(get(ROOT, "/api/runs/" + runId + "/export?format=xlsx").statusCode()).isEqualTo(200);
    HttpResponse<Buffer> bobs = get(BOB, "/api/runs/" + runId + "/export?format=csv");
    assertThat(bobs.statusCode()).isEqualTo(403);
    assertThat(bobs.bodyAsJsonObject().getString("message")).contains("another user's");
    HttpResponse<Buffer> pdf = get(ALICE, "/api/runs/" + runId + "/export?format=pdf");
    assertThat(pdf.statusCode()).isEqualTo(400);
    assertThat(pdf.bodyAsJsonObject().getString("message")).contains("format=csv or format=xlsx");
  }

  @Test
  void anExportKeepsTheAnswersOwnLimitOffsetAndFetchAndLiftsOnlyTheRowCap() throws Exception {
    JsonObject answer = ask(ALICE, "Show seven customers after the first two");
    assertThat(answer.getInteger("row_count")).as("the row cap (5) bounds the answer").isEqualTo(5);
    assertThat(answer.getBoolean("truncated")).isTrue();
    List<String> ids = ids(ALL_CUSTOMERS + " LIMIT 9");
    HttpResponse<Buffer> csv = get(ALICE, "/api/runs/" + answer.getString("run_id") + "/export?format=csv");
    assertThat(csv.statusCode()).as(csv.bodyAsString()).isEqualTo(200);
    List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(csv.bodyAsString())).getRecords();
    assertThat(records).as("a header and the statement's own 7 rows after its OFFSET 2").hasSize(1 + 7);
    assertThat(records.subList(1, 8).stream().map(r -> r.get(0)).toList()).isEqualTo(ids.subList(2, 9));

    JsonObject fetched = ask(ALICE, "Show six customers");
    assertThat(fetched.getInteger("row_count")).isEqualTo(5);
    HttpResponse<Buffer> six = get(ALICE, "/api/runs/" + fetched.getString("run_id") + "/export?format=csv");
    assertThat(CSVFormat.RFC4180.parse(new StringReader(six.bodyAsString())).getRecords())
        .as("a header and the statement's own FETCH FIRST 6 ROWS").hasSize(1 + 6);
  }

  /** The first column of {@code sql}'s rows, from an export of the SQL console (not bound by the row cap). */
  static List<String> ids(String sql) throws Exception {
    HttpResponse<Buffer> r = service.client.post(service.port(), "127.0.0.1", "/api/query/export").bearerTokenAuthentication(ROOT)
        .putHeader("Content-Type", "application/json")
        .sendJsonObject(new JsonObject().put("sql", sql).put("format", "csv")).await(60, TimeUnit.SECONDS);
    List<CSVRecord> records = CSVFormat.RFC4180.parse(new StringReader(r.bodyAsString())).getRecords();
    return records.subList(1, records.size()).stream().map(rec -> rec.get(0)).toList();
  }

  @Test
  void anUnknownRunIs404AndARunWithoutAnAnsweredSqlIs409() throws Exception {
    HttpResponse<Buffer> unknown = get(ALICE, "/api/runs/" + UUID.randomUUID() + "/export?format=csv");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.getHeader("content-type")).startsWith("application/json");

    JsonObject gaveUp = ask(ALICE, "Show me nonsense");
    assertThat(gaveUp.getBoolean("gave_up")).isTrue();
    HttpResponse<Buffer> conflict = get(ALICE, "/api/runs/" + gaveUp.getString("run_id") + "/export?format=csv");
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(conflict.bodyAsJsonObject().getString("message")).contains("has no answered SQL to export");
  }
}

package dev.sqlagent.retrieval;

import dev.sqlagent.contract.RetrievalMessages;
import dev.sqlagent.contract.Retrieval;
import dev.sqlagent.contract.RetrievalClient;
import dev.sqlagent.contract.ScoredTable;
import dev.sqlagent.state.StateDatabase;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.db.Target;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A library's own database (not the demo) with its notes file: the live loans table and the archive of the old
 * system look alike to the embedding, and the notes' dates decide between them through RETRIEVE.
 */
class NotesRankingDatabaseTest {

  static final String DB = "library_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
  static Vertx vertx;
  static RetrievalClient client;

  @BeforeAll
  static void create() throws Exception {
    try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + DB);
    }
    try (Connection c = TestDatabase.get().adminConnection(DB); Statement s = c.createStatement()) {
      for (String sql : List.of(
          "CREATE SCHEMA lending",
          "CREATE TABLE members (member_id int PRIMARY KEY, name text, joined_on date)",
          "CREATE TABLE lending.loans (loan_id int PRIMARY KEY, member_id int REFERENCES members, book text,"
              + " lent_on date, returned_on date)",
          "COMMENT ON TABLE lending.loans IS 'Book loans: who borrowed which book, when it was lent and returned.'",
          "CREATE TABLE lending.loans_archive (loan_id int PRIMARY KEY, member_name text, book text, lent_on date,"
              + " returned_on date)",
          "COMMENT ON TABLE lending.loans_archive IS 'Book loans: who borrowed which book, when it was lent and returned.'",
          "CREATE TABLE fines (fine_id int PRIMARY KEY, loan_id int, amount numeric(8,2), paid boolean)",
          "CREATE TABLE branches (branch_id int PRIMARY KEY, city text)",
          "INSERT INTO members VALUES (1, 'Ada', '2016-05-01')")) {
        s.execute(sql);
      }
    }
    Path notes = Files.createTempDirectory("library-notes").resolve("library.yaml");
    Files.writeString(notes, """
        tables:
          lending.loans:
            dates: {from: 2022-03-01}
          lending.loans_archive:
            dates: {from: 2015, to: 2022-02}
        terms:
          - term: late fee
            means: what a member owes for a book returned after its due date
            tables: [fines]
        """);
    vertx = Vertx.vertx();
    Target library = new Target(TestDatabase.get().adminUrl().withDatabase(DB), false);
    vertx.deployVerticle(new RetrievalVerticle(library, StateDatabase.open(vertx, TestDatabase.get().state(), 2),
        dev.sqlagent.config.AppConfig.load(java.util.Map.of("SQLAGENT_NOTES", notes.toString())))).await(120, TimeUnit.SECONDS);
    client = new RetrievalClient(vertx, 60_000);
  }

  @AfterAll
  static void drop() throws Exception {
    try {
      if (vertx != null) vertx.close().await(30, TimeUnit.SECONDS);
    } finally {
      try (Connection c = TestDatabase.get().adminConnection("postgres"); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
      }
    }
  }

  static List<ScoredTable> ranked(String question) throws Exception {
    return client.retrieve(new Retrieval.Request(question, false)).await(60, TimeUnit.SECONDS).tables();
  }

  static int position(List<ScoredTable> tables, String name) {
    return tables.stream().map(ScoredTable::name).toList().indexOf(name);
  }

  static ScoredTable table(List<ScoredTable> tables, String name) {
    return tables.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void aYearAfterTheArchivePutsTheLiveTableFirst() throws Exception {
    List<ScoredTable> r = ranked("How many books were lent in 2025?");
    assertThat(position(r, "lending.loans")).isLessThan(position(r, "lending.loans_archive"));
    assertThat(table(r, "lending.loans_archive").ranking()).startsWith("-0.10").contains("outside its dates");
  }

  @Test
  void aYearOfTheArchivePutsTheArchiveFirst() throws Exception {
    List<ScoredTable> r = ranked("How many books were lent in 2019?");
    assertThat(position(r, "lending.loans_archive")).isLessThan(position(r, "lending.loans"));
    assertThat(table(r, "lending.loans").ranking()).contains("outside its dates (from 2022-03-01)");
  }

  @Test
  void aBusinessTermRaisesItsTable() throws Exception {
    ScoredTable fines = table(ranked("Which members owe a late fee?"), "fines");
    assertThat(fines.ranking()).isEqualTo("+0.04: the question uses the term 'late fee'");
  }
}

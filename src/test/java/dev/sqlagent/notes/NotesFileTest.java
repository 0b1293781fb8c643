package dev.sqlagent.notes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NotesFileTest {

  @TempDir
  Path dir;

  static final String YAML = """
      # A CRM's notes
      tables:
        customers:
          description: People who bought at least once.
          columns:
            status: "Upper case: ACTIVE, CHURNED"
            Signup Date: When they first signed up.
        sales.invoices: One row per invoice; cancelled ones have status VOID.
        '"Sales"."Refunds"':    # single quotes keep the SQL quotes
          columns:
            amt: Refunded amount, positive.
      terms:
        - term: active customer
          means: a customer with an invoice in the last 12 months
          tables: [customers, sales.invoices]
        - term: fiscal year
          means: April to March
      conventions:
        - tables: [sales.invoices]
          text: Invoices before 2024 are in sales.invoice_archive.
        - tables: customers
          text: "Test customers have emails ending in @example.com: exclude them."
        - text: Money is in euros.
      """;

  static final String JSON = """
      {
        "tables": {
          "customers": {
            "description": "People who bought at least once.",
            "columns": {
              "status": "Upper case: ACTIVE, CHURNED",
              "Signup Date": "When they first signed up."
            }
          },
          "sales.invoices": "One row per invoice; cancelled ones have status VOID.",
          "\\"Sales\\".\\"Refunds\\"": {"columns": {"amt": "Refunded amount, positive."}}
        },
        "terms": [
          {"term": "active customer", "means": "a customer with an invoice in the last 12 months",
           "tables": ["customers", "sales.invoices"]},
          {"term": "fiscal year", "means": "April to March"}
        ],
        "conventions": [
          {"tables": ["sales.invoices"], "text": "Invoices before 2024 are in sales.invoice_archive."},
          {"tables": "customers", "text": "Test customers have emails ending in @example.com: exclude them."},
          {"text": "Money is in euros."}
        ]
      }
      """;

  Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content, StandardCharsets.UTF_8);
  }

  NotesException error(String name, String content) throws IOException {
    Path p = write(name, content);
    NotesException e = catchThrowableOfType(NotesException.class, () -> NotesFile.load(p));
    assertThat(e).as("loading %s should fail", name).isNotNull();
    assertThat(e.getMessage()).startsWith(p + " line " + e.line() + ": ").doesNotContain("Exception", "org.", "com.");
    return e;
  }

  /** The content of notes without the lines it was written on (those differ between YAML and JSON). */
  static List<Object> content(Notes n) {
    return List.of(
        n.tables().stream().map(t -> List.of(t.name(), String.valueOf(t.description()),
            t.columns().stream().map(c -> c.name() + "=" + c.note()).toList())).toList(),
        n.terms().stream().map(t -> List.of(t.render(), t.tables().stream().map(Notes.TableRef::name).toList())).toList(),
        n.conventions().stream().map(c -> List.of(c.text(), c.tables().stream().map(Notes.TableRef::name).toList())).toList());
  }

  @Test
  void yamlAndJsonFormsGiveTheSameNotes() throws IOException {
    Notes yaml = NotesFile.load(write("crm.yaml", YAML));
    Notes json = NotesFile.load(write("crm.json", JSON));
    assertThat(content(json)).isEqualTo(content(yaml));
    assertThat(yaml.tables()).hasSize(3);
    assertThat(yaml.terms()).hasSize(2);
    assertThat(yaml.conventions()).hasSize(3);
    // Detected by content when the extension says nothing.
    assertThat(content(NotesFile.load(write("notes.txt", JSON)))).isEqualTo(content(yaml));
    assertThat(content(NotesFile.load(write("notes", YAML)))).isEqualTo(content(yaml));
  }

  @Test
  void linesAreKept() throws IOException {
    Notes n = NotesFile.load(write("crm.yaml", YAML));
    assertThat(n.tables().get(0).line()).isEqualTo(3);
    assertThat(n.tables().get(0).columns().get(1).line()).isEqualTo(7);
    assertThat(n.terms().get(1).line()).isEqualTo(16);
    assertThat(n.terms().get(0).tables().get(1).line()).isEqualTo(15);
    assertThat(n.conventions().get(2).line()).isEqualTo(23);
  }

  @Test
  void lookupsByCatalogueName() throws IOException {
    Notes n = NotesFile.load(write("crm.yaml", YAML));
    assertThat(n.tableNote("customers")).contains("People who bought at least once.");
    assertThat(n.tableNote("public.customers")).contains("People who bought at least once.");
    assertThat(n.tableNote("\"Customers\"")).contains("People who bought at least once.");
    assertThat(n.tableNote("sales.invoices")).contains("One row per invoice; cancelled ones have status VOID.");
    assertThat(n.tableNote("\"Sales\".\"Refunds\"")).isEmpty();
    assertThat(n.tableNote("orders")).isEmpty();
    assertThat(n.columnNote("customers", "status")).contains("Upper case: ACTIVE, CHURNED");
    assertThat(n.columnNote("customers", "Signup Date")).contains("When they first signed up.");
    assertThat(n.columnNote("customers", "\"Signup Date\"")).contains("When they first signed up.");
    assertThat(n.columnNote("Customers", "STATUS")).contains("Upper case: ACTIVE, CHURNED");
    assertThat(n.columnNote("\"Sales\".\"Refunds\"", "amt")).contains("Refunded amount, positive.");
    assertThat(n.columnNote("customers", "email")).isEmpty();
  }

  @Test
  void termsAndConventionsFollowTheirTables() throws IOException {
    Notes n = NotesFile.load(write("crm.yaml", YAML));
    assertThat(n.termsFor(List.of("customers"))).containsExactly(
        "\"active customer\" means: a customer with an invoice in the last 12 months",
        "\"fiscal year\" means: April to March");
    assertThat(n.termsFor(List.of("\"Sales\".\"Invoices\""))).hasSize(2);
    // A term without tables applies always, even to a prompt with no tables at all.
    assertThat(n.termsFor(List.of("sales.refunds"))).containsExactly("\"fiscal year\" means: April to March");
    assertThat(n.termsFor(List.of())).containsExactly("\"fiscal year\" means: April to March");
    assertThat(n.conventionsFor(Set.of("sales.invoices", "customers"))).containsExactly(
        "Invoices before 2024 are in sales.invoice_archive.",
        "Test customers have emails ending in @example.com: exclude them.",
        "Money is in euros.");
    assertThat(n.conventionsFor(List.of("other"))).containsExactly("Money is in euros.");
  }

  @Test
  void emptyFileAndEmptyNotes() throws IOException {
    assertThat(NotesFile.load(write("empty.yaml", "# nothing yet\n")).isEmpty()).isTrue();
    assertThat(NotesFile.load(write("empty.json", "")).isEmpty()).isTrue();
    assertThat(NotesFile.load(write("blank.yaml", "tables:\nterms:\n")).isEmpty()).isTrue();
    assertThat(Notes.EMPTY.tableNote("customers")).isEmpty();
    assertThat(Notes.EMPTY.termsFor(List.of("customers"))).isEmpty();
    assertThat(Notes.EMPTY.validate(KnownTables.of(java.util.Map.of()))).isEmpty();
  }

  @Test
  void badYamlSyntax() throws IOException {
    NotesException e = error("bad.yaml", """
        tables:
          customers:
            description: People: who bought
        """);
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.getMessage()).contains("not valid YAML: mapping values are not allowed here");

    e = error("indent.yaml", """
        tables:
          customers:
            description: "unterminated
        terms: []
        """);
    assertThat(e.line()).isGreaterThanOrEqualTo(3);
    assertThat(e.getMessage()).contains("not valid YAML");

    e = error("two.yaml", "tables:\n  a: b\n---\nterms: []\n");
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.getMessage())
        .endsWith("not valid YAML: expected a single document in the stream: but found another document");

    e = error("quotes.yaml", """
        tables:
          "Sales"."Orders": One row per order.
        """);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.getMessage()).endsWith(
        "(a name with SQL quotes must be in single quotes in YAML: '\"Sales\".\"Orders\"':)");
  }

  @Test
  void badJsonSyntax() throws IOException {
    NotesException e = error("bad.json", """
        {
          "tables": {
            "customers": "People who bought",
          }
        }
        """);
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.getMessage()).contains("not valid JSON").doesNotContain("code 125", "Source");

    e = error("short.json", "{\n  \"tables\": {\n    \"customers\": \"x\"\n");
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.getMessage()).contains("not valid JSON: the file ends too early");
  }

  @Test
  void unknownTopLevelKey() throws IOException {
    NotesException e = error("typo.yaml", """
        tables:
          customers: People.
        term:
          - term: x
            means: y
        """);
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.getMessage()).endsWith(
        "unknown key 'term' at the top of the file (expected allow_functions, conventions, metrics, sensitive, tables, terms; did you mean terms?)");
  }

  @Test
  void allowFunctionsIsAListOfNamesOrOneName() throws IOException {
    assertThat(NotesFile.load(write("a.yaml", "allow_functions: [public.fq, '\"Reporting\".to_eur']\n")).allowFunctions())
        .containsExactly("public.fq", "\"Reporting\".to_eur");
    assertThat(NotesFile.load(write("b.yaml", "allow_functions: public.fq\n")).allowFunctions()).containsExactly("public.fq");
    NotesException e = error("c.yaml", "allow_functions:\n  - {name: x}\n");
    assertThat(e.getMessage()).contains("'allow_functions' must be a list of schema.function names");
  }

  @Test
  void termWithoutMeans() throws IOException {
    NotesException e = error("terms.yaml", """
        terms:
          - term: active customer
            means: bought this year
          - term: churned
            tables: [customers]
        """);
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.getMessage()).endsWith("term 'churned' has no 'means'");

    e = error("terms.json", "{\"terms\": [\n {\"term\": \"churned\",\n  \"tables\": [\"customers\"]}]}");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.getMessage()).endsWith("term 'churned' has no 'means'");
  }

  @Test
  void conventionWithoutText() throws IOException {
    NotesException e = error("conv.yaml", """
        conventions:
          - tables: [bills]
            txt: bills starts in 2025
        """);
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.getMessage()).endsWith("unknown key 'txt' in a convention (expected tables, text; did you mean text?)");

    e = error("conv2.yaml", """
        conventions:
          - tables: [bills]
        """);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.getMessage()).endsWith("a convention has no 'text'");
  }

  @Test
  void columnsNotAMap() throws IOException {
    NotesException e = error("cols.yaml", """
        tables:
          customers:
            description: People.
            columns:
              - status
              - email
        """);
    assertThat(e.line()).isEqualTo(5);
    assertThat(e.getMessage()).endsWith(
        "'columns' of table customers must be a map from column name to its note; found a list");
  }

  @Test
  void otherWrongTypes() throws IOException {
    assertThat(error("a.yaml", "- tables\n").getMessage())
        .endsWith("line 1: the file must be a map with tables, terms and conventions; found a list");
    assertThat(error("b.yaml", "terms:\n  term: x\n  means: y\n").getMessage())
        .endsWith("line 2: 'terms' must be a list of terms, each with term and means; found a map");
    assertThat(error("c.yaml", "tables:\n  customers:\n    description: [a, b]\n").getMessage())
        .endsWith("line 3: 'description' of table customers must be text; found a list");
    assertThat(error("d.yaml", "tables:\n  customers:\n    description:\n").getMessage())
        .endsWith("line 3: 'description' of table customers is empty");
    assertThat(error("e.yaml", "tables:\n  sales.orders.2024: Orders of 2024.\n").getMessage())
        .endsWith("line 2: 'sales.orders.2024' is not a table name: write table or schema.table");
    assertThat(error("f.yaml", "tables:\n  a: x\n  b: y\n  a: z\n").getMessage())
        .endsWith("line 4: 'a' appears twice (first at line 2)");
    assertThat(error("g.json", "{\"tables\": {\"a\": \"x\"},\n \"tables\": {}}").getMessage())
        .endsWith("line 2: 'tables' appears twice (first at line 1)");
    assertThat(error("h.yaml", "tables:\n  customers:\n    colums:\n      a: b\n").getMessage())
        .endsWith("line 3: unknown key 'colums' in table customers (expected columns, dates, description; did you mean columns?)");
  }

  @Test
  void missingFileIsAPlainError() {
    Path p = dir.resolve("nowhere.yaml");
    NotesException e = catchThrowableOfType(NotesException.class, () -> NotesFile.load(p));
    assertThat(e.getMessage()).isEqualTo(p + ": no such file");
    assertThat(e.line()).isZero();
  }

  @Test
  void notUtf8IsAPlainError() throws IOException {
    Path p = Files.write(dir.resolve("latin1.yaml"), new byte[] {'a', ':', ' ', (byte) 0xE9, '\n'});
    NotesException e = catchThrowableOfType(NotesException.class, () -> NotesFile.load(p));
    assertThat(e.getMessage()).isEqualTo(p + ": is not UTF-8 text");
  }
}

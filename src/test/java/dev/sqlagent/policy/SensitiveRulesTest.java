package dev.sqlagent.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.notes.Notes;
import dev.sqlagent.notes.NotesException;
import dev.sqlagent.notes.NotesFile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The notes file's sensitive columns (own entries and patterns), the masks, and the suggestions. */
class SensitiveRulesTest {

  static Notes parse(String yaml) {
    return NotesFile.parse("notes.yaml", yaml, NotesFile.Format.YAML);
  }

  @Test
  void aColumnEntryOrAPatternMarksAColumnWithItsMask() {
    Notes notes = parse("""
        tables:
          customers:
            columns:
              email: {sensitive: true, mask: hash, note: Lower case.}
              salary: {sensitive: true}
              status: Upper case.
        sensitive:
          - "*.national_id"
          - columns: ["*.phone", "hr.*.Mobile"]
            mask: last4
        """);
    assertThat(notes.sensitiveMask("public", "customers", "email")).contains("hash");
    assertThat(notes.sensitiveMask("public", "customers", "salary")).contains("redact");
    assertThat(notes.sensitiveMask("public", "customers", "status")).isEmpty();
    assertThat(notes.columnNote("customers", "email")).contains("Lower case.");
    assertThat(notes.columnNote("customers", "salary")).isEmpty();
    assertThat(notes.sensitiveMask("sales", "leads", "NATIONAL_ID")).contains("redact");
    assertThat(notes.sensitiveMask("sales", "leads", "phone")).contains("last4");
    assertThat(notes.sensitiveMask("hr", "staff", "mobile")).contains("last4");
    assertThat(notes.sensitiveMask("sales", "staff", "mobile")).isEmpty();
    assertThat(notes.sensitiveMask("public", "orders", "email")).isEmpty();
    assertThat(notes.marksSensitive()).isTrue();
    assertThat(parse("tables: {customers: {columns: {status: Upper case.}}}").marksSensitive()).isFalse();
  }

  @Test
  void mistakesAreNamedWithTheirLine() {
    assertThatThrownBy(() -> parse("tables:\n  customers:\n    columns:\n      email: {sensitive: true, mask: blur}\n"))
        .isInstanceOf(NotesException.class).hasMessageContaining("line 4").hasMessageContaining("redact, hash, last4");
    assertThatThrownBy(() -> parse("tables:\n  customers:\n    columns:\n      email: {mask: hash, note: x}\n"))
        .isInstanceOf(NotesException.class).hasMessageContaining("needs 'sensitive: true'");
    assertThatThrownBy(() -> parse("sensitive:\n  - a.b.c.d\n"))
        .isInstanceOf(NotesException.class).hasMessageContaining("line 2").hasMessageContaining("not a column pattern");
    assertThatThrownBy(() -> parse("sensitive:\n  - {mask: hash}\n"))
        .isInstanceOf(NotesException.class).hasMessageContaining("has no 'columns'");
  }

  @Test
  void masksKeepNullAndShowWhatTheySay() {
    assertThat(Mask.REDACT.apply("zelda@example.test")).isEqualTo("[redacted]");
    assertThat(Mask.REDACT.apply(null)).isNull();
    assertThat((String) Mask.HASH.apply("zelda@example.test")).matches("#[0-9a-f]{12}")
        .isEqualTo(Mask.HASH.apply("zelda@example.test")).isNotEqualTo(Mask.HASH.apply("omar@example.test"));
    assertThat(Mask.LAST4.apply("+44 7700 900123")).isEqualTo("****0123");
    assertThat(Mask.LAST4.apply("123")).isEqualTo("****");
    assertThat(Mask.REDACT.apply(98765)).isEqualTo("[redacted]");
  }

  @Test
  void suggestionsComeFromNamesAndValuesAndNeverFromAFewOddOnes() {
    assertThat(SensitiveSuggestions.of("people", "contact", List.of("a@b.example", "c@d.example", "e@f.example")))
        .hasValueSatisfying(s -> assertThat(s.why()).contains("e-mail addresses"));
    assertThat(SensitiveSuggestions.of("people", "work_phone", List.of())).hasValueSatisfying(s -> assertThat(s.mask()).isEqualTo("last4"));
    assertThat(SensitiveSuggestions.of("payments", "pan", List.of("4111 1111 1111 1111", "5500-0000-0000-0004",
        "4012888888881881"))).hasValueSatisfying(s -> assertThat(s.why()).contains("payment card numbers"));
    // Sixteen digits that fail the Luhn check are no card numbers.
    assertThat(SensitiveSuggestions.of("t", "ref", List.of("1234567812345678", "1111222233334445", "9999888877776661")))
        .isEmpty();
    assertThat(SensitiveSuggestions.of("t", "city", List.of("Paris", "Lyon", "a@b.example"))).isEmpty();
    assertThat(SensitiveSuggestions.of("t", "code", List.of("123-45-6789", "987-65-4321", "111-22-3333")))
        .hasValueSatisfying(s -> assertThat(s.why()).contains("national ids"));
  }

  @Test
  void levelsAddToTheOneBefore() {
    assertThat(ModelSees.parse(" Values ")).isEqualTo(ModelSees.VALUES);
    assertThatThrownBy(() -> ModelSees.parse("rows")).hasMessageContaining("'schema', 'values', 'samples' or 'results'");
    assertThat(ModelSees.SCHEMA.storedValues()).isFalse();
    assertThat(ModelSees.VALUES.storedValues()).isTrue();
    assertThat(ModelSees.VALUES.sampleRows()).isFalse();
    assertThat(ModelSees.SAMPLES.sampleRows()).isTrue();
    assertThat(ModelSees.SAMPLES.resultRows()).isFalse();
    assertThat(ModelSees.DEFAULT).isEqualTo(ModelSees.RESULTS);
  }
}

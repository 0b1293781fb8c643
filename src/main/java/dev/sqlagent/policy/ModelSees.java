package dev.sqlagent.policy;

import java.util.Arrays;
import java.util.Locale;

/**
 * How much of the database the model is sent ({@code SQLAGENT_MODEL_SEES}), each level adding to the one before:
 * {@link #SCHEMA} names, types, comments and notes; {@link #VALUES} also the stored values of low-cardinality columns and
 * of the columns a question's words matched; {@link #SAMPLES} also a few sample rows of each chosen table;
 * {@link #RESULTS} also the first rows of the result, so the model words the answer (below it the answer is the plain
 * summary, and earlier turns of a conversation reach the prompt without their rows).
 */
public enum ModelSees {
  SCHEMA("names, types, comments and notes"),
  VALUES("names, types, comments, notes and stored values"),
  SAMPLES("names, types, comments, notes, stored values and sample rows"),
  RESULTS("names, types, comments, notes, stored values, sample rows and result rows");

  /** Today's behaviour, and the default. */
  public static final ModelSees DEFAULT = RESULTS;

  private final String sends;

  ModelSees(String sends) {
    this.sends = sends;
  }

  /** The setting's value: {@code schema}, {@code values}, {@code samples} or {@code results}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** What the model is sent at this level, for status and health. */
  public String sends() {
    return sends;
  }

  /** Stored values (low-cardinality columns, the question's matches) may be in a prompt. */
  public boolean storedValues() {
    return compareTo(VALUES) >= 0;
  }

  /** Sample rows may be in a prompt. */
  public boolean sampleRows() {
    return compareTo(SAMPLES) >= 0;
  }

  /** Result rows may be in a prompt (the answer's wording, earlier turns' rows). */
  public boolean resultRows() {
    return this == RESULTS;
  }

  /** @throws IllegalArgumentException naming the values allowed */
  public static ModelSees parse(String text) {
    String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    return Arrays.stream(values()).filter(l -> l.wireName().equals(t)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("expected 'schema', 'values', 'samples' or 'results'"));
  }
}

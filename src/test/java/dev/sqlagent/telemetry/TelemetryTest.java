package dev.sqlagent.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.config.TelemetrySettings;
import dev.sqlagent.execution.SqlShape;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The settings of traces and logs, a statement's shape, and what a span's URL keeps. */
class TelemetryTest {

  @Test
  void aShapeKeepsTheStatementAndReplacesEveryLiteral() {
    assertThat(SqlShape.of("SELECT name FROM customers WHERE city = 'Chennai' AND credit_limit > 2500.50 LIMIT 10"))
        .isEqualTo("SELECT name FROM customers WHERE city = ? AND credit_limit > ? LIMIT ?");
    assertThat(SqlShape.of("SELECT E'it\\'s', $tag$O'Brien$tag$, 1e3, x'1F' -- Mr Secret\nFROM t /* the 42 */"))
        .doesNotContain("it").doesNotContain("O'Brien").doesNotContain("1e3").doesNotContain("Secret")
        .doesNotContain("42").startsWith("SELECT ?, ?, ?");
    assertThat(SqlShape.of("SELECT \"Weird Name\", a::text, $1 FROM s.t WHERE d >= DATE '2024-01-01'"))
        .isEqualTo("SELECT \"Weird Name\", a::text, $1 FROM s.t WHERE d >= DATE ?");
    // Text PostgreSQL would not tokenise shows only its first word.
    assertThat(SqlShape.of("SELECT 'unclosed secret")).isEqualTo("SELECT …");
    assertThat(SqlShape.operation("  select 1")).isEqualTo("SELECT");
    assertThat(SqlShape.operation("/* hi */ BEGIN READ ONLY")).isEqualTo("BEGIN");
    assertThat(SqlShape.operation("(SELECT 1)")).isEqualTo("SQL");
    assertThat(SqlShape.operation("-- a note\n/* outer /* inner */ still */\twith_x AS (SELECT 1) SELECT 2"))
        .isEqualTo("WITH_X");
    assertThat(SqlShape.operation("/* never closed SELECT 1")).isEqualTo("SQL");
    assertThat(SqlShape.operation("-- only a comment")).isEqualTo("SQL");
    assertThat(SqlShape.operation("")).isEqualTo("SQL");
    assertThat(SqlShape.operation("\"quoted\" x")).isEqualTo("SQL");
  }

  @Test
  void aSpansUrlLosesItsQueryAndUserInformation() {
    assertThat(ShapingTracerFactory.safe("url.full", "https://user:pw@api.example/v1/chat?api-key=sk-1#x"))
        .isEqualTo("https://api.example/v1/chat");
    assertThat(ShapingTracerFactory.safe("db.query.text", "SELECT 'a'")).isEqualTo("SELECT ?");
    assertThat(ShapingTracerFactory.safe("messaging.destination.name", "sqlagent.ask")).isEqualTo("sqlagent.ask");
  }

  @Test
  void settingsAreCheckedAndDeclared() {
    assertThat(TelemetrySettings.from(Map.of())).isEqualTo(TelemetrySettings.OFF);
    assertThat(TelemetrySettings.from(Map.of("SQLAGENT_OTLP_ENDPOINT", "http://collector:4318")).endpoint())
        .contains(URI.create("http://collector:4318/v1/traces"));
    assertThat(TelemetrySettings.from(Map.of("SQLAGENT_OTLP_ENDPOINT", "https://c.example/otlp/v1/traces/")).endpoint())
        .contains(URI.create("https://c.example/otlp/v1/traces"));
    TelemetrySettings all = TelemetrySettings.from(Map.of("SQLAGENT_OTLP_ENDPOINT", "http://c:4318?token=abc",
        "SQLAGENT_OTLP_PROMPTS", "TRUE", "SQLAGENT_LOG_FORMAT", "json"));
    assertThat(all.prompts()).isTrue();
    assertThat(all.json()).isTrue();
    assertThat(all.describe()).isEqualTo("traces=http://c:4318/v1/traces (with prompts) logFormat=json");
    assertThatThrownBy(() -> TelemetrySettings.from(Map.of("SQLAGENT_LOG_FORMAT", "xml")))
        .isInstanceOf(ConfigException.class).hasMessage("SQLAGENT_LOG_FORMAT=xml: expected 'text' (the default) or 'json'");
    assertThatThrownBy(() -> TelemetrySettings.from(Map.of("SQLAGENT_OTLP_ENDPOINT", "collector:4318")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("expected an http:// or https:// URL");
    assertThatThrownBy(() -> TelemetrySettings.from(Map.of("SQLAGENT_OTLP_ENDPOINT", "http://u:secret@c:4318")))
        .isInstanceOf(ConfigException.class).hasMessageNotContaining("secret");
    assertThatThrownBy(() -> TelemetrySettings.from(Map.of("SQLAGENT_OTLP_PROMPTS", "yes")))
        .isInstanceOf(ConfigException.class).hasMessage("SQLAGENT_OTLP_PROMPTS=yes: expected true or false");
    // Declared settings: the service accepts them (an undeclared SQLAGENT_ key stops the start).
    assertThat(AppConfig.merged(Map.of("SQLAGENT_OTLP_ENDPOINT", "http://c:4318", "SQLAGENT_OTLP_PROMPTS", "false",
        "SQLAGENT_LOG_FORMAT", "text"))).hasSize(3);
  }
}

package dev.sqlagent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AppConfigTest {

  @Test
  void defaultsNeedNoSetting() {
    AppConfig c = AppConfig.load(Map.of());
    assertThat(c.dbUrl()).isEmpty();
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.httpHost()).isEqualTo("127.0.0.1");
    assertThat(c.llmBaseUrl()).isEqualTo("http://localhost:11434/v1");
    assertThat(c.rowCap()).isEqualTo(200);
  }

  @Test
  void theLimitsAgainstHostileInputAndLoadHaveDefaultsAndBounds() {
    AppConfig c = AppConfig.load(Map.of());
    assertThat(c.maxResultBytes()).isEqualTo(4L * 1024 * 1024);
    assertThat(c.askInFlight()).isEqualTo(64);
    assertThat(c.askQueue()).isEqualTo(128);
    assertThat(c.llmMaxConnections()).isEqualTo(64);
    assertThat(c.httpIdleTimeoutMs()).isEqualTo(60_000);
    assertThat(c.httpHeaderTimeoutMs()).isEqualTo(10_000);
    assertThat(c.describe()).contains("maxResultBytes=4194304", "askInFlight=64", "httpHeaderTimeoutMs=10000");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_MAX_RESULT_BYTES", "100")))
        .hasMessageContaining("SQLAGENT_MAX_RESULT_BYTES=100");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_LLM_MAX_CONNECTIONS", "0")))
        .hasMessageContaining("SQLAGENT_LLM_MAX_CONNECTIONS");
  }

  @Test
  void allowedFunctionsAreSchemaQualifiedNamesAsSqlWritesThem() {
    AppConfig c = AppConfig.load(Map.of("SQLAGENT_ALLOW_FUNCTIONS", "public.FQ, \"Reporting\".\"ToEur\",,sales.x_1"));
    assertThat(c.allowFunctions()).extracting(AppConfig.FunctionName::toString)
        .containsExactly("public.fq", "Reporting.ToEur", "sales.x_1");
    assertThat(AppConfig.load(Map.of()).allowFunctions()).isEmpty();
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_ALLOW_FUNCTIONS", "fq")))
        .hasMessage("SQLAGENT_ALLOW_FUNCTIONS: 'fq' is not schema.function: name its schema too");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_ALLOW_FUNCTIONS", "public.\"fq")))
        .hasMessageContaining("has a quote that is never closed");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_ALLOW_FUNCTIONS", "public.f(int)")))
        .hasMessageContaining("is not schema.function");
  }

  @Test
  void thePoolerInFrontOfTheTargetIsNoneSessionOrTransaction() {
    assertThat(AppConfig.load(Map.of()).transactionPooler()).isFalse();
    assertThat(AppConfig.load(Map.of("SQLAGENT_DB_POOLER", "session")).transactionPooler()).isFalse();
    AppConfig pooled = AppConfig.load(Map.of("SQLAGENT_DB_POOLER", "Transaction"));
    assertThat(pooled.transactionPooler()).isTrue();
    assertThat(pooled.describe()).contains("pooler=transaction");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_DB_POOLER", "statement")))
        .hasMessageContaining("SQLAGENT_DB_POOLER=statement: expected 'none', 'session' or 'transaction'");
  }

  @Test
  void secretsAreMaskedInTheLogLine() {
    AppConfig c = AppConfig.load(Map.of(
        "SQLAGENT_DB_URL", "postgresql://admin:hunter2@db.internal:5433/shop",
        "SQLAGENT_LLM_API_KEY", "sk-primary-secret,sk-second-secret",
        "SQLAGENT_API_TOKEN", "tok-secret"));
    assertThat(c.describe()).doesNotContain("hunter2", "sk-primary-secret", "sk-second-secret", "tok-secret")
        .contains("postgresql://admin:****@db.internal:5433/shop", "keys=2x****", "apiToken=****");
    assertThat(c.toString()).doesNotContain("hunter2");
    assertThat(c.llmApiKeys()).containsExactly("sk-primary-secret", "sk-second-secret");
    // The model client's log line says the keys the same way, never their text.
    assertThat(dev.sqlagent.generation.ChatClientOptions.from(c).toString()).contains("keys=2x****")
        .doesNotContain("sk-primary-secret");
  }

  @Test
  void noKeysAreSaidAsNoneInBothLogLines() {
    AppConfig c = AppConfig.load(Map.of());
    assertThat(c.describe()).contains("keys=none");
    assertThat(dev.sqlagent.generation.ChatClientOptions.from(c).toString()).contains("keys=none").doesNotContain("0x");
  }

  @Test
  void badValuesNameTheKeyAndWhatIsExpected() {
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_HTTP_PORT", "eighty")))
        .isInstanceOf(ConfigException.class).hasMessage("SQLAGENT_HTTP_PORT=eighty: expected a whole number from 0 to 65535");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_HTTP_PORT", "70000")))
        .hasMessageContaining("from 0 to 65535");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_DB_URL", "mysql://root@localhost/x")))
        .hasMessage("SQLAGENT_DB_URL: 'mysql://root@localhost/x' must start with postgresql:// or postgres://, "
            + "or be keyword=value pairs such as 'host=db dbname=app user=reader'");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_DB_URL", "postgresql://h/x?sslmod=require")))
        .hasMessage("SQLAGENT_DB_URL: unknown connection parameter 'sslmod' (did you mean sslmode?)");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_LLM_BASE_URL", "localhost:11434")))
        .hasMessageContaining("SQLAGENT_LLM_BASE_URL=localhost:11434");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_ROWCAP", "5")))
        .hasMessageContaining("SQLAGENT_ROWCAP is not a setting of sql-agent");
  }

  @Test
  void databaseNameComesFromTheUrlOrIsTheUsersAsInLibpq() {
    assertThat(AppConfig.load(Map.of("SQLAGENT_DB_URL", "postgresql://a@h/postgres")).dbUrl().orElseThrow().database()).isEqualTo("postgres");
    assertThat(AppConfig.load(Map.of("SQLAGENT_DB_URL", "postgresql://a@h")).dbUrl().orElseThrow().database()).isEqualTo("a");
    assertThat(AppConfig.load(Map.of("SQLAGENT_DB_URL", "postgresql://a@h/My%20Db")).dbUrl().orElseThrow().database()).isEqualTo("My Db");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_DB_URL", "postgresql://a:secret@h:99999/db")))
        .isInstanceOf(ConfigException.class).satisfies(e -> assertThat(e.getMessage()).doesNotContain("secret"));
    assertThat(AppConfig.load(Map.of("SQLAGENT_DB_URL", "postgresql://a:p%40ss@h:6543/demo")).dbUrl().orElseThrow())
        .satisfies(u -> {
          assertThat(u.database()).isEqualTo("demo");
          assertThat(u.password()).isEqualTo("p@ss");
          assertThat(u.port()).isEqualTo(6543);
        });
  }

  @Test
  void aConfigFileSetsTheSameKeysAndTheEnvironmentWins() throws Exception {
    Path f = Files.createTempFile("sqlagent", ".properties");
    Files.writeString(f, "SQLAGENT_ROW_CAP=50\nSQLAGENT_HTTP_PORT=9000\n");
    AppConfig c = AppConfig.load(Map.of("SQLAGENT_CONFIG", f.toString(), "SQLAGENT_HTTP_PORT", "9100"));
    assertThat(c.rowCap()).isEqualTo(50);
    assertThat(c.httpPort()).isEqualTo(9100);
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_CONFIG", "/nonexistent/x.properties")))
        .hasMessageContaining("SQLAGENT_CONFIG=/nonexistent/x.properties: cannot read the file");
  }

  @Test
  void theAllowedOriginIsAnOriginOrTheServicesOwn() {
    assertThat(AppConfig.load(Map.of()).allowedOrigin()).isEmpty();
    assertThat(AppConfig.load(Map.of("SQLAGENT_ALLOWED_ORIGIN", "HTTPS://Agent.Example/")).allowedOrigin())
        .contains("https://agent.example");
    assertThat(AppConfig.load(Map.of("SQLAGENT_ALLOWED_ORIGIN", "http://10.0.0.5:8080")).allowedOrigin())
        .contains("http://10.0.0.5:8080");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_ALLOWED_ORIGIN", "https://agent.example/page")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_ALLOWED_ORIGIN=https://agent.example/page");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_ALLOWED_ORIGIN", "*")))
        .isInstanceOf(ConfigException.class);
  }

  @Test
  void aGgufUnderHomeModelsIsServedLocallyWhenNoModelServerIsNamed(@org.junit.jupiter.api.io.TempDir Path home)
      throws Exception {
    assertThat(AppConfig.load(Map.of("SQLAGENT_HOME", home.toString())).localModel()).isEmpty();
    Path models = Files.createDirectories(home.resolve("models"));
    Files.writeString(models.resolve("notes.txt"), "not a model");
    Files.writeString(models.resolve("b-model.gguf"), "GGUF");
    Files.writeString(models.resolve("a-model.GGUF"), "GGUF");
    assertThat(AppConfig.load(Map.of("SQLAGENT_HOME", home.toString())).localModel()).contains(models.resolve("a-model.GGUF"));
    // A model server named wins: nothing is served locally.
    assertThat(AppConfig.load(Map.of("SQLAGENT_HOME", home.toString(), "SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1"))
        .localModel()).isEmpty();
  }

  @Test
  void aModelTheServiceServesItselfAsksForThreeCandidatesUnlessTold(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Path file = Files.writeString(dir.resolve("m.gguf"), "GGUF");
    assertThat(AppConfig.load(Map.of()).candidates()).isEqualTo(1);
    assertThat(AppConfig.load(Map.of("SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1")).candidates()).isEqualTo(1);
    assertThat(AppConfig.load(Map.of("SQLAGENT_LLM_MODEL_PATH", file.toString())).candidates()).isEqualTo(3);
    assertThat(AppConfig.load(Map.of("SQLAGENT_LLM_MODEL_PATH", file.toString(), "SQLAGENT_CANDIDATES", "1"))
        .candidates()).isEqualTo(1);
    // Serving it keeps the choice: the child's URL is set after the settings are read.
    assertThat(AppConfig.load(Map.of("SQLAGENT_LLM_MODEL_PATH", file.toString()))
        .withModelServer("http://127.0.0.1:4242/v1", "m").candidates()).isEqualTo(3);
  }

  @Test
  void theModelPathNamesTheFileAndCannotBeCombinedWithAServer(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("m.gguf"), "GGUF");
    AppConfig c = AppConfig.load(Map.of("SQLAGENT_LLM_MODEL_PATH", file.toString()));
    assertThat(c.localModel()).contains(file);
    AppConfig served = c.withModelServer("http://127.0.0.1:4242/v1", "m");
    assertThat(served.llmBaseUrl()).isEqualTo("http://127.0.0.1:4242/v1");
    assertThat(served.llmModel()).isEqualTo("m");
    assertThat(served.localModel()).contains(file);
    assertThat(served.rowCap()).isEqualTo(c.rowCap());
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_LLM_MODEL_PATH", dir.resolve("none.gguf").toString())))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_LLM_MODEL_PATH=").hasMessageContaining("no readable file");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_LLM_MODEL_PATH", file.toString(),
        "SQLAGENT_LLM_BASE_URL", "http://127.0.0.1:9/v1")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("not both");
  }
  @Test
  void clusterTelemetryAndDrainAreReadWithEveryOtherSetting(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    AppConfig defaults = AppConfig.load(Map.of());
    assertThat(defaults.cluster().enabled()).isFalse();
    assertThat(defaults.telemetry()).isEqualTo(TelemetrySettings.OFF);
    assertThat(defaults.drainSeconds()).isEqualTo(20);
    // The properties file reaches them as it reaches the rest; the environment wins.
    Path file = Files.writeString(dir.resolve("sql-agent.properties"),
        "SQLAGENT_DRAIN_SECONDS=7\nSQLAGENT_LOG_FORMAT=json\nSQLAGENT_CLUSTER=true\nSQLAGENT_CLUSTER_NAME=from-file\n");
    AppConfig c = AppConfig.load(Map.of("SQLAGENT_CONFIG", file.toString(), "SQLAGENT_CLUSTER_NAME", "from-env",
        "SQLAGENT_OTLP_ENDPOINT", "http://collector:4318"));
    assertThat(c.drainSeconds()).isEqualTo(7);
    assertThat(c.telemetry().json()).isTrue();
    assertThat(c.telemetry().endpoint()).contains(java.net.URI.create("http://collector:4318/v1/traces"));
    assertThat(c.cluster().enabled()).isTrue();
    assertThat(c.cluster().name()).isEqualTo("from-env");
    assertThat(c.withModelServer("http://127.0.0.1:4242/v1", "m").cluster()).isEqualTo(c.cluster());
    // A bad value of theirs stops the start like any other.
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_DRAIN_SECONDS", "-1")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_DRAIN_SECONDS=-1");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_LOG_FORMAT", "xml")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_LOG_FORMAT=xml");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_CLUSTER", "yes")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_CLUSTER=yes");
  }
}

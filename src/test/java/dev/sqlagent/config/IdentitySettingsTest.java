package dev.sqlagent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sign-on's and the trusted proxies' settings: read, defaulted, and refused with the key named. */
class IdentitySettingsTest {

  @Test
  void theSignOnIsReadWithItsDefaults() {
    AppConfig c = AppConfig.from(Map.of("SQLAGENT_OIDC_ISSUER", "https://login.example.com/realms/acme",
        "SQLAGENT_OIDC_CLIENT_ID", "sql-agent-page"));
    assertThat(c.oidc()).isPresent();
    assertThat(c.oidc().get().audiences()).as("the client id is the audience by default").isEqualTo(List.of("sql-agent-page"));
    assertThat(c.oidc().get().clockSkewSeconds()).isEqualTo(60);
    assertThat(c.oidc().get().keysRefetchSeconds()).isEqualTo(10);
    assertThat(c.oidc().get().scopes()).isEqualTo("openid profile");
    assertThat(c.oidc().get().discoveryUrl()).isEqualTo("https://login.example.com/realms/acme/.well-known/openid-configuration");
    assertThat(c.identityRequired()).isTrue();
    assertThat(c.describe()).contains("oidc=issuer=https://login.example.com/realms/acme");
    assertThat(AppConfig.from(Map.of()).oidc()).isEmpty();
    assertThat(AppConfig.from(Map.of()).identityRequired()).isFalse();
  }

  @Test
  void aWrongSignOnSettingIsRefusedNamingIt() {
    assertThatThrownBy(() -> AppConfig.from(Map.of("SQLAGENT_OIDC_ISSUER", "https://login.example.com")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_OIDC_AUDIENCE");
    assertThatThrownBy(() -> AppConfig.from(Map.of("SQLAGENT_OIDC_ISSUER", "login.example.com", "SQLAGENT_OIDC_AUDIENCE", "a")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_OIDC_ISSUER=login.example.com");
    assertThatThrownBy(() -> AppConfig.from(Map.of("SQLAGENT_OIDC_ISSUER", "https://login.example.com", "SQLAGENT_OIDC_AUDIENCE", "a",
        "SQLAGENT_API_TOKEN", "secret-token")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("unset SQLAGENT_API_TOKEN");
    assertThatThrownBy(() -> AppConfig.from(Map.of("SQLAGENT_OIDC_ISSUER", "https://login.example.com", "SQLAGENT_OIDC_AUDIENCE", "a",
        "SQLAGENT_OIDC_CLAIMS", "admin=groups:x,nmae=sub")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_OIDC_CLAIMS").hasMessageContaining("'nmae'");
    assertThatThrownBy(() -> AppConfig.from(Map.of("SQLAGENT_OIDC_ISSUER", "https://login.example.com", "SQLAGENT_OIDC_AUDIENCE", "a",
        "SQLAGENT_OIDC_CLOCK_SKEW_S", "-1")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_OIDC_CLOCK_SKEW_S=-1");
  }

  @Test
  void trustedProxiesAreReadAndABadBlockIsNamed() {
    AppConfig c = AppConfig.from(Map.of("SQLAGENT_TRUSTED_PROXIES", "10.0.0.0/8, fd00::/8"));
    assertThat(c.trustedProxies().trusts("10.9.8.7")).isTrue();
    assertThat(c.trustedProxies().trusts("fd00::1")).isTrue();
    assertThat(AppConfig.from(Map.of()).trustedProxies().configured()).isFalse();
    assertThatThrownBy(() -> AppConfig.from(Map.of("SQLAGENT_TRUSTED_PROXIES", "10.0.0.0/8,lb.internal")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_TRUSTED_PROXIES").hasMessageContaining("'lb.internal'");
  }
}

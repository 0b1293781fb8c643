package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sqlagent.config.AppConfig;
import dev.sqlagent.config.ConfigException;
import dev.sqlagent.contract.GateRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Row settings: {@code SQLAGENT_OIDC_SETTINGS} and the users file's {@code settings:} are read with their names
 * checked at start, resolved from a token's claims (whole names and dotted paths), and carried by the user onto the
 * bus and into the gate's request.
 */
class RowSettingsTest {

  static final Map<String, String> OIDC = Map.of("SQLAGENT_OIDC_ISSUER", "https://login.example.com/realms/acme",
      "SQLAGENT_OIDC_AUDIENCE", "sql-agent");

  static AppConfig withSettings(String spec) {
    java.util.HashMap<String, String> env = new java.util.HashMap<>(OIDC);
    env.put("SQLAGENT_OIDC_SETTINGS", spec);
    return AppConfig.load(env);
  }

  @Test
  void theSettingIsReadAndEachClaimResolved() {
    RowSettings s = withSettings("app.tenant_id=tenant, App.Region=claims.region").oidc().orElseThrow().rowSettings();
    assertThat(s.names()).containsExactly("app.tenant_id", "app.region");
    assertThat(s.claimOf("app.region")).isEqualTo("claims.region");
    JsonObject claims = new JsonObject().put("preferred_username", "ann").put("tenant", 42)
        .put("claims", new JsonObject().put("region", "eu-west"));
    assertThat(s.resolve(claims)).isEqualTo(Map.of("app.tenant_id", "42", "app.region", "eu-west"));
    // Absent, or not one value: not resolved (the user is refused, never run without it).
    assertThat(s.resolve(new JsonObject().put("tenant", new JsonArray().add(1).add(2)))).isEmpty();
    assertThat(s.resolve(new JsonObject().put("tenant", new JsonObject()))).isEmpty();
    assertThat(s.resolve(new JsonObject().put("tenant", "a\0b"))).isEmpty();
    assertThat(s.resolve(new JsonObject().put("tenant", "x".repeat(RowSettings.MAX_VALUE + 1)))).isEmpty();
    // The verified user carries them.
    User ann = withSettings("app.tenant_id=tenant").oidc().orElseThrow().user(claims);
    assertThat(ann.settings()).containsExactly(Map.entry("app.tenant_id", "42"));
    assertThat(withSettings("app.tenant_id=tenant").describe()).contains("settings=app.tenant_id=tenant");
  }

  @Test
  void aNameThatIsNotACustomSettingIsRefusedAtStartNamingIt() {
    for (String bad : List.of("role=r", "search_path=p", "app..x=t", ".app=t", "app.=t", "1app.x=t", "app.x-y=t",
        "app.tenant id=t", "session_authorization=s")) {
      assertThatThrownBy(() -> withSettings(bad)).as(bad).isInstanceOf(ConfigException.class)
          .hasMessageContaining("SQLAGENT_OIDC_SETTINGS").hasMessageContaining("not a custom setting's name")
          .hasMessageContaining("'" + bad.substring(0, bad.indexOf('=')) + "'");
    }
    assertThatThrownBy(() -> withSettings("app.tenant_id")).hasMessageContaining("setting=claim");
    assertThatThrownBy(() -> withSettings("app.tenant_id=a,APP.TENANT_ID=b")).hasMessageContaining("named twice");
    assertThatThrownBy(() -> AppConfig.load(Map.of("SQLAGENT_OIDC_SETTINGS", "app.tenant_id=tenant")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("SQLAGENT_OIDC_ISSUER is not");
  }

  @Test
  void theUsersFileGivesEachUserTheirSettingsAndNamesEachMistake() {
    String digest = Users.sha256Hex("svc-secret");
    Users users = UsersFile.parse("""
        users:
          - name: svc
            token_sha256: %s
            settings:
              app.tenant_id: 7
              APP.Region: "eu"
          - name: other
            token_sha256: %s
        """.formatted(digest, Users.sha256Hex("other")), "users.yaml");
    User svc = users.authenticate("svc-secret").orElseThrow();
    assertThat(svc.settings()).isEqualTo(Map.of("app.tenant_id", "7", "app.region", "eu"));
    assertThat(users.settingNames()).containsExactly("app.region", "app.tenant_id");
    String head = "users:\n  - name: a\n    token_sha256: " + digest + "\n    settings: ";
    assertThatThrownBy(() -> UsersFile.parse(head + "{role: x}\n", "f"))
        .hasMessageContaining("users[0] (a)").hasMessageContaining("'role' is not a custom setting's name");
    assertThatThrownBy(() -> UsersFile.parse(head + "{app.tenant_id: [1, 2]}\n", "f"))
        .hasMessageContaining("app.tenant_id must be one value");
    assertThatThrownBy(() -> UsersFile.parse(head + "42\n", "f")).hasMessageContaining("settings must be a mapping");
    assertThatThrownBy(() -> UsersFile.parse(head + "{app.x: 1, APP.X: 2}\n", "f")).hasMessageContaining("named twice");
  }

  @Test
  void theSettingsTravelWithTheUserOntoTheBusAndIntoTheGatesRequest() {
    User u = new User("ann", "Ann", false, null, false, Map.of("app.tenant_id", "42"));
    User back = User.fromJson(new JsonObject(u.toJson().encode()));
    assertThat(back).isEqualTo(u);
    GateRequest r = GateRequest.run("SELECT 1").by(back);
    assertThat(GateRequest.fromJson(new JsonObject(r.toJson().encode())).settingsByName())
        .isEqualTo(Map.of("app.tenant_id", "42"));
    assertThat(r.inRun("run-1").withRowCap(5).toRun().settingsByName()).isEqualTo(Map.of("app.tenant_id", "42"));
    // A user without settings adds nothing to the request's JSON.
    assertThat(GateRequest.run("SELECT 1").by(new User("bob", "Bob", false, null)).toJson().containsKey("settings")).isFalse();
    assertThatThrownBy(() -> GateRequest.fromJson(new JsonObject().put("sql", "SELECT 1")
        .put("settings", new JsonObject().put("app.tenant_id", 1)))).hasMessageContaining("\"settings\"");
  }
}

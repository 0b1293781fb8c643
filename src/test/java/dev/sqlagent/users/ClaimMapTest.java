package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** SQLAGENT_OIDC_CLAIMS: how a token's claims become the user, and what a wrong mapping says. */
class ClaimMapTest {

  @Test
  void theDefaultsNameTheUserAndGrantNothing() {
    User u = ClaimMap.DEFAULT.user(new JsonObject().put("preferred_username", "ann").put("name", "Ann Example")
        .put("groups", new JsonArray().add("sql-admins")));
    assertThat(u).isEqualTo(new User("ann", "Ann Example", false, null, false));
  }

  @Test
  void grantsReadListsSpaceSeparatedTextBooleansAndNestedOrNamespacedClaims() {
    ClaimMap m = ClaimMap.parse("name=email, role=db_role, admin=realm_access.roles:sql-admins, "
        + "see_sensitive=https://example.com/claims/pii");
    assertThat(m.user(new JsonObject().put("email", "ann@example.com").put("db_role", "analyst_east")
        .put("realm_access", new JsonObject().put("roles", new JsonArray().add("sql-admins")))
        .put("https://example.com/claims/pii", true)))
        .isEqualTo(new User("ann@example.com", "ann@example.com", true, "analyst_east", true));
    assertThat(m.user(new JsonObject().put("email", "bob@example.com").put("https://example.com/claims/pii", "no")))
        .isEqualTo(new User("bob@example.com", "bob@example.com", false, null, false));
    ClaimMap scope = ClaimMap.parse("name=sub,admin=scope:sql.admin");
    assertThat(scope.user(new JsonObject().put("sub", "svc-1").put("scope", "openid sql.admin")).admin()).isTrue();
    assertThat(scope.user(new JsonObject().put("sub", "svc-1").put("scope", "openid sql.administrator")).admin()).isFalse();
  }

  @Test
  void aWrongMappingOrUnusableClaimSaysWhat() {
    assertThatThrownBy(() -> ClaimMap.parse("nam=sub")).hasMessageContaining("'nam' is not a field");
    assertThatThrownBy(() -> ClaimMap.parse("name")).hasMessageContaining("field=claim");
    assertThatThrownBy(() -> ClaimMap.parse("name=a,name=b")).hasMessageContaining("twice");
    ClaimMap m = ClaimMap.parse("role=db_role");
    assertThatThrownBy(() -> m.user(new JsonObject())).hasMessageContaining("\"preferred_username\" claim");
    assertThatThrownBy(() -> m.user(new JsonObject().put("preferred_username", "a b"))).hasMessageContaining("not a user name");
    assertThatThrownBy(() -> m.user(new JsonObject().put("preferred_username", "ann").put("db_role", "x\"; reset role")))
        .hasMessageContaining("not a plain database role name");
  }
}

package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The users file: YAML or JSON, digests only, and a precise message for each mistake. */
class UsersFileTest {

  static final String ALICE_DIGEST = Users.sha256Hex("alice-secret");

  @Test
  void yamlAndJsonReadTheSameAndTokensAreMatchedByTheirDigest() {
    Users yaml = UsersFile.parse("""
        users:
          - name: alice
            display_name: Alice Martin
            token_sha256: %s
            db_role: analyst_east
          - name: ops
            token_sha256: %s
            admin: true
        """.formatted(ALICE_DIGEST, Users.sha256Hex("ops-secret")), "users.yaml");
    Users json = UsersFile.parse("{\"users\": [{\"name\": \"alice\", \"display_name\": \"Alice Martin\", \"token_sha256\": \""
        + ALICE_DIGEST + "\", \"db_role\": \"analyst_east\"}]}", "users.json");
    User alice = yaml.authenticate("alice-secret").orElseThrow();
    assertThat(alice).isEqualTo(new User("alice", "Alice Martin", false, "analyst_east"));
    assertThat(json.authenticate("alice-secret")).contains(alice);
    assertThat(yaml.authenticate("ops-secret").orElseThrow().admin()).isTrue();
    assertThat(yaml.authenticate("alice-secret ")).isEmpty();
    assertThat(yaml.authenticate(null)).isEmpty();
    assertThat(yaml.dbRoles()).containsExactly("analyst_east");
    // What a user carries onto the bus and into events holds no token.
    assertThat(alice.toJson().encode()).doesNotContain("alice-secret");
  }

  @Test
  void eachMistakeIsNamed() {
    assertThatThrownBy(() -> UsersFile.parse("users:\n  - name: a\n    token: hunter2\n", "f"))
        .hasMessageContaining("users[0]").hasMessageContaining("token in clear").hasMessageContaining("sha256sum");
    assertThatThrownBy(() -> UsersFile.parse("users:\n  - name: a\n    token_sha256: abc\n", "f"))
        .hasMessageContaining("64 hex digits");
    assertThatThrownBy(() -> UsersFile.parse("users:\n  - name: a\n    token_sha256: " + ALICE_DIGEST
        + "\n  - name: a\n    token_sha256: " + Users.sha256Hex("x") + "\n", "f")).hasMessageContaining("appears twice");
    assertThatThrownBy(() -> UsersFile.parse("users:\n  - name: a\n    token_sha256: " + ALICE_DIGEST
        + "\n  - name: b\n    token_sha256: " + ALICE_DIGEST + "\n", "f")).hasMessageContaining("share one token");
    assertThatThrownBy(() -> UsersFile.parse("users:\n  - name: a\n    token_sha256: " + ALICE_DIGEST + "\n    role: x\n", "f"))
        .hasMessageContaining("unknown key \"role\"");
    assertThatThrownBy(() -> UsersFile.parse("users:\n  - name: a\n    token_sha256: " + ALICE_DIGEST
        + "\n    db_role: \"x; DROP\"\n", "f")).hasMessageContaining("db_role");
    assertThatThrownBy(() -> UsersFile.parse("people: []", "f")).hasMessageContaining("\"users\" list");
    assertThatThrownBy(() -> UsersFile.parse("users: [", "f")).hasMessageContaining("not valid YAML or JSON");
  }

  @Test
  void onlyTheOwnerOrAnAdminReachesARun() {
    User alice = new User("alice", "Alice", false, null);
    User ops = new User("ops", "Ops", true, null);
    assertThat(User.mayReach(alice, "alice")).isTrue();
    assertThat(User.mayReach(alice, "bob")).isFalse();
    assertThat(User.mayReach(alice, null)).isFalse();
    assertThat(User.mayReach(ops, "bob")).isTrue();
    assertThat(User.mayReach(null, null)).isTrue();
  }
}

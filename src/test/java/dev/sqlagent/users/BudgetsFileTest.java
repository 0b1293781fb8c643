package dev.sqlagent.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Budgets in the users file: who gets which limit, and the mistakes a file can make. */
class BudgetsFileTest {

  static final String DIGEST_A = "a".repeat(64);
  static final String DIGEST_B = "b".repeat(64);

  static final String FILE = """
      users:
        - name: alice
          token_sha256: %s
          groups: [analysts, wide]
          budget: {questions_per_day: 2}
        - name: bob
          token_sha256: %s
          groups: [analysts, wide]
      groups:
        analysts: {budget: {questions_per_day: 10, tokens_per_day: 1000, cost_usd_per_day: 0.5}}
        wide: {budget: {questions_per_day: 30, cost_usd_per_day: unlimited}}
      default_budget: {questions_per_day: 5, tokens_per_day: 200}
      """.formatted(DIGEST_A, DIGEST_B);

  @Test
  void ownBudgetWinsThenTheMostGenerousGroupThenTheDefault() {
    Users users = UsersFile.parse(FILE, "users.yaml");
    Budgets b = users.budgets();
    User alice = users.all().get(0);
    assertThat(alice.groups()).containsExactly("analysts", "wide");
    Map<Budget.Kind, Budgets.Limit> a = b.limitsFor("alice", alice.groups());
    assertThat(a.get(Budget.Kind.QUESTIONS)).isEqualTo(new Budgets.Limit(2, "user alice"));
    assertThat(a.get(Budget.Kind.TOKENS)).isEqualTo(new Budgets.Limit(1000, "group analysts"));
    assertThat(a.get(Budget.Kind.COST_USD).limited()).as("lifted by group wide").isFalse();
    Map<Budget.Kind, Budgets.Limit> bob = b.limitsFor("bob", List.of("analysts", "wide"));
    assertThat(bob.get(Budget.Kind.QUESTIONS)).isEqualTo(new Budgets.Limit(30, "group wide"));
    // Someone in no group with a budget (a sign-on user's unknown groups count for nothing): the default.
    Map<Budget.Kind, Budgets.Limit> carol = b.limitsFor("carol", List.of("not-in-the-file"));
    assertThat(carol.get(Budget.Kind.QUESTIONS)).isEqualTo(new Budgets.Limit(5, "default"));
    assertThat(carol.get(Budget.Kind.TOKENS)).isEqualTo(new Budgets.Limit(200, "default"));
    assertThat(carol.get(Budget.Kind.COST_USD).limited()).isFalse();
    // A user's groups travel with them on the bus.
    assertThat(User.fromJson(alice.toJson()).groups()).containsExactly("analysts", "wide");
  }

  @Test
  void aFileOfBudgetsOnlyIsReadForSignOnUsers() {
    Users users = UsersFile.parse("groups:\n  team: {budget: {questions_per_day: 3}}\n", "users.yaml");
    assertThat(users.configured()).isFalse();
    assertThat(users.budgets().limitsFor("x", List.of("team")).get(Budget.Kind.QUESTIONS).value()).isEqualTo(3);
  }

  @Test
  void mistakesAreNamed() {
    String user = "users:\n  - name: alice\n    token_sha256: " + DIGEST_A + "\n";
    assertThatThrownBy(() -> UsersFile.parse(user + "    groups: [analyst]\n", "u.yaml"))
        .hasMessageContaining("users[0] (alice): group \"analyst\" is not in the file's groups section");
    assertThatThrownBy(() -> UsersFile.parse(user + "    budget: {questions_per_day: 2.5}\n", "u.yaml"))
        .hasMessageContaining("questions_per_day must be a whole number, 0 or more, or unlimited");
    assertThatThrownBy(() -> UsersFile.parse(user + "    budget: {queries_per_day: 2}\n", "u.yaml"))
        .hasMessageContaining("unknown budget \"queries_per_day\"");
    assertThatThrownBy(() -> UsersFile.parse(user + "default_budget: {cost_usd_per_day: -1}\n", "u.yaml"))
        .hasMessageContaining("default_budget: cost_usd_per_day must be a number of US dollars, 0 or more");
    assertThatThrownBy(() -> UsersFile.parse(user + "groups:\n  team: {questions_per_day: 3}\n", "u.yaml"))
        .hasMessageContaining("groups.team must be a mapping with one key, budget");
  }

  @Test
  void aSignOnClaimNamesTheGroups() {
    ClaimMap map = ClaimMap.parse("groups=realm_access.roles");
    JsonObject claims = new JsonObject().put("preferred_username", "erin")
        .put("realm_access", new JsonObject().put("roles", new JsonArray().add("analysts").add("staff")));
    assertThat(map.user(claims).groups()).containsExactly("analysts", "staff");
    assertThat(ClaimMap.parse("groups=scope").user(new JsonObject().put("preferred_username", "erin").put("scope", "a b"))
        .groups()).containsExactly("a", "b");
    assertThat(ClaimMap.DEFAULT.user(claims).groups()).isEmpty();
  }
}

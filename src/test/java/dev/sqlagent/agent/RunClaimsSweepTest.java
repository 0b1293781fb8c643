package dev.sqlagent.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.state.StateDatabase;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Vertx;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which unfinished runs a sweep takes for interrupted, on the real state store: only those of processes that are not
 * live (a cluster's other live members keep theirs), never a finished one, each once however many sweep, and a run
 * that answered just before its process died is told apart by its turn.
 */
class RunClaimsSweepTest {

  static Vertx vertx;
  static StateDatabase state;
  static RunClaimsRepository claims;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    state = StateDatabase.open(vertx, TestDatabase.get().state(), 2);
    claims = new RunClaimsRepository(state.owner(), state.spans());
  }

  @AfterAll
  static void stop() throws Exception {
    state.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void onlyTheUnfinishedClaimsOfProcessesThatAreGoneAreTakenAndEachOnce() throws Exception {
    String live = "node-" + UUID.randomUUID();
    String gone = "node-" + UUID.randomUUID();
    String running = claim(live, "still running on a live member");
    String cut = claim(gone, "cut short");
    String finished = claim(gone, "answered and finished");
    claims.finish(finished).await(10, TimeUnit.SECONDS);
    String answered = claim(gone, "answered, its turn written, not yet finished");
    try (Connection c = TestDatabase.get().state().ownerConnection(); PreparedStatement ps = c.prepareStatement(
        "INSERT INTO conversation_turns (conversation_id, turn, run_id, question, outcome) VALUES (?, 1, ?, 'q', 'answered')")) {
      String conversation = "conv-" + UUID.randomUUID();
      try (PreparedStatement conv = c.prepareStatement("INSERT INTO conversations (conversation_id) VALUES (?)")) {
        conv.setString(1, conversation);
        conv.execute();
      }
      ps.setString(1, conversation);
      ps.setString(2, answered);
      ps.execute();
    }

    Set<String> liveNodes = Set.of(live, "this-process");
    List<RunClaimsRepository.Claim> taken = claims.sweep(liveNodes).await(10, TimeUnit.SECONDS).stream()
        .filter(c -> Set.of(running, cut, finished, answered).contains(c.runId())).toList();
    assertThat(taken).extracting(RunClaimsRepository.Claim::runId).containsExactlyInAnyOrder(cut, answered);
    RunClaimsRepository.Claim c = taken.stream().filter(t -> t.runId().equals(cut)).findFirst().orElseThrow();
    assertThat(c.question()).isEqualTo("cut short");
    assertThat(c.node()).isEqualTo(gone);
    assertThat(c.conversationId()).isEqualTo("conv-of-" + cut);
    assertThat(c.turned()).isFalse();
    assertThat(taken.stream().filter(t -> t.runId().equals(answered)).findFirst().orElseThrow().turned()).isTrue();

    // Another sweep (another member at the same time, or the next start) finds nothing more of them.
    assertThat(claims.sweep(liveNodes).await(10, TimeUnit.SECONDS)).extracting(RunClaimsRepository.Claim::runId)
        .doesNotContain(running, cut, finished, answered);
    // The live member's run is still its own once that member is gone too.
    assertThat(claims.sweep(Set.of("this-process")).await(10, TimeUnit.SECONDS))
        .extracting(RunClaimsRepository.Claim::runId).contains(running);
  }

  private static String claim(String node, String question) throws Exception {
    String runId = "sweep-" + UUID.randomUUID();
    claims.claim(runId, null, node, question, "conv-of-" + runId, "http", "agent").await(10, TimeUnit.SECONDS);
    return runId;
  }
}

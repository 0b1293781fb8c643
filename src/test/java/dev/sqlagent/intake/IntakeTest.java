package dev.sqlagent.intake;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.Addresses;
import dev.sqlagent.contract.RunRequest;
import dev.sqlagent.users.User;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The one intake: where a question is checked, how its run is named and held, and what a connection's end stops. */
class IntakeTest {

  /**
   * A question's rules are applied in one place: no door checks a question itself (the HTTP routes, the access
   * guard, /ws, the bridge, the MCP tools, the contract); each hands it to the intake. The verified-query library
   * checks the questions it stores by the same rule, as a library, not a door.
   */
  @Test
  void onlyTheIntakeChecksAQuestion() {
    JavaClasses main = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.sqlagent");
    noClasses().that().resideOutsideOfPackages("dev.sqlagent.intake..", "dev.sqlagent.access..")
        .should().callMethodWhere(DescribedPredicate.describe("applies the ask rules",
            call -> call.getTargetOwner().isEquivalentTo(AskRules.class) && call.getName().equals("ask")))
        .because("a question is checked once, by the intake")
        .check(main);
    noClasses().that().resideOutsideOfPackages("dev.sqlagent.intake..", "dev.sqlagent.access..", "dev.sqlagent.verified..")
        .should().callMethodWhere(DescribedPredicate.describe("checks a question",
            call -> call.getTargetOwner().isEquivalentTo(AskRules.class) && call.getName().equals("question")))
        .because("a question is checked once, by the intake")
        .check(main);
  }

  @Test
  void aQuestionIsCheckedNamedAndHeldByItsConnection() {
    Vertx vertx = Vertx.vertx();
    try {
      Intake intake = new Intake(vertx, 1_000);
      Owner socket = intake.owner(null);
      Door door = new Door("ws", null, "10.0.0.1");
      Taken refused = intake.take(new JsonObject().put("question", "x".repeat(AskRules.MAX_QUESTION_CHARS + 1)), door, socket);
      assertThat(refused.refusal().errorType()).isEqualTo("question_too_long");
      assertThat(refused.request()).isNull();

      Taken named = intake.take(new JsonObject().put("question", "How many?").put("inject_fault", true), door, socket);
      assertThat(named.refused()).isFalse();
      assertThat(named.runId()).matches(AskRules.RUN_ID_REGEX);
      assertThat(named.request().source()).isEqualTo("ws");
      assertThat(named.request().client()).isEqualTo("10.0.0.1");
      assertThat(named.request().options().injectFault()).as("only what a person may set passes").isFalse();
      assertThat(socket.holds(named.runId())).isTrue();

      Taken chosen = intake.take(new JsonObject().put("question", "How many?").put("run_id", "my-own-run-1"), door, socket);
      assertThat(chosen.runId()).isEqualTo("my-own-run-1");
      assertThat(intake.take(new JsonObject().put("question", "How many?").put("run_id", "no..such"), door, socket)
          .refusal().message()).isEqualTo(AskRules.runId("no..such").message());
    } finally {
      vertx.close().await();
    }
  }

  @Test
  void aConnectionThatGoesStopsTheRunsItAskedAndNoOthers() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      List<RunRequest> stops = new CopyOnWriteArrayList<>();
      MessageConsumer<JsonObject> agent = vertx.eventBus().consumer(Addresses.CANCEL, m -> {
        stops.add(RunRequest.fromJson(m.body()));
        m.fail(409, "answered already");
      });
      agent.completion().await(10, TimeUnit.SECONDS);
      Intake intake = new Intake(vertx, 1_000);
      User ann = new User("ann", "Ann", false, null);
      Owner socket = intake.owner(ann);
      Owner other = intake.owner(null);
      String answered = socket.nameRun();
      String running = socket.nameRun();
      other.nameRun();
      socket.release(answered);
      socket.gone().await(10, TimeUnit.SECONDS);
      assertThat(socket.isGone()).isTrue();
      assertThat(stops).hasSize(1);
      assertThat(stops.get(0).runId()).isEqualTo(running);
      assertThat(stops.get(0).user().name()).isEqualTo("ann");
      assertThat(stops.get(0).by()).isEqualTo(Intake.DISCONNECTED);
    } finally {
      vertx.close().await();
    }
  }
}

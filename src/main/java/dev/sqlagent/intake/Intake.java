package dev.sqlagent.intake;

import dev.sqlagent.access.AskRules;
import dev.sqlagent.bus.BusError;
import dev.sqlagent.bus.BusFailure;
import dev.sqlagent.contract.AgentClient;
import dev.sqlagent.contract.Answer;
import dev.sqlagent.contract.AskRequest;
import dev.sqlagent.contract.BudgetClient;
import dev.sqlagent.contract.BudgetMessages;
import dev.sqlagent.contract.ChatRequest;
import dev.sqlagent.contract.RunOptions;
import dev.sqlagent.users.User;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The one way in for a question, whichever door it came through: HTTP, {@code /ws}, the SockJS bridge, MCP, the
 * command line, evaluation. A door decodes its wire format into the fields it honours and hands them here; the
 * intake checks them ({@link #check}: the rules and refusals of {@link AskRules}), names the run, registers it with
 * the connection that asked ({@link Owner}) and sends it to the agent. The door encodes the refusal or the answer.
 */
public final class Intake {

  /** Who stopped a run whose connection went, as its answer and the log say. */
  public static final String DISCONNECTED = "its client, which disconnected";

  /** The fields a person may set on a question, through any door (not, e.g., evaluation's fault injection). */
  public static final List<String> PERSON_FIELDS = List.of("question", "mode", "run_id", "conversation_id");

  private final AgentClient agent;
  private final BudgetClient budgets;

  /** @param askTimeoutMs how long an answer may take (the question's deadline and a margin) */
  public Intake(Vertx vertx, long askTimeoutMs) {
    this(new AgentClient(vertx, askTimeoutMs));
  }

  /** Asking through {@code agent} (one worker's address, for evaluation in a cluster). */
  public Intake(AgentClient agent) {
    this.agent = agent;
    this.budgets = new BudgetClient(agent.vertx());
  }

  /** A connection that asks: its runs are stopped when it goes ({@link Owner#gone}). */
  public Owner owner(User user) {
    return new Owner(agent, user);
  }

  /**
   * A connection that is one HTTP request: its run is stopped when the client hangs up before the response is
   * written.
   */
  public Owner owner(User user, HttpServerResponse response) {
    Owner owner = owner(user);
    response.closeHandler(v -> {
      if (!response.ended()) owner.gone();
    });
    return owner;
  }

  /**
   * A question as a person sent it through {@code door}: its {@link #PERSON_FIELDS} (a {@code run_id} only where the
   * door lets a client name its run), checked, named and held by {@code owner}.
   */
  public Taken take(JsonObject fields, Door door, Owner owner) {
    JsonObject asked = new JsonObject();
    for (String field : PERSON_FIELDS) {
      if (fields.containsKey(field)) asked.put(field, fields.getValue(field));
    }
    AskRules.Refusal refused = check(asked);
    if (refused != null) return Taken.refused(refused);
    String runId = asked.getValue("run_id") instanceof String chosen ? chosen : null;
    AskRequest request = new AskRequest(asked.getString("question"), asked.getString("mode"), door.source(), runId,
        door.user(), asked.getValue("conversation_id"), RunOptions.ASKED, door.client());
    return named(request, owner);
  }

  /** A request a program built (the command line, evaluation), checked by the same rules, named and held. */
  public Taken take(AskRequest request, Owner owner) {
    AskRules.Refusal refused = check(request.toJson());
    return refused != null ? Taken.refused(refused) : named(request, owner);
  }

  private static Taken named(AskRequest request, Owner owner) {
    String runId = request.runId();
    if (runId == null) {
      runId = owner != null ? owner.nameRun() : java.util.UUID.randomUUID().toString();
    } else if (owner != null) {
      owner.hold(runId);
    }
    return new Taken(null, request.withRunId(runId), owner);
  }

  /**
   * Sends a taken question to the agent; the answer, or the agent's failure as a {@code BusError}. A refused one fails
   * as the agent would fail it (a bad request with the refusal's message). The owner lets the run go once it ends.
   */
  public Future<Answer> ask(Taken taken) {
    if (taken.refused()) return Future.failedFuture(new BusError(BusFailure.BAD_REQUEST, taken.refusal().message()));
    Future<Answer> answer = admit(taken).compose(admitted -> agent.ask(taken.request())
        .onFailure(err -> {
          // Counted, but never started (no slot, or the service stopping): the question is given back.
          BusFailure f = BusError.of(err, AgentClient.AGENT).failure();
          if ((f == BusFailure.BUSY || f == BusFailure.STOPPING) && taken.request().user() != null) {
            budgets.refund(new BudgetMessages.Admit(taken.request().user()));
          }
        }));
    if (taken.owner() != null) answer.onComplete(done -> taken.owner().release(taken.runId()));
    return answer;
  }

  /**
   * Whether the asker's daily budgets let a taken question start (it is then counted as one of their questions):
   * fails with an {@link BusFailure#OVER_BUDGET} {@code BusError} naming the budget, what was used, its limit and when
   * it resets, with Retry-After until then. Without a user, nothing is limited. The budgets not answering does not
   * stop the question (as the state store not answering stops none).
   */
  public Future<Void> admit(Taken taken) {
    User user = taken.request() == null ? null : taken.request().user();
    if (user == null) return Future.succeededFuture();
    return budgets.admit(new BudgetMessages.Admit(user))
        .otherwise(err -> BudgetMessages.Admission.yes())
        .compose(a -> a.admitted() ? Future.succeededFuture() : Future.failedFuture(overBudget(user, a)));
  }

  /** The refusal every door gives a question past a budget. */
  static BusError overBudget(User user, BudgetMessages.Admission a) {
    BudgetMessages.Spent s = a.refusedBy();
    JsonObject spent = s.toJson();
    String message = user.name() + " has used " + spent.getValue("used") + " of " + spent.getValue("limit") + " "
        + s.budget() + " today (" + ("default".equals(s.from()) ? "the default budget" : "the budget of " + s.from())
        + "); it resets at " + a.resetsAt();
    JsonObject details = new JsonObject().put("budget", s.budget()).put("used", spent.getValue("used"))
        .put("limit", spent.getValue("limit")).put("from", s.from()).put("resets_at", a.resetsAt())
        .put("retry_after_s", a.retryAfterS());
    return new BusError(BusFailure.OVER_BUDGET, message, details, a.retryAfterS());
  }

  /** {@link #take} and {@link #ask} in one, for a caller that needs the run id only afterwards. */
  public Future<Answer> ask(AskRequest request, Owner owner) {
    return ask(take(request, owner));
  }

  /**
   * What is wrong with an ask as it arrives ({@code AskRequest}'s wire shape, or a door's fields), or null when it is
   * fine: the question (non-empty, no NUL, at most {@link AskRules#MAX_QUESTION_CHARS}), the mode, the conversation,
   * a client's run id, the source, the run options and the user. The one set of rules every door and the agent's own
   * address apply.
   */
  public static AskRules.Refusal check(JsonObject body) {
    AskRules.Refusal refused = AskRules.ask(body);
    if (refused == null && body.getValue("run_id") != null) refused = AskRules.runId(body.getValue("run_id"));
    if (refused != null) return refused;
    String problem = optionsProblem(body);
    return problem == null ? null : new AskRules.Refusal("bad_request", problem, new JsonObject());
  }

  private static String optionsProblem(JsonObject body) {
    Object source = body.getValue("source");
    if (source != null && !AskRequest.SOURCES.contains(source)) return "source must be one of " + AskRequest.SOURCES;
    if (body.getValue("inject_fault") != null && !(body.getValue("inject_fault") instanceof Boolean)) {
      return "inject_fault must be true or false";
    }
    if (body.getValue("fault_key") != null && !(body.getValue("fault_key") instanceof String)) return "fault_key must be a string";
    for (String flag : List.of("lookup_verified", "standalone", "self_paced")) {
      if (body.getValue(flag) != null && !(body.getValue(flag) instanceof Boolean)) return flag + " must be true or false";
    }
    Object candidates = body.getValue("candidates");
    if (candidates != null && !((candidates instanceof Integer || candidates instanceof Long)
        && ((Number) candidates).intValue() >= 1 && ((Number) candidates).intValue() <= ChatRequest.MAX_N)) {
      return "candidates must be a whole number from 1 to " + ChatRequest.MAX_N;
    }
    Object user = body.getValue("user");
    if (user != null && !(user instanceof JsonObject u && u.getValue("name") instanceof String)) {
      return "user must be an object with a name";
    }
    return null;
  }
}

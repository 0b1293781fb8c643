package dev.sqlagent.contract;

import dev.sqlagent.users.User;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * A question for the agent ({@code Addresses.ASK}): {@code {question, mode, source, run_id?, user?,
 * conversation_id?, client?}} and the {@link RunOptions} as top-level keys when not their default ({@code
 * lookup_verified, standalone, self_paced, candidates, inject_fault + fault_key}). Every door's intake and the agent's
 * address check a request ({@code intake.Intake#check}) before it is read; reading is lenient.
 *
 * @param mode "agent" or "baseline"
 * @param source which entry it came through (http, ws, eventbus, cli, mcp, eval): a label for the answer,
 *     the query log and the metrics
 * @param runId the client's name for the run, or null for one the agent picks
 * @param user who asks (null without a users file)
 * @param conversationId the conversation it continues, or null for a new one
 * @param client the asking client's address as the edge saw it (a trusted proxy's forwarded one), for the query log;
 *     null where there is none (the command line, evaluation)
 */
public record AskRequest(String question, String mode, String source, String runId, User user, Object conversationId,
    RunOptions options, String client) {

  /** The entries a question may come through. */
  public static final Set<String> SOURCES = Set.of("http", "ws", "eventbus", "cli", "mcp", "eval");

  public AskRequest {
    mode = mode == null ? "agent" : mode;
    source = source == null ? "eventbus" : source;
    options = options == null ? RunOptions.ASKED : options;
  }

  /** A request with no client address (the command line, evaluation, tests). */
  public AskRequest(String question, String mode, String source, String runId, User user, Object conversationId,
      RunOptions options) {
    this(question, mode, source, runId, user, conversationId, options, null);
  }

  /** A person's question through {@code source}, in agent mode. */
  public static AskRequest of(String question, String source) {
    return new AskRequest(question, "agent", source, null, null, null, RunOptions.ASKED);
  }

  public AskRequest withRunId(String id) {
    return new AskRequest(question, mode, source, id, user, conversationId, options, client);
  }

  public AskRequest withUser(User asking) {
    return new AskRequest(question, mode, source, runId, asking, conversationId, options, client);
  }

  public AskRequest withOptions(RunOptions o) {
    return new AskRequest(question, mode, source, runId, user, conversationId, o, client);
  }

  /** The same request from the client at {@code address}. */
  public AskRequest withClient(String address) {
    return new AskRequest(question, mode, source, runId, user, conversationId, options, address);
  }

  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("question", question).put("mode", mode).put("source", source);
    if (runId != null) j.put("run_id", runId);
    j.put("user", user == null ? null : user.toJson());
    if (conversationId != null) j.put("conversation_id", conversationId);
    if (!options.lookupVerified()) j.put("lookup_verified", false);
    if (options.standalone()) j.put("standalone", true);
    if (options.selfPaced()) j.put("self_paced", true);
    if (options.candidates() != null) j.put("candidates", options.candidates());
    if (options.injectFault()) j.put("inject_fault", true).put("fault_key", options.faultKey());
    if (client != null) j.put("client", client);
    return j;
  }

  /** A request the agent has checked; a value of an unchecked key of the wrong type reads as its default. */
  public static AskRequest fromJson(JsonObject j) {
    String question = j.getValue("question") instanceof String q ? q.strip() : null;
    boolean inject = Boolean.TRUE.equals(j.getValue("inject_fault"));
    String faultKey = j.getValue("fault_key") instanceof String k ? k : question;
    RunOptions options = new RunOptions(!Boolean.FALSE.equals(j.getValue("lookup_verified")),
        Boolean.TRUE.equals(j.getValue("standalone")), Boolean.TRUE.equals(j.getValue("self_paced")),
        j.getValue("candidates") instanceof Number n ? n.intValue() : null, inject ? faultKey : null);
    return new AskRequest(question, j.getValue("mode") instanceof String m ? m : null,
        j.getValue("source") instanceof String s ? s : null, j.getValue("run_id") instanceof String r ? r : null,
        j.getValue("user") instanceof JsonObject u ? User.fromJson(u) : null, j.getValue("conversation_id"), options,
        j.getValue("client") instanceof String c ? c : null);
  }
}

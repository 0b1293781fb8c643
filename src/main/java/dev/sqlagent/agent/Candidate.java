package dev.sqlagent.agent;

import io.vertx.core.json.JsonObject;

/**
 * One of several SQL candidates of an attempt: its SQL (null when the reply was unusable or a refusal) and what the
 * gate made of it ({@code outcome}, {@code fingerprint} of its result when it ran).
 */
record Candidate(int index, String sql, Outcome outcome, String fingerprint, String explanation, boolean refusal) {

  Candidate withSql(String sql) {
    return new Candidate(index, sql, outcome, fingerprint, explanation, refusal);
  }

  JsonObject toJson(CandidateVote.Result vote) {
    return new JsonObject().put("index", index).put("sql", sql).put("ok", outcome != null && outcome.ok())
        .put("error_type", outcome == null ? null : outcome.errorType()).put("fingerprint", fingerprint)
        .put("votes", vote.votesFor(fingerprint)).put("chosen", index == vote.winner());
  }
}

-- Run ids, claimed as each run starts (dev.sqlagent.agent.RunClaims): a client may name its run, and an id that
-- named a run before, on any node and however long ago, is refused rather than a second run being grafted onto
-- the first's events, query-log row and feedback. The runs logged before this table existed hold their ids too.
-- Kept as long as the query log keeps its rows.
CREATE TABLE IF NOT EXISTS run_claims (
  run_id      text        PRIMARY KEY,
  user_name   text,
  claimed_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO run_claims (run_id, user_name, claimed_at)
  SELECT run_id, user_name, asked_at FROM agent_query_log ON CONFLICT DO NOTHING;

-- Run ids, claimed as each run starts (dev.sqlagent.agent.RunClaimsRepository): a client may name its run, and an id that
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
-- A run that did not finish is found again: each claim names the process that runs it (the cluster node's id, or the
-- single process's own), what was asked and in which conversation, and is marked finished once the run answered. At
-- start, a claim left unfinished by a process that is gone becomes an interrupted run (its log row and its turn).
-- Claims made before these columns existed name no process and are never taken for interrupted.
ALTER TABLE run_claims ADD COLUMN IF NOT EXISTS node text;
ALTER TABLE run_claims ADD COLUMN IF NOT EXISTS question text;
ALTER TABLE run_claims ADD COLUMN IF NOT EXISTS conversation_id text;
ALTER TABLE run_claims ADD COLUMN IF NOT EXISTS source varchar(10);
ALTER TABLE run_claims ADD COLUMN IF NOT EXISTS mode varchar(10);
ALTER TABLE run_claims ADD COLUMN IF NOT EXISTS finished_at timestamptz;
CREATE INDEX IF NOT EXISTS run_claims_unfinished ON run_claims (node) WHERE finished_at IS NULL AND node IS NOT NULL;

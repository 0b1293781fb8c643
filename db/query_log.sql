-- The agent's own log: one row per question asked through a user-facing entry (never evaluation runs).
-- Written only by sql_agent_log (INSERT and nothing else); sql_agent_ro can neither see nor read it.
-- Setup creates it if missing and never drops it: rebuilding the shop keeps the history.

CREATE TABLE IF NOT EXISTS agent_query_log (
  log_id             bigserial PRIMARY KEY,
  run_id             text        NOT NULL,
  question           text        NOT NULL,
  asked_at           timestamptz NOT NULL,
  mode               varchar(10) NOT NULL,
  final_sql          text,
  attempts_used      int         NOT NULL,
  error_types        text[]      NOT NULL DEFAULT '{}',
  gave_up            boolean     NOT NULL,
  refused            boolean     NOT NULL,
  rows_returned      int,
  latency_ms         int,
  prompt_tokens      int,
  completion_tokens  int,
  cost_usd           numeric(12,6),
  model              text
);
COMMENT ON TABLE agent_query_log IS 'sql-agent''s own log of asked questions; not shop data.';

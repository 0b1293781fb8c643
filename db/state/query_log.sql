-- The agent's own log: one row per question asked through a user-facing entry (never evaluation runs).
-- Written only by sql_agent_log (INSERT and nothing else); sql_agent_ro can neither see nor read it.
-- Setup creates it if missing and never drops it: rebuilding the shop keeps the history. Changes to an
-- existing log are additive and idempotent (ADD COLUMN IF NOT EXISTS), so old rows stay.

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

-- Which entry the question came through: http, ws, eventbus, cli or mcp.
ALTER TABLE agent_query_log ADD COLUMN IF NOT EXISTS source varchar(10);

-- A row retried after an unclear failure (the commit may have happened) must not be written twice:
-- the writer inserts with ON CONFLICT DO NOTHING, which needs no privilege beyond INSERT.
CREATE UNIQUE INDEX IF NOT EXISTS agent_query_log_run_id ON agent_query_log (run_id);
CREATE INDEX IF NOT EXISTS agent_query_log_asked_at ON agent_query_log (asked_at);

-- =====================================================================================================
-- MONITORING QUERIES. Comments, so setup never runs them; run them as the admin (sql_agent_log cannot
-- read the log, by design). Copy one without the leading "-- ". QueryLogMonitoringTest runs every one.
-- =====================================================================================================
--
-- Repair rate over time: per day, the share of questions that needed more than one attempt, and the
-- share of those that ended in an answer (the repair loop earning its keep).
-- SELECT date_trunc('day', asked_at) AS day,
--        count(*) AS questions,
--        round(avg((attempts_used > 1)::int), 3) AS repaired_share,
--        round(avg((NOT gave_up AND NOT refused)::int) FILTER (WHERE attempts_used > 1), 3) AS repair_success
-- FROM agent_query_log
-- GROUP BY 1 ORDER BY 1;
--
-- The commonest error types (every failed attempt counts once), over the last 30 days.
-- SELECT e.error_type, count(*) AS occurrences, count(DISTINCT l.run_id) AS questions
-- FROM agent_query_log l CROSS JOIN LATERAL unnest(l.error_types) AS e(error_type)
-- WHERE l.asked_at > now() - interval '30 days'
-- GROUP BY e.error_type ORDER BY occurrences DESC, e.error_type LIMIT 20;
--
-- Give-up and refusal rates per week and mode.
-- SELECT date_trunc('week', asked_at) AS week, mode, count(*) AS questions,
--        round(avg(gave_up::int), 3) AS give_up_rate,
--        round(avg(refused::int), 3) AS refusal_rate
-- FROM agent_query_log
-- GROUP BY 1, 2 ORDER BY 1, 2;
--
-- Cost per question per day and model: mean and p95 cost, tokens, latency.
-- SELECT date_trunc('day', asked_at) AS day, model, count(*) AS questions,
--        round(sum(cost_usd), 6) AS cost_usd,
--        round(avg(cost_usd), 6) AS cost_per_question,
--        percentile_cont(0.95) WITHIN GROUP (ORDER BY cost_usd) AS p95_cost,
--        round(avg(prompt_tokens + completion_tokens)) AS tokens_per_question,
--        percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50_latency_ms
-- FROM agent_query_log
-- GROUP BY 1, 2 ORDER BY 1, 2;
--
-- Questions that gave up most recently, with what was tried last (for reading, not for counting).
-- SELECT asked_at, source, question, error_types, final_sql
-- FROM agent_query_log WHERE gave_up ORDER BY asked_at DESC LIMIT 20;

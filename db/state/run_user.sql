-- Who asked, and whether the question was stopped (issue 14): additive and idempotent, old rows keep NULL / false.
ALTER TABLE agent_query_log ADD COLUMN IF NOT EXISTS user_name text;
ALTER TABLE agent_query_log ADD COLUMN IF NOT EXISTS cancelled boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS agent_query_log_user_name ON agent_query_log (user_name, asked_at);

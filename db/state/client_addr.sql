-- The address of the client that asked each logged run, as the service saw it (behind a proxy named in
-- SQLAGENT_TRUSTED_PROXIES, the address that proxy forwarded): additive and idempotent; rows of the command line,
-- of evaluation and of older versions keep NULL.
ALTER TABLE agent_query_log ADD COLUMN IF NOT EXISTS client_addr text;

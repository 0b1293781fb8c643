-- The trace of each logged run (OpenTelemetry, when SQLAGENT_OTLP_ENDPOINT is set): additive and idempotent, old
-- rows and rows written with tracing off keep NULL.
ALTER TABLE agent_query_log ADD COLUMN IF NOT EXISTS trace_id text;
CREATE INDEX IF NOT EXISTS agent_query_log_trace_id ON agent_query_log (trace_id) WHERE trace_id IS NOT NULL;

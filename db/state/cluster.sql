-- Cluster mode: every run's graph events, written by the worker that runs it, so any edge can replay a run
-- that ran elsewhere (GET /api/runs/{id}/events, WebSocket replay), even after that worker is gone. The
-- event is kept as the exact JSON the watchers saw. Rows older than a day are pruned by the workers.
CREATE TABLE IF NOT EXISTS run_events (
  run_id      text        NOT NULL,
  seq         bigint      NOT NULL,
  event       text        NOT NULL,
  written_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX IF NOT EXISTS run_events_written_at ON run_events (written_at);

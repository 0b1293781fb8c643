-- The state store's own tables (besides the query log): everything the service writes lives here, never in
-- the target. Idempotent: run at every start whose store is not at the current version.

-- The schema each target had when retrieval's index was built; drift compares the live schema with it.
-- Keyed by the target's server and database ('embedded/shop' for the demo, so the embedded server's
-- changing port does not matter).
CREATE TABLE IF NOT EXISTS schema_snapshots (
  target      text        PRIMARY KEY,
  snapshot    jsonb       NOT NULL,
  written_at  timestamptz NOT NULL DEFAULT now()
);

-- Embeddings of table descriptions, keyed by the model and the hash of the exact text embedded: a restart
-- embeds only the relations whose description changed.
CREATE TABLE IF NOT EXISTS embedding_cache (
  model            text        NOT NULL,
  document_sha256  text        NOT NULL,
  vector           real[]      NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, document_sha256)
);

-- Saved evaluation runs: one row per JSON file of a run (run.json, written when the run starts and
-- reserving its name; summary.json, when it finishes). Named by the start time (20261129-174501-123).
CREATE TABLE IF NOT EXISTS eval_runs (
  run         text        NOT NULL,
  file        text        NOT NULL,
  content     text        NOT NULL,
  written_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run, file)
);

-- The JSON-lines files of a saved run (questions.jsonl, answers.jsonl, verdicts.jsonl), one row per line,
-- appended as the run progresses: an interrupted run keeps every answer it had.
CREATE TABLE IF NOT EXISTS eval_run_lines (
  run         text        NOT NULL,
  file        text        NOT NULL,
  line        int         NOT NULL,
  content     text        NOT NULL,
  written_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run, file, line)
);

CREATE TABLE IF NOT EXISTS state_version (
  version     int         PRIMARY KEY,
  applied_at  timestamptz NOT NULL DEFAULT now()
);

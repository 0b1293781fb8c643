-- Conversations, feedback on runs and the library of verified queries (issue 13). Idempotent: run at every
-- start whose store is not at the current version. Nothing here holds result rows beyond a short summary.

-- One thread of questions; expires SQLAGENT_CONVERSATION_DAYS after its last turn.
CREATE TABLE IF NOT EXISTS conversations (
  conversation_id  text        PRIMARY KEY,
  started_at       timestamptz NOT NULL DEFAULT now(),
  last_turn_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS conversations_last_turn_at ON conversations (last_turn_at);

-- Each question of a conversation: what was asked, the final SQL and a summary of the result (columns, row
-- count, a few values), never the rows themselves. outcome: answered, gave_up or refused.
CREATE TABLE IF NOT EXISTS conversation_turns (
  conversation_id  text        NOT NULL REFERENCES conversations ON DELETE CASCADE,
  turn             int         NOT NULL,
  run_id           text        NOT NULL UNIQUE,
  question         text        NOT NULL,
  final_sql        text,
  outcome          varchar(10) NOT NULL,
  answer           text,
  summary          jsonb       NOT NULL DEFAULT '{}',
  verified_id      bigint,
  asked_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, turn)
);

-- A user's 👍 / 👎 on one run (the latest rating counts).
CREATE TABLE IF NOT EXISTS run_feedback (
  run_id     text        PRIMARY KEY,
  rating     varchar(4)  NOT NULL CHECK (rating IN ('up', 'down')),
  comment    text,
  given_at   timestamptz NOT NULL DEFAULT now()
);

-- Questions with the SQL a person vouched for, per target ('embedded/shop' for the demo). The vector is the
-- question's embedding. retired_reason set: the query no longer passes the gate and is never used.
CREATE TABLE IF NOT EXISTS verified_queries (
  verified_id     bigserial   PRIMARY KEY,
  target          text        NOT NULL,
  question        text        NOT NULL,
  sql             text        NOT NULL,
  vector          real[]      NOT NULL,
  from_run_id     text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  checked_at      timestamptz,
  retired_reason  text,
  retired_at      timestamptz,
  UNIQUE (target, question)
);

-- The query log names the conversation a question belonged to.
ALTER TABLE agent_query_log ADD COLUMN IF NOT EXISTS conversation_id text;

-- Who (issue 14): the user who started a conversation, who asked each turn (the run's owner), who rated a run
-- and who promoted a verified query. Names from the users file; NULL without one (and on older rows).
ALTER TABLE conversations ADD COLUMN IF NOT EXISTS user_name text;
ALTER TABLE conversation_turns ADD COLUMN IF NOT EXISTS user_name text;
ALTER TABLE run_feedback ADD COLUMN IF NOT EXISTS user_name text;
ALTER TABLE verified_queries ADD COLUMN IF NOT EXISTS verified_by text;

-- The analyst's desk: a turn whose SQL a person chose names the run it came from (an edited answer, or a reading
-- picked from a run that asked back); a turn that asked back keeps its readings (SQL, description, row count and a
-- small sample each), so that a choice runs the reading's SQL without asking the model again.
ALTER TABLE conversation_turns ALTER COLUMN outcome TYPE varchar(20);
ALTER TABLE conversation_turns ADD COLUMN IF NOT EXISTS edited_from text;
ALTER TABLE conversation_turns ADD COLUMN IF NOT EXISTS chosen_reading int;
ALTER TABLE conversation_turns ADD COLUMN IF NOT EXISTS readings jsonb;

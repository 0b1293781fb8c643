-- Stored values of the target's text columns (issue 12): the few values of low-cardinality columns, shown in
-- the schema text, and the distinct values of the others, indexed for matching question phrases. Kept so a
-- restart with the same schema rebuilds the index from here instead of reading the target again. Keyed by
-- the target (as schema_snapshots) and the schema's shape they were read under.
CREATE TABLE IF NOT EXISTS stored_values (
  target           text        NOT NULL,
  relation         text        NOT NULL,
  column_name      text        NOT NULL,
  shape            text        NOT NULL,
  low_cardinality  boolean     NOT NULL,
  source           text        NOT NULL,
  vals             text[]      NOT NULL,
  read_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (target, relation, column_name)
);

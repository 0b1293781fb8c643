-- What each user used of their budgets per day (UTC; dev.sqlagent.budget.UsageRepository): questions counted as each
-- is admitted, model tokens and cost added as each answer comes. One row per (user, day), updated by an atomic upsert,
-- so every instance sharing this store counts into the same row. groups: the groups the user was in at their last
-- question (a sign-on user's come from a claim), so an admin's view applies the same budgets.
CREATE TABLE IF NOT EXISTS budget_usage (
  user_name  text             NOT NULL,
  day        date             NOT NULL,
  questions  bigint           NOT NULL DEFAULT 0,
  tokens     bigint           NOT NULL DEFAULT 0,
  cost_usd   double precision NOT NULL DEFAULT 0,
  groups     text[]           NOT NULL DEFAULT '{}',
  PRIMARY KEY (user_name, day)
);
CREATE INDEX IF NOT EXISTS budget_usage_day ON budget_usage (day);

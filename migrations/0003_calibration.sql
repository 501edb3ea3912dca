-- Per model: how far the local token estimate is from the upstream's real
-- prompt_tokens (running mean of actual / estimated), for the budget stage.

CREATE TABLE calibration (
  model TEXT PRIMARY KEY,
  ratio REAL NOT NULL,
  samples INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

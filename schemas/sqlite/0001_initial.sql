-- dede schema version 1: deployments, their variable catalogue and their rounds.
-- Forward-only: never edit a released migration; add NNNN_name.sql instead.
-- Applied by the store in one transaction that ends with PRAGMA user_version = 1.
-- Times are seconds (REAL); absolute times are seconds since the Unix epoch (UTC).
-- NULL in a measurement column means "not computed" (the summary's -1 or NaN).

CREATE TABLE deployments (
  id             INTEGER PRIMARY KEY,
  name           TEXT NOT NULL UNIQUE,
  plugin         TEXT NOT NULL,
  plugin_version TEXT NOT NULL,
  config_file    TEXT NOT NULL,
  config_yaml    TEXT NOT NULL,
  created_at     REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0)
);

-- What each VarId of a deployment's problem is. Written once, when the deployment is created.
-- Entries have matrix_name, resource and demand; locals have owner_side and owner_index.
CREATE TABLE variables (
  deployment_id INTEGER NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
  var_id        INTEGER NOT NULL CHECK (var_id >= 0),
  kind          TEXT NOT NULL CHECK (kind IN ('entry', 'local')),
  matrix_name   TEXT,
  resource      INTEGER,
  demand        INTEGER,
  owner_side    TEXT CHECK (owner_side IN ('resource', 'demand')),
  owner_index   INTEGER,
  name          TEXT,
  PRIMARY KEY (deployment_id, var_id),
  CHECK (kind = 'local' OR (matrix_name IS NOT NULL AND resource IS NOT NULL
                            AND demand IS NOT NULL)),
  CHECK (kind = 'entry' OR (owner_side IS NOT NULL AND owner_index IS NOT NULL))
) WITHOUT ROWID;
-- For "the entries of demand d" / "of resource r" (the per-demand and per-resource views).
-- kind is a key column, not a partial-index condition: that makes the index covering for the
-- views, and the planner picks it even before ANALYZE has run.
CREATE INDEX variables_by_demand ON variables (deployment_id, demand, kind);
CREATE INDEX variables_by_resource ON variables (deployment_id, resource, kind);

-- One row per committed round: the solver's summary. termination is TerminationName():
-- converged, converged_inaccurate, max_iterations, time_limit, infeasible, cancelled, failure.
CREATE TABLE rounds (
  deployment_id   INTEGER NOT NULL REFERENCES deployments (id) ON DELETE CASCADE,
  round           INTEGER NOT NULL CHECK (round >= 0),
  started_at      REAL NOT NULL,
  solver          TEXT NOT NULL,
  method          TEXT,
  termination     TEXT NOT NULL,
  message         TEXT NOT NULL,
  iterations      INTEGER,
  rho             REAL,
  primal_residual REAL,
  dual_residual   REAL,
  objective       REAL,
  max_violation   REAL,
  feasible        INTEGER NOT NULL CHECK (feasible IN (0, 1)),
  setup_seconds   REAL,
  solve_seconds   REAL,
  repair_seconds  REAL,
  total_seconds   REAL,
  num_threads     INTEGER,
  bound           REAL,
  rho_updates     INTEGER,
  repair_rounds   INTEGER,
  PRIMARY KEY (deployment_id, round)
);

-- The allocation of a round: non-zero values only (an absent var_id is 0).
CREATE TABLE allocations (
  deployment_id INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  var_id        INTEGER NOT NULL,
  value         REAL NOT NULL,
  PRIMARY KEY (deployment_id, round, var_id),
  FOREIGN KEY (deployment_id, round) REFERENCES rounds (deployment_id, round) ON DELETE CASCADE
) WITHOUT ROWID;

-- Domain metrics reported by the plugin for a round. value NULL: NaN.
CREATE TABLE metrics (
  deployment_id INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  name          TEXT NOT NULL,
  value         REAL,
  PRIMARY KEY (deployment_id, round, name),
  FOREIGN KEY (deployment_id, round) REFERENCES rounds (deployment_id, round) ON DELETE CASCADE
) WITHOUT ROWID;

-- Resources and demands as the domain names them, per round.
CREATE TABLE entities (
  deployment_id INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  side          TEXT NOT NULL CHECK (side IN ('resource', 'demand')),
  idx           INTEGER NOT NULL,
  name          TEXT,
  PRIMARY KEY (deployment_id, round, side, idx),
  FOREIGN KEY (deployment_id, round) REFERENCES rounds (deployment_id, round) ON DELETE CASCADE
) WITHOUT ROWID;

-- The parameters of each entity in a round (capacity, volume, weight, ...). value NULL: NaN.
CREATE TABLE entity_parameters (
  deployment_id INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  side          TEXT NOT NULL,
  idx           INTEGER NOT NULL,
  parameter     TEXT NOT NULL,
  value         REAL,
  PRIMARY KEY (deployment_id, round, side, idx, parameter),
  FOREIGN KEY (deployment_id, round, side, idx)
    REFERENCES entities (deployment_id, round, side, idx) ON DELETE CASCADE
) WITHOUT ROWID;

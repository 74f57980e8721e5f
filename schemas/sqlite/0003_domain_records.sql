-- dede schema version 3: domain records and plugin checkpoints (plugin SDK ABI 2).

-- Domain objects of a round that are neither resources nor demands (simulated jobs,
-- placements, timers, ...): one JSON object per (round, kind, key). Query fields with
-- json_extract(data, '$.field'); NaN and infinite values are JSON null.
CREATE TABLE domain_records (
  deployment_id INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  kind          TEXT NOT NULL CHECK (kind <> ''),
  key           TEXT NOT NULL,
  data          TEXT NOT NULL CHECK (json_valid(data)),
  PRIMARY KEY (deployment_id, round, kind, key),
  FOREIGN KEY (deployment_id, round) REFERENCES rounds (deployment_id, round) ON DELETE CASCADE
) WITHOUT ROWID;
-- "The latest record of each job": by kind and key across rounds.
CREATE INDEX domain_records_by_key ON domain_records (deployment_id, kind, key, round);

-- The plugin's checkpoint after a round (DomainPlugin::SaveState), committed with the round and
-- handed back to RestoreState when the deployment resumes. Opaque to SQL.
CREATE TABLE plugin_states (
  deployment_id INTEGER NOT NULL,
  round         INTEGER NOT NULL,
  state         BLOB NOT NULL,
  PRIMARY KEY (deployment_id, round),
  FOREIGN KEY (deployment_id, round) REFERENCES rounds (deployment_id, round) ON DELETE CASCADE
) WITHOUT ROWID;

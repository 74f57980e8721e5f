-- dede schema version 4: the event inbox (plugin SDK ABI 3).

-- What happens now, written by anyone (`dede submit`, the sqlite3 shell, an operator's
-- service): a job arrives, a link fails, a shard's load changes. The runner of the deployment
-- named in `deployment` applies every pending event whose apply_from_round (and, if set,
-- apply_after) has come at the start of the next round, in id order, inside that round's
-- transaction: `status` becomes 'applied' or 'rejected' (with `reason`) and `round` the round
-- that used it, or, if the round is not committed, the event stays pending. Rows are history:
-- never deleted by dede.
CREATE TABLE events (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  deployment       TEXT NOT NULL CHECK (deployment <> ''),  -- deployments.name (may not exist yet)
  kind             TEXT NOT NULL CHECK (kind <> ''),        -- the plugin's event kinds
  target           TEXT NOT NULL DEFAULT '',                -- what it is about: "3->7", a job id
  payload          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(payload) AND json_type(payload) = 'object'),
  apply_from_round INTEGER NOT NULL DEFAULT 0 CHECK (apply_from_round >= 0),
  apply_after      REAL,                                    -- Unix seconds; NULL: at once
  writer           TEXT NOT NULL DEFAULT '',                -- who submitted it
  submitted_at     REAL NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0),
  status           TEXT NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'applied', 'rejected')),
  round            INTEGER,                                 -- the round that applied or rejected it
  reason           TEXT,                                    -- why it was rejected
  CHECK ((status = 'pending') = (round IS NULL)),
  CHECK ((status = 'rejected') = (reason IS NOT NULL))
);
CREATE INDEX events_pending ON events (deployment, status, id);

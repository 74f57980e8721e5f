-- dede schema version 7: exactly-once submit.
--
-- idempotency_key: the submitter's key for the event (`dede submit --id KEY`, or any writer).
-- Keys are unique per deployment: a retried submit with the same key finds the stored event
-- instead of adding a duplicate (a submit killed after its commit can be repeated safely).
-- NULL: no key (every event written before this version, and submits without --id).
ALTER TABLE events ADD COLUMN idempotency_key TEXT CHECK (idempotency_key <> '');

CREATE UNIQUE INDEX events_by_key ON events (deployment, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

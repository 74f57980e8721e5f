-- dede schema version 5: one round time everywhere, and which allocation a round returned.
--
-- round_seconds is the whole round's wall time as the log line, `dede_eval` and /metrics give it
-- (events, refresh, the seed, the solve, the repair, the report; the deployment's once-only
-- set-up, the engine's build, is not in it: it stays in round 0's setup_seconds). Its split:
-- seed_seconds (the plugin's seed and the fallback candidates, before the solve), solve_seconds,
-- fill_seconds (the work-conserving second stage of a max-min, inside solve_seconds) and
-- repair_seconds. returned: 'solver', 'seed' or 'previous' (SolveSummary::returned); NULL for
-- rounds written before this version and for methods that compare no candidates.
ALTER TABLE rounds ADD COLUMN round_seconds REAL;
ALTER TABLE rounds ADD COLUMN seed_seconds REAL;
ALTER TABLE rounds ADD COLUMN fill_seconds REAL;
ALTER TABLE rounds ADD COLUMN returned TEXT;
ALTER TABLE rounds ADD COLUMN seed_objective REAL;

DROP VIEW round_summary;
CREATE VIEW round_summary AS
SELECT r.deployment_id,
       d.name AS deployment,
       r.round,
       strftime('%Y-%m-%dT%H:%M:%fZ', r.started_at, 'unixepoch') AS started_utc,
       r.solver,
       r.method,
       r.termination,
       r.feasible,
       r.iterations,
       r.objective,
       r.primal_residual,
       r.dual_residual,
       r.max_violation,
       r.rho,
       r.setup_seconds,
       r.solve_seconds,
       r.repair_seconds,
       r.total_seconds,
       (SELECT COUNT(*) FROM allocations a
         WHERE a.deployment_id = r.deployment_id AND a.round = r.round) AS nonzero_entries,
       r.message,
       r.round_seconds,
       r.seed_seconds,
       r.fill_seconds,
       r.returned,
       r.seed_objective
FROM rounds r
JOIN deployments d ON d.id = r.deployment_id;

-- dede schema version 6: every round's certified gap.
--
-- gap: how far the returned allocation can be from the optimum, proven: |bound - objective| /
-- max(|bound|, |objective|, 1e-9) with `bound` the solver's proven bound on the optimum (the ADMM
-- checks' Lagrangian bound, Clp's or Cbc's dual bound). NULL where there is none: POP (the sum of
-- its parts' bounds bounds nothing), a plugin method, an infeasible allocation, and rounds
-- written before this version. round_summary now shows bound and gap.
ALTER TABLE rounds ADD COLUMN gap REAL;

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
       r.seed_objective,
       r.bound,
       r.gap
FROM rounds r
JOIN deployments d ON d.id = r.deployment_id;

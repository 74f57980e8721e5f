-- dede schema version 2: views for the common questions (documented in README.md).
-- Views hold no data, so a later migration may DROP and re-CREATE them.

-- One row per committed round, with the deployment's name and a readable UTC start time.
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
       r.message
FROM rounds r
JOIN deployments d ON d.id = r.deployment_id;

-- Per deployment, round and demand: the sum of the demand's allocation entries (over all
-- matrices). Every demand that has entries appears in every round, with 0 when nothing was
-- allocated to it; demand_name comes from the round's entities (NULL if not reported).
CREATE VIEW demand_allocation AS
SELECT t.deployment_id,
       t.round,
       t.demand,
       e.name AS demand_name,
       t.allocated,
       t.nonzero_entries
FROM (SELECT r.deployment_id,
             r.round,
             v.demand,
             COALESCE(SUM(a.value), 0.0) AS allocated,
             COUNT(a.var_id) AS nonzero_entries
      FROM rounds r
      JOIN variables v ON v.deployment_id = r.deployment_id AND v.kind = 'entry'
      LEFT JOIN allocations a
        ON a.deployment_id = r.deployment_id AND a.round = r.round AND a.var_id = v.var_id
      GROUP BY r.deployment_id, r.round, v.demand) t
LEFT JOIN entities e
  ON e.deployment_id = t.deployment_id AND e.round = t.round
 AND e.side = 'demand' AND e.idx = t.demand;

-- Per deployment, round and resource: the sum of the resource's allocation entries, its
-- capacity (entity parameter 'capacity' of that round, NULL if not reported) and
-- utilisation = allocated / capacity (NULL without a non-zero capacity).
CREATE VIEW resource_utilisation AS
SELECT t.deployment_id,
       t.round,
       t.resource,
       e.name AS resource_name,
       t.allocated,
       p.value AS capacity,
       t.allocated / NULLIF(p.value, 0.0) AS utilisation,
       t.nonzero_entries
FROM (SELECT r.deployment_id,
             r.round,
             v.resource,
             COALESCE(SUM(a.value), 0.0) AS allocated,
             COUNT(a.var_id) AS nonzero_entries
      FROM rounds r
      JOIN variables v ON v.deployment_id = r.deployment_id AND v.kind = 'entry'
      LEFT JOIN allocations a
        ON a.deployment_id = r.deployment_id AND a.round = r.round AND a.var_id = v.var_id
      GROUP BY r.deployment_id, r.round, v.resource) t
LEFT JOIN entities e
  ON e.deployment_id = t.deployment_id AND e.round = t.round
 AND e.side = 'resource' AND e.idx = t.resource
LEFT JOIN entity_parameters p
  ON p.deployment_id = t.deployment_id AND p.round = t.round
 AND p.side = 'resource' AND p.idx = t.resource AND p.parameter = 'capacity';

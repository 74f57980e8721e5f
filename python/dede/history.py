"""A deployment's database as pandas DataFrames, read-only.

The file is opened with SQLite's read-only URI (mode=ro): nothing is written, no migration
runs, and a writer (`dede run`) may be running. Tables and views: schemas/sqlite/README.md.
"""

import os
import sqlite3
import urllib.parse

import pandas as pd


def _connect(database):
    path = os.fspath(database)
    if not os.path.exists(path):
        raise FileNotFoundError(f"database {path!r} does not exist")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


def _deployment_filter(connection, deployment):
    """(sql, params) restricting deployment_id to `deployment` (a name or an id), or none."""
    if deployment is None:
        return "", []
    if isinstance(deployment, str):
        row = connection.execute("SELECT id FROM deployments WHERE name = ?",
                                 (deployment,)).fetchone()
        if row is None:
            names = [r[0] for r in connection.execute("SELECT name FROM deployments")]
            raise ValueError(f"deployment = {deployment!r}: not in the database (it has: "
                             f"{', '.join(names) or 'none'})")
        return " WHERE deployment_id = ?", [row[0]]
    return " WHERE deployment_id = ?", [int(deployment)]


def read_table(database, table, deployment=None):
    """All rows of a table or view (e.g. "round_summary", "demand_allocation"), optionally of
    one deployment (name or id)."""
    with _connect(database) as connection:
        known = {r[0] for r in connection.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        if table not in known:
            raise ValueError(f"table = {table!r}: not a table or view of {database!r} "
                             f"(it has: {', '.join(sorted(known))})")
        where, params = _deployment_filter(connection, deployment)
        return pd.read_sql_query(f'SELECT * FROM "{table}"{where}', connection, params=params)


def read_rounds(database, deployment=None):
    """The round_summary view: one row per committed round (termination, objective, bound,
    gap, violation, times, ...)."""
    return read_table(database, "round_summary", deployment)


def read_metrics(database, deployment=None, wide=False):
    """The metrics table (deployment_id, round, name, value); wide=True pivots to one row per
    round and one column per metric."""
    frame = read_table(database, "metrics", deployment)
    if wide:
        frame = frame.pivot_table(index=["deployment_id", "round"], columns="name",
                                  values="value").reset_index()
        frame.columns.name = None
    return frame


def read_allocations(database, deployment=None, round=None):
    """Each round's non-zero allocation values joined with what each variable is: deployment_id,
    round, var_id, value, kind, matrix_name, resource, demand, owner_side, owner_index, name."""
    with _connect(database) as connection:
        where, params = _deployment_filter(connection, deployment)
        where = where.replace("deployment_id", "a.deployment_id")
        if round is not None:
            where += (" AND" if where else " WHERE") + " a.round = ?"
            params.append(int(round))
        query = ("SELECT a.deployment_id, a.round, a.var_id, a.value, v.kind, v.matrix_name, "
                 "v.resource, v.demand, v.owner_side, v.owner_index, v.name FROM allocations a "
                 "JOIN variables v ON v.deployment_id = a.deployment_id AND v.var_id = a.var_id"
                 f"{where} ORDER BY a.deployment_id, a.round, a.var_id")
        return pd.read_sql_query(query, connection, params=params)

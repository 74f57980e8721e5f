"""Deployments from Python (the runtime `dede solve` / `dede run` use) and their database as
pandas DataFrames."""

import shutil
import sqlite3

import numpy as np
import pandas as pd
import pytest

import dede
from conftest import DATA, same_bits


@pytest.fixture
def deployment_file(tmp_path):
    path = tmp_path / "transport_small.yaml"
    shutil.copy(DATA / "transport_small.yaml", path)
    return path


def test_solve_round_writes_nothing_and_matches_run(deployment_file):
    d = dede.Deployment(deployment_file)
    assert d.plugin == "transport" and d.name == "py-transport"
    assert d.database == str(deployment_file.parent / "py-transport.db")
    solved = d.solve_round(0)
    assert solved.summary.usable and solved.summary.feasible
    assert solved.values is not None and solved.values.size == d.variables()["matrix"].size
    assert solved.metrics  # the plugin's metrics of the round
    assert not (deployment_file.parent / "py-transport.db").exists()
    ran = d.run(3)
    d.close()
    assert [r.round for r in ran] == [0, 1, 2]
    # Round 0 through `dede run`'s path is round 0 through `dede solve`'s, bit for bit.
    assert same_bits(ran[0].values, solved.values)
    assert ran[0].summary.objective == solved.summary.objective
    # The set-up's log lines (what the runtime logs before round 0): the settings defaulted.
    assert "settings defaulted" in d.log()


def test_run_resumes_and_history_reads_as_dataframes(deployment_file):
    with dede.Deployment(deployment_file) as d:
        first = d.run(2)
    db = deployment_file.parent / "py-transport.db"
    with dede.Deployment(deployment_file) as d:
        assert d.next_round() == 2
        rest = d.run(100)  # stops at stop.max_rounds = 6
    assert [r.round for r in first + rest] == list(range(6))

    rounds = dede.read_rounds(db)
    assert isinstance(rounds, pd.DataFrame)
    assert list(rounds["round"]) == list(range(6))
    assert list(rounds["deployment"].unique()) == ["py-transport"]
    for r in first + rest:
        row = rounds[rounds["round"] == r.round].iloc[0]
        assert row["objective"] == r.summary.objective
        assert row["termination"] == r.summary.termination
    assert {"gap", "bound", "max_violation", "round_seconds"} <= set(rounds.columns)

    allocations = dede.read_allocations(db, deployment="py-transport", round=4)
    r4 = rest[2]
    nonzero = np.flatnonzero(r4.values)
    np.testing.assert_array_equal(allocations["var_id"].to_numpy(), nonzero)
    np.testing.assert_array_equal(allocations["value"].to_numpy(), r4.values[nonzero])
    assert set(allocations["kind"]) <= {"entry", "local"}

    metrics = dede.read_metrics(db)
    assert set(metrics["round"]) == set(range(6))
    wide = dede.read_metrics(db, wide=True)
    assert len(wide) == 6
    for name, value in r4.metrics.items():
        if np.isfinite(value):
            assert wide.loc[wide["round"] == 4, name].iloc[0] == pytest.approx(value, rel=1e-12)

    demand = dede.read_table(db, "demand_allocation", deployment="py-transport")
    assert len(demand) > 0


def test_history_is_read_only(deployment_file):
    with dede.Deployment(deployment_file) as d:
        d.run(1)
    db = deployment_file.parent / "py-transport.db"
    before = db.read_bytes()
    dede.read_rounds(db)
    dede.read_allocations(db)
    assert db.read_bytes() == before
    from dede.history import _connect
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        _connect(db).execute("DELETE FROM rounds")


def test_writer_lock_and_errors(deployment_file, tmp_path):
    a = dede.Deployment(deployment_file)
    a.run(1)
    b = dede.Deployment(deployment_file)
    with pytest.raises(dede.DeploymentError):
        b.run(1)  # a holds the database's writer lock
    a.close()
    assert [r.round for r in b.run(1)] == [1]
    b.close()
    bad = tmp_path / "bad.yaml"
    bad.write_text(deployment_file.read_text().replace("resources: 8", "resources: -3"))
    with pytest.raises(dede.DeploymentError, match="resources"):
        dede.Deployment(bad).solve_round(0)
    with pytest.raises(dede.DeploymentError, match="missing.yaml: no such file"):
        dede.Deployment(tmp_path / "missing.yaml")
    with pytest.raises(ValueError, match="round = -1"):
        dede.Deployment(deployment_file).solve_round(-1)
    with pytest.raises(ValueError, match=r"deployment = 'nope': not in the database"):
        dede.read_rounds(deployment_file.parent / "py-transport.db", deployment="nope")
    with pytest.raises(FileNotFoundError):
        dede.read_rounds(tmp_path / "none.db")


def test_overrides(deployment_file):
    d = dede.Deployment(deployment_file, overrides=["solver.kind=exact"])
    r = d.solve_round(0)
    assert r.summary.method in ("clp", "cbc") and r.summary.usable
    admm = dede.Deployment(deployment_file).solve_round(0)
    assert admm.summary.objective == pytest.approx(r.summary.objective, rel=1e-3)

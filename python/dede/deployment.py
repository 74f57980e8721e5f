"""Deployments (the YAML files `dede run` and `dede solve` take) from Python.

The same runtime as the command: the file is loaded and checked by the option registry, the
plugin found on its search path, each round run through the round pipeline (events, refresh,
warm-started solve, the plugin's repair, measure, report). solve_round writes nothing, like
`dede solve --round N`; run writes each round to the deployment's database under its writer
lock and resumes after the last committed round, like `dede run`, but runs the rounds back to
back (no timer, no signal handling: a Python program decides when to call it).
"""

import os
from dataclasses import dataclass, field

import numpy as np

from . import _dede
from .problem import Summary


def _default_plugin_paths():
    """The plugins installed beside the module (<prefix>/lib/dede/plugins for the module in
    <prefix>/lib/python3.X/dist-packages/dede), else the build tree's: one of the two, as the
    same plugin found twice is ambiguous."""
    here = os.path.dirname(os.path.abspath(__file__))
    installed = os.path.normpath(os.path.join(here, "..", "..", "..", "dede", "plugins"))
    for candidate in (installed, _dede.BUILD_PLUGIN_DIR):
        if os.path.isdir(candidate):
            return [candidate]
    return []


@dataclass
class Round:
    """One round: its number, Summary, the plugin's metrics, the allocation by variable id
    (None if the solve returned none), wall seconds and the inbox events it applied/rejected."""

    round: int
    summary: Summary
    metrics: dict
    values: np.ndarray = field(repr=False, default=None)
    seconds: float = 0.0
    events_applied: int = 0
    events_rejected: int = 0

    @classmethod
    def from_dict(cls, d):
        return cls(round=d["round"], summary=Summary.from_dict(d["summary"]),
                   metrics=dict(d["metrics"]), values=d["values"], seconds=d["seconds"],
                   events_applied=d["events_applied"], events_rejected=d["events_rejected"])


class Deployment:
    """A deployment file. overrides: "key=value" strings as `dede run --set` takes them
    ("solver.admm.time_limit_seconds=5"); plugin_paths: extra directories or .so files to
    find plugins in (before DEDE_PLUGIN_PATH, the build tree's and the installed plugins).
    Raises dede.DeploymentError with the message `dede validate` prints."""

    def __init__(self, path, overrides=(), plugin_paths=()):
        paths = [os.fspath(p) for p in plugin_paths] + _default_plugin_paths()
        self._d = _dede.Deployment(os.fspath(path), [str(o) for o in overrides], paths)
        self.info = self._d.describe()

    name = property(lambda self: self.info["name"])
    database = property(lambda self: self.info["database"])
    plugin = property(lambda self: self.info["plugin"])

    def __repr__(self):
        return (f"Deployment({self.name!r}, plugin {self.plugin} {self.info['plugin_version']}, "
                f"database {self.database!r})")

    def solve_round(self, round=0):
        """Round `round` through the pipeline, nothing written (`dede solve --round`)."""
        return Round.from_dict(self._d.solve_round(int(round)))

    def run(self, rounds):
        """Runs up to `rounds` rounds back to back after the last committed one, each written
        to the database; stops early at stop.max_rounds or the end of the plugin's data.
        Returns the Rounds run."""
        return [Round.from_dict(d) for d in self._d.run(int(rounds))]

    def next_round(self):
        """The round run() runs next (the database's last committed round + 1)."""
        return self._d.next_round()

    def variables(self):
        """What each variable id of the deployment's problem is (arrays, see Problem.variables)."""
        return self._d.variables()

    def log(self):
        """The runtime's log lines so far (settings defaulted, recommended settings applied,
        resume), as one string; a round's figures are in its Round, not logged here."""
        return self._d.log()

    def close(self):
        """Releases the database and its writer lock."""
        self._d.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

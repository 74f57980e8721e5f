"""Shared helpers of the Python module's tests (run by ctest as python.pytest, see
tests/python/CMakeLists.txt: PYTHONPATH holds the built package and _dede_reference)."""

import json
import os
import pathlib
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent
SOURCE_DIR = pathlib.Path(os.environ.get("DEDE_SOURCE_DIR", HERE.parents[1]))
DATA = HERE / "data"
sys.path.insert(0, str(HERE))


def same_bits(a, b):
    """True if two float64 arrays are equal bit for bit (NaN payloads and signed zeros too)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


@pytest.fixture(scope="session")
def expected():
    with open(DATA / "expected.json") as f:
        return {case["name"]: case["optimal_value"] for case in json.load(f)}

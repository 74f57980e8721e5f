#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds dede with warnings as errors, runs the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake --workflow --preset ci

#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds dede, and runs the main job: the default deployment
# (configs/dev.yaml: the transport plugin, 10 rounds, history in configs/dede-dev.db).
# Extra arguments go to `dede run` (e.g. --verbose, --rounds N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
# Only what the main job runs: the CLI, the engine and the bundled plugins (the `run` preset,
# in build/release; `tools/test.sh` builds the rest, tests and benchmarks, in build/ci).
cmake --workflow --preset run
exec build/release/tools/dede/dede run configs/dev.yaml "$@"

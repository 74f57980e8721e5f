#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds dede, and runs the main job: the default deployment
# (configs/dev.yaml: the transport plugin, 10 rounds, history in configs/dede-dev.db).
# Extra arguments go to `dede run` (e.g. --verbose, --rounds N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake --workflow --preset release
exec build/release/tools/dede/dede run configs/dev.yaml "$@"

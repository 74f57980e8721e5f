#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds dede, and runs the main job: the bundled example
# solved with ADMM and with the exact LP. Extra arguments go to `dede solve`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake --workflow --preset release
exec build/release/tools/dede/dede solve "$@"

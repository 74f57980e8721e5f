#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine, builds dede with warnings as errors, runs the test suite,
# then builds the example plugin out of tree against an installed SDK and loads it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh --test
# The status page's browser test fails instead of skipping when chromium is missing.
export DEDE_REQUIRE_BROWSER=1
cmake --workflow --preset ci
DEDE_CLI_PLUGINS="build/ci/tools/dede/dede plugins --path" bash tools/ci/out_of_tree_plugin.sh build/ci

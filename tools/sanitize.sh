#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (Debug, preset
# `dev`; the engine's kernels at -O1, framework/CMakeLists.txt): any report fails the run
# (UBSan halts on error; LeakSanitizer suppresses only the third-party leaks listed in
# tools/sanitizers/lsan.supp). Run after tools/setup.sh.
#
# A fresh build/dev gets ctest's cost data from tools/ci/sanitize_test_costs.txt (each test's
# seconds under the sanitizers, those of 1 s or more), so that ctest starts the longest tests
# first and the two jobs end together (in a fresh clone ctest knows no costs and started the
# two longest, 119 and 97 s, among the last). ctest keeps the file current in build/dev after
# every run; to refresh the shipped one:
#   awk 'NF == 3 && $3 >= 1' build/dev/Testing/Temporary/CTestCostData.txt | sort -k3 -rn \
#     > tools/ci/sanitize_test_costs.txt && echo --- >> tools/ci/sanitize_test_costs.txt
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset dev
cmake --build --preset dev
costs=build/dev/Testing/Temporary/CTestCostData.txt
if [ ! -f "$costs" ]; then
  mkdir -p "$(dirname "$costs")"
  cp tools/ci/sanitize_test_costs.txt "$costs"
fi
ctest --preset dev

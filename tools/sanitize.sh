#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (Debug, preset
# `dev`): any report fails the run (UBSan halts on error; LeakSanitizer suppresses only the
# third-party leaks listed in tools/sanitizers/lsan.supp). Run after tools/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset dev
cmake --build --preset dev
ctest --preset dev

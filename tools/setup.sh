#!/usr/bin/env bash
# Installs dede's dependencies from the Debian archive. Idempotent: packages already present
# are skipped, so a second run does nothing.
# Without arguments (tools/run.sh): what the main job builds and runs, the CLI, the engine and
# the bundled plugins. --test (tools/test.sh, CI) adds what only the test suite, the benchmarks,
# the sanitizer and fuzzing builds and the CI checks use (googletest, Google Benchmark, Open MPI,
# clang, headless Chromium, universal-ctags, ...).
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build git
  coinor-libclp-dev coinor-libcbc-dev coinor-libcgl-dev coinor-libosi-dev coinor-libcoinutils-dev
  libtbb-dev libeigen3-dev libyaml-cpp-dev libsqlite3-dev sqlite3
  libboost-dev libboost-filesystem-dev
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  python3
  # lld: the linker of every build (CMakeLists.txt, DEDE_USE_LLD), about 2x faster than ld.bfd.
  lld
)

if [ "${1:-}" = --test ]; then
  packages+=(
    # The suite and the benchmarks (tools/test.sh builds them; tools/run.sh does not).
    libgtest-dev libgmock-dev googletest libbenchmark-dev gnuplot-nox bzip2 time
    # Open MPI: `mpirun -np N dede ...` and its tests (framework/src/mpi; the build works
    # without it).
    openmpi-bin libopenmpi-dev
    # The sanitizer and fuzzing builds, and the formatting check.
    clang libclang-rt-14-dev clang-format-14
    # glpsol, GLPK's exact rational simplex, the second solver te_exact_glpk_test checks the
    # exact baseline against (the test fails without it).
    glpk-utils
    # The status page's browser test.
    chromium
    # universal-ctags: the CI size check's parser (tools/ci/check_sizes.py) and its test.
    universal-ctags
    # The Python module (DEDE_PYTHON, on in the ci preset) and its tests and examples.
    pybind11-dev python3-dev python3-numpy python3-scipy python3-pandas python3-pytest
    # The API reference from the SDK headers (tools/ci/doxygen.sh: no warnings allowed).
    doxygen
  )
elif [ $# -gt 0 ]; then
  echo "usage: bash tools/setup.sh [--test]" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Installs every build and test dependency of dede from the Debian archive.
# Idempotent: packages already present are skipped, so a second run does nothing.
# --test (tools/test.sh, CI) adds what only the test suite uses and the main job never needs:
# headless Chromium for the status page's browser test (tests/integration).
set -euo pipefail

packages=(
  build-essential cmake pkg-config ninja-build git
  coinor-libclp-dev coinor-libcbc-dev coinor-libcgl-dev coinor-libosi-dev coinor-libcoinutils-dev
  libtbb-dev libeigen3-dev libyaml-cpp-dev libsqlite3-dev sqlite3
  libboost-dev libboost-filesystem-dev
  libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  gnuplot-nox bzip2 python3 time
  # Open MPI: `mpirun -np N dede ...` (framework/src/mpi; the build works without it).
  openmpi-bin libopenmpi-dev
  clang libclang-rt-14-dev clang-format-14
  # lld: the linker of every build (CMakeLists.txt, DEDE_USE_LLD), about 2x faster than ld.bfd.
  lld
  # Test only: glpsol, GLPK's exact rational simplex, the second solver te_exact_glpk_test
  # checks the exact baseline against (the test fails without it).
  glpk-utils
)

if [ "${1:-}" = --test ]; then
  packages+=(chromium)
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

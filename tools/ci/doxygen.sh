#!/usr/bin/env bash
# Builds the API reference (docs/Doxyfile: the SDK headers framework/include/dede/*.h) into
# OUTPUT_DIR (default build/docs) and fails on any doxygen warning: a broken reference, an
# unknown command, a malformed comment. Needs Debian's `doxygen` (tools/setup.sh --test).
#
#   bash tools/ci/doxygen.sh [OUTPUT_DIR]     # then open OUTPUT_DIR/html/index.html
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-${root}/build/docs}"
mkdir -p "${out}"
out="$(cd "${out}" && pwd)"

if ! command -v doxygen > /dev/null; then
  echo "doxygen.sh: doxygen is not installed (apt-get install doxygen; tools/setup.sh --test)" >&2
  exit 2
fi

version="$(sed -n 's/^project(dede VERSION \([0-9.]*\).*/\1/p' "${root}/CMakeLists.txt")"
rm -f "${out}/warnings.log"
cd "${root}"
status=0
DEDE_DOXYGEN_OUTPUT="${out}" DEDE_DOXYGEN_VERSION="${version}" doxygen docs/Doxyfile || status=$?

# WARN_AS_ERROR = FAIL_ON_WARNINGS already fails the run; the log is checked too, so a
# doxygen that only logs (or a warning written before the option takes effect) still fails.
if [[ -s "${out}/warnings.log" ]]; then
  echo "doxygen.sh: $(wc -l < "${out}/warnings.log") warning line(s):" >&2
  cat "${out}/warnings.log" >&2
  exit 1
fi
if [[ "${status}" -ne 0 ]]; then
  echo "doxygen.sh: doxygen failed (exit ${status})" >&2
  exit "${status}"
fi
if [[ ! -f "${out}/html/index.html" ]]; then
  echo "doxygen.sh: no ${out}/html/index.html was written" >&2
  exit 1
fi
echo "doxygen.sh: API reference in ${out}/html/index.html (no warnings)"

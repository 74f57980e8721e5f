#!/usr/bin/env bash
# Formats every tracked C++ file with the repository's .clang-format (clang-format 14, the
# version Debian 12 ships: another version may format differently).
#   bash tools/format.sh           rewrite the files in place
#   bash tools/format.sh --check   list the files that differ and fail if any does (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
tool=clang-format-14
command -v "$tool" > /dev/null || { echo "format: $tool not found (bash tools/setup.sh)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.cpp' '*.h')
if [ "${1:-}" = "--check" ]; then
  bad=()
  for f in "${files[@]}"; do
    "$tool" --dry-run -Werror "$f" > /dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    printf 'format: %s differs from .clang-format\n' "${bad[@]}" >&2
    echo "format: ${#bad[@]} of ${#files[@]} files differ; run: bash tools/format.sh" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files match .clang-format"
  exit 0
fi
"$tool" -i "${files[@]}"

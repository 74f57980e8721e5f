#!/usr/bin/env bash
# One log: no C++ file under framework/ or plugins/ writes to standard error itself
# (std::cerr, std::clog, fprintf/fputs/fwrite/perror on stderr). The framework and plugins log
# through the process log (framework/include/dede/log.h; framework code: core/logging.h), which
# gives every line a timestamp and a level and obeys --log-level. The files allowed to write
# to stderr are listed in tools/ci/logging_allowlist.txt, each with the number of such lines it
# may hold (its current count: a file that grows fails) and the reason.
#
#   bash tools/ci/check_logging.sh            # the tree
#   bash tools/ci/check_logging.sh --root DIR # another tree (its framework/ and plugins/)
#
# Before the tree, the check runs on a planted file and must find it (a check that cannot fail
# is no check). Exit 0: clean; 1: a violation (each named file:line); 2: usage or a broken list.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
allowlist="$root/tools/ci/logging_allowlist.txt"
if [[ $# -ge 1 ]]; then
  if [[ $1 != --root || $# -ne 2 ]]; then
    echo "usage: check_logging.sh [--root DIR]" >&2
    exit 2
  fi
  root="$(cd "$2" && pwd)"
fi

# Writes to standard error, as C++ spells them (a match inside a // comment does not count).
readonly pattern='std::(cerr|clog)\b|\b(fprintf|fputs|fputc|putc|fwrite|vfprintf)\s*\([^;]*\bstderr\b|\bperror\s*\('

# file:line:text of every write to stderr under $1's framework/ and plugins/.
find_writes() {
  local dir=$1 sub
  for sub in framework plugins; do
    [[ -d $dir/$sub ]] || continue
    # grep: 0 found, 1 none, 2 an error (an unreadable file), which fails the check.
    (
      cd "$dir" || exit 2
      grep -rnP --include='*.h' --include='*.hpp' --include='*.cpp' --include='*.cc' \
        --include='*.c' --include='*.inl' "$pattern" "$sub" || [[ $? -eq 1 ]]
    )
  done | awk -F: '{
    text = $0
    sub(/^[^:]*:[^:]*:/, "", text)
    code = text
    cut = index(code, "//")
    if (cut > 0) code = substr(code, 1, cut - 1)
    if (code ~ /std::(cerr|clog)|stderr|perror/) print
  }'
}

# Reads the allow-list into allowed[file]=count; a malformed line is an error.
declare -A allowed=()
read_allowlist() {
  local line number=0 file count reason
  if [[ ! -f $allowlist ]]; then
    echo "check_logging: $allowlist: missing" >&2
    exit 2
  fi
  while IFS= read -r line || [[ -n $line ]]; do
    number=$((number + 1))
    [[ -z ${line//[[:space:]]/} || $line =~ ^[[:space:]]*# ]] && continue
    read -r file count reason <<<"$line"
    if [[ ! $count =~ ^[1-9][0-9]*$ || -z ${reason:-} ]]; then
      echo "check_logging: $allowlist:$number: expected 'PATH COUNT REASON', got '$line'" >&2
      exit 2
    fi
    allowed[$file]=$count
  done <"$allowlist"
}

# Judges the writes found under $1 against allowed[]; prints what is wrong; returns 1 if any.
judge() {
  local dir=$1 failed=0 file count
  declare -A found=()
  local writes
  writes="$(find_writes "$dir")" || {
    echo "check_logging: could not read every file under $dir" >&2
    return 1
  }
  while IFS= read -r hit; do
    [[ -z $hit ]] && continue
    file=${hit%%:*}
    found[$file]=$((${found[$file]:-0} + 1))
    if [[ -z ${allowed[$file]:-} ]]; then
      echo "check_logging: $hit" >&2
      echo "  writes to stderr: log it instead (dede/log.h, core/logging.h) or list the file" \
        "in tools/ci/logging_allowlist.txt with a reason" >&2
      failed=1
    fi
  done <<<"$writes"
  for file in "${!allowed[@]}"; do
    count=${found[$file]:-0}
    if [[ $count -gt ${allowed[$file]} ]]; then
      echo "check_logging: $file writes to stderr on $count lines; the allow-list allows" \
        "${allowed[$file]}: log the new ones" >&2
      failed=1
    elif [[ $count -lt ${allowed[$file]} ]]; then
      echo "check_logging: $file writes to stderr on $count lines, fewer than the" \
        "${allowed[$file]} the allow-list allows: lower its count (or drop the entry)" >&2
      failed=1
    fi
  done
  return $failed
}

read_allowlist

# The planted file: the check must find it, and only it.
planted="$(mktemp -d)"
trap 'rm -rf "$planted"' EXIT
mkdir -p "$planted/framework/src/x" "$planted/plugins/y"
cat >"$planted/framework/src/x/a.cpp" <<'EOF'
void A() { std::fprintf(stderr, "oops\n"); }  // found
// std::cerr << "in a comment: not found";
EOF
cat >"$planted/plugins/y/b.cpp" <<'EOF'
void B() { std::cerr << "found"; }
void C() { dede::WriteLog(dede::LogLevel::kWarn, "not found"); }
EOF
planted_hits="$(find_writes "$planted" | cut -d: -f1,2 | sort | tr '\n' ' ')"
if [[ $planted_hits != "framework/src/x/a.cpp:1 plugins/y/b.cpp:1 " ]]; then
  echo "check_logging: self-test: expected the two planted writes, found '$planted_hits'" >&2
  exit 2
fi

if judge "$root"; then
  echo "check_logging: no writes to stderr outside the log and the allow-list"
else
  exit 1
fi

#!/usr/bin/env bash
# The settings tables of the plugin READMEs, generated from the tables the plugins declare
# (DomainPlugin::Settings, dede/settings.h) with `dede options --plugin NAME`.
#
# Each plugins/NAME/README.md holds one marked region, replaced by the plugin's reference:
#   <!-- settings:begin (generated: tools/ci/plugin_settings_docs.sh; do not edit) -->
#   | Key | Type | Default | Bounds | Description |
#   ...
#   <!-- settings:end -->
#
# Usage: tools/ci/plugin_settings_docs.sh [--check] [--dede PROGRAM] [--plugins DIR] [--repo DIR]
#   --check     change nothing; fail (exit 1) naming every README whose table is stale or that
#               has no marked region, with the difference
#   --dede      the dede program (default: build/release/tools/dede/dede under the repository)
#   --plugins   the directory of the plugin libraries (default: build/release/plugins)
#   --repo      the tree whose plugins/*/README.md are read (default: this repository)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
check=0
dede=""
plugins=""
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --dede) dede="$2"; shift ;;
    --plugins) plugins="$2"; shift ;;
    --repo) repo="$(cd "$2" && pwd)"; shift ;;
    *) echo "plugin_settings_docs: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dede="${dede:-$here/build/release/tools/dede/dede}"
plugins="${plugins:-$here/build/release/plugins}"
[ -x "$dede" ] || { echo "plugin_settings_docs: no dede program at $dede (build it, or --dede)" >&2; exit 2; }
[ -d "$plugins" ] || { echo "plugin_settings_docs: no plugin directory $plugins (--plugins)" >&2; exit 2; }

work="$(mktemp -d "${TMPDIR:-/tmp}/dede-settings-docs.XXXXXX")"
trap 'rm -rf "$work"' EXIT

stale=0
count=0
for readme in "$repo"/plugins/*/README.md; do
  name="$(basename "$(dirname "$readme")")"
  count=$((count + 1))
  if ! "$dede" options --plugin "$name" --path "$plugins" > "$work/$name.table" 2> "$work/$name.err"; then
    echo "plugin_settings_docs: $name: $(cat "$work/$name.err")" >&2
    exit 2
  fi
  # The README with the region between the markers replaced by the table (markers kept).
  if ! python3 - "$readme" "$work/$name.table" "$work/$name.md" <<'PY'
import sys
readme, table, out = sys.argv[1:4]
lines = open(readme, encoding="utf-8").read().split("\n")
begin = [i for i, l in enumerate(lines) if l.startswith("<!-- settings:begin")]
end = [i for i, l in enumerate(lines) if l.startswith("<!-- settings:end")]
if len(begin) != 1 or len(end) != 1 or end[0] < begin[0]:
    sys.stderr.write(f"{readme}: expected one '<!-- settings:begin ... -->' line and one "
                     f"'<!-- settings:end -->' line after it (found {len(begin)} and {len(end)})\n")
    sys.exit(1)
generated = open(table, encoding="utf-8").read().rstrip("\n").split("\n")
lines[begin[0] + 1:end[0]] = generated
open(out, "w", encoding="utf-8").write("\n".join(lines))
PY
  then
    stale=1
    continue
  fi
  if ! cmp -s "$readme" "$work/$name.md"; then
    if [ "$check" = 1 ]; then
      echo "plugin_settings_docs: $readme: the settings table is stale; run tools/ci/plugin_settings_docs.sh" >&2
      diff -u "$readme" "$work/$name.md" >&2 || true
      stale=1
    else
      cp "$work/$name.md" "$readme"
      echo "updated $readme"
    fi
  fi
done
[ "$count" -gt 0 ] || { echo "plugin_settings_docs: no plugins/*/README.md under $repo" >&2; exit 2; }
if [ "$stale" = 1 ]; then exit 1; fi
[ "$check" = 1 ] && echo "plugin_settings_docs: $count plugin READMEs current"
exit 0

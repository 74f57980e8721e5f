#!/usr/bin/env bash
# tools/ci/plugin_settings_docs.sh: the plugin READMEs' settings tables are what the plugins
# declare (`dede options --plugin NAME`), and --check fails on a stale table or a README without
# the marked region, naming the file; generating repairs a stale copy. Then a run: the defaults
# the host fills are logged and noted in the stored deployment text, and a bad key is refused.
# Usage: plugin_settings_docs_test.sh DEDE PLUGIN_DIR REPO
set -euo pipefail
dede="$1"
plugins="$2"
repo="$3"
script="$repo/tools/ci/plugin_settings_docs.sh"
work="$(mktemp -d "${TMPDIR:-/tmp}/dede-settings-docs-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The repository's READMEs are current.
bash "$script" --check --dede "$dede" --plugins "$plugins" > "$work/ok.out" 2>&1 ||
  { cat "$work/ok.out"; fail "the READMEs' settings tables are stale: run $script"; }

# 2. A copy with one default changed by hand is stale, and says which README.
mkdir -p "$work/copy/plugins"
for readme in "$repo"/plugins/*/README.md; do
  name="$(basename "$(dirname "$readme")")"
  mkdir -p "$work/copy/plugins/$name"
  cp "$readme" "$work/copy/plugins/$name/README.md"
done
transport="$work/copy/plugins/transport/README.md"
grep -q '^| `resources` | int | `50` |' "$transport" || fail "transport's table has no resources row"
sed -i 's/^| `resources` | int | `50` |/| `resources` | int | `60` |/' "$transport"
if bash "$script" --check --dede "$dede" --plugins "$plugins" --repo "$work/copy" > "$work/stale.out" 2>&1; then
  fail "--check passed on a stale table"
fi
grep -q "plugins/transport/README.md: the settings table is stale" "$work/stale.out" ||
  { cat "$work/stale.out"; fail "--check did not name the stale README"; }
grep -q '^-| `resources` | int | `60` |' "$work/stale.out" || { cat "$work/stale.out"; fail "no difference shown"; }

# 3. Generating repairs it; the check then passes.
bash "$script" --dede "$dede" --plugins "$plugins" --repo "$work/copy" > "$work/gen.out" 2>&1 ||
  { cat "$work/gen.out"; fail "generation failed"; }
grep -q '^| `resources` | int | `50` |' "$transport" || fail "generation did not restore the row"
bash "$script" --check --dede "$dede" --plugins "$plugins" --repo "$work/copy" > /dev/null 2>&1 ||
  fail "--check failed after generation"

# 4. A README without the marked region fails, naming it.
sed -i '/<!-- settings:end -->/d' "$work/copy/plugins/load_balancing/README.md"
if bash "$script" --check --dede "$dede" --plugins "$plugins" --repo "$work/copy" > "$work/nomark.out" 2>&1; then
  fail "--check passed on a README without its end marker"
fi
grep -q "load_balancing/README.md: expected one '<!-- settings:begin ... -->' line" "$work/nomark.out" ||
  { cat "$work/nomark.out"; fail "the README without markers was not named"; }
# 5. A run logs the defaults it filled and stores them with the deployment's text.
cat > "$work/run.yaml" <<YAML
deployment: {name: settings-defaults}
plugin:
  name: transport
  paths: [$plugins]
  settings: {resources: 5, demands: 20, entries_per_demand: 3}
schedule: {interval_seconds: 1, simulated_time: true}
storage: {database: run.db}
stop: {max_rounds: 1}
YAML
"$dede" run "$work/run.yaml" > "$work/run.out" 2>&1 || { cat "$work/run.out"; fail "dede run"; }
grep -q "plugin transport settings defaulted: capacity_factor: 0.6, fluctuation: 0.2, period: 24, rounds: 0, entry_order: demand" "$work/run.out" ||
  { cat "$work/run.out"; fail "the defaults were not logged"; }
"$dede" query "$work/run.db" "SELECT config_yaml FROM deployments" > "$work/stored.out"
grep -q "# Defaulted by plugin 'transport' (its settings table): capacity_factor: 0.6" "$work/stored.out" ||
  { cat "$work/stored.out"; fail "the defaults were not noted in the stored deployment"; }
# 6. A key the table does not declare is refused before the plugin runs, naming file and key.
if "$dede" validate "$work/run.yaml" --set plugin.settings.colour=red > "$work/bad.out" 2>&1; then
  fail "an undeclared key was accepted"
fi
grep -q "unknown key 'colour' in plugin.settings; allowed: resources, demands" "$work/bad.out" ||
  { cat "$work/bad.out"; fail "the undeclared key was not named"; }
echo "plugin settings docs: ok"

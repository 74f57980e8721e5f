#!/usr/bin/env bash
# CI check of the plugin SDK as a third party uses it:
#   1. builds dede_core (and the loader test) in a framework build tree,
#   2. `cmake --install`s the SDK into a temporary prefix,
#   3. configures and builds examples/out_of_tree_plugin against that prefix only
#      (find_package(dede 0.1) via CMAKE_PREFIX_PATH, warnings are errors),
#   4. checks the .so: it exports exactly the entry point, needs libdede_core.so.0,
#   5. loads it with the framework's real loader (PluginRegistry: descriptor handshake, create,
#      Configure, Describe, Refresh, Report, destroy, unload), via plugin_loader_test's
#      ExternalPlugin test,
#   6. optionally lists it with the CLI: set DEDE_CLI_PLUGINS to a command prefix that takes a
#      plugin directory, e.g. DEDE_CLI_PLUGINS="build/tools/dede/dede plugins --path".
#
# Usage: tools/ci/out_of_tree_plugin.sh [framework-build-dir]
#   The build directory defaults to $DEDE_BUILD_DIR, else build-oot-sdk in the repository; it is
#   configured (Release, Ninja) if it has no CMakeCache.txt yet, otherwise reused as it is.
#   DEDE_JOBS sets the build parallelism (default 2). Exits non-zero on any failure.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-${DEDE_BUILD_DIR:-$repo/build-oot-sdk}}"
jobs="${DEDE_JOBS:-2}"
work="$(mktemp -d "${TMPDIR:-/tmp}/dede-oot.XXXXXX")"
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
example_build="$work/example"

step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'out_of_tree_plugin: FAILED: %s\n' "$*" >&2; exit 1; }

generator=()
if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi

step "framework build: $build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DDEDE_BUILD_TESTS=ON -DDEDE_BUILD_BENCHMARKS=OFF
fi
cmake --build "$build" -j "$jobs" --target dede_core plugin_loader_test

step "install the SDK into $prefix"
# Only the `sdk` component: the rest of the tree need not be built for this check.
cmake --install "$build" --prefix "$prefix" --component sdk
for f in include/dede/plugin.h include/dede/problem.h include/dede/status.h \
         include/dede/config_node.h include/dede/csv.h lib/cmake/dede/dedeConfig.cmake \
         lib/cmake/dede/dedeConfigVersion.cmake lib/cmake/dede/dedeTargets.cmake \
         lib/cmake/dede/DedePlugin.cmake; do
  [ -f "$prefix/$f" ] || fail "the install lacks $f"
done
ls "$prefix"/lib/libdede_core.so* >/dev/null 2>&1 || fail "the install lacks lib/libdede_core.so"
# The SDK exposes only what it links: the host's solvers (dede_admm, dede_exact) stay out.
[ ! -e "$prefix/include/dede/host_solvers.h" ] || fail "the install has include/dede/host_solvers.h"

step "configure and build examples/out_of_tree_plugin against the installed SDK"
# The host's compiler: the loader rejects a plugin built with another toolchain.
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
cmake -S "$repo/examples/out_of_tree_plugin" -B "$example_build" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
      ${cxx:+-DCMAKE_CXX_COMPILER="$cxx"} \
      -DCMAKE_CXX_FLAGS="-Wall -Wextra -Wpedantic -Werror"
grep -q "^dede_DIR:PATH=$prefix/lib/cmake/dede\$" "$example_build/CMakeCache.txt" ||
  fail "find_package(dede) did not use the installed package in $prefix"
cmake --build "$example_build" -j "$jobs"
plugin="$example_build/plugins/example_capacity.so"
[ -f "$plugin" ] || fail "$plugin was not built"

step "exported symbols and dependencies of $plugin"
nm -D --defined-only "$plugin"
# dede_add_plugin's version script hides everything else, standard-library instantiations too.
exported="$(nm -D --defined-only "$plugin" | awk '{print $NF}' | sort)"
[ "$exported" = "dede_plugin_descriptor_v1" ] ||
  fail "expected exactly one exported symbol, dede_plugin_descriptor_v1, got: $exported"
readelf -d "$plugin" | grep -q 'NEEDED.*\[libdede_core\.so\.0\]' ||
  fail "the plugin does not link libdede_core.so.0"

step "load it with the framework's loader"
loader_test="$build/tests/framework/plugin/plugin_loader_test"
output="$(DEDE_EXTERNAL_PLUGIN="$plugin" DEDE_EXTERNAL_PLUGIN_NAME=example_capacity \
          "$loader_test" --gtest_filter='ExternalPlugin.*' 2>&1)" || { echo "$output"; fail "loader"; }
echo "$output"
grep -q '^\[       OK \] ExternalPlugin\.' <<<"$output" || fail "the ExternalPlugin test did not run"

if [ -n "${DEDE_CLI_PLUGINS:-}" ]; then
  step "list it with: $DEDE_CLI_PLUGINS $(dirname "$plugin")"
  listing="$($DEDE_CLI_PLUGINS "$(dirname "$plugin")")" || { echo "$listing"; fail "CLI"; }
  echo "$listing"
  grep -q 'example_capacity' <<<"$listing" || fail "the CLI does not list example_capacity"
fi

printf '\nout_of_tree_plugin: OK\n'

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the extension for one kernel release and copies it, stamped for that
# release, to $PERF_PYTHON_OUT/<release>/perf.abi3.so with its manifest
# (perf-python.toml, written by perf-abi). Usage: build.sh RELEASE
#
#   PERF_PYTHON_OUT   where the builds go (default build/releases)
#   CARGO_TARGET_DIR  cargo's target directory (default target)
#   PERF_BUILD_PROFILE  release (default) or dev (scripts/profile.sh)
#   PERF_PMU_EVENTS_SOURCE  the kernel source of perf's pmu-events tables
#                     (default: `perf-abi pmu-events-source RELEASE`; `none`)
#
# Builds for different releases relink the same target/release/libperf.so, so
# the build and the copy hold a lock on the target directory, and the copy is
# checked to carry the stamp of the release asked for.
set -euo pipefail
release=${1:?usage: build.sh RELEASE}
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
out="${PERF_PYTHON_OUT:-build/releases}/$release"
export CARGO_TARGET_DIR="$target"
. scripts/profile.sh
export PYO3_BUILD_EXTENSION_MODULE=1
export PERF_PYTHON_TARGET_RELEASE="$release"
mkdir -p "$target" "$out"
version=$(cargo metadata --no-deps --format-version 1 2>/dev/null \
    | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="perf-py"))')
(
    flock 9
    # A fresh target directory of its own (CARGO_TARGET_DIR) starts as a
    # copy of target/release, same profile: cargo then reuses every
    # dependency and rebuilds only what the release stamp changes (5 s of CPU
    # instead of a minute; the copy is taken under target's build lock).
    if [ "$build_profile" = release ] && [ ! -e "$target/release" ] && [ -d target/release ] \
        && [ "$(realpath "$target")" != "$(realpath target)" ]; then
        rm -rf "$target/release.tmp"
        (flock 8; cp -a target/release "$target/release.tmp") 8> target/.perf-python-build.lock
        mv "$target/release.tmp" "$target/release"
    fi
    # The tables' source is named for the build (perf-core's build script
    # reruns when it changes, not for every release of a series).
    cargo build --profile "$build_profile" --quiet -p perf-abi
    PERF_PMU_EVENTS_SOURCE=${PERF_PMU_EVENTS_SOURCE:-$("$profile_dir/perf-abi" pmu-events-source "$release")}
    export PERF_PMU_EVENTS_SOURCE
    cargo build --profile "$build_profile" --quiet -p perf-py -p perf-abi
    cp "$profile_dir/libperf.so" "$out/perf.abi3.so.tmp"
    "$profile_dir/perf-abi" manifest "$release" "$version" > "$out/perf-python.toml.tmp"
) 9> "$target/.perf-python-build.lock"
stamped=$(python3 - "$out/perf.abi3.so.tmp" <<'EOF'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.ExtensionFileLoader("perf", sys.argv[1])
spec = importlib.util.spec_from_file_location("perf", sys.argv[1], loader=loader)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(module.__build__["kernel_release"])
EOF
)
if [ "$stamped" != "$(printf '%s' "$release" | sed 's/^[[:space:]]*//;s/[[:space:]]*$//')" ]; then
    echo "build.sh: $out/perf.abi3.so.tmp is stamped for '$stamped', not '$release'" >&2
    exit 1
fi
mv -f "$out/perf.abi3.so.tmp" "$out/perf.abi3.so"
mv -f "$out/perf-python.toml.tmp" "$out/perf-python.toml"

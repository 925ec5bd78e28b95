#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the extension for one kernel release and copies it to
# build/<release>/perf.abi3.so with its manifest. Usage: build.sh RELEASE
set -euo pipefail
release=${1:?usage: build.sh RELEASE}
cd "$(dirname "$0")/.."
export PYO3_BUILD_EXTENSION_MODULE=1
export PERF_PYTHON_TARGET_RELEASE="$release"
cargo build --release --quiet -p perf-py -p perf-abi
out="build/releases/$release"
mkdir -p "$out"
cp target/release/libperf.so "$out/perf.abi3.so"
version=$(cargo metadata --no-deps --format-version 1 2>/dev/null \
    | python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"]=="perf-py"))')
target/release/perf-abi manifest "$release" "$version" > "$out/perf-python.toml"

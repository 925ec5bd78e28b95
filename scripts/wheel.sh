#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the wheel pyproject.toml describes (one abi3 wheel for every kernel
# and every CPython >= 3.10) with the pinned maturin, checks it with
# auditwheel, and prints its path. Usage: wheel.sh [OUT] (default build/wheel/dist)
#
# `pip wheel .` builds the same wheel tagged linux_x86_64 (maturin's PEP 517
# backend leaves the manylinux check to the user); this names it manylinux,
# after maturin has checked the glibc symbol versions it uses.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/wheel/dist}
PY=${PYTHON:-python3}
rm -rf "$out"
mkdir -p "$out"
"$PY" -m maturin build --release --quiet --out "$out" >&2
wheels=("$out"/*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "wheel.sh: expected one wheel in $out" >&2; exit 1; }
"$PY" -m auditwheel show "${wheels[0]}" >&2
echo "${wheels[0]}"

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs a built release and the loader in the distro layout:
#   $DESTDIR/usr/lib/linux-tools-<abi>/lib/perf.abi3.so (+ perf-python.toml)
#   $DESTDIR/usr/lib/linux-tools/<release>/lib/perf.abi3.so -> relative link
#   $DESTDIR/usr/lib/python3/dist-packages/perf/ (the loader)
#   $DESTDIR/usr/bin/perf-python-info
# Usage: install.sh DESTDIR RELEASE [--no-loader|--only-loader|--links-only]
#   --links-only  only the flavour links of RELEASE, to the ABI directory
#                 another flavour of the same ABI installed
# The build is read from $PERF_PYTHON_OUT/<release> (default build/releases),
# the ABI from perf-abi (under $CARGO_TARGET_DIR, default target/, in the
# directory of $PERF_BUILD_PROFILE: scripts/profile.sh).
set -euo pipefail
destdir=${1:?usage: install.sh DESTDIR RELEASE [--no-loader|--only-loader|--links-only]}
release=${2:?usage: install.sh DESTDIR RELEASE [--no-loader|--only-loader|--links-only]}
mode=${3:-}
cd "$(dirname "$0")/.."
. scripts/profile.sh
perf_abi="$profile_dir/perf-abi"

if [ "$mode" != "--only-loader" ]; then
    abi=$("$perf_abi" abi "$release")
    abidir="$destdir/usr/lib/linux-tools-$abi/lib"
    flavourdir="$destdir/usr/lib/linux-tools/$release/lib"
    if [ "$mode" != "--links-only" ]; then
        built="${PERF_PYTHON_OUT:-build/releases}/$release"
        [ -f "$built/perf.abi3.so" ] || { echo "install: $built/perf.abi3.so is not built (make build KERNEL_RELEASE=$release)" >&2; exit 1; }
        install -d "$abidir"
        install -m 0644 "$built/perf.abi3.so" "$abidir/perf.abi3.so"
        install -m 0644 "$built/perf-python.toml" "$abidir/perf-python.toml"
    fi
    [ -f "$abidir/perf.abi3.so" ] || { echo "install: $abidir/perf.abi3.so is not installed" >&2; exit 1; }
    # The flavour directory of a release that is its own ABI is not the ABI
    # directory (linux-tools/<release> vs linux-tools-<release>), so the links
    # are always made.
    install -d "$flavourdir"
    ln -sfn "../../../linux-tools-$abi/lib/perf.abi3.so" "$flavourdir/perf.abi3.so"
    ln -sfn "../../../linux-tools-$abi/lib/perf-python.toml" "$flavourdir/perf-python.toml"
fi
if [ "$mode" != "--no-loader" ] && [ "$mode" != "--links-only" ]; then
    pkg="$destdir/usr/lib/python3/dist-packages/perf"
    install -d "$pkg"
    install -m 0644 loader/perf/*.py "$pkg/"
    # Type stubs (__init__.pyi links to crates/perf-py/perf.pyi) and the PEP 561 marker.
    install -m 0644 loader/perf/*.pyi loader/perf/py.typed "$pkg/"
    install -d "$destdir/usr/bin"
    install -m 0755 loader/bin/perf-python-info "$destdir/usr/bin/perf-python-info"
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs a built release and the loader in the distro layout:
#   $DESTDIR/usr/lib/linux-tools-<abi>/lib/perf.abi3.so (+ perf-python.toml)
#   $DESTDIR/usr/lib/linux-tools/<release>/lib/perf.abi3.so -> relative link
#   $DESTDIR/usr/lib/python3/dist-packages/perf/ (the loader)
# Usage: install.sh DESTDIR RELEASE [--no-loader|--only-loader]
set -euo pipefail
destdir=${1:?usage: install.sh DESTDIR RELEASE}
release=${2:?usage: install.sh DESTDIR RELEASE}
mode=${3:-}
cd "$(dirname "$0")/.."

if [ "$mode" != "--only-loader" ]; then
    built="build/releases/$release"
    [ -f "$built/perf.abi3.so" ] || { echo "install: $built/perf.abi3.so is not built (make build KERNEL_RELEASE=$release)" >&2; exit 1; }
    abi=$(target/release/perf-abi abi "$release")
    abidir="$destdir/usr/lib/linux-tools-$abi/lib"
    flavourdir="$destdir/usr/lib/linux-tools/$release/lib"
    install -d "$abidir" "$flavourdir"
    install -m 0644 "$built/perf.abi3.so" "$abidir/perf.abi3.so"
    install -m 0644 "$built/perf-python.toml" "$abidir/perf-python.toml"
    ln -sfn "../../../linux-tools-$abi/lib/perf.abi3.so" "$flavourdir/perf.abi3.so"
    ln -sfn "../../../linux-tools-$abi/lib/perf-python.toml" "$flavourdir/perf-python.toml"
fi
if [ "$mode" != "--no-loader" ]; then
    pkg="$destdir/usr/lib/python3/dist-packages/perf"
    install -d "$pkg"
    install -m 0644 loader/perf/*.py "$pkg/"
    install -d "$destdir/usr/bin"
    install -m 0755 loader/bin/perf-python-info "$destdir/usr/bin/perf-python-info"
fi

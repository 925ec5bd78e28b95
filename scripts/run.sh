#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make run`: build the extension for the running kernel, install it and the
# loader into a staging root in the distro layout, and run the smoke test
# through the loader with the pyenv python3 and with Debian's /usr/bin/python3.
set -euo pipefail
cd "$(dirname "$0")/.."
release=${KERNEL_RELEASE:-$(uname -r)}
stage=${STAGE:-$PWD/build/stage}

echo "== building the perf extension for kernel $release"
scripts/build.sh "$release"
rm -rf "$stage"
scripts/install.sh "$stage" "$release"
abi=$(target/release/perf-abi abi "$release")
echo "== installed into the staging root $stage:"
(cd "$stage" && find . \( -type f -o -type l \) | sort | sed 's/^\./   /')
echo "   (build manifest $stage/usr/lib/linux-tools-$abi/lib/perf-python.toml:)"
grep -v "^features" "$stage/usr/lib/linux-tools-$abi/lib/perf-python.toml" | sed "s/^/      /"
echo "      features = [$(grep -o "\"[A-Za-z0-9_]*\"" <(grep "^features" "$stage/usr/lib/linux-tools-$abi/lib/perf-python.toml") | wc -l) attr fields and bits]"

export PERF_PYTHON_SYSROOT="$stage"
export PERF_PYTHON_KERNEL_RELEASE="$release"
export PYTHONPATH="$stage/usr/lib/python3/dist-packages"
echo "== online CPUs per /sys/devices/system/cpu/online: $(cat /sys/devices/system/cpu/online)"
for py in python3 /usr/bin/python3; do
    echo "== $py ($($py -c 'import sys; print(sys.version.split()[0])')): python3 -c 'import perf; [print(c) for c in perf.cpu_map()]'"
    $py -c 'import perf; [print(c) for c in perf.cpu_map()]'
    $py -c 'import perf; print("   import perf loaded", perf.__file__, "(" + perf.__loaded_by__["reason"] + "), built for", perf.__build__["kernel_release"], "ABI", perf.__build__["abi"])'
done
echo "== perf-python-info (what the loader sees):"
/usr/bin/python3 "$stage/usr/bin/perf-python-info" | sed 's/^/   /'

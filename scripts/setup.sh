#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs what the build and the tests need, idempotently and quietly:
# Debian packages (the kernel's C module as the test oracle, the system python3,
# packaging tools, QEMU for the real-kernel tests), Python test tools, the
# tracefs mount, and the Debian kernel images tests/kernels boots
# (scripts/kernels.sh, cached outside the checkout).
set -euo pipefail

say() { printf 'setup: %s\n' "$*"; }

# The real-kernel tests boot Debian's kernels under QEMU (qemu-system-x86,
# busybox-static, kmod). The symbol tests build workloads (gcc, g++), compare source lines with binutils'
# addr2line, demangled names with libiberty's cplus_demangle (the demangler perf
# links), and read libc's symbols from its debug file, as perf does. The
# build takes perf's pmu-events tables from the kernel sources
# (docs/pmu-events.md): 6.1's for 6.1 targets, which the tests compare with
# perf 6.1, and 6.12's, the newest, for the others.
apt_pkgs=(linux-perf python3 python3-dev debhelper dh-python dpkg-dev lintian fakeroot strace valgrind
          qemu-system-x86 busybox-static kmod gcc g++ binutils libiberty-dev libc6-dbg xz-utils
          linux-source-6.1 linux-source-6.12)
missing=()
for p in "${apt_pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
    say "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
# module to import: package to install (virtme-ng boots the kernels of tests/kernels).
pip_pkgs=(pytest:pytest hypothesis:hypothesis mypy:mypy virtme_ng:virtme-ng)
need_pip=()
for p in "${pip_pkgs[@]}"; do
    "$PY" -c "import ${p%%:*}" 2>/dev/null || need_pip+=("${p#*:}")
done
if ((${#need_pip[@]})); then
    say "installing Python packages for $PY: ${need_pip[*]}"
    "$PY" -m pip install -q --disable-pip-version-check "${need_pip[@]}"
fi

# Arrow consumers of perf.sample_columns (tests/perfdata/test_arrow.py and
# the Arrow benchmark): optional, binary wheels only (no source build where
# this Python has none); the tests skip without them.
arrow_pkgs=(pyarrow:pyarrow polars:polars duckdb:duckdb)
need_arrow=()
for p in "${arrow_pkgs[@]}"; do
    "$PY" -c "import ${p%%:*}" 2>/dev/null || need_arrow+=("${p#*:}")
done
if ((${#need_arrow[@]})); then
    say "installing Python packages for $PY (optional): ${need_arrow[*]}"
    "$PY" -m pip install -q --disable-pip-version-check --only-binary=:all: "${need_arrow[@]}" \
        || say "warning: no wheel of ${need_arrow[*]} for $PY: the Arrow consumer tests skip"
fi

# The wheel (make test-wheel, docs/packaging.md): maturin at the version
# pyproject.toml pins for its build backend, and auditwheel to check the result.
maturin_pin=$(sed -n 's/^requires = \["maturin==\([^"]*\)"\]/\1/p' "$(dirname "$0")/../pyproject.toml")
if [ "$("$PY" -m maturin --version 2>/dev/null)" != "maturin $maturin_pin" ]; then
    say "installing maturin $maturin_pin for $PY"
    "$PY" -m pip install -q --disable-pip-version-check "maturin==$maturin_pin"
fi
"$PY" -c "import auditwheel" 2>/dev/null || {
    say "installing auditwheel for $PY"
    "$PY" -m pip install -q --disable-pip-version-check auditwheel
}

# tracefs: tracepoint ids and formats live there.
if [ ! -e /sys/kernel/tracing/events ]; then
    mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null \
        || say "warning: could not mount tracefs at /sys/kernel/tracing"
fi

# The real kernels tests/kernels boots (about 70 MB each to download, once).
"$(dirname "$0")/kernels.sh" || say "warning: could not fetch the kernel images (tests/kernels will skip)"

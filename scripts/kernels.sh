#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fetches Debian kernel images for the tests that boot real kernels
# (tests/kernels, docs/kernels.md) and unpacks them into a cache that
# outlives the checkout; idempotent and quiet.
#
# Usage: kernels.sh [--path] [RELEASE...]
#   RELEASE...  default: the releases in tests/kernels/kernels.txt
#   --path      print each release's directory in the cache (fetch nothing)
#
#   PERF_PYTHON_KERNEL_CACHE  the cache (default /var/cache/perf-python/kernels
#                             as root, else ~/.cache/perf-python/kernels)
#
# <cache>/<release>/ holds the package's files as `dpkg-deb -x` unpacks them,
# boot/vmlinuz-<release> and lib/modules/<release> with modules.dep (depmod
# runs here, so that virtme-ng finds the modules there and never writes to
# /usr/lib/modules); <cache>/<release>/.complete marks a finished unpack.
# Fetching a release takes about 70 MB of download and 400 MB of disk.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then
    default_cache=/var/cache/perf-python/kernels
else
    default_cache=${XDG_CACHE_HOME:-$HOME/.cache}/perf-python/kernels
fi
cache=${PERF_PYTHON_KERNEL_CACHE:-$default_cache}
path_only=0
if [ "${1:-}" = "--path" ]; then
    path_only=1
    shift
fi
if [ $# -gt 0 ]; then
    releases=("$@")
else
    mapfile -t releases < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' tests/kernels/kernels.txt | grep .)
fi
if [ $path_only = 1 ]; then
    for r in "${releases[@]}"; do printf '%s\n' "$cache/$r"; done
    exit 0
fi

mkdir -p "$cache"
exec 9> "$cache/.lock"
flock 9
for r in "${releases[@]}"; do
    case "$r" in
        "" | . | .. | */* | *[[:space:]]*)
            echo "kernels: '$r' is not a usable kernel release" >&2
            exit 2 ;;
    esac
    dir=$cache/$r
    [ -e "$dir/.complete" ] && continue
    pkg=linux-image-$r-unsigned
    work=$(mktemp -d "$cache/.fetch-XXXXXX")
    # The _apt user cannot write into a root-only directory; downloading as
    # root is what apt would fall back to anyway, without the warning.
    download() { (cd "$work" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null 2>"$work/apt.err"); }
    if ! download && ! { apt-get update -qq >/dev/null 2>&1; download; }; then
        echo "kernels: apt-get download $pkg failed: $(tail -n 3 "$work/apt.err")" >&2
        rm -rf "$work"
        exit 1
    fi
    mkdir "$work/root"
    dpkg-deb -x "$work"/"$pkg"_*.deb "$work/root"
    if [ ! -f "$work/root/boot/vmlinuz-$r" ] || [ ! -d "$work/root/lib/modules/$r" ]; then
        echo "kernels: $pkg has no boot/vmlinuz-$r or lib/modules/$r" >&2
        rm -rf "$work"
        exit 1
    fi
    depmod -b "$work/root" "$r"
    : > "$work/root/.complete"
    rm -rf "$dir"
    mv "$work/root" "$dir"
    rm -rf "$work"
    echo "kernels: $r unpacked in $dir"
done

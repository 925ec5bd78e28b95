#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Builds the extension for a list of kernel releases and installs the builds
# side by side in the distro layout (scripts/install.sh), one per ABI, with
# the flavour links of every release of that ABI, plus the loader.
#
# Usage: build-all.sh [--list] [RELEASE...]
#   RELEASE...  default: the running release and every release with headers
#               in /usr/src/linux-headers-* or modules in /lib/modules/*
#   --list      print the releases (one per line, with their ABI) and stop
#
#   DESTDIR              where to install (default build/stage)
#   PERF_PYTHON_SYSROOT  the root /usr/src and /lib/modules are read under
#                        (default /)
# A headers directory names a release if it holds include/config/kernel.release
# (its content is the release) or .config; Debian's and Ubuntu's -common
# headers (linux-headers-6.1.0-18-common, linux-headers-6.8.0-31) hold neither.
set -euo pipefail
cd "$(dirname "$0")/.."
list=0
if [ "${1:-}" = "--list" ]; then
    list=1
    shift
fi
destdir=${DESTDIR:-build/stage}
sysroot=${PERF_PYTHON_SYSROOT:-/}
. scripts/profile.sh
perf_abi="$profile_dir/perf-abi"

discover() {
    uname -r
    local d
    for d in "$sysroot"/usr/src/linux-headers-*/; do
        [ -d "$d" ] || continue
        if [ -f "$d/include/config/kernel.release" ]; then
            head -n1 "$d/include/config/kernel.release"
        elif [ -f "$d/.config" ]; then
            basename "$d" | sed 's/^linux-headers-//'
        fi
    done
    for d in "$sysroot"/lib/modules/*/; do
        [ -d "$d" ] && basename "$d"
    done
}

if [ $# -gt 0 ]; then
    releases=("$@")
else
    mapfile -t releases < <(discover | awk 'NF && !seen[$0]++')
fi

if [ ! -x "$perf_abi" ]; then
    cargo build --profile "$build_profile" --quiet -p perf-abi
fi

for r in "${releases[@]}"; do
    case "$r" in
        "" | . | .. | */* | *[[:space:]]*)
            echo "build-all: '$r' is not a usable kernel release" >&2
            exit 2 ;;
    esac
done

declare -A first_of_abi=()
abis=()
for r in "${releases[@]}"; do
    abi=$("$perf_abi" abi "$r")
    if [ $list = 1 ]; then
        printf '%s\t%s\n' "$r" "$abi"
        continue
    fi
    if [ -z "${first_of_abi[$abi]+set}" ]; then
        first_of_abi[$abi]=$r
        abis+=("$abi")
        echo "== building for $r (ABI $abi)"
        scripts/build.sh "$r"
        scripts/install.sh "$destdir" "$r" --no-loader
    else
        echo "== $r: ABI $abi is built already (for ${first_of_abi[$abi]}); adding its flavour links"
        scripts/install.sh "$destdir" "$r" --links-only
    fi
done
[ $list = 1 ] && exit 0
scripts/install.sh "$destdir" "${releases[0]}" --only-loader
echo "== installed under $destdir:"
for abi in "${abis[@]}"; do
    echo "   usr/lib/linux-tools-$abi/lib/perf.abi3.so (built for ${first_of_abi[$abi]})"
done
for r in "${releases[@]}"; do
    echo "   usr/lib/linux-tools/$r/lib/perf.abi3.so -> linux-tools-$("$perf_abi" abi "$r")"
done

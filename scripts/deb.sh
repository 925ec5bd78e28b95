#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make deb`: builds the Debian packages (debian/) for a list of kernel
# releases and checks them with lintian. The .debs land in build/deb/.
#
#   PERF_PYTHON_RELEASES  releases to build for (default: the running one)
#   CARGO_TARGET_DIR      cargo target directory (default build/cargo-deb;
#                         a fresh one starts as a copy of target/release,
#                         the same profile, so cargo rebuilds only what the
#                         package build's environment changes)
#   DEB_SOURCE            head (default): the committed tree (git archive
#                         HEAD), so that work in progress in the checkout
#                         does not end up in, or break, the packages;
#                         worktree: the checkout as it is (tracked and
#                         untracked files git does not ignore)
#
#   PERF_PYTHON_DEB_OUT   output directory (default build/deb); runs for one
#                         directory wait for each other (flock on <dir>.lock)
#
# The source is copied to <output>/src, so that dpkg-buildpackage's clean
# and generated files never touch the checkout; dpkg-buildpackage writes the
# packages to the copy's parent directory, build/deb/.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=${PERF_PYTHON_DEB_OUT:-$top/build/deb}
case "$out" in /*) ;; *) out=$top/$out ;; esac
src=$out/src
mkdir -p "$(dirname "$out")"
exec 9> "$out.lock"
flock 9
export PERF_PYTHON_RELEASES=${PERF_PYTHON_RELEASES:-$(uname -r)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$top/build/cargo-deb}
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR=$top/$CARGO_TARGET_DIR ;; esac
if [ ! -e "$CARGO_TARGET_DIR/release" ] && [ -d target/release ] \
    && [ "$(realpath -m "$CARGO_TARGET_DIR")" != "$(realpath target)" ]; then
    mkdir -p "$CARGO_TARGET_DIR"
    rm -rf "$CARGO_TARGET_DIR/release.tmp"
    # Under target's build lock (scripts/build.sh), so the copy is whole.
    (flock 8; cp -a target/release "$CARGO_TARGET_DIR/release.tmp") 8> target/.perf-python-build.lock
    mv "$CARGO_TARGET_DIR/release.tmp" "$CARGO_TARGET_DIR/release"
fi

# Build dependencies (the root of a dev machine installs what is missing).
if ! missing=$(dpkg-checkbuilddeps debian/control.in 2>&1); then
    pkgs=$(printf '%s\n' "$missing" | sed -n 's/.*Unmet build dependencies: //p' | sed 's/([^)]*)//g')
    if [ "$(id -u)" = 0 ] && [ -n "$pkgs" ]; then
        echo "deb: installing build dependencies: $pkgs"
        # shellcheck disable=SC2086
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
    else
        echo "deb: $missing" >&2
        exit 1
    fi
fi

rm -rf "$out"
mkdir -p "$src"
case "${DEB_SOURCE:-head}" in
    head)
        git -c tar.umask=0022 archive --format=tar HEAD | tar -x -C "$src"
        echo "deb: building from $(git rev-parse --short HEAD) (DEB_SOURCE=worktree for the checkout)" ;;
    worktree)
        # git ls-files lists deleted-but-tracked files too; cp skips them.
        git ls-files -z --cached --others --exclude-standard \
            | grep -zv -e '^build/' -e '^target/' \
            | xargs -0 cp --parents -d -t "$src" 2>/dev/null || true ;;
    *)
        echo "deb: DEB_SOURCE is head or worktree, not '$DEB_SOURCE'" >&2
        exit 2 ;;
esac
cd "$src"
debian/gen-control
dpkg-buildpackage -us -uc -b
cd "$out"
echo "== built in $out:"
ls -1 ./*.deb
echo "== lintian"
lintian --info --display-info ./*.changes

# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the build scripts: the cargo profile of the builds
# (PERF_BUILD_PROFILE: release, the default, or dev, which the tests' builds
# for other kernel releases use: tests/stamped_builds.py) and the directory
# under the target directory that holds them, which cargo names "debug" for
# dev.
build_profile=${PERF_BUILD_PROFILE:-release}
case "$build_profile" in
    release) profile_dir="${CARGO_TARGET_DIR:-target}/release" ;;
    dev) profile_dir="${CARGO_TARGET_DIR:-target}/debug" ;;
    *) echo "PERF_BUILD_PROFILE: '$build_profile' is not release or dev" >&2; exit 2 ;;
esac

# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the build scripts: the cargo profile of the builds
# (PERF_BUILD_PROFILE: release, the default, or stamp, Cargo.toml) and the
# directory under the target directory that holds them, which cargo names
# after the profile.
build_profile=${PERF_BUILD_PROFILE:-release}
case "$build_profile" in
    release | stamp) ;;
    *) echo "PERF_BUILD_PROFILE: '$build_profile' is not release or stamp" >&2; exit 2 ;;
esac
profile_dir="${CARGO_TARGET_DIR:-target}/$build_profile"

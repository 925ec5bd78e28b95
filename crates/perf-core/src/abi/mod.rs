// SPDX-License-Identifier: GPL-2.0-only
//! ABI honesty: learn the running kernel's `perf_event_attr` ABI, fall back
//! silently only for bits the module set by default, and turn every other
//! EINVAL/E2BIG (and EACCES/EPERM, and ENOENT for hardware events) into an
//! error that names its cause. docs/abi.md has the policy; the feature table
//! (`perf_abi::FeatureTable`, `crates/perf-abi/data/features.toml`) is the
//! single source of the facts.
//!
//! | file            | concept                                                   |
//! |-----------------|-----------------------------------------------------------|
//! | `syscall`       | the seam: [`PerfSyscall`], [`RealKernel`], [`OpenArgs`]   |
//! | `kernel_abi`    | [`KernelAbi`], [`AttrBits`], [`BuildTarget`]              |
//! | `probe`         | the E2BIG size probe and the per-feature probes           |
//! | `emulator`      | `EmulatedKernel`: perf_copy_attr by release (tests only)  |
//! | `explain`       | [`Lack`]: what a kernel lacks, and its sentence           |
//! | `rules`         | EINVAL from consistency rules; EOVERFLOW                  |
//! | `breakpoint`    | EINVAL from a breakpoint's bp_type, bp_len, bp_addr       |
//! | `refused`       | the field a kernel refused, found by probing              |
//! | `permission`    | EACCES/EPERM and ENOENT hints                             |
//! | `environment`   | the files those hints read ([`Environment`])              |
//! | `missing`       | perf's fallback order; the PMU's exclude_guest fallback   |
//! | `replacing`     | perf's fallbacks that replace a value (clock, precise_ip) |
//! | `fallback`      | [`open_with_fallback`], [`Policy`], [`Opened`]            |

mod breakpoint;
#[cfg(test)]
mod emulator;
mod environment;
mod explain;
mod fallback;
mod image;
mod kernel_abi;
mod missing;
mod permission;
mod probe;
mod refused;
mod replacing;
mod rules;
mod syscall;

#[cfg(test)]
mod tests_emulated;
#[cfg(test)]
mod tests_pmu;
#[cfg(test)]
mod tests_real;
#[cfg(test)]
mod tests_refused;
#[cfg(test)]
mod tests_replacing;

#[cfg(test)]
pub use emulator::{EmulatedKernel, EmulatedPrivileges};
pub use environment::{cap_eff, Environment, Privileges, CAP_PERFMON, CAP_SYS_ADMIN};
pub use explain::{kernel_lacks, target_lacks, Lack};
pub use fallback::{
    check_size, open, open_with_fallback, Fallback, FallbackMode, FallbackReason, Opened, Policy,
    ATTR_SIZE_VER0,
};
pub use kernel_abi::{AbiSource, AttrBits, BuildTarget, KernelAbi};
pub use missing::{guest_host_fallback, perf_rank, PERF_ORDER};
pub use permission::{enoent_hint, permission_hint};
pub use probe::{base_args, base_attr, feature_probe, probe, probe_attr_size, probe_feature};
pub use refused::probe_refused;
pub use replacing::{replacement_of, CLOCK_MONOTONIC, REPLACED_BITS};
pub use rules::{explain_einval, explain_eoverflow};
pub use syscall::{running_abi, running_release, OpenArgs, OutcomeClass, PerfSyscall, RealKernel};

// SPDX-License-Identifier: GPL-2.0-only
//! A sample's call chain resolved as perf 6.1's `thread__resolve_callchain`
//! does it with the default `callchain_param` (callee order, no branch
//! stack merging): `PERF_CONTEXT_*` markers switch the cpumode used for
//! the addresses after them and are not frames; an unknown marker
//! discards the whole chain; at most `max_stack` frames.

use super::dsos::Dsos;
use super::resolve::{AddrLocation, ThreadMaps, CPUMODE_HYPERVISOR, CPUMODE_KERNEL, CPUMODE_USER};

/// `PERF_CONTEXT_HV`.
pub const PERF_CONTEXT_HV: u64 = -32i64 as u64;
/// `PERF_CONTEXT_KERNEL`.
pub const PERF_CONTEXT_KERNEL: u64 = -128i64 as u64;
/// `PERF_CONTEXT_USER`.
pub const PERF_CONTEXT_USER: u64 = -512i64 as u64;
/// `PERF_CONTEXT_GUEST`.
pub const PERF_CONTEXT_GUEST: u64 = -2048i64 as u64;
/// `PERF_CONTEXT_GUEST_KERNEL`.
pub const PERF_CONTEXT_GUEST_KERNEL: u64 = -2176i64 as u64;
/// `PERF_CONTEXT_GUEST_USER`.
pub const PERF_CONTEXT_GUEST_USER: u64 = -2560i64 as u64;
/// `PERF_CONTEXT_MAX`: values from here up are markers.
pub const PERF_CONTEXT_MAX: u64 = -4095i64 as u64;
/// `PERF_MAX_STACK_DEPTH`: the Python session's `max_stack`.
pub const PERF_MAX_STACK_DEPTH: usize = 127;

/// One frame (`struct callchain_cursor_node`).
#[derive(Debug, Clone)]
pub struct CallchainNode {
    /// The address as recorded.
    pub ip: u64,
    /// Where it is.
    pub location: AddrLocation,
}

impl CallchainNode {
    /// The symbol's name, or `[unknown]` (the Python node's `symbol`).
    pub fn symbol_name(&self) -> &str {
        self.location.symbol_name().unwrap_or("[unknown]")
    }

    /// The DSO's name, or `[unknown]` (the Python node's `dso`, which
    /// uses the long name: `show_kernel_path` is set by the session).
    pub fn dso_name(&self, show_kernel_path: bool) -> &str {
        self.location
            .map
            .as_ref()
            .map_or("[unknown]", |m| m.dso_name(show_kernel_path))
    }
}

impl Dsos {
    /// `thread__resolve_callchain_sample` over a sample's callchain
    /// (`PERF_SAMPLE_CALLCHAIN` words, leaf first): the frames, leaf first.
    pub fn resolve_callchain(
        &self,
        thread: &dyn ThreadMaps,
        chain: &[u64],
        max_stack: usize,
    ) -> Vec<CallchainNode> {
        let mut cpumode = CPUMODE_USER;
        let mut out = Vec::new();
        let mut nr_entries = 0;
        for &ip in chain {
            if nr_entries >= max_stack {
                break;
            }
            if ip >= PERF_CONTEXT_MAX {
                cpumode = match ip {
                    PERF_CONTEXT_HV => CPUMODE_HYPERVISOR,
                    PERF_CONTEXT_KERNEL => CPUMODE_KERNEL,
                    PERF_CONTEXT_USER => CPUMODE_USER,
                    // "It seems the callchain is corrupted. Discard all."
                    _ => return Vec::new(),
                };
                continue;
            }
            nr_entries += 1;
            out.push(CallchainNode {
                ip,
                location: self.thread_find_symbol(thread, cpumode, ip),
            });
        }
        out
    }
}

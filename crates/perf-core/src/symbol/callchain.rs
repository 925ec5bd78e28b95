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
    /// For a frame added for inlined code (`inline_name`), the function
    /// name perf gives it where that is not the symbol's (perf's fake
    /// symbol with `inlined` set, printed `(inlined)`).
    pub inline: Option<std::sync::Arc<str>>,
}

impl CallchainNode {
    /// The symbol's name, or `[unknown]` (the Python node's `symbol`).
    pub fn symbol_name(&self) -> &str {
        self.inline
            .as_deref()
            .or_else(|| self.location.symbol_name())
            .unwrap_or("[unknown]")
    }

    /// perf's `sym->inlined`: the frame's name is an inlined function's
    /// (or a DWARF name other than its symbol's), not its symbol's.
    pub fn inlined(&self) -> bool {
        self.inline.is_some()
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

/// One step of a walk over a chain.
#[derive(Clone, Copy)]
enum Step {
    Frame(u8, u64),
    Marker,
    Corrupt,
}

/// The frames of a sample's callchain (`PERF_SAMPLE_CALLCHAIN` words, leaf
/// first) as `thread__resolve_callchain_sample` walks them: (cpumode, ip)
/// of each address, leaf first; `PERF_CONTEXT_*` markers set the cpumode
/// of the addresses after them and are not frames; an unknown marker
/// within the first `max_stack` frames discards the whole chain; at most
/// `max_stack` frames. The resolved chain and the columnar reader's raw
/// one both come from here.
pub fn callchain_frames(chain: &[u64], max_stack: usize) -> impl Iterator<Item = (u8, u64)> + '_ {
    let walk = move || {
        chain.iter().scan(CPUMODE_USER, |cpumode, &ip| {
            if ip < PERF_CONTEXT_MAX {
                return Some(Step::Frame(*cpumode, ip));
            }
            *cpumode = match ip {
                PERF_CONTEXT_HV => CPUMODE_HYPERVISOR,
                PERF_CONTEXT_KERNEL => CPUMODE_KERNEL,
                PERF_CONTEXT_USER => CPUMODE_USER,
                // "It seems the callchain is corrupted. Discard all."
                _ => return Some(Step::Corrupt),
            };
            Some(Step::Marker)
        })
    };
    let corrupt = walk()
        .scan(0usize, |frames, step| {
            if *frames >= max_stack {
                return None;
            }
            *frames += usize::from(matches!(step, Step::Frame(..)));
            Some(step)
        })
        .any(|step| matches!(step, Step::Corrupt));
    walk()
        .filter_map(|step| match step {
            Step::Frame(cpumode, ip) => Some((cpumode, ip)),
            _ => None,
        })
        .take(if corrupt { 0 } else { max_stack })
}

/// A sample's call chain as perf resolves it (`thread__resolve_callchain`,
/// callee order): the recorded `PERF_SAMPLE_CALLCHAIN` words
/// (`thread__resolve_callchain_sample`), then, for a `--call-graph dwarf`
/// sample, the user frames unwound from its stack dump
/// (`thread__resolve_callchain_unwind`, [`Dsos::unwind_user`]), each part
/// at most `max_stack` frames.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SampleChain<'c> {
    /// The recorded words, `PERF_CONTEXT_*` markers included.
    pub recorded: &'c [u64],
    /// The unwound user frames, leaf first (any value, `-1` included, is
    /// an address: these are not markers).
    pub unwound: Vec<u64>,
}

impl<'c> SampleChain<'c> {
    /// A chain of recorded words only.
    pub fn recorded(recorded: &'c [u64]) -> Self {
        SampleChain {
            recorded,
            unwound: Vec::new(),
        }
    }

    /// True if it has no words and no unwound frame.
    pub fn is_empty(&self) -> bool {
        self.recorded.is_empty() && self.unwound.is_empty()
    }

    /// The frames, leaf first, as (cpumode, ip): those of the recorded
    /// words ([`callchain_frames`]), then the unwound ones (user space).
    pub fn frames(&self, max_stack: usize) -> impl Iterator<Item = (u8, u64)> + '_ {
        callchain_frames(self.recorded, max_stack)
            .chain(self.unwound.iter().map(|&ip| (CPUMODE_USER, ip)))
    }
}

impl Dsos {
    /// `thread__resolve_callchain` over a sample's chain: the frames of
    /// [`SampleChain::frames`], leaf first, resolved. With `inline_name`
    /// ([`super::conf::SymbolConf::inline_name`]) each unwound frame in
    /// inlined code is the frames perf's `append_inlines` makes of it
    /// (perf 6.1 calls it from `unwind_entry` only: the recorded frames
    /// stay as they are).
    pub fn resolve_callchain(
        &self,
        thread: &dyn ThreadMaps,
        chain: &SampleChain<'_>,
        max_stack: usize,
    ) -> Vec<CallchainNode> {
        let node = |(cpumode, ip)| CallchainNode {
            ip,
            location: self.thread_find_symbol(thread, cpumode, ip),
            inline: None,
        };
        let recorded = callchain_frames(chain.recorded, max_stack).map(node);
        let unwound = chain.unwound.iter().map(|&ip| node((CPUMODE_USER, ip)));
        if !self.conf().inline_name {
            return recorded.chain(unwound).collect();
        }
        let mut out: Vec<CallchainNode> = recorded.collect();
        for frame in unwound {
            self.append_inlines(frame, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(chain: &[u64], max_stack: usize) -> Vec<(u8, u64)> {
        callchain_frames(chain, max_stack).collect()
    }

    #[test]
    fn markers_set_the_cpumode_and_are_not_frames() {
        let chain = [PERF_CONTEXT_KERNEL, 0xa, 0xb, PERF_CONTEXT_USER, 0x1, 0x2];
        let k = CPUMODE_KERNEL;
        let u = CPUMODE_USER;
        assert_eq!(
            frames(&chain, 127),
            [(k, 0xa), (k, 0xb), (u, 0x1), (u, 0x2)]
        );
        assert_eq!(frames(&chain, 3), [(k, 0xa), (k, 0xb), (u, 0x1)]);
        assert_eq!(frames(&[0x5], 127), [(u, 0x5)], "user before any marker");
        assert_eq!(
            frames(&[PERF_CONTEXT_HV, 0x7], 127),
            [(CPUMODE_HYPERVISOR, 0x7)]
        );
    }

    #[test]
    fn an_unknown_marker_discards_the_chain_within_max_stack() {
        let chain = [0x1, 0x2, PERF_CONTEXT_GUEST, 0x3];
        assert!(frames(&chain, 127).is_empty());
        // Past max_stack frames the marker is never looked at.
        assert_eq!(
            frames(&chain, 2),
            [(CPUMODE_USER, 0x1), (CPUMODE_USER, 0x2)]
        );
    }
}

// SPDX-License-Identifier: GPL-2.0-only
//! perf's thread stacks (`util/thread-stack.c`, `thread_stack__process`)
//! as a call return processor sees samples that carry no branch flags,
//! i.e. every sample of a file without AUX data.
//!
//! Each thread (the idle thread: each CPU) has one stack. Its first sample
//! puts the sample's symbol (or, unresolved, its address) at the bottom;
//! every sample counts a branch and moves the stack's last time. The stack
//! is flushed, the bottom becoming a [`CallReturn`] flagged
//! `CALL_RETURN_NO_CALL | CALL_RETURN_NO_RETURN`, at the first sample of a
//! process's main thread after its comm changed (an exec), when a FORK
//! record replaces the thread, and at the end ([`ThreadStacks::flush_all`]).
//! Branch flags (calls, returns, trace begin/end) only come from decoding
//! AUX data, which is not done: they never push or pop more.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::machine::Machine;
use crate::record::Sample;
use crate::symbol::resolve::AddrLocation;

/// perf's `CALL_RETURN_NO_CALL`: the call was not seen.
pub const CALL_RETURN_NO_CALL: u32 = 1 << 0;
/// perf's `CALL_RETURN_NO_RETURN`: the return was not seen.
pub const CALL_RETURN_NO_RETURN: u32 = 1 << 1;
/// perf's `CALL_RETURN_NON_CALL`: a branch, not a call, entered it.
pub const CALL_RETURN_NON_CALL: u32 = 1 << 2;

const PERF_RECORD_MISC_KERNEL: u8 = 1;
const PERF_RECORD_MISC_USER: u8 = 2;

/// One frame of a call path: perf's `struct call_path` as the Python
/// module turns it into a callchain node.
#[derive(Debug, Clone)]
pub struct CallPathFrame {
    /// The address: 0 when the symbol is known (`call_path__findnew`
    /// keeps only the symbol then), else the sample's.
    pub ip: u64,
    /// The symbol's name, if resolved.
    pub symbol: Option<Arc<str>>,
    /// Where `ip` is (no map for `ip` 0), its symbol left out as perf's
    /// node has none without a map.
    pub location: AddrLocation,
}

/// perf's `struct call_return` of a flushed stack entry.
#[derive(Debug, Clone)]
pub struct CallReturn {
    /// The thread's process (-1: unknown).
    pub pid: i32,
    /// The thread (-1: unknown).
    pub tid: i32,
    /// The comm the stack was made under.
    pub comm: Arc<str>,
    /// The bottom sample's time.
    pub call_time: u64,
    /// The stack's last sample's time.
    pub return_time: u64,
    /// Samples counted since the entry was pushed (its own included).
    pub branch_count: u64,
    /// The reference (1-based sample number) of the bottom sample.
    pub call_ref: u64,
    /// 0: no return sample.
    pub return_ref: u64,
    /// `CALL_RETURN_*`.
    pub flags: u32,
    /// Outermost caller first (one frame: the bottom).
    pub call_path: Vec<CallPathFrame>,
}

/// The bottom entry of a stack.
#[derive(Debug, Clone)]
struct Entry {
    time: u64,
    sample_ref: u64,
    branch_count: u64,
    frame: CallPathFrame,
}

/// One thread's stack.
#[derive(Debug, Clone)]
struct Stack {
    /// The comm it was made under (the thread's number of comms then: a
    /// new comm, not a rename of the placeholder, changes it).
    comm_gen: usize,
    /// That comm's name as of the stack's last sample (for a FORK that
    /// replaces the thread).
    comm: Arc<str>,
    /// The thread's pid as of the stack's last sample.
    pid: i32,
    branch_count: u64,
    last_time: u64,
    bottom: Option<Entry>,
}

/// Every thread's stack, and the sample counter perf's Python session
/// uses as sample references.
#[derive(Debug, Default)]
pub struct ThreadStacks {
    stacks: BTreeMap<(i32, u32), Stack>,
    last_ref: u64,
}

/// The comm generation, current comm and pid of a thread (perf's
/// `machine__findnew_thread` makes an unnamed thread for an unknown tid).
fn thread_state(machine: &Machine, pid: i32, tid: i32) -> (usize, i32) {
    match machine.find_thread(pid, tid) {
        Some(t) => (t.comms().len(), t.pid),
        None => (1, pid),
    }
}

fn comm_of(machine: &Machine, tid: i32, gen: usize) -> Arc<str> {
    machine
        .find_thread(-1, tid)
        .and_then(|t| t.comms().get(gen.wrapping_sub(1)))
        .map_or_else(|| format!(":{tid}").into(), |c| Arc::clone(&c.comm))
}

impl ThreadStacks {
    /// `thread_stack__process` of one sample with no branch flags;
    /// appends what it flushes to `out`.
    pub fn sample(
        &mut self,
        machine: &Machine,
        s: &Sample,
        cpumode: u8,
        out: &mut Vec<CallReturn>,
    ) {
        self.last_ref += 1;
        let sample_ref = self.last_ref;
        let (comm_gen, pid) = thread_state(machine, s.pid, s.tid);
        // The idle thread has a stack per CPU (none sampled: CPU 0).
        let cpu = if pid == 0 && s.tid == 0 && (s.cpu as i32) > 0 {
            s.cpu
        } else {
            0
        };
        let key = (s.tid, cpu);
        let stack = self.stacks.entry(key).or_insert_with(|| Stack {
            comm_gen,
            comm: comm_of(machine, s.tid, comm_gen),
            pid,
            branch_count: 0,
            last_time: 0,
            bottom: None,
        });
        if stack.comm_gen != comm_gen && pid == s.tid {
            let comm = comm_of(machine, s.tid, stack.comm_gen);
            flush(key, stack, pid, comm, out);
            stack.comm_gen = comm_gen;
        }
        stack.pid = pid;
        if stack.comm_gen == comm_gen {
            stack.comm = comm_of(machine, s.tid, comm_gen);
        }
        if stack.bottom.is_none() {
            stack.bottom = bottom(machine, s, cpumode).map(|frame| Entry {
                time: s.time,
                sample_ref,
                branch_count: stack.branch_count,
                frame,
            });
        }
        stack.branch_count += 1;
        stack.last_time = s.time;
    }

    /// Flushes the stack of `tid` (a FORK record replaced the thread).
    pub fn flush_tid(&mut self, tid: i32, out: &mut Vec<CallReturn>) {
        let keys: Vec<_> = self
            .stacks
            .range((tid, 0)..=(tid, u32::MAX))
            .map(|(k, _)| *k)
            .collect();
        for key in keys {
            if let Some(mut stack) = self.stacks.remove(&key) {
                let (pid, comm) = (stack.pid, Arc::clone(&stack.comm));
                flush(key, &mut stack, pid, comm, out);
            }
        }
    }

    /// Flushes every stack, by tid (then CPU), and forgets them.
    pub fn flush_all(&mut self, machine: &Machine, out: &mut Vec<CallReturn>) {
        for (key, mut stack) in std::mem::take(&mut self.stacks) {
            let pid = thread_state(machine, -1, key.0).1;
            let comm = comm_of(machine, key.0, stack.comm_gen);
            flush(key, &mut stack, pid, comm, out);
        }
    }
}

/// `thread_stack__bottom`: the sample's ip and symbol, else its addr
/// (no symbol: the target is resolved only for branch samples), else
/// nothing.
fn bottom(machine: &Machine, s: &Sample, cpumode: u8) -> Option<CallPathFrame> {
    let (ip, symbol) = if s.ip != 0 {
        let al = machine.resolve(s.pid, s.tid, cpumode, s.ip);
        (s.ip, al.symbol_name().map(Arc::from))
    } else if s.addr != 0 {
        (s.addr, None)
    } else {
        return None;
    };
    let in_kernel = cpumode == PERF_RECORD_MISC_KERNEL;
    let frame_ip = if symbol.is_some() { 0 } else { ip };
    let mode = if in_kernel {
        PERF_RECORD_MISC_KERNEL
    } else {
        PERF_RECORD_MISC_USER
    };
    let mut location = machine.resolve(s.pid, s.tid, mode, frame_ip);
    location.sym = None;
    Some(CallPathFrame {
        ip: frame_ip,
        symbol,
        location,
    })
}

/// `__thread_stack__flush` of a stack holding at most its bottom.
fn flush(key: (i32, u32), stack: &mut Stack, pid: i32, comm: Arc<str>, out: &mut Vec<CallReturn>) {
    let Some(e) = stack.bottom.take() else {
        return;
    };
    out.push(CallReturn {
        pid,
        tid: key.0,
        comm,
        call_time: e.time,
        return_time: stack.last_time,
        branch_count: stack.branch_count - e.branch_count,
        call_ref: e.sample_ref,
        return_ref: 0,
        flags: CALL_RETURN_NO_CALL | CALL_RETURN_NO_RETURN,
        call_path: vec![e.frame],
    });
}

// SPDX-License-Identifier: GPL-2.0-only
//! The user part of a `--call-graph dwarf` sample's call chain: its stack
//! unwound from the user registers and the stack dump the kernel copied
//! (`PERF_SAMPLE_REGS_USER`, `PERF_SAMPLE_STACK_USER`), as perf 6.1's
//! `unwind__get_entries` does it with libunwind (1.6, x86_64):
//!
//! * the first frame is the sampled user ip, each next one the ip libunwind
//!   steps to, minus one unless it is in a signal trampoline (perf
//!   decrements "to properly find the srcline for caller frames");
//! * a step follows the CFI row covering the ip (the ip minus one after a
//!   call frame), found in the unwind tables of the object mapped there
//!   (`unwind_info.rs`); libunwind keeps each register as a location
//!   (a stack slot, a value, undefined) and reads a slot only when a value
//!   is needed;
//! * an ip the tables of its object have no FDE for gets libunwind's
//!   fallback: a PLT entry returns through the stack pointer, other code
//!   through rbp, taken as a frame pointer when it lies within 16 KiB
//!   above the CFA; an ip in no map, or in an object without tables, ends
//!   the walk (perf's `find_proc_info` fails there);
//! * memory is the stack dump (perf's `access_mem`, which counts the
//!   dump's last word as outside it); outside it perf reads the object
//!   mapped at the address (`access_dso_mem`), and an address in a map
//!   with no object to read (`[stack]`, anonymous memory) reads as 0 with
//!   success (the failure returns 1, which libunwind takes for success):
//!   a return address read so is a frame at ip 0, shown as
//!   `0xffffffffffffffff` once decremented; an address in no map fails;
//! * the walk ends at an undefined return address or rbp, at an error, or
//!   after `max_stack` frames.
//!
//! CFI is parsed and its rules and expressions evaluated by gimli.
//! x86_64 samples (`PERF_SAMPLE_REGS_ABI_64`) only: other register sets
//! give no user frames.

use std::sync::Arc;

use gimli::{CfaRule, EvaluationResult, Location, Register, RegisterRule, UnwindContext, Value};

use super::dso::{Dso, DsoKind};
use super::dsos::Dsos;
use super::elf::AnyElf;
use super::map::Maps;
use super::resolve::{AddrLocation, CPUMODE_USER};
use super::unwind_info::{Row, Slice, UnwindInfo};
use crate::record::{Regs, Sample};

/// `PERF_SAMPLE_REGS_ABI_64`.
const PERF_SAMPLE_REGS_ABI_64: u64 = 2;
/// `enum perf_event_x86_regs` index of each DWARF register 0-16 (rax, rdx,
/// rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, the return address: rip).
const PERF_REG_OF_DWARF: [u32; 17] = [0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8];
/// DWARF register numbers.
const RBP: usize = 6;
const RSP: usize = 7;
const RIP: usize = 16;
/// Registers libunwind tracks (`DWARF_NUM_PRESERVED_REGS`).
const NREGS: usize = 17;
/// Steps of a DWARF expression before it is given up.
const MAX_EXPRESSION_STEPS: u32 = 10_000;

/// A sample's user registers and stack dump: what `--call-graph dwarf`
/// records.
#[derive(Debug, Clone, Copy)]
pub struct UserStack<'a> {
    /// `PERF_SAMPLE_REGS_USER`.
    pub regs: &'a Regs,
    /// The valid part of the `PERF_SAMPLE_STACK_USER` dump (`dyn_size`
    /// bytes from the user stack pointer up).
    pub stack: &'a [u8],
}

impl<'a> UserStack<'a> {
    /// The registers and stack of a parsed sample whose record is
    /// `record`; `None` when there is nothing to unwind (perf's "Bail out
    /// if nothing was captured": no registers, `abi` none, or an empty
    /// dump).
    pub fn of(sample: &'a Sample, record: &'a [u8]) -> Option<Self> {
        let regs = sample.user_regs.as_deref()?;
        let dump = sample.user_stack.as_deref()?;
        if regs.abi == 0 || dump.dyn_size == 0 {
            return None;
        }
        let data = record.get(dump.data.clone())?;
        let len = usize::try_from(dump.dyn_size).map_or(data.len(), |n| n.min(data.len()));
        Some(UserStack {
            regs,
            stack: data.get(..len)?,
        })
    }

    /// `perf_reg_value`: the register `id` of the sample's set.
    fn reg(&self, id: u32) -> Option<u64> {
        let bit = 1u64.checked_shl(id)?;
        if self.regs.mask & bit == 0 {
            return None;
        }
        let index = (self.regs.mask & (bit - 1)).count_ones() as usize;
        self.regs.regs.get(index).copied()
    }

    /// A word of the dump at `addr` (`access_mem`: the dump starts at the
    /// stack pointer, and its last word counts as outside it).
    fn read(&self, sp: u64, addr: u64) -> Option<u64> {
        let off = addr.checked_sub(sp)?;
        let end = off.checked_add(8)?;
        if end >= self.stack.len() as u64 {
            return None;
        }
        let word = self.stack.get(off as usize..end as usize)?;
        Some(u64::from_le_bytes(word.try_into().ok()?))
    }
}

/// Where libunwind keeps a register of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loc {
    /// Undefined (`DWARF_NULL_LOC`).
    Null,
    /// In memory at this address.
    Mem(u64),
    /// This value (an initial register, or a `val_offset` rule).
    Val(u64),
    /// A register the sample did not record: reading it fails.
    Missing,
}

/// Why a step did not give a frame.
enum Stop {
    /// The end of the chain (`unw_step` returned 0).
    End,
    /// An error (`unw_step` returned < 0).
    Error,
}

/// One walk: the cursor of libunwind's x86_64 `unw_step`.
struct Walk<'w> {
    dsos: &'w Dsos,
    maps: &'w Maps,
    user: &'w UserStack<'w>,
    /// The sample's stack pointer: where the dump starts.
    sp0: u64,
    ip: u64,
    cfa: u64,
    loc: [Loc; NREGS],
    use_prev_instr: bool,
    ctx: UnwindContext<usize>,
}

impl Walk<'_> {
    /// `dwarf_get`: a location's value (perf's `access_mem` for memory).
    fn get(&self, loc: Loc) -> Option<u64> {
        match loc {
            Loc::Val(v) => Some(v),
            Loc::Mem(a) => self
                .user
                .read(self.sp0, a)
                .or_else(|| self.dsos.read_mapped_word(self.maps, a)),
            Loc::Null | Loc::Missing => None,
        }
    }

    /// `unw_get_reg` of a DWARF register: rsp is the CFA.
    fn reg(&self, r: usize) -> Option<u64> {
        if r == RSP {
            return Some(self.cfa);
        }
        self.get(*self.loc.get(r)?)
    }

    /// One `unw_step`: `Ok` with the next frame's ip set.
    fn step(&mut self) -> Result<(), Stop> {
        let (prev_ip, prev_cfa) = (self.ip, self.cfa);
        let lookup = if self.use_prev_instr {
            self.ip.wrapping_sub(1)
        } else {
            self.ip
        };
        // perf's `find_proc_info`: an address in no map, or in an object
        // without unwind tables, fails (-EINVAL); libunwind falls back
        // only when the tables have no FDE for it (-UNW_ENOINFO).
        let (info, svma) = self.info_at(lookup).ok_or(Stop::Error)?;
        match info.row(&mut self.ctx, svma) {
            Some(Ok(row)) => self.apply(&row)?,
            Some(Err(_)) => return Err(Stop::Error),
            None => self.fallback()?,
        }
        if self.ip == prev_ip && self.cfa == prev_cfa {
            return Err(Stop::Error);
        }
        Ok(())
    }

    /// The unwind tables of the object mapped at `ip`, and the address the
    /// object states for it.
    fn info_at(&self, ip: u64) -> Option<(Arc<UnwindInfo>, u64)> {
        let map = self.maps.find(ip)?;
        if map.is_identity() {
            return None;
        }
        let info = self.dsos.unwind_info(map.dso())?;
        let svma = info.svma_of_offset(map.map_ip(ip))?;
        Some((info, svma))
    }

    /// libunwind's `apply_reg_state` and the x86_64 checks after a
    /// successful DWARF step.
    fn apply(&mut self, r: &Row<'_>) -> Result<(), Stop> {
        // A register the row has no rule for keeps its location
        // (libunwind starts every register at DWARF_WHERE_SAME). gimli
        // keeps no `undefined` rules, so a return address without a rule
        // is taken as undefined: every x86_64 CIE gives it one
        // (`DW_CFA_offset r16`), and `.cfi_undefined rip` (`_start`,
        // thread entry points) removes it.
        let explicit = |reg: usize| {
            r.row
                .registers()
                .find(|(n, _)| usize::from(n.0) == reg)
                .map(|(_, rule)| rule.clone())
                .or((reg == RIP).then_some(RegisterRule::Undefined))
        };
        let cfa = match r.row.cfa() {
            CfaRule::RegisterAndOffset { register, offset } => {
                let base = self.reg(usize::from(register.0)).ok_or(Stop::Error)?;
                base.wrapping_add_signed(*offset)
            }
            CfaRule::Expression(e) => {
                let expr = r.section.expression(e).map_err(|_| Stop::Error)?;
                match self.evaluate(expr, r.encoding, None)? {
                    Location::Address { address } => address,
                    _ => return Err(Stop::Error),
                }
            }
        };
        let mut loc = self.loc;
        for (i, slot) in loc.iter_mut().enumerate() {
            let Some(rule) = explicit(i) else {
                continue; // DWARF_WHERE_SAME
            };
            *slot = match rule {
                RegisterRule::Undefined => Loc::Null,
                RegisterRule::SameValue => *slot,
                RegisterRule::Offset(n) => Loc::Mem(cfa.wrapping_add_signed(n)),
                RegisterRule::ValOffset(n) => Loc::Val(cfa.wrapping_add_signed(n)),
                RegisterRule::Register(Register(n)) => {
                    *self.loc.get(usize::from(n)).ok_or(Stop::Error)?
                }
                RegisterRule::Expression(e) | RegisterRule::ValExpression(e) => {
                    let val = matches!(rule, RegisterRule::ValExpression(_));
                    let expr = r.section.expression(&e).map_err(|_| Stop::Error)?;
                    match self.evaluate(expr, r.encoding, Some(cfa))? {
                        Location::Address { address } if val => Loc::Val(address),
                        Location::Address { address } => Loc::Mem(address),
                        Location::Value {
                            value: Value::Generic(v),
                        } if val => Loc::Val(v),
                        _ => return Err(Stop::Error),
                    }
                }
                _ => return Err(Stop::Error),
            };
        }
        self.loc = loc;
        self.cfa = cfa;
        self.use_prev_instr = !r.signal_frame;
        // "undefined return address location means end of stack".
        if self.loc[RIP] == Loc::Null {
            self.ip = 0;
            return Err(Stop::End);
        }
        self.ip = self.get(self.loc[RIP]).ok_or(Stop::Error)?;
        // "end of call-chain is marked with a NULL RBP".
        if self.loc[RBP] == Loc::Null {
            self.ip = 0;
            return Err(Stop::End);
        }
        Ok(())
    }

    /// A DWARF expression (`eval_location_expr`), with the CFA pushed first
    /// for a register rule's.
    fn evaluate<'s>(
        &self,
        expr: gimli::Expression<Slice<'s>>,
        encoding: gimli::Encoding,
        cfa: Option<u64>,
    ) -> Result<Location<Slice<'s>>, Stop> {
        let mut eval = expr.evaluation(encoding);
        eval.set_max_iterations(MAX_EXPRESSION_STEPS);
        if let Some(cfa) = cfa {
            eval.set_initial_value(cfa);
        }
        let mut state = eval.evaluate();
        loop {
            state = match state.map_err(|_| Stop::Error)? {
                EvaluationResult::Complete => break,
                EvaluationResult::RequiresMemory { address, .. } => {
                    let v = self.get(Loc::Mem(address)).ok_or(Stop::Error)?;
                    eval.resume_with_memory(Value::Generic(v))
                }
                EvaluationResult::RequiresRegister { register, .. } => {
                    let v = self.reg(usize::from(register.0)).ok_or(Stop::Error)?;
                    eval.resume_with_register(Value::Generic(v))
                }
                EvaluationResult::RequiresCallFrameCfa => eval.resume_with_call_frame_cfa(self.cfa),
                _ => return Err(Stop::Error),
            };
        }
        eval.result()
            .into_iter()
            .next()
            .map(|p| p.location)
            .ok_or(Stop::Error)
    }

    /// libunwind's x86_64 frame-chain fallback for an ip no FDE covers.
    fn fallback(&mut self) -> Result<(), Stop> {
        if self.is_plt_entry() {
            // CFA = RSP + 8, RA = [CFA - 8], no registers saved.
            self.loc[RIP] = Loc::Mem(self.cfa);
            self.cfa = self.cfa.wrapping_add(8);
        } else if self.loc[RBP] == Loc::Null {
            self.loc = [Loc::Null; NREGS];
        } else {
            let rbp = self.get(self.loc[RBP]).ok_or(Stop::Error)?;
            let (mut rbp_loc, mut rip_loc) = (Loc::Null, Loc::Null);
            if rbp != 0 {
                rbp_loc = Loc::Mem(rbp);
                rip_loc = Loc::Mem(rbp.wrapping_add(8));
                // "For RBP to be a valid frame it needs to be above current
                // CFA, but don't let it go more than a little."
                if self.get(rbp_loc).is_none() || rbp < self.cfa || rbp - self.cfa > 0x4000 {
                    rbp_loc = Loc::Null;
                    rip_loc = Loc::Null;
                }
                self.cfa = self.cfa.wrapping_add(16);
            }
            self.loc = [Loc::Null; NREGS];
            self.loc[RBP] = rbp_loc;
            self.loc[RIP] = rip_loc;
            self.use_prev_instr = true;
        }
        if self.loc[RBP] == Loc::Null {
            return Err(Stop::End);
        }
        if self.loc[RIP] == Loc::Null {
            self.ip = 0;
            return Err(Stop::Error);
        }
        self.ip = self.get(self.loc[RIP]).ok_or(Stop::Error)?;
        Ok(())
    }

    /// `is_plt_entry`: `jmpq *x(%rip); pushq $n; jmpq y` at the ip.
    fn is_plt_entry(&self) -> bool {
        let word = |a: u64| self.dsos.read_mapped_code(self.maps, a);
        let (Some(w0), Some(w1)) = (word(self.ip), word(self.ip.wrapping_add(8))) else {
            return false;
        };
        (w0 & 0xffff) == 0x25ff && ((w0 >> 48) & 0xff) == 0x68 && ((w1 >> 24) & 0xff) == 0xe9
    }
}

impl Dsos {
    /// An object's unwind tables, read once (`None`: it has none, or its
    /// file is not the recorded one).
    pub(crate) fn unwind_info(&self, dso: &Dso) -> Option<Arc<UnwindInfo>> {
        dso.unwind
            .get_or_init(|| {
                if !matches!(dso.kind(), DsoKind::User | DsoKind::Vdso) {
                    return None;
                }
                let info = match self.data_image(dso)? {
                    DataImage::File(path) => {
                        let cache = super::elf::open(&path).ok()?;
                        UnwindInfo::read(&AnyElf::parse(&cache)?)
                    }
                    DataImage::Memory(image) => UnwindInfo::read(&AnyElf::parse(&image[..])?),
                };
                info.map(Arc::new)
            })
            .clone()
    }

    /// The user frames of a sample in the address space `maps`, leaf
    /// first, as perf 6.1 delivers them (see the module's documentation):
    /// at most `max_stack`, a frame at ip 0 left out.
    pub fn unwind_user(&self, maps: &Maps, user: &UserStack<'_>, max_stack: usize) -> Vec<u64> {
        if user.regs.abi != PERF_SAMPLE_REGS_ABI_64 || max_stack == 0 {
            return Vec::new();
        }
        let mut loc = [Loc::Missing; NREGS];
        for (slot, &id) in loc.iter_mut().zip(PERF_REG_OF_DWARF.iter()) {
            if let Some(v) = user.reg(id) {
                *slot = Loc::Val(v);
            }
        }
        let (Loc::Val(ip), Loc::Val(sp)) = (loc[RIP], loc[RSP]) else {
            return Vec::new();
        };
        let mut walk = Walk {
            dsos: self,
            maps,
            user,
            sp0: sp,
            ip,
            cfa: sp,
            loc,
            use_prev_instr: false,
            ctx: UnwindContext::new(),
        };
        // Each frame's ip, and whether perf decrements it (not in a
        // signal trampoline, which is known once its own row is found:
        // the next step's).
        let mut ips = vec![ip];
        while ips.len() < max_stack {
            if walk.step().is_err() {
                break;
            }
            if !walk.use_prev_instr {
                // The frame just left was a signal trampoline: its ip
                // was not decremented.
                if ips.len() > 1 {
                    if let Some(last) = ips.last_mut() {
                        *last = last.wrapping_add(1);
                    }
                }
            }
            ips.push(walk.ip.wrapping_sub(1));
        }
        ips.retain(|&ip| ip != 0);
        ips
    }

    /// perf's `access_dso_mem` for an address outside the stack dump: the
    /// word of the object mapped there, 0 where the map has no object to
    /// read (the failure libunwind takes for success); `None` in no map.
    fn read_mapped_word(&self, maps: &Maps, addr: u64) -> Option<u64> {
        maps.find(addr)?;
        Some(self.read_mapped_code(maps, addr).unwrap_or(0))
    }

    /// The word of the object mapped at `addr`, read from its file.
    fn read_mapped_code(&self, maps: &Maps, addr: u64) -> Option<u64> {
        let map = maps.find(addr)?;
        if map.is_identity() || !matches!(map.dso().kind(), DsoKind::User | DsoKind::Vdso) {
            return None;
        }
        let al = AddrLocation {
            map: Some(Arc::clone(map)),
            addr: map.map_ip(addr),
            sym: None,
            cpumode: CPUMODE_USER,
        };
        let bytes: [u8; 8] = self.read_bytes(&al, 8)?.try_into().ok()?;
        Some(u64::from_le_bytes(bytes))
    }
}

/// Where an object's bytes are read from (`dso__data_get_fd`).
pub(crate) enum DataImage {
    /// A file: the build-id cache's copy, or the object at its path.
    File(std::path::PathBuf),
    /// This process's own vDSO, when it is the recorded one.
    Memory(Vec<u8>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs(values: &[(u32, u64)]) -> Regs {
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        Regs {
            abi: PERF_SAMPLE_REGS_ABI_64,
            mask: sorted.iter().fold(0, |m, &(id, _)| m | 1 << id),
            regs: sorted.iter().map(|&(_, v)| v).collect(),
        }
    }

    const BP: u32 = 6;
    const SP: u32 = 7;
    const IP: u32 = 8;

    #[test]
    fn registers_are_found_by_their_mask_bit() {
        let r = regs(&[(0, 10), (BP, 16), (SP, 17), (IP, 18), (23, 33)]);
        let u = UserStack {
            regs: &r,
            stack: &[],
        };
        assert_eq!(u.reg(BP), Some(16));
        assert_eq!(u.reg(SP), Some(17));
        assert_eq!(u.reg(IP), Some(18));
        assert_eq!(u.reg(23), Some(33));
        assert_eq!(u.reg(5), None);
        assert_eq!(u.reg(64), None);
    }

    #[test]
    fn the_dump_starts_at_sp_and_its_last_word_is_outside() {
        let r = regs(&[]);
        let stack: Vec<u8> = (0u64..4).flat_map(u64::to_le_bytes).collect();
        let u = UserStack {
            regs: &r,
            stack: &stack,
        };
        let sp = 0x7ff0_0000;
        assert_eq!(u.read(sp, sp), Some(0));
        assert_eq!(u.read(sp, sp + 16), Some(2));
        assert_eq!(u.read(sp, sp + 24), None, "the last word, as perf");
        assert_eq!(u.read(sp, sp - 8), None);
        assert_eq!(u.read(sp, u64::MAX - 3), None);
    }

    #[test]
    fn an_ip_in_no_map_ends_the_walk() {
        // perf's find_proc_info fails without a map: no fallback, however
        // good rbp looks.
        let sp = 0x7000_0000u64;
        let mut words = [0u64; 8];
        words[2] = sp + 48;
        words[3] = 0x2001;
        let stack: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let r = regs(&[(BP, sp + 16), (SP, sp), (IP, 0x1000)]);
        let u = UserStack {
            regs: &r,
            stack: &stack,
        };
        let dsos = Dsos::default();
        assert_eq!(dsos.unwind_user(&Maps::default(), &u, 127), [0x1000]);
        assert!(dsos.unwind_user(&Maps::default(), &u, 0).is_empty());
    }

    #[test]
    fn only_x86_64_register_sets_unwind() {
        let mut r = regs(&[(BP, 0), (SP, 0x7000_0000), (IP, 0x1000)]);
        r.abi = 1;
        let u = UserStack {
            regs: &r,
            stack: &[0; 64],
        };
        assert!(Dsos::default()
            .unwind_user(&Maps::default(), &u, 127)
            .is_empty());
    }
}

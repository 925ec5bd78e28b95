// SPDX-License-Identifier: GPL-2.0-only
//! `PERF_RECORD_SAMPLE` bodies, and perf's `struct perf_sample` with the
//! defaults the Python module shows for fields that were not sampled.

use std::ops::Range;

use super::abi::*;
use super::cursor::{ne_u64, Cursor};
use super::parse_info::ParseInfo;
use super::read_format::{parse_read, SampleRead};
use crate::error::Result;

/// One `{ u64 from, to, flags }` entry of a branch stack
/// (`struct perf_branch_entry`; `flags` holds the bitfield word as is).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BranchEntry {
    /// Branch source.
    pub from: u64,
    /// Branch target.
    pub to: u64,
    /// `mispred:1, predicted:1, in_tx:1, abort:1, cycles:16, type:4, spec:2,
    /// new_type:4, priv:3, reserved:31`.
    pub flags: u64,
}

/// The fields of `flags` (the kernel's bitfield order on little-endian
/// machines, which perf writes the word in).
impl BranchEntry {
    /// `mispred`.
    pub fn mispred(&self) -> bool {
        self.flags & 1 != 0
    }

    /// `predicted`.
    pub fn predicted(&self) -> bool {
        self.flags & 2 != 0
    }

    /// `in_tx`.
    pub fn in_tx(&self) -> bool {
        self.flags & 4 != 0
    }

    /// `abort`.
    pub fn abort(&self) -> bool {
        self.flags & 8 != 0
    }

    /// `cycles` since the previous branch (0: unknown).
    pub fn cycles(&self) -> u16 {
        ((self.flags >> 4) & 0xffff) as u16
    }

    /// `type` (`PERF_BR_*`).
    pub fn type_(&self) -> u8 {
        ((self.flags >> 20) & 0xf) as u8
    }
}

/// `PERF_SAMPLE_BRANCH_STACK` data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BranchStack {
    /// `hw_idx`, when `branch_sample_type` has `PERF_SAMPLE_BRANCH_HW_INDEX`.
    pub hw_idx: Option<u64>,
    /// The entries, most recent first.
    pub entries: Vec<BranchEntry>,
    /// One counters word per entry, with `PERF_SAMPLE_BRANCH_COUNTERS`
    /// (empty otherwise).
    pub counters: Vec<u64>,
}

/// `PERF_SAMPLE_REGS_USER` / `PERF_SAMPLE_REGS_INTR` data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Regs {
    /// `enum perf_sample_regs_abi` (0 = none: then there are no registers).
    pub abi: u64,
    /// The attr's register mask (`sample_regs_user` / `sample_regs_intr`).
    pub mask: u64,
    /// One value per mask bit, lowest bit first.
    pub regs: Vec<u64>,
}

/// `PERF_SAMPLE_STACK_USER` data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StackUser {
    /// The dumped stack (`size` bytes, of which `dyn_size` are valid) as
    /// record offsets.
    pub data: Range<usize>,
    /// `dyn_size` (0 when `size` was 0).
    pub dyn_size: u64,
}

/// perf's `struct perf_sample`: what `evsel__parse_sample` fills in, with its
/// defaults for what `sample_type` does not provide. Byte payloads are ranges
/// into the record bytes passed to [`parse`](super::parse).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// `PERF_SAMPLE_IP` (default 0).
    pub ip: u64,
    /// `PERF_SAMPLE_TID` pid (default -1).
    pub pid: i32,
    /// `PERF_SAMPLE_TID` tid (default -1).
    pub tid: i32,
    /// `PERF_SAMPLE_TIME` (default `u64::MAX`).
    pub time: u64,
    /// `PERF_SAMPLE_ADDR` (default 0).
    pub addr: u64,
    /// `PERF_SAMPLE_ID` or `PERF_SAMPLE_IDENTIFIER` (default `u64::MAX`).
    pub id: u64,
    /// `PERF_SAMPLE_STREAM_ID` (default `u64::MAX`).
    pub stream_id: u64,
    /// `PERF_SAMPLE_CPU` cpu (default `u32::MAX`).
    pub cpu: u32,
    /// `PERF_SAMPLE_PERIOD` (default `attr.sample_period`, the union slot).
    pub period: u64,
    /// `PERF_SAMPLE_READ`.
    pub read: Option<SampleRead>,
    /// `PERF_SAMPLE_CALLCHAIN` ips, context markers (`PERF_CONTEXT_*`) included.
    pub callchain: Vec<u64>,
    /// `PERF_SAMPLE_RAW` payload (`size` bytes after the u32 size).
    pub raw: Option<Range<usize>>,
    /// `PERF_SAMPLE_BRANCH_STACK`.
    pub branch_stack: Option<Box<BranchStack>>,
    /// `PERF_SAMPLE_REGS_USER`.
    pub user_regs: Option<Box<Regs>>,
    /// `PERF_SAMPLE_STACK_USER`.
    pub user_stack: Option<Box<StackUser>>,
    /// `PERF_SAMPLE_WEIGHT` (the full u64) or `PERF_SAMPLE_WEIGHT_STRUCT`
    /// (`var1_dw`), as perf's `perf_parse_sample_weight` (default 0).
    pub weight: u64,
    /// `PERF_SAMPLE_WEIGHT_STRUCT` `var2_w` (perf's `ins_lat`, default 0).
    pub ins_lat: u16,
    /// `PERF_SAMPLE_WEIGHT_STRUCT` `var3_w` (perf's `retire_lat`, default 0).
    pub retire_lat: u16,
    /// `PERF_SAMPLE_DATA_SRC` (default [`PERF_MEM_DATA_SRC_NONE`], as
    /// perf's `evsel__parse_sample` sets it).
    pub data_src: u64,
    /// `PERF_SAMPLE_TRANSACTION` (default 0).
    pub transaction: u64,
    /// `PERF_SAMPLE_REGS_INTR`.
    pub intr_regs: Option<Box<Regs>>,
    /// `PERF_SAMPLE_PHYS_ADDR` (default 0).
    pub phys_addr: u64,
    /// `PERF_SAMPLE_CGROUP` (default 0).
    pub cgroup: u64,
    /// `PERF_SAMPLE_DATA_PAGE_SIZE` (default 0).
    pub data_page_size: u64,
    /// `PERF_SAMPLE_CODE_PAGE_SIZE` (default 0).
    pub code_page_size: u64,
    /// `PERF_SAMPLE_AUX` payload.
    pub aux: Option<Range<usize>>,
}

impl Sample {
    /// perf's starting point before any field is parsed:
    /// `memset 0; cpu = pid = tid = -1; stream_id = id = time = -1ULL;
    /// period = attr.sample_period; data_src = PERF_MEM_DATA_SRC_NONE`.
    #[inline]
    pub fn new(info: &ParseInfo) -> Self {
        Sample {
            ip: 0,
            pid: -1,
            tid: -1,
            time: u64::MAX,
            addr: 0,
            id: u64::MAX,
            stream_id: u64::MAX,
            cpu: u32::MAX,
            period: info.sample_period(),
            read: None,
            callchain: Vec::new(),
            raw: None,
            branch_stack: None,
            user_regs: None,
            user_stack: None,
            weight: 0,
            ins_lat: 0,
            retire_lat: 0,
            data_src: PERF_MEM_DATA_SRC_NONE,
            transaction: 0,
            intr_regs: None,
            phys_addr: 0,
            cgroup: 0,
            data_page_size: 0,
            code_page_size: 0,
            aux: None,
        }
    }

    /// Back to [`Sample::new`]'s values, field by field (no temporary
    /// copy), keeping the callchain's allocation.
    #[inline]
    pub fn reset(&mut self, info: &ParseInfo) {
        self.ip = 0;
        self.pid = -1;
        self.tid = -1;
        self.time = u64::MAX;
        self.addr = 0;
        self.id = u64::MAX;
        self.stream_id = u64::MAX;
        self.cpu = u32::MAX;
        self.period = info.sample_period();
        self.read = None;
        self.callchain.clear();
        self.raw = None;
        self.branch_stack = None;
        self.user_regs = None;
        self.user_stack = None;
        self.weight = 0;
        self.ins_lat = 0;
        self.retire_lat = 0;
        self.data_src = PERF_MEM_DATA_SRC_NONE;
        self.transaction = 0;
        self.intr_regs = None;
        self.phys_addr = 0;
        self.cgroup = 0;
        self.data_page_size = 0;
        self.code_page_size = 0;
        self.aux = None;
    }
}

// struct {
// 	struct perf_event_header	header;
//
// 	{ u64			id;	  } && PERF_SAMPLE_IDENTIFIER
// 	{ u64			ip;	  } && PERF_SAMPLE_IP
// 	{ u32			pid, tid; } && PERF_SAMPLE_TID
// 	{ u64			time;     } && PERF_SAMPLE_TIME
// 	{ u64			addr;     } && PERF_SAMPLE_ADDR
// 	{ u64			id;	  } && PERF_SAMPLE_ID
// 	{ u64			stream_id;} && PERF_SAMPLE_STREAM_ID
// 	{ u32			cpu, res; } && PERF_SAMPLE_CPU
// 	{ u64			period;   } && PERF_SAMPLE_PERIOD
// 	{ struct read_format	values;	  } && PERF_SAMPLE_READ
// 	{ u64			nr,
// 	  u64			ips[nr];  } && PERF_SAMPLE_CALLCHAIN
// 	{ u32			size;
// 	  char                  data[size];}&& PERF_SAMPLE_RAW
// 	{ u64                   nr;
// 	  { u64	hw_idx; } && PERF_SAMPLE_BRANCH_HW_INDEX
// 	  { u64 from, to, flags } lbr[nr];
// 	  { u64 counters; } cntr[nr] && PERF_SAMPLE_BRANCH_COUNTERS
// 	} && PERF_SAMPLE_BRANCH_STACK
// 	{ u64			abi; # enum perf_sample_regs_abi
// 	  u64			regs[weight(mask)]; } && PERF_SAMPLE_REGS_USER
// 	{ u64			size;
// 	  char			data[size];
// 	  u64			dyn_size; } && PERF_SAMPLE_STACK_USER
// 	{ union perf_sample_weight
// 	 {
// 		u64		full; && PERF_SAMPLE_WEIGHT
// 		struct {
// 			u32	var1_dw;
// 			u16	var2_w;
// 			u16	var3_w;
// 		} && PERF_SAMPLE_WEIGHT_STRUCT   (little-endian bitfield order)
// 	 }
// 	}
// 	{ u64			data_src; } && PERF_SAMPLE_DATA_SRC
// 	{ u64			transaction; } && PERF_SAMPLE_TRANSACTION
// 	{ u64			abi; # enum perf_sample_regs_abi
// 	  u64			regs[weight(mask)]; } && PERF_SAMPLE_REGS_INTR
// 	{ u64			phys_addr;} && PERF_SAMPLE_PHYS_ADDR
// 	{ u64			cgroup;} && PERF_SAMPLE_CGROUP
// 	{ u64			data_page_size;} && PERF_SAMPLE_DATA_PAGE_SIZE
// 	{ u64			code_page_size;} && PERF_SAMPLE_CODE_PAGE_SIZE
// 	{ u64			size;
// 	  char			data[size]; } && PERF_SAMPLE_AUX
// };
/// Fills `s` from a SAMPLE record (header included in `record`), in the
/// kernel's order, one block per `sample_type` bit. Extra bytes after the
/// last field are ignored, as perf does.
pub(crate) fn parse_sample(record: &[u8], info: &ParseInfo, s: &mut Sample) -> Result<()> {
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    let mut c = Cursor::new(record, HEADER_SIZE, "PERF_RECORD_SAMPLE");

    if has(PERF_SAMPLE_IDENTIFIER) {
        s.id = c.u64("id (IDENTIFIER)")?;
    }
    if has(PERF_SAMPLE_IP) {
        s.ip = c.u64("ip")?;
    }
    if has(PERF_SAMPLE_TID) {
        let (pid, tid) = c.u32_pair("pid, tid")?;
        (s.pid, s.tid) = (pid as i32, tid as i32);
    }
    if has(PERF_SAMPLE_TIME) {
        s.time = c.u64("time")?;
    }
    if has(PERF_SAMPLE_ADDR) {
        s.addr = c.u64("addr")?;
    }
    if has(PERF_SAMPLE_ID) {
        s.id = c.u64("id")?;
    }
    if has(PERF_SAMPLE_STREAM_ID) {
        s.stream_id = c.u64("stream_id")?;
    }
    if has(PERF_SAMPLE_CPU) {
        s.cpu = c.u32_pair("cpu, res")?.0;
    }
    if has(PERF_SAMPLE_PERIOD) {
        s.period = c.u64("period")?;
    }
    // Everything below is rare in live sampling; keep it out of line so the
    // common fixed-field path above stays small.
    if t & !PERF_SAMPLE_MASK != 0 {
        parse_variable(&mut c, info, s)?;
    }
    Ok(())
}

/// The fields after `period`.
#[inline(never)]
fn parse_variable(c: &mut Cursor<'_>, info: &ParseInfo, s: &mut Sample) -> Result<()> {
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;

    if has(PERF_SAMPLE_READ) {
        s.read = Some(parse_read(c, info.read_format())?);
    }
    if has(PERF_SAMPLE_CALLCHAIN) {
        let nr = c.u64("callchain.nr")?;
        s.callchain = c.u64_vec(nr, "callchain.ips[nr]")?;
    }
    if has(PERF_SAMPLE_RAW) {
        // The kernel pads data so that size + 4 is a multiple of 8; like perf,
        // step over exactly 4 + size bytes.
        let size = c.u32("raw.size")?;
        s.raw = Some(c.take(u64::from(size), "raw.data[size]")?);
    }
    if has(PERF_SAMPLE_BRANCH_STACK) {
        s.branch_stack = Some(Box::new(parse_branch_stack(c, info)?));
    }
    if has(PERF_SAMPLE_REGS_USER) {
        s.user_regs = Some(parse_regs(
            c,
            info.regs_user_mask(),
            info.regs_user_nr(),
            "regs_user",
        )?);
    }
    if has(PERF_SAMPLE_STACK_USER) {
        s.user_stack = Some(Box::new(parse_stack_user(c)?));
    }
    if t & PERF_SAMPLE_WEIGHT_TYPE != 0 {
        let full = c.u64("weight")?;
        if has(PERF_SAMPLE_WEIGHT) {
            s.weight = full;
        } else {
            // union perf_sample_weight: the struct view puts var1_dw in the
            // low 32 bits of the u64, var2_w above it, var3_w on top (the
            // uapi orders the members per bitfield endianness so this holds
            // on both), which is how perf_parse_sample_weight splits it.
            s.weight = full & 0xffff_ffff;
            s.ins_lat = (full >> 32) as u16;
            s.retire_lat = (full >> 48) as u16;
        }
    }
    if has(PERF_SAMPLE_DATA_SRC) {
        s.data_src = c.u64("data_src")?;
    }
    if has(PERF_SAMPLE_TRANSACTION) {
        s.transaction = c.u64("transaction")?;
    }
    if has(PERF_SAMPLE_REGS_INTR) {
        s.intr_regs = Some(parse_regs(
            c,
            info.regs_intr_mask(),
            info.regs_intr_nr(),
            "regs_intr",
        )?);
    }
    if has(PERF_SAMPLE_PHYS_ADDR) {
        s.phys_addr = c.u64("phys_addr")?;
    }
    if has(PERF_SAMPLE_CGROUP) {
        s.cgroup = c.u64("cgroup")?;
    }
    if has(PERF_SAMPLE_DATA_PAGE_SIZE) {
        s.data_page_size = c.u64("data_page_size")?;
    }
    if has(PERF_SAMPLE_CODE_PAGE_SIZE) {
        s.code_page_size = c.u64("code_page_size")?;
    }
    if has(PERF_SAMPLE_AUX) {
        let size = c.u64("aux.size")?;
        s.aux = Some(c.take(size, "aux.data[size]")?);
    }
    Ok(())
}

// { u64 nr; { u64 hw_idx; } && HW_INDEX; { u64 from, to, flags } lbr[nr];
//   { u64 counters; } cntr[nr] && COUNTERS }
fn parse_branch_stack(c: &mut Cursor<'_>, info: &ParseInfo) -> Result<BranchStack> {
    let nr = c.u64("branch_stack.nr")?;
    let hw_idx = if info.branch_hw_index() {
        Some(c.u64("branch_stack.hw_idx")?)
    } else {
        None
    };
    let entries = c
        .take_array(nr, 24, "branch_stack.lbr[nr]")?
        .chunks_exact(24)
        .map(|e| {
            let (from, rest) = e.split_at(8);
            let (to, flags) = rest.split_at(8);
            BranchEntry {
                from: ne_u64(from),
                to: ne_u64(to),
                flags: ne_u64(flags),
            }
        })
        .collect();
    let counters = if info.branch_counters() {
        c.u64_vec(nr, "branch_stack.cntr[nr]")?
    } else {
        Vec::new()
    };
    Ok(BranchStack {
        hw_idx,
        entries,
        counters,
    })
}

// { u64 abi; u64 regs[weight(mask)]; } — no regs when abi == PERF_SAMPLE_REGS_ABI_NONE.
fn parse_regs(c: &mut Cursor<'_>, mask: u64, nr: u64, field: &'static str) -> Result<Box<Regs>> {
    let abi = c.u64(field)?;
    let regs = if abi != 0 {
        c.u64_vec(nr, field)?
    } else {
        Vec::new()
    };
    Ok(Box::new(Regs { abi, mask, regs }))
}

// { u64 size; char data[size]; u64 dyn_size; } — only size when size == 0.
fn parse_stack_user(c: &mut Cursor<'_>) -> Result<StackUser> {
    let size = c.u64("stack_user.size")?;
    if size == 0 {
        return Ok(StackUser {
            data: c.pos()..c.pos(),
            dyn_size: 0,
        });
    }
    let data = c.take(size, "stack_user.data[size]")?;
    let dyn_size = c.u64("stack_user.dyn_size")?;
    if dyn_size > size {
        // perf: WARN_ONCE("user stack dump failure") and -EFAULT.
        return Err(c.malformed(format!(
            "stack_user.dyn_size {dyn_size} larger than size {size}"
        )));
    }
    Ok(StackUser { data, dyn_size })
}

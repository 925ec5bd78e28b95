// SPDX-License-Identifier: GPL-2.0-only
//! The hot path of live reading: the members every `sample_event` shows (ip,
//! pid, tid, time, addr, id, stream_id, cpu, period, and the RAW payload of
//! tracepoints) read at offsets computed once per evsel, without filling a
//! whole [`Sample`](super::Sample).
//!
//! It covers the `sample_type`s made only of the fixed-size fields and RAW
//! (what tracepoint and counting-sample users ask for). For anything else,
//! and for records too short for the layout, [`sample_members`] answers None
//! and the caller uses [`parse_into`](super::parse_into), which gives the
//! same values or names the error; the tests check the two agree.

use std::ops::Range;

use super::abi::*;
use super::cursor::{ne_u32, ne_u64};
use super::sample::Sample;
use super::ParseInfo;

/// The sample members: the one list of them, which every other list derives
/// from ([`SampleMembers`], [`MEMBERS`], [`member_sources`], and in the
/// Python module the `sample_*` attributes of every event class, the members
/// tracepoint samples answer first, the columns of `read_columns()`).
///
/// One row per member, in the order the Python module lists them:
///
/// | | |
/// |---|---|
/// | field | the [`SampleMembers`] (and [`Sample`]) field |
/// | attribute | the Python attribute, also the `read_columns()` column |
/// | type | `u64`, `u32` or `i32` (a 32-bit member is one half of a u64 of the record) |
/// | doc | the attribute's docstring, as the C module's |
/// | bit | the `sample_type` bit of the u64 that holds it (a `perf_core::record` constant) |
/// | half | for a 32-bit member, which u32 of that u64 in memory (0: the first) |
/// | default | perf's value when the evsel does not sample it (a [`MemberDefault`]) |
///
/// The macro hands the rows to `$callback!`, after the tokens given in
/// braces, if any. A consumer matches the rows with
/// `$(($field:ident, $attr:ident, $ty:ty, $doc:literal, $($layout:tt)*)),*`:
///
/// ```
/// macro_rules! attributes {
///     ($(($field:ident, $attr:ident, $ty:ty, $doc:literal, $($layout:tt)*)),* $(,)?) => {
///         [$(stringify!($attr)),*]
///     };
/// }
/// let names = perf_core::sample_member_list!(attributes);
/// assert_eq!(names[..2], ["sample_ip", "sample_pid"]);
/// ```
#[macro_export]
macro_rules! sample_member_list {
    ($callback:ident $(! { $($before:tt)* })?) => {
        $callback! { $($($before)*)?
            // field     attribute         type doc                bit                    half default
            (ip,        sample_ip,        u64, "event ip",        PERF_SAMPLE_IP,        0,   Zero),
            (pid,       sample_pid,       i32, "event pid",       PERF_SAMPLE_TID,       0,   Ones),
            (tid,       sample_tid,       i32, "event tid",       PERF_SAMPLE_TID,       1,   Ones),
            (time,      sample_time,      u64, "event timestamp", PERF_SAMPLE_TIME,      0,   Ones),
            (addr,      sample_addr,      u64, "event addr",      PERF_SAMPLE_ADDR,      0,   Zero),
            (id,        sample_id,        u64, "event id",        PERF_SAMPLE_ID,        0,   Ones),
            (stream_id, sample_stream_id, u64, "event stream id", PERF_SAMPLE_STREAM_ID, 0,   Ones),
            (cpu,       sample_cpu,       u32, "event cpu",       PERF_SAMPLE_CPU,       0,   Ones),
            (period,    sample_period,    u64, "event period",    PERF_SAMPLE_PERIOD,    0,   Period),
        }
    };
}

/// perf's value of a member the evsel does not sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberDefault {
    /// 0.
    Zero,
    /// All ones: -1 for pid and tid, `u32::MAX` for cpu, `u64::MAX`.
    Ones,
    /// `attr.sample_period`.
    Period,
}

/// The types of the sample members, as the u64 words the readers move
/// them in (a 32-bit member as the bits of its u32).
trait Word: Copy {
    /// 32 for the members that are half of a record u64.
    const BITS: u32;
    fn to_word(self) -> u64;
    fn from_word(w: u64) -> Self;
}

impl Word for u64 {
    const BITS: u32 = 64;
    fn to_word(self) -> u64 {
        self
    }
    fn from_word(w: u64) -> Self {
        w
    }
}

impl Word for u32 {
    const BITS: u32 = 32;
    fn to_word(self) -> u64 {
        u64::from(self)
    }
    fn from_word(w: u64) -> Self {
        w as u32
    }
}

impl Word for i32 {
    const BITS: u32 = 32;
    fn to_word(self) -> u64 {
        u64::from(self as u32)
    }
    fn from_word(w: u64) -> Self {
        w as u32 as i32
    }
}

/// Where a member is in a record, from its row of [`sample_member_list!`].
#[derive(Debug, Clone, Copy)]
struct Row {
    bit: u64,
    half: u8,
    narrow: bool,
    default: MemberDefault,
}

macro_rules! define_members {
    ($(($field:ident, $attr:ident, $ty:ty, $doc:literal, $bit:ident, $half:literal, $default:ident)),* $(,)?) => {
        /// The sample members the Python module shows (see
        /// [`sample_member_list!`](crate::sample_member_list), with perf's defaults for
        /// those the evsel does not sample), and the `PERF_SAMPLE_RAW` payload.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct SampleMembers {
            $(#[doc = $doc] pub $field: $ty,)*
            /// `PERF_SAMPLE_RAW` payload, as a range of the record's bytes.
            pub raw: Option<Range<usize>>,
        }

        impl SampleMembers {
            /// Number of members (without `raw`).
            pub const COUNT: usize = [$(stringify!($field)),*].len();

            /// The members of a sample the full parser filled.
            pub fn of(s: &Sample) -> Self {
                SampleMembers {
                    $($field: s.$field,)*
                    raw: s.raw.clone(),
                }
            }

            /// Each of [`MEMBERS`], in that order, as the u64 a
            /// [`MemberSource`] reads (pid and tid as the bits of their u32).
            pub fn words(&self) -> [u64; SampleMembers::COUNT] {
                [$(Word::to_word(self.$field)),*]
            }

            /// The members from [`words`](Self::words) and the payload.
            #[inline(always)]
            fn from_words(words: [u64; SampleMembers::COUNT], raw: Option<Range<usize>>) -> Self {
                let [$($field),*] = words;
                SampleMembers {
                    $($field: <$ty as Word>::from_word($field),)*
                    raw,
                }
            }
        }

        /// The members, by [`SampleMembers`] field name, in the order of
        /// [`MemberSources::at`] and [`SampleMembers::words`].
        pub const MEMBERS: [&str; SampleMembers::COUNT] = [$(stringify!($field)),*];

        const ROWS: [Row; SampleMembers::COUNT] = [$(Row {
            bit: $bit,
            half: $half,
            narrow: <$ty as Word>::BITS == 32,
            default: MemberDefault::$default,
        }),*];
    };
}

crate::sample_member_list!(define_members);

/// Where each member comes from: for each of [`MEMBERS`], a slot of the word
/// table [`sample_members`] fills (1..=10: the record's u64s after the
/// header, in order; `DEFAULT_*`: perf's defaults for members not sampled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembersLayout {
    slot: [u8; SampleMembers::COUNT],
    /// Number of u64 fields after the header (0..=10).
    words: u8,
    /// Byte offset of `raw.size` (0: no RAW).
    raw: u16,
    /// Bytes the record needs for the fixed fields (and `raw.size`).
    end: u16,
}

/// Slots of the word table holding the defaults.
const DEFAULT_ZERO: u8 = 11;
const DEFAULT_ONES: u8 = 12; // u64::MAX; also pid = tid = -1 and cpu = u32::MAX
const DEFAULT_PERIOD: u8 = 13;
const SLOTS: usize = 16;

impl MembersLayout {
    /// The layout for `sample_type`, if it has only fixed-size fields and RAW.
    pub(crate) fn new(sample_type: u64) -> Option<Self> {
        if sample_type & !(PERF_SAMPLE_MASK | PERF_SAMPLE_RAW) != 0 {
            return None;
        }
        // The slot of each fixed u64 the record has, in the kernel's order
        // (see sample.rs).
        let mut words = 0u8;
        let mut slots = [0u8; 64];
        for bit in [
            PERF_SAMPLE_IDENTIFIER,
            PERF_SAMPLE_IP,
            PERF_SAMPLE_TID,
            PERF_SAMPLE_TIME,
            PERF_SAMPLE_ADDR,
            PERF_SAMPLE_ID,
            PERF_SAMPLE_STREAM_ID,
            PERF_SAMPLE_CPU,
            PERF_SAMPLE_PERIOD,
        ] {
            if sample_type & bit != 0 {
                words += 1;
                slots[bit.trailing_zeros() as usize] = words;
            }
        }
        let slot_of = |bit: u64| slots[bit.trailing_zeros() as usize % 64];
        let mut layout = MembersLayout {
            slot: [0; SampleMembers::COUNT],
            words,
            raw: 0,
            end: 0,
        };
        for (i, row) in ROWS.iter().enumerate() {
            let mut slot = slot_of(row.bit);
            if slot == 0 && row.bit == PERF_SAMPLE_ID {
                // PERF_SAMPLE_ID, later in the record, wins over IDENTIFIER
                // as in the full parser (the kernel writes the same value
                // to both).
                slot = slot_of(PERF_SAMPLE_IDENTIFIER);
            }
            if slot == 0 {
                slot = match row.default {
                    MemberDefault::Zero => DEFAULT_ZERO,
                    MemberDefault::Ones => DEFAULT_ONES,
                    MemberDefault::Period => DEFAULT_PERIOD,
                };
            }
            layout.slot[i] = slot;
        }
        let fixed = HEADER_SIZE as u16 + 8 * u16::from(words);
        if sample_type & PERF_SAMPLE_RAW != 0 {
            layout.raw = fixed;
            layout.end = fixed + 4;
        } else {
            layout.end = fixed;
        }
        Some(layout)
    }
}

/// The shift that brings u32 number `half` (in memory) of a native-endian
/// u64 down to its low bits.
fn half_shift(half: u8) -> u8 {
    if cfg!(target_endian = "little") {
        32 * half
    } else {
        32 * (1 - half)
    }
}

/// The members of a SAMPLE `record` (header included) of an evsel whose
/// `sample_type` the fast layout covers; None for other records, other
/// layouts and records too short for the layout (use `parse_into` then).
// Inlined into the read loop: it runs once per event.
#[inline(always)]
pub fn sample_members(record: &[u8], info: &ParseInfo) -> Option<SampleMembers> {
    let layout = info.members_layout()?;
    if ne_u32(record) != PERF_RECORD_SAMPLE || record.len() < usize::from(layout.end) {
        return None;
    }
    // Every member is then one load from a table of 16 words, without
    // branches: the record's fixed u64s in slots 1.., the defaults after.
    let mut w = [0u64; SLOTS];
    let body = record.get(HEADER_SIZE..).unwrap_or_default();
    for (slot, word) in w[1..=10]
        .iter_mut()
        .zip(body.chunks_exact(8))
        .take(usize::from(layout.words))
    {
        *slot = ne_u64(word);
    }
    w[usize::from(DEFAULT_ONES)] = u64::MAX;
    w[usize::from(DEFAULT_PERIOD)] = info.sample_period();
    let raw = match usize::from(layout.raw) {
        0 => None,
        off => {
            let size = record.get(off..).map_or(0, ne_u32) as usize;
            let start = off + 4;
            let end = start.checked_add(size)?;
            if end > record.len() {
                return None;
            }
            Some(start..end)
        }
    };
    // The shift of a 32-bit member is a constant of its row.
    let words = std::array::from_fn(|i| {
        let word = w[usize::from(layout.slot[i]) % SLOTS];
        match ROWS.get(i) {
            Some(r) if r.narrow => word >> half_shift(r.half),
            _ => word,
        }
    });
    Some(SampleMembers::from_words(words, raw))
}

/// Where one member of a fixed-layout SAMPLE comes from (see [`member_sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberSource {
    /// The u64 at this byte offset of the record.
    U64(usize),
    /// The u32 at this byte offset of the record.
    U32(usize),
    /// No field: perf's default, the same for every record.
    Const(u64),
}

/// Where the members are in the SAMPLEs of one evsel (see [`member_sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberSources {
    /// Each of [`MEMBERS`], in that order.
    pub at: [MemberSource; SampleMembers::COUNT],
    /// Bytes a record needs for them (and for `raw.size`).
    pub need: usize,
    /// Offset of `raw.size`, with PERF_SAMPLE_RAW: the payload must fit in
    /// the record, as the full parser checks.
    pub raw: Option<usize>,
}

/// Where each of [`MEMBERS`] is in the SAMPLEs of an evsel whose
/// `sample_type` has only fixed-size fields and RAW: the columnar reader
/// reads just the members it wants this way. None for other layouts (use
/// [`sample_members`]). Defaults are as [`SampleMembers`] has them (pid and
/// tid -1 as u32).
pub fn member_sources(info: &ParseInfo) -> Option<MemberSources> {
    let l = info.members_layout()?;
    let at = std::array::from_fn(|i| {
        let narrow = ROWS.get(i).is_some_and(|r| r.narrow);
        let mask = if narrow {
            u64::from(u32::MAX)
        } else {
            u64::MAX
        };
        match l.slot[i] {
            DEFAULT_ZERO => MemberSource::Const(0),
            DEFAULT_ONES => MemberSource::Const(mask),
            DEFAULT_PERIOD => MemberSource::Const(info.sample_period() & mask),
            k => {
                let at = HEADER_SIZE + 8 * (usize::from(k) - 1);
                match ROWS.get(i) {
                    Some(r) if r.narrow => MemberSource::U32(at + 4 * usize::from(r.half)),
                    _ => MemberSource::U64(at),
                }
            }
        }
    });
    Some(MemberSources {
        at,
        need: usize::from(l.end),
        raw: (l.raw != 0).then_some(usize::from(l.raw)),
    })
}

// SPDX-License-Identifier: GPL-2.0-only
//! The bodies of perf's own records (types 64 and up), from native bytes
//! (foreign records are converted first, see [`swap`](super::swap)).

use crate::attr::Attr;
use crate::endian::Endian;
use crate::record::HEADER_SIZE;

/// `PERF_EVENT_UPDATE__UNIT`.
pub const EVENT_UPDATE_UNIT: u64 = 0;
/// `PERF_EVENT_UPDATE__SCALE`.
pub const EVENT_UPDATE_SCALE: u64 = 1;
/// `PERF_EVENT_UPDATE__NAME`.
pub const EVENT_UPDATE_NAME: u64 = 2;
/// `PERF_EVENT_UPDATE__CPUS`.
pub const EVENT_UPDATE_CPUS: u64 = 3;

const NE: Endian = Endian::NATIVE;

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    NE.u64_at(b, at)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    NE.u32_at(b, at)
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    NE.u16_at(b, at)
}

/// The bytes of a NUL-padded string, up to its first NUL.
fn c_str(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(b.get(..end).unwrap_or_default()).into_owned()
}

/// PERF_RECORD_HEADER_ATTR: `{ header; struct perf_event_attr attr; u64 id[]; }`.
/// Returns the attr and its ids; `None` if the record is shorter than the
/// attr's own `size` says.
pub fn header_attr(rec: &[u8]) -> Option<(Attr, Vec<u64>, u64)> {
    let size = u64::from(u32_at(rec, HEADER_SIZE + 4)?);
    let size = if size == 0 { 64 } else { size };
    let end = HEADER_SIZE.checked_add(usize::try_from(size).ok()?)?;
    let image = rec.get(HEADER_SIZE..end)?;
    let ids = rec
        .get(end..)?
        .chunks_exact(8)
        .filter_map(|w| u64_at(w, 0))
        .collect();
    Some((Attr::from_image(image, NE), ids, size))
}

/// What a PERF_RECORD_EVENT_UPDATE changes.
#[derive(Debug, Clone, PartialEq)]
pub enum EventUpdate {
    /// `PERF_EVENT_UPDATE__UNIT`.
    Unit(String),
    /// `PERF_EVENT_UPDATE__SCALE`.
    Scale(f64),
    /// `PERF_EVENT_UPDATE__NAME`.
    Name(String),
    /// `PERF_EVENT_UPDATE__CPUS`.
    Cpus(Vec<i32>),
    /// Another type.
    Other(u64),
}

/// PERF_RECORD_EVENT_UPDATE: `{ header; u64 type; u64 id; data }`, as
/// (id, update).
pub fn event_update(rec: &[u8]) -> Option<(u64, EventUpdate)> {
    let type_ = u64_at(rec, 8)?;
    let id = u64_at(rec, 16)?;
    let data = rec.get(24..)?;
    let update = match type_ {
        EVENT_UPDATE_UNIT => EventUpdate::Unit(c_str(data)),
        EVENT_UPDATE_NAME => EventUpdate::Name(c_str(data)),
        EVENT_UPDATE_SCALE => EventUpdate::Scale(f64::from_bits(u64_at(data, 0)?)),
        EVENT_UPDATE_CPUS => EventUpdate::Cpus(cpu_map_data(data)?),
        t => EventUpdate::Other(t),
    };
    Some((id, update))
}

/// A `struct perf_record_cpu_map_data` (packed): `u16 type`, then CPUS
/// `{ u16 nr; u16 cpu[nr]; }`, MASK `{ u16 nr; u16 long_size; [pad 4 if 8]
/// mask[nr]; }` or RANGE_CPUS `{ u8 any_cpu; u8 pad; u16 start, end; }`.
/// The CPUs, -1 for "any CPU" (perf's dummy value).
pub fn cpu_map_data(d: &[u8]) -> Option<Vec<i32>> {
    let cpu = |c: u16| if c == u16::MAX { -1 } else { i32::from(c) };
    match u16_at(d, 0)? {
        0 => {
            let nr = usize::from(u16_at(d, 2)?);
            (0..nr).map(|i| u16_at(d, 4 + 2 * i).map(cpu)).collect()
        }
        1 => {
            let nr = usize::from(u16_at(d, 2)?);
            let (width, at) = match u16_at(d, 4)? {
                4 => (32, 6),
                8 => (64, 10),
                _ => return None,
            };
            let mut out = Vec::new();
            for i in 0..nr {
                let word = if width == 32 {
                    u64::from(u32_at(d, at + 4 * i)?)
                } else {
                    u64_at(d, at + 8 * i)?
                };
                let bits = (0..width).filter(|b| word & (1 << b) != 0);
                out.extend(bits.map(|b| i32::try_from(i * width + b).unwrap_or(i32::MAX)));
            }
            Some(out)
        }
        2 => {
            let any = *d.get(2)? != 0;
            let (start, end) = (u16_at(d, 4)?, u16_at(d, 6)?);
            let any = any.then_some(-1);
            Some(
                any.into_iter()
                    .chain((start..=end).map(i32::from))
                    .collect(),
            )
        }
        _ => None,
    }
}

/// PERF_RECORD_THREAD_MAP: `{ header; u64 nr; { u64 pid; char comm[16]; }[nr] }`.
pub fn thread_map(rec: &[u8]) -> Option<Vec<(u64, String)>> {
    let nr = u64_at(rec, 8)?;
    let entries = rec.get(16..)?;
    if u64::try_from(entries.len() / 24).ok()? < nr {
        return None;
    }
    Some(
        entries
            .chunks_exact(24)
            .take(usize::try_from(nr).ok()?)
            .map(|e| {
                (
                    u64_at(e, 0).unwrap_or(0),
                    c_str(e.get(8..).unwrap_or_default()),
                )
            })
            .collect(),
    )
}

/// PERF_RECORD_STAT_CONFIG: `{ header; u64 nr; { u64 tag, val; }[nr] }`.
pub fn stat_config(rec: &[u8]) -> Option<Vec<(u64, u64)>> {
    let nr = u64_at(rec, 8)?;
    let entries = rec.get(16..)?;
    if u64::try_from(entries.len() / 16).ok()? < nr {
        return None;
    }
    Some(
        entries
            .chunks_exact(16)
            .take(usize::try_from(nr).ok()?)
            .map(|e| (u64_at(e, 0).unwrap_or(0), u64_at(e, 8).unwrap_or(0)))
            .collect(),
    )
}

/// PERF_RECORD_STAT: one counter value of `perf stat record`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// The evsel's sample id.
    pub id: u64,
    /// The CPU (`u32::MAX`, i.e. -1, for a counter on any CPU).
    pub cpu: u32,
    /// The thread's index in the THREAD_MAP.
    pub thread: u32,
    /// The count.
    pub val: u64,
    /// Time enabled.
    pub ena: u64,
    /// Time running.
    pub run: u64,
}

/// PERF_RECORD_STAT: `{ header; u64 id; u32 cpu; u32 thread; u64 val, ena, run; }`.
pub fn stat(rec: &[u8]) -> Option<Stat> {
    Some(Stat {
        id: u64_at(rec, 8)?,
        cpu: u32_at(rec, 16)?,
        thread: u32_at(rec, 20)?,
        val: u64_at(rec, 24)?,
        ena: u64_at(rec, 32)?,
        run: u64_at(rec, 40)?,
    })
}

/// PERF_RECORD_STAT_ROUND: the end of one `perf stat` interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatRound {
    /// `PERF_STAT_ROUND_TYPE__INTERVAL` (0) or `__FINAL` (1).
    pub type_: u64,
    /// Time of the round.
    pub time: u64,
}

/// PERF_RECORD_STAT_ROUND: `{ header; u64 type; u64 time; }`.
pub fn stat_round(rec: &[u8]) -> Option<StatRound> {
    Some(StatRound {
        type_: u64_at(rec, 8)?,
        time: u64_at(rec, 16)?,
    })
}

/// An entry of PERF_RECORD_ID_INDEX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdIndexEntry {
    /// The sample id.
    pub id: u64,
    /// The fd's index in its evsel's fd table.
    pub idx: u64,
    /// Its CPU (-1 as u64 for any).
    pub cpu: u64,
    /// Its thread (-1 as u64 for any).
    pub tid: u64,
}

/// PERF_RECORD_ID_INDEX: `{ header; u64 nr; { u64 id, idx, cpu, tid; }[nr] }`.
pub fn id_index(rec: &[u8]) -> Option<Vec<IdIndexEntry>> {
    let nr = u64_at(rec, 8)?;
    let entries = rec.get(16..)?;
    if u64::try_from(entries.len() / 32).ok()? < nr {
        return None;
    }
    Some(
        entries
            .chunks_exact(32)
            .take(usize::try_from(nr).ok()?)
            .map(|e| IdIndexEntry {
                id: u64_at(e, 0).unwrap_or(0),
                idx: u64_at(e, 8).unwrap_or(0),
                cpu: u64_at(e, 16).unwrap_or(0),
                tid: u64_at(e, 24).unwrap_or(0),
            })
            .collect(),
    )
}

/// PERF_RECORD_TIME_CONV: the TSC conversion parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeConv {
    /// `time_shift`.
    pub time_shift: u64,
    /// `time_mult`.
    pub time_mult: u64,
    /// `time_zero`.
    pub time_zero: u64,
    /// `time_cycles` (newer records).
    pub time_cycles: u64,
    /// `time_mask` (newer records).
    pub time_mask: u64,
    /// `cap_user_time_zero`.
    pub cap_user_time_zero: bool,
    /// `cap_user_time_short`.
    pub cap_user_time_short: bool,
}

/// PERF_RECORD_TIME_CONV: `{ header; u64 time_shift, time_mult, time_zero;
/// u64 time_cycles, time_mask; u8 cap_user_time_zero, cap_user_time_short; }`.
pub fn time_conv(rec: &[u8]) -> Option<TimeConv> {
    Some(TimeConv {
        time_shift: u64_at(rec, 8)?,
        time_mult: u64_at(rec, 16)?,
        time_zero: u64_at(rec, 24)?,
        time_cycles: u64_at(rec, 32).unwrap_or(0),
        time_mask: u64_at(rec, 40).unwrap_or(0),
        cap_user_time_zero: rec.get(48).is_some_and(|&b| b != 0),
        cap_user_time_short: rec.get(49).is_some_and(|&b| b != 0),
    })
}

/// PERF_RECORD_HEADER_FEATURE: `{ header; u64 feat_id; char data[]; }`.
pub fn header_feature(rec: &[u8]) -> Option<(u64, &[u8])> {
    Some((u64_at(rec, 8)?, rec.get(16..)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_maps_of_every_encoding() {
        let mut cpus = vec![0u8, 0];
        cpus.extend_from_slice(&3u16.to_ne_bytes());
        for c in [0u16, 2, 0xffff] {
            cpus.extend_from_slice(&c.to_ne_bytes());
        }
        assert_eq!(cpu_map_data(&cpus), Some(vec![0, 2, -1]));
        let mut mask = 1u16.to_ne_bytes().to_vec();
        mask.extend_from_slice(&1u16.to_ne_bytes());
        mask.extend_from_slice(&8u16.to_ne_bytes());
        mask.extend_from_slice(&[0; 4]);
        mask.extend_from_slice(&0b1011u64.to_ne_bytes());
        assert_eq!(cpu_map_data(&mask), Some(vec![0, 1, 3]));
        let mut range = 2u16.to_ne_bytes().to_vec();
        range.extend_from_slice(&[1, 0]);
        range.extend_from_slice(&0u16.to_ne_bytes());
        range.extend_from_slice(&1u16.to_ne_bytes());
        assert_eq!(cpu_map_data(&range), Some(vec![-1, 0, 1]));
        assert_eq!(cpu_map_data(&[9, 0]), None);
        assert_eq!(cpu_map_data(&cpus[..6]), None);
    }

    #[test]
    fn counts_larger_than_the_record_are_refused() {
        let mut rec = vec![0u8; 8];
        rec.extend_from_slice(&u64::MAX.to_ne_bytes());
        assert_eq!(thread_map(&rec), None);
        assert_eq!(stat_config(&rec), None);
        assert_eq!(id_index(&rec), None);
    }
}

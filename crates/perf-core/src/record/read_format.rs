// SPDX-License-Identifier: GPL-2.0-only
//! `struct read_format`: the counter values carried by `PERF_SAMPLE_READ`
//! samples and `PERF_RECORD_READ` records (perf's `struct sample_read`).

use super::abi::*;
use super::cursor::{ne_u64, Cursor};
use crate::error::Result;

/// One counter (perf's `struct sample_read_value`); fields that
/// `read_format` does not ask for are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadValue {
    /// The counter value.
    pub value: u64,
    /// Its event id (`PERF_FORMAT_ID`).
    pub id: u64,
    /// Samples lost (`PERF_FORMAT_LOST`).
    pub lost: u64,
}

/// The counters of a read: one, or a whole group (`PERF_FORMAT_GROUP`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadCounters {
    /// Without `PERF_FORMAT_GROUP`.
    One(ReadValue),
    /// With `PERF_FORMAT_GROUP`: the leader first, then the members.
    Group(Vec<ReadValue>),
}

/// A `struct read_format` (perf's `struct sample_read`); absent times are 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleRead {
    /// `PERF_FORMAT_TOTAL_TIME_ENABLED`.
    pub time_enabled: u64,
    /// `PERF_FORMAT_TOTAL_TIME_RUNNING`.
    pub time_running: u64,
    /// The values.
    pub counters: ReadCounters,
}

impl SampleRead {
    /// The values as a slice (one element without `PERF_FORMAT_GROUP`).
    pub fn values(&self) -> &[ReadValue] {
        match &self.counters {
            ReadCounters::One(v) => std::slice::from_ref(v),
            ReadCounters::Group(v) => v,
        }
    }
}

// struct read_format {
// 	{ u64		value;
// 	  { u64		time_enabled; } && PERF_FORMAT_TOTAL_TIME_ENABLED
// 	  { u64		time_running; } && PERF_FORMAT_TOTAL_TIME_RUNNING
// 	  { u64		id;           } && PERF_FORMAT_ID
// 	  { u64		lost;         } && PERF_FORMAT_LOST
// 	} && !PERF_FORMAT_GROUP
//
// 	{ u64		nr;
// 	  { u64		time_enabled; } && PERF_FORMAT_TOTAL_TIME_ENABLED
// 	  { u64		time_running; } && PERF_FORMAT_TOTAL_TIME_RUNNING
// 	  { u64		value;
// 	    { u64	id;           } && PERF_FORMAT_ID
// 	    { u64	lost;         } && PERF_FORMAT_LOST
// 	  }		cntr[nr];
// 	} && PERF_FORMAT_GROUP
// };
/// Reads a `struct read_format` laid out per `read_format`.
/// Parses a whole `struct read_format` image, as `read(2)` of a counter fd
/// returns it.
///
/// # Errors
/// `Error::Malformed` when the image is shorter than `read_format` says.
pub fn parse_read_format(bytes: &[u8], read_format: u64) -> Result<SampleRead> {
    parse_read(&mut Cursor::new(bytes, 0, "read_format"), read_format)
}

pub(crate) fn parse_read(c: &mut Cursor<'_>, read_format: u64) -> Result<SampleRead> {
    let has = |bit: u64| read_format & bit != 0;
    let opt = |c: &mut Cursor<'_>, bit: u64, field: &'static str| -> Result<u64> {
        if has(bit) {
            c.u64(field)
        } else {
            Ok(0)
        }
    };
    if !has(PERF_FORMAT_GROUP) {
        let value = c.u64("read_format.value")?;
        let time_enabled = opt(
            c,
            PERF_FORMAT_TOTAL_TIME_ENABLED,
            "read_format.time_enabled",
        )?;
        let time_running = opt(
            c,
            PERF_FORMAT_TOTAL_TIME_RUNNING,
            "read_format.time_running",
        )?;
        let id = opt(c, PERF_FORMAT_ID, "read_format.id")?;
        let lost = opt(c, PERF_FORMAT_LOST, "read_format.lost")?;
        return Ok(SampleRead {
            time_enabled,
            time_running,
            counters: ReadCounters::One(ReadValue { value, id, lost }),
        });
    }
    let nr = c.u64("read_format.nr")?;
    let time_enabled = opt(
        c,
        PERF_FORMAT_TOTAL_TIME_ENABLED,
        "read_format.time_enabled",
    )?;
    let time_running = opt(
        c,
        PERF_FORMAT_TOTAL_TIME_RUNNING,
        "read_format.time_running",
    )?;
    let (id, lost) = (has(PERF_FORMAT_ID), has(PERF_FORMAT_LOST));
    let item = 8 * (1 + u64::from(id) + u64::from(lost));
    let bytes = c.take_array(nr, item, "read_format.cntr[nr]")?;
    let values = bytes
        .chunks_exact(item as usize)
        .map(|e| {
            let mut words = e.chunks_exact(8).map(ne_u64);
            let value = words.next().unwrap_or(0);
            ReadValue {
                value,
                id: if id { words.next().unwrap_or(0) } else { 0 },
                lost: if lost { words.next().unwrap_or(0) } else { 0 },
            }
        })
        .collect();
    Ok(SampleRead {
        time_enabled,
        time_running,
        counters: ReadCounters::Group(values),
    })
}

// SPDX-License-Identifier: GPL-2.0-only
//! The `sample_id` trailer that `sample_id_all` appends to every non-SAMPLE
//! record.

use super::abi::*;
use super::cursor::Cursor;
use super::parse_info::ParseInfo;
use super::sample::Sample;
use crate::error::{Error, Result};

// struct sample_id {
// 	{ u32			pid, tid; } && PERF_SAMPLE_TID
// 	{ u64			time;     } && PERF_SAMPLE_TIME
// 	{ u64			id;       } && PERF_SAMPLE_ID
// 	{ u64			stream_id;} && PERF_SAMPLE_STREAM_ID
// 	{ u32			cpu, res; } && PERF_SAMPLE_CPU
// 	{ u64			id;	  } && PERF_SAMPLE_IDENTIFIER
// } && perf_event_attr::sample_id_all
/// Fills the `sample_id` fields of `s` from the end of a non-SAMPLE record
/// and returns the offset where the trailer starts (the end of the body).
///
/// perf (`perf_evsel__parse_id_sample`) walks backwards from the last u64
/// (`IDENTIFIER`, `CPU`, `STREAM_ID`, `ID`, `TIME`, `TID`); reading the same
/// fields forwards from `end - trailer_size` gives the same values. Like perf,
/// the last u64 is the one at `8 + 8 * ((size - 8) / 8) - 8`, so a size that
/// is not a multiple of 8 leaves its odd bytes after the trailer.
pub(crate) fn parse_sample_id(record: &[u8], info: &ParseInfo, s: &mut Sample) -> Result<usize> {
    let size = info.trailer_size();
    let words_end = HEADER_SIZE + (record.len().saturating_sub(HEADER_SIZE) & !7);
    let Some(start) = words_end.checked_sub(size).filter(|&st| st >= HEADER_SIZE) else {
        return Err(Error::Malformed {
            what: record_name(super::header(record).map_or(0, |h| h.type_)),
            detail: format!(
                "record of {} bytes is too short for its {size}-byte sample_id trailer",
                record.len()
            ),
        });
    };
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    let mut c = Cursor::new(record, start, "sample_id");
    if has(PERF_SAMPLE_TID) {
        let (pid, tid) = c.u32_pair("sample_id.pid, tid")?;
        (s.pid, s.tid) = (pid as i32, tid as i32);
    }
    if has(PERF_SAMPLE_TIME) {
        s.time = c.u64("sample_id.time")?;
    }
    if has(PERF_SAMPLE_ID) {
        s.id = c.u64("sample_id.id")?;
    }
    if has(PERF_SAMPLE_STREAM_ID) {
        s.stream_id = c.u64("sample_id.stream_id")?;
    }
    if has(PERF_SAMPLE_CPU) {
        s.cpu = c.u32_pair("sample_id.cpu, res")?.0;
    }
    if has(PERF_SAMPLE_IDENTIFIER) {
        // perf reads IDENTIFIER first and ID later, so ID wins when both are
        // set; the kernel writes the same value into both.
        let id = c.u64("sample_id.id (IDENTIFIER)")?;
        if !has(PERF_SAMPLE_ID) {
            s.id = id;
        }
    }
    Ok(start)
}

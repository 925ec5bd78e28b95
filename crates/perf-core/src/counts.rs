// SPDX-License-Identifier: GPL-2.0-only
//! Counting mode: `read(2)` of one event fd, decoded per `read_format`
//! (libperf's `perf_evsel__read` and `struct perf_counts_values`).

use crate::error::Result;
use crate::record::parse_read_format;
use crate::sys;

/// `struct perf_counts_values`: what one read of a counter says.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CountsValues {
    /// The counter value.
    pub val: u64,
    /// Time enabled (`PERF_FORMAT_TOTAL_TIME_ENABLED`).
    pub ena: u64,
    /// Time running (`PERF_FORMAT_TOTAL_TIME_RUNNING`).
    pub run: u64,
    /// The event id (`PERF_FORMAT_ID`).
    pub id: u64,
    /// Lost samples (`PERF_FORMAT_LOST`).
    pub lost: u64,
}

impl CountsValues {
    /// The change from `prev` to `self` of val, ena and run (id and lost
    /// are copied), as perf ≥ 6.17's `evsel.read()` reports.
    pub fn delta(&self, prev: &CountsValues) -> CountsValues {
        CountsValues {
            val: self.val.wrapping_sub(prev.val),
            ena: self.ena.wrapping_sub(prev.ena),
            run: self.run.wrapping_sub(prev.run),
            id: self.id,
            lost: self.lost,
        }
    }
}

/// Reads and decodes one counter fd (a group leader read with
/// `PERF_FORMAT_GROUP` reports the leader's value).
pub fn read_counter(fd: std::os::fd::RawFd, read_format: u64) -> Result<CountsValues> {
    let mut buf = [0u8; 8 * 64];
    let n = sys::read(fd, &mut buf)?;
    decode(&buf[..n], read_format)
}

/// Decodes a `struct read_format` image (a group read reports its leader).
pub fn decode(bytes: &[u8], read_format: u64) -> Result<CountsValues> {
    let r = parse_read_format(bytes, read_format)?;
    let v = r.values().first().copied().unwrap_or_default();
    Ok(CountsValues {
        val: v.value,
        ena: r.time_enabled,
        run: r.time_running,
        id: v.id,
        lost: v.lost,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{
        PERF_FORMAT_GROUP, PERF_FORMAT_ID, PERF_FORMAT_TOTAL_TIME_ENABLED,
        PERF_FORMAT_TOTAL_TIME_RUNNING,
    };

    fn image(words: &[u64]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    #[test]
    fn single_and_group() {
        let rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
        let v = decode(&image(&[5, 10, 9, 77]), rf).unwrap();
        assert_eq!((v.val, v.ena, v.run, v.id), (5, 10, 9, 77));
        let g = decode(&image(&[2, 10, 9, 5, 77, 6, 78]), rf | PERF_FORMAT_GROUP).unwrap();
        assert_eq!((g.val, g.ena, g.run, g.id), (5, 10, 9, 77));
        assert!(decode(&image(&[5, 10]), rf).is_err());
        assert_eq!(decode(&image(&[3]), 0).unwrap().val, 3);
    }

    #[test]
    fn delta() {
        let a = CountsValues {
            val: 10,
            ena: 100,
            run: 90,
            id: 1,
            lost: 0,
        };
        let b = CountsValues {
            val: 15,
            ena: 150,
            run: 140,
            id: 1,
            lost: 2,
        };
        assert_eq!(
            b.delta(&a),
            CountsValues {
                val: 5,
                ena: 50,
                run: 50,
                id: 1,
                lost: 2
            }
        );
    }
}

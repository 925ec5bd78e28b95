// SPDX-License-Identifier: GPL-2.0-only
//! The events of a perf.data file: perf's session `evlist` of evsels built
//! from the file's attrs, the id → evsel table, and perf's
//! `evlist__event2evsel` (which evsel a record belongs to).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::attr::{flag, Attr};
use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};
use crate::perf_data::abi::{record_name, PERF_TYPE_TRACEPOINT};
use crate::perf_data::user::EventUpdate;
use crate::perf_data::TracingData;
use crate::record::*;
use crate::tracefs::Format;

/// An event of the file: perf's `struct evsel` as a session reads it.
#[derive(Debug, Clone)]
pub struct Evsel {
    /// Its index in the file's attrs (perf's `evsel->core.idx`).
    pub idx: usize,
    /// The attr.
    pub attr: Attr,
    /// The name: from `HEADER_EVENT_DESC` (or an EVENT_UPDATE in pipe
    /// mode), else `sys:name` for a tracepoint, else empty.
    pub name: String,
    /// The sample ids of its fds.
    pub ids: Vec<u64>,
    /// The record layout of its attr.
    pub info: ParseInfo,
    /// The tracepoint's format from the file's tracing data.
    pub tp_format: Option<Arc<Format>>,
    /// The unit (`msec` for task-clock), from EVENT_UPDATE.
    pub unit: Option<String>,
    /// The scale, from EVENT_UPDATE.
    pub scale: Option<f64>,
    /// The CPUs it was opened on, from EVENT_UPDATE.
    pub cpus: Option<Vec<i32>>,
    /// Byte offset of `time` in its SAMPLE records.
    time_pos: Option<usize>,
    /// Byte offset of `time` in the `sample_id` trailer.
    trailer_time_pos: Option<usize>,
}

impl Evsel {
    /// An evsel for an attr.
    pub fn new(idx: usize, attr: Attr, ids: Vec<u64>) -> Evsel {
        let t = attr.sample_type;
        let before = |mask: u64| 8 * (t & mask).count_ones() as usize;
        let time_pos = (t & PERF_SAMPLE_TIME != 0).then(|| {
            HEADER_SIZE + before(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID)
        });
        let trailer_time_pos = (t & PERF_SAMPLE_TIME != 0 && attr.has(flag::SAMPLE_ID_ALL))
            .then(|| before(PERF_SAMPLE_TID));
        Evsel {
            idx,
            info: ParseInfo::new(&attr),
            attr,
            name: String::new(),
            ids,
            tp_format: None,
            unit: None,
            scale: None,
            cpus: None,
            time_pos,
            trailer_time_pos,
        }
    }

    /// The time of a native record of this evsel, as perf's
    /// `evsel__parse_sample_timestamp` gives it: the SAMPLE's `time`, or
    /// the `sample_id` trailer's; `None` when the layout has none.
    #[inline]
    pub fn timestamp(&self, header: Header, record: &[u8]) -> Option<u64> {
        let at = if header.type_ == PERF_RECORD_SAMPLE {
            self.time_pos?
        } else {
            let words_end = HEADER_SIZE + ((record.len().saturating_sub(HEADER_SIZE)) & !7);
            words_end.checked_sub(self.info.trailer_size())? + self.trailer_time_pos?
        };
        Endian::NATIVE.u64_at(record, at)
    }

    /// True for a tracepoint.
    pub fn is_tracepoint(&self) -> bool {
        self.attr.type_ == PERF_TYPE_TRACEPOINT
    }
}

/// A hasher for sample ids and tids (a multiplication: SipHash cost more
/// than the rest of finding an evsel or a thread), and for the columnar
/// reader's call chains (a word at a time: rotate, xor, multiply).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            self.write_u64(u64::from_ne_bytes(b));
        }
        for &b in words.remainder() {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_i32(&mut self, v: i32) {
        self.write_u64(u64::from(v as u32));
    }
}

/// The file's evsels.
#[derive(Debug, Clone, Default)]
pub struct Evlist {
    evsels: Vec<Evsel>,
    ids: HashMap<u64, usize, BuildHasherDefault<IdHasher>>,
}

impl Evlist {
    /// The evsels, in attr order.
    pub fn evsels(&self) -> &[Evsel] {
        &self.evsels
    }

    /// The evsel at `idx`.
    pub fn get(&self, idx: usize) -> Option<&Evsel> {
        self.evsels.get(idx)
    }

    /// The evsel a sample id belongs to.
    pub fn id2evsel(&self, id: u64) -> Option<&Evsel> {
        self.ids.get(&id).and_then(|&i| self.evsels.get(i))
    }

    /// Adds an evsel (file attrs, or a HEADER_ATTR record in pipe mode).
    pub fn add(&mut self, attr: Attr, ids: Vec<u64>) -> usize {
        let idx = self.evsels.len();
        for &id in &ids {
            self.ids.insert(id, idx);
        }
        self.evsels.push(Evsel::new(idx, attr, ids));
        idx
    }

    /// Names the evsels from `HEADER_EVENT_DESC` (by index, not
    /// overriding a name already set, as perf's `evlist__set_event_name`).
    pub fn set_names(&mut self, descs: &[crate::perf_data::EventDesc]) {
        for (evsel, d) in self.evsels.iter_mut().zip(descs) {
            if evsel.name.is_empty() {
                evsel.name.clone_from(&d.name);
            }
        }
    }

    /// Gives tracepoint evsels their formats from the tracing data, and a
    /// `sys:name` name when they have none (perf's
    /// `evsel__prepare_tracepoint_event`).
    pub fn set_tracepoint_formats(&mut self, t: &TracingData) {
        for evsel in self.evsels.iter_mut().filter(|e| e.is_tracepoint()) {
            if let Some(f) = t.format(evsel.attr.config) {
                if evsel.name.is_empty() {
                    evsel.name = format!("{}:{}", f.system, f.name);
                }
                evsel.tp_format = Some(Arc::clone(f));
            }
        }
    }

    /// Applies an EVENT_UPDATE to the evsel at `idx` (perf's
    /// `perf_event__process_event_update`). Returns false if there is none.
    pub fn update(&mut self, idx: usize, update: EventUpdate) -> bool {
        let Some(e) = self.evsels.get_mut(idx) else {
            return false;
        };
        match update {
            EventUpdate::Unit(u) => e.unit = Some(u),
            EventUpdate::Name(n) => e.name = n,
            EventUpdate::Scale(s) => e.scale = Some(s),
            EventUpdate::Cpus(c) => e.cpus = Some(c),
            EventUpdate::Other(_) => {}
        }
        true
    }

    /// The first evsel's `sample_id_all` (perf's `evlist__sample_id_all`).
    pub fn sample_id_all(&self) -> bool {
        self.evsels.first().is_some_and(|e| e.info.sample_id_all())
    }

    /// perf's `evlist__valid_sample_type` and `evlist__valid_sample_id_all`:
    /// with several evsels, all must put the id at the same place and agree
    /// on `sample_id_all`, or records cannot be told apart.
    ///
    /// # Errors
    /// [`DataErrorKind::Malformed`] naming the evsel that disagrees.
    pub fn check(&self, path: &str) -> Result<()> {
        let Some(first) = self.evsels.first() else {
            return Ok(());
        };
        if self.evsels.len() == 1 {
            return Ok(());
        }
        for e in &self.evsels[1..] {
            let bad = if e.info.id_pos().is_none() || first.info.id_pos().is_none() {
                Some("events without PERF_SAMPLE_ID or PERF_SAMPLE_IDENTIFIER")
            } else if (e.info.id_pos(), e.info.is_pos())
                != (first.info.id_pos(), first.info.is_pos())
            {
                Some("a sample id at another position (non matching sample_type)")
            } else if e.info.sample_id_all() != first.info.sample_id_all() {
                Some("non matching sample_id_all")
            } else {
                None
            };
            if let Some(why) = bad {
                return Err(DataErrorKind::Malformed {
                    what: "attrs".into(),
                    detail: format!(
                        "{} and {} cannot be read from one file: {why}",
                        attr_label(e.idx, &e.name),
                        attr_label(0, &first.name)
                    ),
                }
                .at(path, 0));
            }
        }
        Ok(())
    }

    /// perf's `evlist__event2evsel`: the evsel of a record in byte order
    /// `order` (read before the record is converted). `Ok(None)` when the
    /// id matches no evsel.
    ///
    /// # Errors
    /// [`DataErrorKind::RecordSize`] for a record too short to hold its id.
    #[inline]
    pub fn event2evsel(
        &self,
        header: Header,
        record: &[u8],
        order: Endian,
        path: &str,
        offset: u64,
    ) -> Result<Option<&Evsel>> {
        let Some(first) = self.evsels.first() else {
            return Ok(None);
        };
        if self.evsels.len() == 1
            || (!first.info.sample_id_all() && header.type_ != PERF_RECORD_SAMPLE)
        {
            return Ok(Some(first));
        }
        let words = (record.len().saturating_sub(HEADER_SIZE)) / 8;
        let word = if header.type_ == PERF_RECORD_SAMPLE {
            first.info.id_pos().filter(|&p| p < words)
        } else {
            first.info.is_pos().and_then(|p| words.checked_sub(p))
        };
        let Some(word) = word else {
            return Err(DataErrorKind::RecordSize {
                record: record_name(header.type_),
                size: u64::from(header.size),
                detail: "too short to hold its sample id".into(),
            }
            .at(path, offset));
        };
        let id = order.u64_at(record, HEADER_SIZE + 8 * word).unwrap_or(0);
        // Synthesized records have an id of 0.
        if id == 0 {
            return Ok(Some(first));
        }
        Ok(self.ids.get(&id).and_then(|&i| self.evsels.get(i)))
    }
}

/// "attr 1 (cpu-clock)", or "attr 1" when the file names no events.
fn attr_label(idx: usize, name: &str) -> String {
    if name.is_empty() {
        format!("attr {idx}")
    } else {
        format!("attr {idx} ({name})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(sample_type: u64, sample_id_all: bool) -> Attr {
        let mut a = Attr {
            sample_type,
            ..Attr::default()
        };
        a.set(flag::SAMPLE_ID_ALL, sample_id_all);
        a
    }

    fn record(type_: u32, words: &[u64]) -> (Header, Vec<u8>) {
        let size = (8 + 8 * words.len()) as u16;
        let mut b = type_.to_ne_bytes().to_vec();
        b.extend_from_slice(&0u16.to_ne_bytes());
        b.extend_from_slice(&size.to_ne_bytes());
        for w in words {
            b.extend_from_slice(&w.to_ne_bytes());
        }
        (
            Header {
                type_,
                misc: 0,
                size,
            },
            b,
        )
    }

    #[test]
    fn identifier_and_id_positions() {
        let t = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
        let mut el = Evlist::default();
        el.add(attr(t, true), vec![10, 11]);
        el.add(attr(t, true), vec![20]);
        el.check("f").unwrap();
        let ne = Endian::NATIVE;
        let (h, r) = record(PERF_RECORD_SAMPLE, &[20, 0x1234, 5, 999]);
        assert_eq!(
            el.event2evsel(h, &r, ne, "f", 0).unwrap().map(|e| e.idx),
            Some(1)
        );
        assert_eq!(el.get(1).unwrap().timestamp(h, &r), Some(999));
        // A COMM with a trailer: { tid; time; identifier }.
        let (h, r) = record(PERF_RECORD_COMM, &[1, 2, 5, 777, 11]);
        assert_eq!(
            el.event2evsel(h, &r, ne, "f", 0).unwrap().map(|e| e.idx),
            Some(0)
        );
        assert_eq!(el.get(0).unwrap().timestamp(h, &r), Some(777));
        // Unknown id, id 0 (synthesized), and too short.
        let (h, r) = record(PERF_RECORD_SAMPLE, &[99, 0, 0, 0]);
        assert!(el.event2evsel(h, &r, ne, "f", 0).unwrap().is_none());
        let (h, r) = record(PERF_RECORD_SAMPLE, &[0, 0, 0, 0]);
        assert_eq!(
            el.event2evsel(h, &r, ne, "f", 0).unwrap().map(|e| e.idx),
            Some(0)
        );
        let (h, r) = record(PERF_RECORD_SAMPLE, &[]);
        assert!(el.event2evsel(h, &r, ne, "f", 0).is_err());
        // PERF_SAMPLE_ID after ip/tid/time instead.
        let mut el = Evlist::default();
        let t = PERF_SAMPLE_ID | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
        el.add(attr(t, false), vec![1]);
        el.add(attr(t, false), vec![2]);
        let (h, r) = record(PERF_RECORD_SAMPLE, &[0x1, 3, 4, 2]);
        assert_eq!(
            el.event2evsel(h, &r, ne, "f", 0).unwrap().map(|e| e.idx),
            Some(1)
        );
        let (h, r) = record(PERF_RECORD_MMAP, &[1, 2, 3]);
        assert_eq!(
            el.event2evsel(h, &r, ne, "f", 0).unwrap().map(|e| e.idx),
            Some(0),
            "no sample_id_all: the first"
        );
        assert_eq!(el.get(0).unwrap().timestamp(h, &r), None);
    }

    #[test]
    fn disagreeing_layouts_are_refused() {
        let mut el = Evlist::default();
        el.add(attr(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP, true), vec![1]);
        el.add(attr(PERF_SAMPLE_ID | PERF_SAMPLE_IP, true), vec![2]);
        let e = el.check("f").unwrap_err().to_string();
        assert!(
            e.contains("attr 1 and attr 0 cannot be read from one file: ")
                && e.contains("non matching sample_type"),
            "{e}"
        );
        el.set_names(&[
            crate::perf_data::EventDesc {
                attr: Attr::default(),
                name: "cpu-clock".into(),
                ids: vec![1],
            },
            crate::perf_data::EventDesc {
                attr: Attr::default(),
                name: "task-clock".into(),
                ids: vec![2],
            },
        ]);
        let e = el.check("f").unwrap_err().to_string();
        assert!(
            e.contains("attr 1 (task-clock) and attr 0 (cpu-clock) cannot"),
            "{e}"
        );
        let mut el = Evlist::default();
        el.add(attr(PERF_SAMPLE_IDENTIFIER, true), vec![1]);
        el.add(attr(PERF_SAMPLE_IDENTIFIER, false), vec![2]);
        assert!(el
            .check("f")
            .unwrap_err()
            .to_string()
            .contains("sample_id_all"));
    }
}

// SPDX-License-Identifier: GPL-2.0-only
//! The processing loop: perf's `perf_session__process_event`,
//! `perf_session__process_user_event`, `machines__deliver_event` and the
//! readers' loops (one file or stream; a directory's files taken 2 MiB at a
//! time in turn, as `__perf_session__process_dir_events` does).
//!
//! A handler can pause the reading after any delivered record
//! ([`Handler::pause`]): everything the loop holds (the reader whose turn
//! it is, a paused flush of the ordered queue, a record waiting to be
//! queued again) stays in [`Run`], and the next call goes on from there.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use super::evlist::{Evlist, IdHasher};
use super::ordered_events::{Flush, OrderedEvents, Queue, Queued};
use super::{
    Event, Handler, MachineRef, ProcessError, Session, SessionOptions, Stats, CHECK_EVERY,
};
use crate::attr::Attr;
use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};
use crate::perf_data::abi::*;
use crate::perf_data::reader::{RawRecord, RecordReader};
use crate::perf_data::{self, features, swap, user, PerfData, TracingData};
use crate::record::{self, Body, ParseInfo, Record, PERF_RECORD_LOST, PERF_RECORD_LOST_SAMPLES};
use crate::record::{PERF_RECORD_SAMPLE, PERF_SAMPLE_READ};

/// Bytes read from one file of a directory before turning to the next
/// (perf's `READER_MAX_SIZE`).
const READER_MAX_SIZE: u64 = 2 << 20;

/// The newest kernel record type perf knows of (`PERF_RECORD_CALLCHAIN_DEFERRED`).
const LAST_KERNEL_TYPE: u32 = record::PERF_RECORD_CALLCHAIN_DEFERRED;

type IdMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<IdHasher>>;

/// What reading needs besides the session's own state.
#[derive(Debug)]
pub(crate) struct Run {
    readers: Vec<RecordReader>,
    paths: Vec<String>,
    ordered: OrderedEvents,
    ordering: bool,
    /// Pipe mode: the header's records, taken in by [`open`], for
    /// [`Handler::record`]: (offset, native bytes).
    prologue: Vec<(u64, Vec<u8>)>,
    w: Work,
    /// Where the loop is: whose turn it is, where that turn started
    /// (`handed()` of the reader), which readers are at their end.
    turn: usize,
    turn_start: Option<u64>,
    done: Vec<bool>,
    /// A record to queue again after the paused HALF flush it caused.
    requeue: Option<Requeue>,
    started: bool,
    /// The damage that stopped the reading: raised once the records read
    /// before it have been delivered (the ordered queue flushed, not
    /// dropped).
    failed: Option<crate::Error>,
}

/// A record that met a full queue: (time, native bytes, evsel, reader,
/// offset).
type Requeue = (u64, Vec<u8>, usize, usize, u64);

/// Scratch state of delivery.
#[derive(Debug)]
struct Work {
    record: Record,
    user: Record,
    scratch: Vec<u8>,
    /// Last value per id of `PERF_SAMPLE_READ` counters.
    read_values: IdMap<u64>,
    ticks: u32,
    /// The handler asked to pause after the last delivered record.
    paused: bool,
}

/// A handler that calls nothing: the pipe-mode prologue is read before
/// there is a handler.
struct NoHandler;

impl Handler for NoHandler {
    type Error = std::convert::Infallible;
    fn sample(&mut self, _: &Event<'_>) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// [`Session::new`].
pub(super) fn open(data: PerfData, options: SessionOptions) -> Result<Session> {
    let input = perf_data::read_header(data)?;
    let mut evlist = Evlist::default();
    for a in input.attrs {
        evlist.add(a.attr, a.ids);
    }
    evlist.set_names(&input.features.event_desc);
    if let Some(t) = &input.tracing_data {
        evlist.set_tracepoint_formats(t);
    }
    // perf_session__open: pipe mode and perf stat files skip the checks.
    if !input.is_pipe && !input.features.stat {
        evlist.check(&input.path)?;
    }
    let machine = MachineRef::default();
    machine
        .lock()
        .add_build_ids(input.features.build_ids.iter().cloned());
    let mut readers = input.readers;
    if let Some(c) = input.features.compressed {
        readers
            .iter_mut()
            .for_each(|r| r.set_decomp_bound(u64::from(c.mmap_len)));
    }
    let paths = readers.iter().map(|r| r.path().to_owned()).collect();
    // perf_session__new: without sample_id_all, ordering needs timestamps
    // that non-sample records do not have, so perf falls back to file order.
    let ordering = options.ordered && (input.is_pipe || evlist.sample_id_all());
    let info = ParseInfo::new(&Attr::default());
    let run = Run {
        readers,
        paths,
        ordered: OrderedEvents::new(options.queue_bytes),
        ordering,
        prologue: Vec::new(),
        w: Work {
            record: Record::new(&info),
            user: Record::new(&info),
            scratch: Vec::new(),
            read_values: IdMap::default(),
            ticks: 0,
            paused: false,
        },
        turn: 0,
        turn_start: None,
        done: Vec::new(),
        requeue: None,
        started: false,
        failed: None,
    };
    let mut s = Session {
        path: input.path,
        endian: input.endian,
        is_pipe: input.is_pipe,
        file_header: input.file_header,
        features: input.features,
        tracing_data: input.tracing_data.map(Arc::new),
        evlist,
        machine,
        stat_config: Vec::new(),
        thread_map: Vec::new(),
        cpu_map: Vec::new(),
        time_conv: None,
        id_index: Vec::new(),
        stats: Stats::default(),
        run: None,
    };
    s.set_symbols(options.symbols);
    let mut run = run;
    if s.is_pipe {
        read_prologue(&mut s, &mut run)?;
    }
    s.run = Some(run);
    Ok(s)
}

/// The records of a pipe's header (attrs, features, tracing data, build
/// ids) up to the first other record, taken in now so that the session's
/// evlist and features are known before processing.
fn read_prologue(s: &mut Session, run: &mut Run) -> Result<()> {
    let Run {
        readers,
        paths,
        ordered,
        w,
        prologue,
        ..
    } = run;
    let Some(reader) = readers.first_mut() else {
        return Ok(());
    };
    let path = paths.first().map_or("", String::as_str);
    while let Some(raw) = reader.next()? {
        let t = raw.header.type_;
        let header_record = matches!(
            t,
            PERF_RECORD_HEADER_ATTR
                | PERF_RECORD_HEADER_EVENT_TYPE
                | PERF_RECORD_HEADER_TRACING_DATA
                | PERF_RECORD_HEADER_BUILD_ID
                | PERF_RECORD_HEADER_FEATURE
        );
        if !header_record {
            reader.unread();
            break;
        }
        let offset = raw.offset;
        let bound = match user_record(s, ordered, w, raw, path, &mut NoHandler, &[]) {
            Ok(b) => b,
            Err(ProcessError::Data(e)) => return Err(e),
            Err(ProcessError::Handler(never)) => match never {},
        };
        prologue.push((offset, w.scratch.clone()));
        if let Some(b) = bound {
            reader.set_decomp_bound(b);
        }
    }
    Ok(())
}

/// [`Session::process_events`].
pub(super) fn process_events<H: Handler>(
    s: &mut Session,
    h: &mut H,
) -> Result<(), ProcessError<H::Error>> {
    let Some(mut run) = s.run.take() else {
        return Ok(());
    };
    if !run.started {
        s.machine.lock().register_idle_thread();
        run.done = vec![false; run.readers.len()];
        run.started = true;
    }
    run.w.paused = false;
    let result = run_all(s, &mut run, h);
    s.stats.nr_unordered_events = run.ordered.unordered;
    s.stats.nr_half_flushes = run.ordered.half_flushes;
    s.stats.queue_peak_bytes = run.ordered.peak_bytes;
    s.stats.nr_compressed = run.readers.iter().map(|r| r.compressed).sum();
    s.stats.decompressed_bytes = run.readers.iter().map(|r| r.decompressed_bytes).sum();
    if matches!(result, Ok(ControlFlow::Break(()))) {
        s.run = Some(run);
    }
    result.map(drop)
}

/// Reads on from where the last call stopped: `Break` when the handler
/// paused (the run goes on at the next call), `Continue` at the end.
fn run_all<H: Handler>(
    s: &mut Session,
    run: &mut Run,
    h: &mut H,
) -> Result<ControlFlow<()>, ProcessError<H::Error>> {
    h.check().map_err(ProcessError::Handler)?;
    let Run {
        readers,
        paths,
        ordered,
        ordering,
        prologue,
        w,
        turn,
        turn_start,
        done,
        requeue,
        started: _,
        failed,
    } = run;
    // The prologue's records, for the handler (already taken in).
    for (offset, bytes) in std::mem::take(prologue) {
        let path = paths.first().map_or("", String::as_str);
        parse_user(&bytes, &mut w.user);
        let ev = event(s, offset, path, &bytes, &w.user, None);
        h.record(&ev).map_err(ProcessError::Handler)?;
    }
    // What a pause left unfinished.
    // (Here and below, `w.paused` tells whether a flush paused.)
    let _ = ordered.resume(|q, rec| deliver(s, w, q.evsel, rec, q.offset, path_of(paths, q), h))?;
    if w.paused {
        return Ok(ControlFlow::Break(()));
    }
    if let Some((time, copy, idx, reader, offset)) = requeue.take() {
        if ordered.queue(time, &copy, idx, reader, offset) != Queue::Queued {
            let path = paths.get(reader).map_or("", String::as_str);
            let _ = deliver(s, w, idx, &copy, offset, path, h)?;
        }
        if w.paused {
            return Ok(ControlFlow::Break(()));
        }
    }
    let nr = readers.len();
    while done.iter().any(|d| !d) {
        let i = *turn % nr.max(1);
        if done.get(i).copied().unwrap_or(true) {
            *turn = (i + 1) % nr;
            continue;
        }
        let Some(reader) = readers.get_mut(i) else {
            break;
        };
        let path = paths.get(i).map_or("", String::as_str);
        let start = *turn_start.get_or_insert(reader.handed());
        loop {
            let raw = match reader.next() {
                Ok(Some(raw)) => raw,
                Ok(None) => {
                    if let Some(d) = done.get_mut(i) {
                        *d = true;
                    }
                    break;
                }
                Err(e) => {
                    damaged(failed, done, i, e);
                    break;
                }
            };
            let mut bound = None;
            let handled = if raw.header.type_ >= PERF_RECORD_USER_TYPE_START {
                user_record(s, ordered, w, raw, path, h, paths).map(|b| bound = b)
            } else {
                kernel_record(s, ordered, *ordering, w, raw, i, path, paths, h, requeue)
            };
            match handled {
                Ok(()) => {}
                Err(ProcessError::Data(e)) => {
                    damaged(failed, done, i, e);
                    break;
                }
                Err(e) => return Err(e),
            }
            if let Some(b) = bound {
                reader.set_decomp_bound(b);
            }
            if w.paused {
                return Ok(ControlFlow::Break(()));
            }
            if nr > 1 && reader.handed() - start >= READER_MAX_SIZE && !reader.has_decomp_record() {
                break;
            }
        }
        *turn_start = None;
        *turn = (i + 1) % nr;
    }
    let flow = ordered.flush(Flush::Final, |q, rec| {
        deliver(s, w, q.evsel, rec, q.offset, path_of(paths, q), h)
    })?;
    match failed.take() {
        Some(e) if flow.is_continue() => Err(ProcessError::Data(e)),
        e => {
            *failed = e;
            Ok(flow)
        }
    }
}

/// Damaged data in reader `i`: nothing after it is read, what came before
/// it is, and so is the rest of a directory's other files; the first
/// damage is raised once they are delivered.
fn damaged(failed: &mut Option<crate::Error>, done: &mut [bool], i: usize, e: crate::Error) {
    failed.get_or_insert(e);
    if let Some(d) = done.get_mut(i) {
        *d = true;
    }
}

fn path_of<'a>(paths: &'a [String], q: &Queued) -> &'a str {
    paths.get(q.reader).map_or("", String::as_str)
}

/// The event handed to the handler.
fn event<'a>(
    s: &'a Session,
    offset: u64,
    path: &'a str,
    bytes: &'a [u8],
    record: &'a Record,
    evsel: Option<usize>,
) -> Event<'a> {
    Event {
        offset,
        path,
        bytes,
        record,
        evsel: evsel.and_then(|i| s.evlist.get(i)),
        machine: &s.machine,
        raw_endian: s
            .tracing_data
            .as_ref()
            .and_then(|t| t.endian)
            .unwrap_or(s.endian),
    }
}

fn count(stats: &mut Stats, type_: u32) {
    if let Ok(t) = usize::try_from(type_) {
        if t < 256 {
            if stats.nr_events.len() <= t {
                stats.nr_events.resize(t + 1, 0);
            }
            if let Some(n) = stats.nr_events.get_mut(t) {
                *n += 1;
            }
        }
    }
}

/// Calls [`Handler::check`] every [`CHECK_EVERY`] records.
#[inline]
fn tick<H: Handler>(w: &mut Work, h: &mut H) -> Result<(), ProcessError<H::Error>> {
    w.ticks = w.ticks.wrapping_add(1);
    if w.ticks % CHECK_EVERY == 0 {
        h.check().map_err(ProcessError::Handler)?;
    }
    Ok(())
}

/// A kernel record as read: its evsel, native bytes, then queued or
/// delivered (perf's `perf_session__process_event`).
#[allow(clippy::too_many_arguments)]
#[inline]
fn kernel_record<H: Handler>(
    s: &mut Session,
    ordered: &mut OrderedEvents,
    ordering: bool,
    w: &mut Work,
    raw: RawRecord<'_>,
    reader: usize,
    path: &str,
    paths: &[String],
    h: &mut H,
    requeue: &mut Option<Requeue>,
) -> Result<(), ProcessError<H::Error>> {
    let header = raw.header;
    count(&mut s.stats, header.type_);
    let found = s
        .evlist
        .event2evsel(header, raw.bytes, s.endian, path, raw.offset)?;
    let Some(evsel) = found else {
        return Err(no_evsel(s, header, raw.bytes, path, raw.offset).into());
    };
    let idx = evsel.idx;
    let native: &[u8] = if s.endian.is_native() {
        raw.bytes
    } else {
        w.scratch.clear();
        w.scratch.extend_from_slice(raw.bytes);
        swap::to_native(&mut w.scratch, Some(&evsel.info), s.endian);
        &w.scratch
    };
    if ordering {
        let time = evsel.timestamp(header, native).unwrap_or(u64::MAX);
        match ordered.queue(time, native, idx, reader, raw.offset) {
            Queue::Queued => return tick(w, h),
            Queue::Now => {}
            Queue::Full => {
                let copy = native.to_vec();
                let _ = ordered.flush(Flush::Half, |q, rec| {
                    deliver(s, w, q.evsel, rec, q.offset, path_of(paths, q), h)
                })?;
                if w.paused {
                    *requeue = Some((time, copy, idx, reader, raw.offset));
                    return Ok(());
                }
                if ordered.queue(time, &copy, idx, reader, raw.offset) == Queue::Queued {
                    return Ok(());
                }
                return deliver(s, w, idx, &copy, raw.offset, path, h).map(drop);
            }
        }
    }
    if s.endian.is_native() {
        deliver(s, w, idx, raw.bytes, raw.offset, path, h).map(drop)
    } else {
        let bytes = std::mem::take(&mut w.scratch);
        let r = deliver(s, w, idx, &bytes, raw.offset, path, h);
        w.scratch = bytes;
        r.map(drop)
    }
}

#[cold]
fn no_evsel(
    s: &Session,
    header: record::Header,
    bytes: &[u8],
    path: &str,
    offset: u64,
) -> crate::Error {
    DataErrorKind::Malformed {
        what: record_name(header.type_).into(),
        detail: format!(
            "its sample id matches none of the {} attrs ({} bytes)",
            s.evlist.evsels().len(),
            bytes.len()
        ),
    }
    .at(path, offset)
}

/// perf's `perf_session__deliver_event` and `machines__deliver_event`;
/// `Break` (and `w.paused`) when the handler pauses after it.
fn deliver<H: Handler>(
    s: &mut Session,
    w: &mut Work,
    evsel: usize,
    bytes: &[u8],
    offset: u64,
    path: &str,
    h: &mut H,
) -> Result<ControlFlow<()>, ProcessError<H::Error>> {
    let Some(e) = s.evlist.get(evsel) else {
        return Ok(ControlFlow::Continue(()));
    };
    let is_sample = bytes
        .first_chunk::<4>()
        .is_some_and(|t| u32::from_ne_bytes(*t) == PERF_RECORD_SAMPLE);
    if is_sample && e.attr.sample_type & PERF_SAMPLE_READ == 0 && h.sample_bytes(e, bytes) {
        return delivered(w, h);
    }
    if let Err(err) = record::parse_into(bytes, &e.info, &mut w.record) {
        let what = record_name(w.record.header.type_);
        let detail = match err {
            // Named once: the parser names the record too.
            crate::Error::Malformed { detail, .. } => detail,
            err => err.to_string(),
        };
        return Err(DataErrorKind::Malformed {
            what: what.into(),
            detail,
        }
        .at(path, offset)
        .into());
    }
    let type_ = w.record.header.type_;
    match &w.record.body {
        Body::Comm { .. } | Body::Task { .. } | Body::Mmap { .. } | Body::Mmap2 { .. } => {
            s.machine.lock().process(&w.record, bytes);
        }
        Body::Other { .. } if type_ == record::PERF_RECORD_KSYMBOL => {
            s.machine.lock().process(&w.record, bytes)
        }
        Body::Lost { lost, .. } if type_ == PERF_RECORD_LOST => {
            s.stats.total_lost = s.stats.total_lost.saturating_add(*lost)
        }
        Body::LostSamples { lost } if type_ == PERF_RECORD_LOST_SAMPLES => {
            s.stats.total_lost_samples = s.stats.total_lost_samples.saturating_add(*lost)
        }
        Body::Other { .. } if type_ > LAST_KERNEL_TYPE => s.stats.nr_unknown_events += 1,
        _ => {}
    }
    let ev = event(s, offset, path, bytes, &w.record, Some(evsel));
    h.record(&ev).map_err(ProcessError::Handler)?;
    if type_ == PERF_RECORD_SAMPLE {
        if e.attr.sample_type & PERF_SAMPLE_READ != 0 {
            deliver_read_sample(s, w, evsel, bytes, offset, path, h)?;
        } else {
            h.sample(&ev).map_err(ProcessError::Handler)?;
        }
    }
    delivered(w, h)
}

/// After a kernel record's delivery: the signal check, and whether the
/// handler pauses.
#[inline]
fn delivered<H: Handler>(
    w: &mut Work,
    h: &mut H,
) -> Result<ControlFlow<()>, ProcessError<H::Error>> {
    tick(w, h)?;
    w.paused = h.pause();
    Ok(if w.paused {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    })
}

/// perf's `deliver_sample_value` for each value of a `PERF_SAMPLE_READ`
/// sample: period = value - the id's previous value; unknown ids and
/// zero periods are skipped.
fn deliver_read_sample<H: Handler>(
    s: &mut Session,
    w: &mut Work,
    evsel: usize,
    bytes: &[u8],
    offset: u64,
    path: &str,
    h: &mut H,
) -> Result<(), ProcessError<H::Error>> {
    let values: Vec<_> = w
        .record
        .sample
        .read
        .as_ref()
        .map(|r| r.values().to_vec())
        .unwrap_or_default();
    let _ = evsel;
    for v in values {
        let Some(target) = s.evlist.id2evsel(v.id).map(|e| e.idx) else {
            s.stats.nr_unknown_id += 1;
            continue;
        };
        let prev = w.read_values.insert(v.id, v.value).unwrap_or(0);
        w.record.sample.id = v.id;
        w.record.sample.period = v.value.wrapping_sub(prev);
        if w.record.sample.period == 0 {
            continue;
        }
        let ev = event(s, offset, path, bytes, &w.record, Some(target));
        h.sample(&ev).map_err(ProcessError::Handler)?;
    }
    Ok(())
}

/// The header and an empty body of a user record, for [`Event::record`].
fn parse_user(bytes: &[u8], out: &mut Record) {
    let info = ParseInfo::new(&Attr::default());
    if record::parse_into(bytes, &info, out).is_err() {
        out.header = perf_data::reader::read_header(bytes, Endian::NATIVE).unwrap_or(out.header);
        out.body = Body::Other { body: 0..0 };
    }
}

/// perf's `perf_session__process_user_event`. Returns a new decompression
/// bound when a HEADER_FEATURE record gave one. `w.scratch` holds the
/// native record afterwards.
fn user_record<H: Handler>(
    s: &mut Session,
    ordered: &mut OrderedEvents,
    w: &mut Work,
    raw: RawRecord<'_>,
    path: &str,
    h: &mut H,
    paths: &[String],
) -> Result<Option<u64>, ProcessError<H::Error>> {
    let t = raw.header.type_;
    let offset = raw.offset;
    count(&mut s.stats, t);
    w.scratch.clear();
    w.scratch.extend_from_slice(raw.bytes);
    if !s.endian.is_native() {
        swap::to_native(&mut w.scratch, None, s.endian);
    }
    let rec = std::mem::take(&mut w.scratch);
    parse_user(&rec, &mut w.user);
    let malformed = |detail: &str| -> crate::Error {
        DataErrorKind::Malformed {
            what: record_name(t).into(),
            detail: detail.into(),
        }
        .at(path, offset)
    };
    let evsel = match t {
        PERF_RECORD_STAT => user::stat(&rec).and_then(|st| id2evsel(&s.evlist, st.id)),
        _ => None,
    };
    let ev = event(s, offset, path, &rec, &w.user, evsel);
    h.record(&ev).map_err(ProcessError::Handler)?;
    let mut bound = None;
    match t {
        PERF_RECORD_HEADER_ATTR => {
            let Some((attr, ids, _)) = user::header_attr(&rec) else {
                return Err(malformed("shorter than its attr's size").into());
            };
            s.evlist.add(attr, ids);
            if let Some(td) = &s.tracing_data {
                s.evlist.set_tracepoint_formats(td);
            }
        }
        PERF_RECORD_HEADER_TRACING_DATA => {
            let size = u64::from(Endian::NATIVE.u32_at(&rec, 8).unwrap_or(0));
            let data = raw.payload.unwrap_or_default();
            let td = TracingData::parse(data, path, offset + u64::from(raw.header.size))?;
            let padded = td.size.div_ceil(8) * 8;
            if padded != size {
                let detail = format!("tracing data size mismatch: {} bytes (+ padding) parsed, the record says {size}", td.size);
                return Err(malformed(&detail).into());
            }
            s.evlist.set_tracepoint_formats(&td);
            s.features.present.push(feature::TRACING_DATA);
            s.tracing_data = Some(Arc::new(td));
        }
        PERF_RECORD_HEADER_BUILD_ID => {
            let ids = features::build_ids(&rec, Endian::NATIVE, path, offset)?;
            s.machine.lock().add_build_ids(ids);
        }
        PERF_RECORD_FINISHED_ROUND => {
            let _ = ordered.flush(Flush::Round, |q, b| {
                deliver(s, w, q.evsel, b, q.offset, path_of(paths, q), h)
            })?;
        }
        PERF_RECORD_ID_INDEX => {
            let entries =
                user::id_index(&rec).ok_or_else(|| malformed("nr runs past the record"))?;
            s.id_index.extend(entries);
        }
        PERF_RECORD_THREAD_MAP => {
            s.thread_map =
                user::thread_map(&rec).ok_or_else(|| malformed("nr runs past the record"))?;
        }
        PERF_RECORD_CPU_MAP => {
            let what = "cpu map data runs past the record or has an unknown type";
            s.cpu_map = user::cpu_map_data(rec.get(8..).unwrap_or_default())
                .ok_or_else(|| malformed(what))?;
        }
        PERF_RECORD_STAT_CONFIG => {
            s.stat_config =
                user::stat_config(&rec).ok_or_else(|| malformed("nr runs past the record"))?;
        }
        PERF_RECORD_STAT => {
            let st = user::stat(&rec).ok_or_else(|| malformed("shorter than its fields"))?;
            let ev = event(s, offset, path, &rec, &w.user, evsel);
            h.stat(&ev, &st).map_err(ProcessError::Handler)?;
        }
        PERF_RECORD_STAT_ROUND => {
            let round =
                user::stat_round(&rec).ok_or_else(|| malformed("shorter than its fields"))?;
            let ev = event(s, offset, path, &rec, &w.user, None);
            h.stat_round(&ev, &round).map_err(ProcessError::Handler)?;
        }
        PERF_RECORD_EVENT_UPDATE => {
            let (id, update) =
                user::event_update(&rec).ok_or_else(|| malformed("shorter than its fields"))?;
            let Some(target) = id2evsel(&s.evlist, id) else {
                return Err(malformed(&format!("for id {id}, which no attr has")).into());
            };
            s.evlist.update(target, update);
        }
        PERF_RECORD_TIME_CONV => s.time_conv = user::time_conv(&rec),
        PERF_RECORD_HEADER_FEATURE => {
            let (feat, _) =
                user::header_feature(&rec).ok_or_else(|| malformed("shorter than its fields"))?;
            // The feature data stays in the file's byte order.
            let data = raw.bytes.get(16..).unwrap_or_default();
            let bit = u32::try_from(feat).unwrap_or(u32::MAX);
            if bit == 0 || bit >= perf_data::header::FEATURE_BITS {
                return Err(malformed(&format!("feature id {feat}")).into());
            }
            if bit != feature::TRACING_DATA {
                s.features
                    .parse_section(bit, data, s.endian, path, offset + 16)?;
            }
            match bit {
                feature::EVENT_DESC => s.evlist.set_names(&s.features.event_desc),
                feature::BUILD_ID => s
                    .machine
                    .lock()
                    .add_build_ids(s.features.build_ids.iter().cloned()),
                feature::COMPRESSED => bound = s.features.compressed.map(|c| u64::from(c.mmap_len)),
                _ => {}
            }
        }
        _ => {}
    }
    w.scratch = rec;
    tick(w, h)?;
    Ok(bound)
}

/// perf's `evlist__id2evsel`: the first evsel when there is only one or
/// the id is 0; the id's evsel; else the first without `sample_id_all`.
fn id2evsel(evlist: &Evlist, id: u64) -> Option<usize> {
    let first = evlist.evsels().first()?;
    if evlist.evsels().len() == 1 || id == 0 {
        return Some(first.idx);
    }
    if let Some(e) = evlist.id2evsel(id) {
        return Some(e.idx);
    }
    (!evlist.sample_id_all()).then_some(first.idx)
}

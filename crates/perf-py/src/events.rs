// SPDX-License-Identifier: GPL-2.0-only
//! The event classes `read_on_cpu` returns, one per record kind, with the C
//! module's members (numeric ones writable, strings read-only), the common
//! `sample_*` members, and byte-for-byte its `repr` texts.

use std::sync::Arc;

use perf_core::endian::Endian;
use perf_core::evlist::RecordRef;
use perf_core::perf_data::abi::{PERF_RECORD_STAT, PERF_RECORD_STAT_ROUND};
use perf_core::perf_data::user::{Stat, StatRound};
use perf_core::record::{self, Body, Mmap2File, Record, Sample, SampleMembers};
use perf_core::session::Event;
use perf_core::symbol::unwind::UserStack;
use perf_core::tracefs::Format;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use crate::error::PerfError;
use crate::evsel::PyEvsel;
use crate::recycler::Recycler;
use crate::symbols::{getters, PyBranchStack, PyCallchain, SampleOrigin, SampleSource};
use crate::tracepoint_sample::TracepointSampleEvent;

/// C's `%#lx`: `0x…` in lowercase hex, but plain `0` for zero.
fn hex(v: u64) -> String {
    if v == 0 {
        "0".to_owned()
    } else {
        format!("{v:#x}")
    }
}

/// Defines an event class: the sample members (`sample_ip`, …, from the
/// one list of them, `perf_core::sample_member_list!`) and `type`, plus its own
/// writable (`rw`) and read-only (`ro`) members and Rust-only (`hidden`)
/// fields. A new event class is one more invocation.
macro_rules! event_class {
    ($rust:ident, $pyname:literal, $doc:literal,
     rw { $($rw:tt)* } ro { $($ro:tt)* } hidden { $($hid:tt)* }) => {
        perf_core::sample_member_list!(event_class! {
            @with_members $rust, $pyname, $doc, rw { $($rw)* } ro { $($ro)* } hidden { $($hid)* }
        });
    };
    (@with_members $rust:ident, $pyname:literal, $doc:literal,
     rw { $($rw:ident : $rwty:ty = $rwdoc:literal),* $(,)? }
     ro { $($ro:ident : $roty:ty = $rodoc:literal),* $(,)? }
     hidden { $($hid:ident : $hidty:ty),* $(,)? }
     $(($field:ident, $attr:ident, $ty:ty, $mdoc:literal, $($layout:tt)*)),* $(,)?) => {
        #[doc = $doc]
        #[pyclass(module = "perf", name = $pyname, subclass)]
        #[derive(Default)]
        pub struct $rust {
            $(#[doc = $mdoc] #[pyo3(get, set)] pub $attr: $ty,)*
            /// event type
            #[pyo3(get, set)]
            pub r#type: u32,
            $(#[doc = $rwdoc] #[pyo3(get, set)] pub $rw: $rwty,)*
            $(#[doc = $rodoc] #[pyo3(get)] pub $ro: $roty,)*
            /// The evsel the record belongs to, or None.
            #[pyo3(get)]
            pub evsel: Option<Py<PyEvsel>>,
            $(pub $hid: $hidty,)*
        }

        #[allow(dead_code)] // not every class is built each way
        impl $rust {
            /// A record of type `type_` with the sample members of `s`,
            /// belonging to `evsel`.
            fn with_sample(type_: u32, s: &Sample, evsel: Option<Py<PyEvsel>>) -> Self {
                $rust {
                    $($attr: s.$field,)*
                    r#type: type_,
                    evsel,
                    ..Default::default()
                }
            }

            /// Sets the sample members.
            #[inline(always)]
            fn set_members(&mut self, m: &SampleMembers) {
                $(self.$attr = m.$field;)*
            }

            /// Sets the sample members from a parsed sample.
            #[inline(always)]
            fn set_sample(&mut self, s: &Sample) {
                $(self.$attr = s.$field;)*
            }
        }
    };
}

event_class!(MmapEvent, "mmap_event", "perf mmap event object.",
    rw { misc: u32 = "event misc", pid: u32 = "event pid", tid: u32 = "event tid",
         start: u64 = "start of the map", len: u64 = "map length", pgoff: u64 = "page offset" }
    ro { filename: String = "backing store" }
    hidden {});
event_class!(LostEvent, "lost_event", "perf lost event object.",
    rw { id: u64 = "event id", lost: u64 = "number of lost events" }
    ro {}
    hidden {});
event_class!(CommEvent, "comm_event", "perf comm event object.",
    rw { pid: u32 = "event pid", tid: u32 = "event tid" }
    ro { comm: String = "process name" }
    hidden {});
event_class!(TaskEvent, "task_event", "perf task (fork/exit) event object.",
    rw { pid: u32 = "event pid", ppid: u32 = "event ppid", tid: u32 = "event tid",
         ptid: u32 = "event ptid", time: u64 = "timestamp" }
    ro {}
    hidden {});
event_class!(ThrottleEvent, "throttle_event", "perf throttle event object.",
    rw { time: u64 = "timestamp", id: u64 = "event id", stream_id: u64 = "event stream id" }
    ro {}
    hidden { trailer_word: u64 });
event_class!(ReadEvent, "read_event", "perf read event object.",
    rw { pid: u32 = "event pid", tid: u32 = "event tid" }
    ro { values: Vec<u64> = "counter values" }
    hidden {});
event_class!(SampleEvent, "sample_event", "perf sample event object.",
    rw { sample_phys_addr: u64 = "event physical addr", sample_weight: u64 = "event weight",
         sample_data_src: u64 = "event data source", sample_insn_count: u64 = "event instruction count",
         sample_cyc_count: u64 = "event cycle count" }
    ro {}
    hidden { raw: Option<Vec<u8>>, raw_order: Option<Endian>,
             origin: Option<SampleOrigin> });
event_class!(SwitchEvent, "context_switch_event", "perf context_switch event object.",
    rw { misc: u32 = "event misc", next_prev_pid: u32 = "next/prev pid", next_prev_tid: u32 = "next/prev tid" }
    ro {}
    hidden {});
event_class!(StatEvent, "stat_event", "perf stat event object.",
    rw { id: u64 = "event id", cpu: u32 = "event cpu", thread: u32 = "event thread",
         val: u64 = "counter value", ena: u64 = "enabled time", run: u64 = "running time" }
    ro {}
    hidden {});
event_class!(StatRoundEvent, "stat_round_event", "perf stat round event object.",
    rw { stat_round_type: u64 = "round type", time: u64 = "round time" }
    ro {}
    hidden {});
event_class!(Mmap2Event, "mmap2_event", "perf mmap2 event object.",
    rw { misc: u32 = "event misc", pid: u32 = "event pid", tid: u32 = "event tid",
         start: u64 = "start of the map", len: u64 = "map length", pgoff: u64 = "page offset",
         prot: u32 = "protection", flags: u32 = "flags" }
    ro { filename: String = "backing store", maj: Option<u32> = "major number", min: Option<u32> = "minor number",
         ino: Option<u64> = "inode number", ino_generation: Option<u64> = "inode generation",
         build_id: Option<Py<PyBytes>> = "build id" }
    hidden {});

/// The Python methods of an event class: `perf.<class>()` makes an empty
/// event of record type `$type`, the class's own methods (its `__repr__`),
/// and the cyclic GC's view of its `evsel` (an evsel subclass may keep the
/// events it reads: the cycle must be collectable).
macro_rules! event_methods {
    ($rust:ident, $type:expr, { $($methods:tt)* }) => {
        #[pymethods]
        impl $rust {
            #[new]
            fn new() -> Self {
                $rust {
                    r#type: $type,
                    ..Default::default()
                }
            }

            $($methods)*

            fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
                if let Some(e) = &self.evsel {
                    visit.call(e)?;
                }
                Ok(())
            }

            fn __clear__(&mut self) {
                self.evsel = None;
            }
        }
    };
}

event_methods!(MmapEvent, record::PERF_RECORD_MMAP, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: mmap, pid: {}, tid: {}, start: {}, length: {}, offset: {}, filename: {} }}",
            self.pid,
            self.tid,
            hex(self.start),
            hex(self.len),
            hex(self.pgoff),
            self.filename
        )
    }
});

event_methods!(LostEvent, record::PERF_RECORD_LOST, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: lost, id: {}, lost: {} }}",
            hex(self.id),
            hex(self.lost)
        )
    }
});

event_methods!(CommEvent, record::PERF_RECORD_COMM, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: comm, pid: {}, tid: {}, comm: {} }}",
            self.pid, self.tid, self.comm
        )
    }
});

event_methods!(TaskEvent, record::PERF_RECORD_EXIT, {
    fn __repr__(&self) -> String {
        // No space before the closing brace: the C format string has none.
        format!(
            "{{ type: {}, pid: {}, ppid: {}, tid: {}, ptid: {}, time: {}}}",
            if self.r#type == record::PERF_RECORD_FORK {
                "fork"
            } else {
                "exit"
            },
            self.pid,
            self.ppid,
            self.tid,
            self.ptid,
            self.time
        )
    }
});

event_methods!(ThrottleEvent, record::PERF_RECORD_UNTHROTTLE, {
    /// The C module's text, which reads the record one u64 late: `id` shows
    /// as `time`, `stream_id` as `id`, the trailer's first word as
    /// `stream_id` (perf-core's `parse_throttle`). A member set from Python
    /// shows where C shows it: `e.id = 5` changes the printed `time`.
    fn __repr__(&self) -> String {
        format!(
            "{{ type: {}throttle, time: {}, id: {}, stream_id: {} }}",
            if self.r#type == record::PERF_RECORD_THROTTLE {
                ""
            } else {
                "un"
            },
            self.id,
            self.stream_id,
            self.trailer_word
        )
    }
});

event_methods!(ReadEvent, record::PERF_RECORD_READ, {
    fn __repr__(&self) -> String {
        format!("{{ type: read, pid: {}, tid: {} }}", self.pid, self.tid)
    }
});

event_methods!(SwitchEvent, record::PERF_RECORD_SWITCH, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: context_switch, next_prev_pid: {}, next_prev_tid: {}, switch_out: {} }}",
            self.next_prev_pid,
            self.next_prev_tid,
            u32::from(self.misc & u32::from(record::PERF_RECORD_MISC_SWITCH_OUT) != 0)
        )
    }
});

event_methods!(Mmap2Event, record::PERF_RECORD_MMAP2, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: mmap2, pid: {}, tid: {}, start: {}, length: {}, offset: {}, flags: {}, prot: {}, filename: {} }}",
            self.pid,
            self.tid,
            hex(self.start),
            hex(self.len),
            hex(self.pgoff),
            hex(u64::from(self.flags)),
            hex(u64::from(self.prot)),
            self.filename
        )
    }
});

event_methods!(StatEvent, PERF_RECORD_STAT, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: stat, id: {}, cpu: {}, thread: {}, val: {}, ena: {}, run: {} }}",
            self.id, self.cpu, self.thread, self.val, self.ena, self.run
        )
    }
});

event_methods!(StatRoundEvent, PERF_RECORD_STAT_ROUND, {
    fn __repr__(&self) -> String {
        format!(
            "{{ type: stat_round, type: {}, time: {} }}",
            self.stat_round_type, self.time
        )
    }
});

impl SampleEvent {
    /// An empty `sample_event`, as `perf.sample_event()` makes it.
    pub fn new_sample() -> Self {
        SampleEvent {
            r#type: record::PERF_RECORD_SAMPLE,
            ..Default::default()
        }
    }
}

#[pymethods]
impl SampleEvent {
    #[new]
    fn new() -> Self {
        SampleEvent::new_sample()
    }
    fn __repr__(&self) -> String {
        "{ type: sample }".to_owned()
    }

    /// The PERF_SAMPLE_RAW payload (tracepoint data), or b'' without one.
    #[getter]
    fn raw_buf<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.raw.as_deref().unwrap_or_default())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(e) = &self.evsel {
            visit.call(e)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.evsel = None;
    }

    // Symbols (symbols.rs): resolved at the first read, None when not.
    /// The DSO's name.
    #[getter]
    fn dso(&mut self) -> Option<String> {
        self.located().and_then(getters::dso)
    }
    /// The DSO's long name.
    #[getter]
    fn dso_long_name(&mut self) -> Option<String> {
        self.located().and_then(getters::dso_long_name)
    }
    /// The DSO's build id (hex).
    #[getter]
    fn dso_bid(&mut self) -> Option<String> {
        self.located().and_then(getters::dso_bid)
    }
    /// The map's first address.
    #[getter]
    fn map_start(&mut self) -> Option<u64> {
        self.located()
            .and_then(|al| getters::map(al, |m| m.start()))
    }
    /// The map's end.
    #[getter]
    fn map_end(&mut self) -> Option<u64> {
        self.located().and_then(|al| getters::map(al, |m| m.end()))
    }
    /// The map's file offset.
    #[getter]
    fn map_pgoff(&mut self) -> Option<u64> {
        self.located()
            .and_then(|al| getters::map(al, |m| m.pgoff()))
    }
    /// The symbol's name.
    #[getter]
    fn symbol(&mut self) -> Option<String> {
        self.located().and_then(getters::symbol)
    }
    /// The symbol's start.
    #[getter]
    fn sym_start(&mut self) -> Option<u64> {
        self.located().and_then(|al| getters::sym(al, true))
    }
    /// The symbol's end.
    #[getter]
    fn sym_end(&mut self) -> Option<u64> {
        self.located().and_then(|al| getters::sym(al, false))
    }
    /// The ip's offset into its symbol (perf script's `sym+0x…`).
    #[getter]
    fn sym_offset(&mut self) -> Option<u64> {
        self.located()
            .and_then(perf_core::symbol::resolve::AddrLocation::symoff)
    }
    /// The call chain, leaf first.
    #[getter]
    fn callchain(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyCallchain>>> {
        self.origin.as_mut().map_or(Ok(None), |f| f.callchain(py))
    }
    /// The branch stack.
    #[getter]
    fn brstack(&self) -> Option<PyBranchStack> {
        self.origin.as_ref().and_then(SampleOrigin::brstack)
    }
    /// The source file, line and text of addr (default: the sample's ip):
    /// (None, 0, None) without a source line, None when the sample is not
    /// resolved (no session or tracking evlist).
    #[pyo3(signature = (addr=None))]
    fn srccode<'py>(
        &mut self,
        py: Python<'py>,
        addr: Option<u64>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        self.origin
            .as_mut()
            .map_or(Ok(None), |f| f.srccode(py, addr))
    }
    /// The instruction bytes at the sample's ip.
    fn insn<'py>(&mut self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.origin.as_mut().and_then(|f| f.insn(py))
    }
}

impl SampleEvent {
    /// The byte order of the RAW payload's numbers (a file's tracing data
    /// may be foreign; live samples are native).
    pub fn raw_order(&self) -> Endian {
        self.raw_order.unwrap_or(Endian::NATIVE)
    }

    /// The sample's ip resolved (None without a machine).
    fn located(&mut self) -> Option<&perf_core::symbol::resolve::AddrLocation> {
        self.origin.as_mut().and_then(SampleOrigin::location)
    }

    /// Copies `payload` into the kept RAW buffer (reused from sample to
    /// sample), or drops it.
    #[inline(always)]
    fn set_raw(&mut self, payload: Option<&[u8]>) {
        match payload {
            Some(p) => {
                let raw = self.raw.get_or_insert_with(Vec::new);
                raw.clear();
                raw.extend_from_slice(p);
            }
            None => self.raw = None,
        }
    }

    /// Keeps `record` and its machine for the symbol getters.
    #[inline(always)]
    fn set_origin(&mut self, source: &Arc<SampleSource>, record: &[u8]) {
        match &mut self.origin {
            Some(o) => o.refill(source, record),
            None => self.origin = Some(SampleOrigin::new(source, record)),
        }
    }

    /// Points at `evsel`, keeping the reference it has when it is the same.
    #[inline(always)]
    fn set_evsel(&mut self, py: Python<'_>, evsel: Option<&Py<PyEvsel>>) {
        let same_evsel = match (&self.evsel, evsel) {
            (Some(a), Some(b)) => a.is(b),
            (None, None) => true,
            _ => false,
        };
        if !same_evsel {
            self.evsel = evsel.map(|o| o.clone_ref(py));
        }
    }

    /// The members only `sample_event` has (7.3's), from a parsed sample.
    /// perf fills the instruction and cycle counts only in samples it
    /// synthesizes from AUX traces: 0 here.
    #[inline(always)]
    fn set_extras(&mut self, x: &SampleExtras) {
        self.sample_phys_addr = x.phys_addr;
        self.sample_weight = x.weight;
        self.sample_data_src = x.data_src;
        self.sample_insn_count = 0;
        self.sample_cyc_count = 0;
    }
}

/// The members of a sample that only `sample_event` shows.
#[derive(Debug, Clone, Copy)]
pub struct SampleExtras {
    phys_addr: u64,
    weight: u64,
    data_src: u64,
}

impl Default for SampleExtras {
    /// Those of a sample that records none of them (perf's defaults).
    fn default() -> Self {
        SampleExtras {
            phys_addr: 0,
            weight: 0,
            data_src: record::PERF_MEM_DATA_SRC_NONE,
        }
    }
}

impl SampleExtras {
    /// Those of a sample the full parser filled (the fast path covers no
    /// layout that has them: they are 0 there).
    #[inline(always)]
    pub fn of(s: &Sample) -> Self {
        SampleExtras {
            phys_addr: s.phys_addr,
            weight: s.weight,
            data_src: s.data_src,
        }
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// Inlined on purpose: these run once per event (docs/performance.md).
#[inline(always)]
fn fill_sample(
    py: Python<'_>,
    e: &mut SampleEvent,
    s: &SampleMembers,
    extras: &SampleExtras,
    record: &[u8],
    evsel: Option<&Py<PyEvsel>>,
    source: Option<&Arc<SampleSource>>,
) {
    e.set_members(s);
    e.set_extras(extras);
    e.r#type = record::PERF_RECORD_SAMPLE;
    e.set_raw(s.raw.as_ref().map(|r| record::bytes(record, r)));
    e.set_evsel(py, evsel);
    // Only an evlist with a live machine gives a source: without one the
    // getters stay None and this is the only cost.
    match source {
        Some(source) => e.set_origin(source, record),
        None if e.origin.is_some() => e.origin = None,
        None => {}
    }
}

/// Builds the Python object for one record read from the ring; a sample
/// of an evlist with a live machine keeps `source` for its symbols.
#[inline(always)]
pub fn build(
    py: Python<'_>,
    rec: RecordRef<'_>,
    evsel: Option<&Py<PyEvsel>>,
    source: Option<&Arc<SampleSource>>,
    cache: &mut Recycler,
) -> PyResult<Py<PyAny>> {
    match decode(py, &rec, evsel, cache)? {
        Decoded::Sample(members, extras) => recycled(py, rec.format, cache, |e| {
            fill_sample(py, e, &members, &extras, rec.bytes, evsel, source)
        }),
        Decoded::Other(event) => Ok(event),
    }
}

/// A record as the readers need it: a sample's members, or the event
/// object of any other record.
pub enum Decoded {
    /// A SAMPLE.
    Sample(SampleMembers, SampleExtras),
    /// Any other record, as its event object.
    Other(Py<PyAny>),
}

/// Decodes one record: the members of a fixed-layout SAMPLE straight from
/// the bytes (the hot path), anything else through the full parser.
#[inline(always)]
pub fn decode(
    py: Python<'_>,
    rec: &RecordRef<'_>,
    evsel: Option<&Py<PyEvsel>>,
    cache: &mut Recycler,
) -> PyResult<Decoded> {
    if let Some(members) = record::sample_members(rec.bytes, rec.info) {
        return Ok(Decoded::Sample(members, SampleExtras::default()));
    }
    let parsed = cache.record(rec.info);
    record::parse_into(rec.bytes, rec.info, parsed).map_err(PerfError::Record)?;
    if let Body::Sample = parsed.body {
        return Ok(Decoded::Sample(
            SampleMembers::of(&parsed.sample),
            SampleExtras::of(&parsed.sample),
        ));
    }
    // The live machine takes in the side-band records; the user still
    // gets each as its event.
    if let Some(machine) = rec.machine {
        machine.process_live(parsed, rec.bytes);
    }
    Ok(Decoded::Other(other_event(py, parsed, rec.bytes, evsel)?))
}

/// A sample of a perf.data file (`session.process_events()`): the same
/// classes as live samples (tracepoint samples get the class of the file's
/// format), with the sample's evsel, the byte order of its RAW payload and
/// what [`SampleOrigin`] keeps.
#[inline(always)]
pub fn file_sample(
    py: Python<'_>,
    ev: &Event<'_>,
    evsel: Option<&Py<PyEvsel>>,
    source: &Arc<SampleSource>,
    cache: &mut Recycler,
) -> PyResult<Py<PyAny>> {
    let s = &ev.record.sample;
    let format = ev.evsel.and_then(|e| e.tp_format.as_ref());
    recycled(py, format, cache, |e| {
        e.set_sample(s);
        e.set_extras(&SampleExtras::of(s));
        e.r#type = record::PERF_RECORD_SAMPLE;
        e.set_raw(ev.raw());
        e.raw_order = (!ev.raw_endian.is_native()).then_some(ev.raw_endian);
        e.set_evsel(py, evsel);
        e.set_origin(source, ev.bytes);
        if let Some(o) = &mut e.origin {
            // A `--call-graph dwarf` sample's chain needs its stack dump,
            // unwound from the record at the first read.
            if UserStack::of(s, ev.bytes).is_none() {
                o.keep_chain(s.pid, s.tid, &s.callchain);
            }
        }
    })
}

/// A `sample_event` (or, for samples of a tracepoint `format`, an object
/// of that format's class) filled by `fill`, reusing a cached object
/// nobody else holds.
#[inline(always)]
fn recycled(
    py: Python<'_>,
    format: Option<&Arc<Format>>,
    cache: &mut Recycler,
    fill: impl FnOnce(&mut SampleEvent),
) -> PyResult<Py<PyAny>> {
    let Some(format) = format else {
        let pool = cache.samples();
        if let Some(e) = pool.reusable(py) {
            fill(&mut e.borrow_mut(py));
            return Ok(e.into_any());
        }
        let mut base = SampleEvent::new_sample();
        fill(&mut base);
        let e = Py::new(py, base)?;
        pool.remember(py, &e);
        return Ok(e.into_any());
    };
    let (class, pool) = cache.tracepoint(py, format)?;
    if let Some(e) = pool.reusable(py) {
        fill(e.borrow_mut(py).as_super());
        return Ok(e.into_any());
    }
    let e = class
        .bind(py)
        .call0()?
        .cast_into::<TracepointSampleEvent>()?;
    fill(e.borrow_mut().as_super());
    let e = e.unbind();
    pool.remember(py, &e);
    Ok(e.into_any())
}

/// A `stat_event` for a PERF_RECORD_STAT (sample members zero, as perf
/// makes them for records without an evsel).
pub fn stat_event(py: Python<'_>, st: &Stat) -> PyResult<Py<PyAny>> {
    let e = StatEvent {
        r#type: PERF_RECORD_STAT,
        id: st.id,
        cpu: st.cpu,
        thread: st.thread,
        val: st.val,
        ena: st.ena,
        run: st.run,
        ..Default::default()
    };
    Ok(Py::new(py, e)?.into_any())
}

/// A `stat_round_event` for a PERF_RECORD_STAT_ROUND.
pub fn stat_round_event(py: Python<'_>, round: &StatRound) -> PyResult<Py<PyAny>> {
    let e = StatRoundEvent {
        r#type: PERF_RECORD_STAT_ROUND,
        stat_round_type: round.type_,
        time: round.time,
        ..Default::default()
    };
    Ok(Py::new(py, e)?.into_any())
}

/// The event object of a side-band record of a file (`context_switch`
/// callbacks: SWITCH and SWITCH_CPU_WIDE records), as `read_on_cpu` makes it.
pub fn file_record(
    py: Python<'_>,
    ev: &Event<'_>,
    evsel: Option<&Py<PyEvsel>>,
) -> PyResult<Py<PyAny>> {
    other_event(py, ev.record, ev.bytes, evsel)
}

/// The non-sample record kinds, pointing at `evsel` (their record's).
fn other_event(
    py: Python<'_>,
    parsed: &Record,
    bytes: &[u8],
    evsel: Option<&Py<PyEvsel>>,
) -> PyResult<Py<PyAny>> {
    let evsel = || evsel.map(|o| o.clone_ref(py));
    let t = parsed.header.type_;
    let s = &parsed.sample;
    let misc = u32::from(parsed.header.misc);
    let obj: Py<PyAny> = match &parsed.body {
        &Body::Comm { pid, tid, ref comm } => {
            let mut e = CommEvent::with_sample(t, s, evsel());
            (e.pid, e.tid, e.comm) = (pid, tid, lossy(record::bytes(bytes, comm)));
            Py::new(py, e)?.into_any()
        }
        &Body::Task {
            pid,
            ppid,
            tid,
            ptid,
            time,
        } => {
            let mut e = TaskEvent::with_sample(t, s, evsel());
            (e.pid, e.ppid, e.tid, e.ptid, e.time) = (pid, ppid, tid, ptid, time);
            Py::new(py, e)?.into_any()
        }
        &Body::Mmap {
            pid,
            tid,
            start,
            len,
            pgoff,
            ref filename,
        } => {
            let mut e = MmapEvent::with_sample(t, s, evsel());
            (e.misc, e.pid, e.tid, e.start, e.len, e.pgoff) = (misc, pid, tid, start, len, pgoff);
            e.filename = lossy(record::bytes(bytes, filename));
            Py::new(py, e)?.into_any()
        }
        &Body::Lost { id, lost } => {
            let mut e = LostEvent::with_sample(t, s, evsel());
            (e.id, e.lost) = (id, lost);
            Py::new(py, e)?.into_any()
        }
        &Body::Throttle {
            time,
            id,
            stream_id,
            trailer_word,
        } => {
            let mut e = ThrottleEvent::with_sample(t, s, evsel());
            (e.time, e.id, e.stream_id, e.trailer_word) = (time, id, stream_id, trailer_word);
            Py::new(py, e)?.into_any()
        }
        Body::Read { pid, tid, values } => {
            let mut e = ReadEvent::with_sample(t, s, evsel());
            (e.pid, e.tid) = (*pid, *tid);
            e.values = values.values().iter().map(|v| v.value).collect();
            Py::new(py, e)?.into_any()
        }
        &Body::Switch {
            next_prev_pid,
            next_prev_tid,
        } => {
            let mut e = SwitchEvent::with_sample(t, s, evsel());
            (e.misc, e.next_prev_pid, e.next_prev_tid) = (misc, next_prev_pid, next_prev_tid);
            Py::new(py, e)?.into_any()
        }
        &Body::Mmap2 {
            pid,
            tid,
            start,
            len,
            pgoff,
            file,
            prot,
            flags,
            ref filename,
        } => {
            let mut e = Mmap2Event::with_sample(t, s, evsel());
            (
                e.misc, e.pid, e.tid, e.start, e.len, e.pgoff, e.prot, e.flags,
            ) = (misc, pid, tid, start, len, pgoff, prot, flags);
            e.filename = lossy(record::bytes(bytes, filename));
            match file {
                Mmap2File::Inode {
                    maj,
                    min,
                    ino,
                    ino_generation,
                } => {
                    (e.maj, e.min, e.ino, e.ino_generation) =
                        (Some(maj), Some(min), Some(ino), Some(ino_generation));
                }
                Mmap2File::BuildId { size, build_id } => {
                    let n = usize::from(size).min(build_id.len());
                    e.build_id = Some(PyBytes::new(py, &build_id[..n]).unbind());
                }
            }
            Py::new(py, e)?.into_any()
        }
        _ => {
            return Err(PyTypeError::new_err(format!("Unexpected header type {t}")));
        }
    };
    Ok(obj)
}

/// Registers the event classes under the C module's attribute names.
pub fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    use pyo3::PyTypeInfo;
    let py = m.py();
    m.add("mmap_event", MmapEvent::type_object(py))?;
    m.add("lost_event", LostEvent::type_object(py))?;
    m.add("comm_event", CommEvent::type_object(py))?;
    m.add("task_event", TaskEvent::type_object(py))?;
    m.add("throttle_event", ThrottleEvent::type_object(py))?;
    m.add("read_event", ReadEvent::type_object(py))?;
    m.add("sample_event", SampleEvent::type_object(py))?;
    m.add(
        "tracepoint_sample_event",
        TracepointSampleEvent::type_object(py),
    )?;
    m.add("switch_event", SwitchEvent::type_object(py))?;
    m.add("mmap2_event", Mmap2Event::type_object(py))?;
    m.add("stat_event", StatEvent::type_object(py))?;
    m.add("stat_round_event", StatRoundEvent::type_object(py))?;
    Ok(())
}

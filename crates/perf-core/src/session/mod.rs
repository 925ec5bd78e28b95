// SPDX-License-Identifier: GPL-2.0-only
//! Reading a perf.data input the way perf's `perf_session` does, handing
//! every record to a [`Handler`] in time order.
//!
//! | perf (tools/perf/util)                   | here                          |
//! |------------------------------------------|-------------------------------|
//! | `perf_session__new`                      | [`Session::new`]              |
//! | `perf_session__process_events`           | [`Session::process_events`]   |
//! | `struct perf_tool` callbacks             | [`Handler`]                   |
//! | session `evlist`, `evlist__event2evsel`  | [`Evlist`]                    |
//! | `ordered_events`                         | `ordered_events`              |
//! | `struct machine`, `struct thread`        | [`Machine`], [`Thread`]       |
//! | `struct maps`, `struct map`              | [`Maps`], [`Map`] (`symbol::map`) |
//! | `machine->dsos`, `symbol_conf`           | [`Machine::dsos`], [`SessionOptions::symbols`] |
//! | `machine__resolve`                       | [`Event::resolve`], [`Machine::resolve`] |
//! | `thread__resolve_callchain`              | [`Event::callchain`], [`Machine::resolve_callchain`] |
//! | `perf_env`                               | [`Session::features`]         |
//! | (the columnar reader's call chains, DSO and symbol columns) | [`columns`] |
//!
//! ```text
//! PerfData::open(path) ─► Session::new ─► process_events(&mut handler)
//!   reader(s) ─► record ─► byte order ─► user record? ─► handled now (attrs, features,
//!                                        native         tracing data, STAT…, FINISHED_ROUND)
//!                                           └─► kernel record ─► ordered_events ─► parse (record::)
//!                                                   ─► machine (COMM/FORK/EXIT/MMAP…) ─► handler
//! ```
//!
//! The session reads its input once, streaming: memory is the readers'
//! windows, one decompressed chunk per reader, and the ordered queue (its
//! cap, [`SessionOptions::queue_bytes`]), whatever the file's size.

mod callchain_memo;
pub mod callchains;
pub mod columns;
mod evlist;
pub mod itrace;
mod live;
mod machine;
mod machine_arch;
mod ordered_events;
mod process;
pub mod thread_stack;

use std::sync::Arc;

pub use crate::symbol::map::{Map, Maps};
pub use callchain_memo::{CallchainMemo, Lookup, Resolved};
pub use evlist::{Evlist, Evsel};
pub use live::is_side_band;
pub use machine::{Comm, Machine, MachineRef, Thread};
pub use machine_arch::{e_machine_of_arch, is_64_bit_arch, is_64_bit_machine};
pub use ordered_events::DEFAULT_QUEUE_BYTES;

use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::perf_data::user::{IdIndexEntry, Stat, StatRound, TimeConv};
use crate::perf_data::{self, Features, FileHeader, PerfData, TracingData};
use crate::record::{bytes, Record, PERF_RECORD_MISC_CPUMODE_MASK, PERF_SAMPLE_CALLCHAIN};
use crate::symbol::callchain::CallchainNode;
use crate::symbol::conf::SymbolConf;
use crate::symbol::resolve::AddrLocation;
use crate::symbol::unwind::UserStack;
use crate::tracefs::Value;

/// How a session reads.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    /// Memory cap of the ordered queue; reaching it flushes the older half
    /// (perf's `OE_FLUSH__HALF`).
    pub queue_bytes: usize,
    /// Deliver in time order (perf's `tool.ordered_events`); off, records
    /// come in file order.
    pub ordered: bool,
    /// Where symbols come from (`vmlinux`, `kallsyms`, `symfs`, the
    /// build-id cache). Unless set here, the kernel release of the vmlinux
    /// search path is the file's (its OSRELEASE feature).
    pub symbols: SymbolConf,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            queue_bytes: DEFAULT_QUEUE_BYTES,
            ordered: true,
            symbols: SymbolConf::default(),
        }
    }
}

/// One record handed to a [`Handler`].
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    /// Its offset in its file (for records from a compressed record, the
    /// compressed record's; in pipe mode, from the end of the 16-byte
    /// header), as `perf script -D` prints it.
    pub offset: u64,
    /// Its file: the input's path, or the `data.N` file of a directory.
    pub path: &'a str,
    /// The record, in native byte order (see
    /// [`swap`](crate::perf_data::swap) for what a foreign file's
    /// conversion leaves as it was).
    pub bytes: &'a [u8],
    /// The record parsed by the same parser as live records (user records:
    /// their header and `Body::Other`).
    pub record: &'a Record,
    /// The record's evsel (samples and other kernel records; STAT records).
    pub evsel: Option<&'a Evsel>,
    /// The machine as of this record.
    pub machine: &'a MachineRef,
    /// The byte order of tracepoint payloads (`PERF_SAMPLE_RAW`).
    pub raw_endian: Endian,
}

impl<'a> Event<'a> {
    /// `header.type`.
    pub fn type_(&self) -> u32 {
        self.record.header.type_
    }

    /// The `PERF_SAMPLE_RAW` payload (a tracepoint's fields), as recorded.
    pub fn raw(&self) -> Option<&'a [u8]> {
        self.record
            .sample
            .raw
            .as_ref()
            .map(|r| bytes(self.bytes, r))
    }

    /// The sample's cpumode (`header.misc & PERF_RECORD_MISC_CPUMODE_MASK`).
    pub fn cpumode(&self) -> u8 {
        (self.record.header.misc & PERF_RECORD_MISC_CPUMODE_MASK) as u8
    }

    /// perf's `machine__resolve` of a sample's ip: map, DSO, symbol (see
    /// [`Machine::resolve`]).
    pub fn resolve(&self) -> AddrLocation {
        self.resolve_addr(self.record.sample.ip)
    }

    /// [`Machine::resolve`] of any address of this sample's thread, with
    /// the sample's cpumode (the Python `srccode(addr)`).
    pub fn resolve_addr(&self, addr: u64) -> AddrLocation {
        let s = &self.record.sample;
        self.machine
            .lock()
            .resolve(s.pid, s.tid, self.cpumode(), addr)
    }

    /// The sample's call chain resolved, leaf first, with the user frames
    /// unwound from its stack dump for `--call-graph dwarf` samples (see
    /// [`Machine::sample_chain`], [`Machine::resolve_callchain`]; empty
    /// without `PERF_SAMPLE_CALLCHAIN`).
    pub fn callchain(&self) -> Vec<CallchainNode> {
        let s = &self.record.sample;
        if !self.has_callchain() {
            return Vec::new();
        }
        let m = self.machine.lock();
        let chain = m.sample_chain(s.pid, s.tid, &s.callchain, self.user_stack());
        m.resolve_callchain(s.pid, s.tid, &chain)
    }

    /// The sample's evsel samples `PERF_SAMPLE_CALLCHAIN`.
    pub fn has_callchain(&self) -> bool {
        self.evsel
            .is_some_and(|e| e.info.sample_type() & PERF_SAMPLE_CALLCHAIN != 0)
    }

    /// The sample's user registers and stack dump (`--call-graph dwarf`).
    pub fn user_stack(&self) -> Option<UserStack<'a>> {
        UserStack::of(&self.record.sample, self.bytes)
    }

    /// A tracepoint field by name, decoded from the file's tracing data
    /// formats (`None`: not a tracepoint, or no such field).
    pub fn field(&self, name: &str) -> Option<Result<Value<'a>>> {
        let format = self.evsel?.tp_format.as_ref()?;
        let field = format.field(name)?;
        Some(field.value_in(self.raw().unwrap_or_default(), self.raw_endian))
    }
}

/// What a session calls. Each method returns a result: an `Err` stops
/// processing and [`Session::process_events`] returns it.
pub trait Handler {
    /// What the handler's errors are (e.g. a Python exception).
    type Error;

    /// Every PERF_RECORD_SAMPLE, in time order. A sample with
    /// `PERF_SAMPLE_READ` comes once per counter value with a new period,
    /// its `id` and evsel those of the value (perf's
    /// `deliver_sample_value`; zero periods are skipped).
    ///
    /// # Errors
    /// The handler's, to stop processing.
    fn sample(&mut self, event: &Event<'_>) -> Result<(), Self::Error>;

    /// A PERF_RECORD_SAMPLE without `PERF_SAMPLE_READ`, offered as its
    /// native bytes before it is parsed: returning true takes it as it is,
    /// and the session neither parses it nor calls [`record`](Self::record)
    /// or [`sample`](Self::sample) for it (the machine takes nothing from a
    /// sample). For a handler whose `record` ignores samples and that can
    /// read what it needs from the bytes, giving exactly what it would take
    /// from the parsed sample: it must decline (false) any record the
    /// parser would refuse, so that the parser names the damage.
    ///
    /// Parsing every sample made the columnar reader of three members take
    /// 16 % more CPU time on a 1 M-sample tracepoint file (0.110 s against
    /// 0.095 s, best of 3 in each of 3 alternated runs).
    fn sample_bytes(&mut self, evsel: &Evsel, bytes: &[u8]) -> bool {
        let _ = (evsel, bytes);
        false
    }

    /// Every PERF_RECORD_STAT (`perf stat record`), with `event.evsel` the
    /// counter's evsel.
    ///
    /// # Errors
    /// The handler's, to stop processing.
    fn stat(&mut self, event: &Event<'_>, stat: &Stat) -> Result<(), Self::Error> {
        let _ = (event, stat);
        Ok(())
    }

    /// Every PERF_RECORD_STAT_ROUND.
    ///
    /// # Errors
    /// The handler's, to stop processing.
    fn stat_round(&mut self, event: &Event<'_>, round: &StatRound) -> Result<(), Self::Error> {
        let _ = (event, round);
        Ok(())
    }

    /// Every record the session handles, once, before the calls above:
    /// kernel records when they are delivered (in time order, after the
    /// machine took them in), perf's own records when they are read
    /// (attrs, features, FINISHED_ROUND, STAT…; not COMPRESSED ones) — the
    /// order in which `perf script -D` prints them.
    ///
    /// # Errors
    /// The handler's, to stop processing.
    fn record(&mut self, event: &Event<'_>) -> Result<(), Self::Error> {
        let _ = event;
        Ok(())
    }

    /// Called before the first record and then once every
    /// [`CHECK_EVERY`] records read or delivered (some microseconds of
    /// reading; a slow handler's own calls come between): where a Python
    /// layer runs `PyErr_CheckSignals`, so Ctrl-C stops processing.
    ///
    /// # Errors
    /// The handler's, to stop processing (e.g. `KeyboardInterrupt`).
    fn check(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Asked after each kernel record delivered (after its
    /// [`sample`](Self::sample) calls): true pauses processing there,
    /// [`Session::process_events`] returns, and its next call goes on from
    /// the next record, in the same order as without the pause (how the
    /// columnar reader reads a file in batches of bounded size).
    fn pause(&mut self) -> bool {
        false
    }
}

/// Records between two [`Handler::check`] calls: at the drain's 80-150 ns a
/// record, about 10 us; a clock read per record would cost more than the
/// check it decides (`PyErr_CheckSignals` reads one flag).
pub const CHECK_EVERY: u32 = 64;

/// Why [`Session::process_events`] stopped.
#[derive(Debug)]
pub enum ProcessError<E> {
    /// A handler method returned this error.
    Handler(E),
    /// The input could not be read.
    Data(Error),
}

impl<E> From<Error> for ProcessError<E> {
    fn from(e: Error) -> Self {
        ProcessError::Data(e)
    }
}

impl<E: std::fmt::Display> std::fmt::Display for ProcessError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProcessError::Handler(e) => write!(f, "handler: {e}"),
            ProcessError::Data(e) => write!(f, "{e}"),
        }
    }
}

/// Counts of what a session saw (perf's `events_stats`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Records read, by type (index = `header.type`, up to 127).
    pub nr_events: Vec<u64>,
    /// Samples whose id matched no evsel (skipped, as perf does).
    pub nr_unknown_id: u64,
    /// Kernel records of a type this reader does not know (skipped; perf
    /// 6.1 stops at them).
    pub nr_unknown_events: u64,
    /// `lost` of the LOST records.
    pub total_lost: u64,
    /// `lost` of the LOST_SAMPLES records.
    pub total_lost_samples: u64,
    /// Records queued older than the last delivered one.
    pub nr_unordered_events: u64,
    /// Flushes of the older half when the queue reached its cap.
    pub nr_half_flushes: u64,
    /// The most bytes the queue held.
    pub queue_peak_bytes: usize,
    /// COMPRESSED records, and what they decompressed to.
    pub nr_compressed: u64,
    /// Bytes the compressed records decompressed to.
    pub decompressed_bytes: u64,
}

/// A perf.data input being read: perf's `struct perf_session`.
#[derive(Debug)]
pub struct Session {
    path: String,
    endian: Endian,
    is_pipe: bool,
    file_header: Option<FileHeader>,
    features: Features,
    tracing_data: Option<Arc<TracingData>>,
    evlist: Evlist,
    machine: MachineRef,
    stat_config: Vec<(u64, u64)>,
    thread_map: Vec<(u64, String)>,
    cpu_map: Vec<i32>,
    time_conv: Option<TimeConv>,
    id_index: Vec<IdIndexEntry>,
    stats: Stats,
    run: Option<process::Run>,
}

impl Session {
    /// Opens a session on `data`: reads the header (file mode: header,
    /// attrs, features, tracing data; pipe mode: the records of the
    /// header that come before the first kernel record).
    ///
    /// # Errors
    /// The [`DataError`](crate::error::DataError)s of a file that cannot
    /// be read.
    pub fn new(data: PerfData, options: SessionOptions) -> Result<Session> {
        process::open(data, options)
    }

    /// Opens `path` ([`PerfData::open`]) with the default options.
    ///
    /// # Errors
    /// As [`PerfData::open`] and [`Session::new`].
    pub fn open(path: &str) -> Result<Session> {
        Session::new(PerfData::open(path)?, SessionOptions::default())
    }

    /// Reads the whole input, handing records to `handler` in time order
    /// (file order for files without `sample_id_all`, as perf), or up to
    /// where the handler [pauses](Handler::pause): the next call goes on
    /// from there. A session reads its input once: calls after the end
    /// (or an error) return at once.
    ///
    /// # Errors
    /// [`ProcessError::Handler`] with the first error a handler method
    /// returned; [`ProcessError::Data`] for an input that cannot be read
    /// (records before the error were delivered).
    pub fn process_events<H: Handler>(
        &mut self,
        handler: &mut H,
    ) -> Result<(), ProcessError<H::Error>> {
        process::process_events(self, handler)
    }

    /// Takes symbols from `conf` (`vmlinux=`, `kallsyms=`, `symfs=`)
    /// instead of the options' (before [`Session::process_events`]: the
    /// objects seen so far are forgotten). The kernel release of the
    /// vmlinux search path is the file's unless `conf` says one.
    pub fn set_symbols(&mut self, mut conf: SymbolConf) {
        if conf.os_release.is_none() {
            conf.os_release.clone_from(&self.features.os_release);
        }
        self.machine.lock().set_dsos(crate::symbol::Dsos::new(conf));
    }

    /// Whether the input was read to its end (or stopped at an error):
    /// false before the first [`process_events`](Self::process_events)
    /// and after a pause.
    pub fn finished(&self) -> bool {
        self.run.is_none()
    }

    /// The path given.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The byte order of the writer.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// Pipe mode.
    pub fn is_pipe(&self) -> bool {
        self.is_pipe
    }

    /// The file header (not in pipe mode).
    pub fn file_header(&self) -> Option<&FileHeader> {
        self.file_header.as_ref()
    }

    /// The features (in pipe mode, those its records gave so far).
    pub fn features(&self) -> &Features {
        &self.features
    }

    /// The tracing data, if the input has any.
    pub fn tracing_data(&self) -> Option<&TracingData> {
        self.tracing_data.as_deref()
    }

    /// The events.
    pub fn evlist(&self) -> &Evlist {
        &self.evlist
    }

    /// The machine (threads, maps), shared: lock it to look.
    pub fn machine(&self) -> &MachineRef {
        &self.machine
    }

    /// perf's `find_thread(pid, tid)`: the thread as the records read so
    /// far describe it (a copy).
    pub fn find_thread(&self, pid: i32, tid: i32) -> Option<Thread> {
        self.machine.lock().find_thread(pid, tid).cloned()
    }

    /// The ELF machine of the recorded system (`EM_*`): `HEADER_E_MACHINE`
    /// when the file has it, else derived from `HEADER_ARCH` as perf's
    /// `perf_env__e_machine` does, else the host's.
    pub fn e_machine(&self) -> u16 {
        if let Some((m, _)) = self.features.e_machine {
            return u16::try_from(m).unwrap_or(u16::MAX);
        }
        e_machine_of_arch(
            self.features
                .arch
                .as_deref()
                .unwrap_or(std::env::consts::ARCH),
        )
    }

    /// Whether the recorded kernel is 64-bit, as perf's Python
    /// `session.is_64_bit`: by [`Session::e_machine`] where the machine has
    /// one word size, else from `HEADER_ARCH` (`64` in it, or `s390x`,
    /// perf's `perf_env__kernel_is_64_bit`), else the host's.
    pub fn is_64_bit(&self) -> bool {
        if let Some(b) = is_64_bit_machine(self.e_machine()) {
            return b;
        }
        match self.features.arch.as_deref() {
            Some(arch) => is_64_bit_arch(arch),
            None => cfg!(target_pointer_width = "64"),
        }
    }

    /// `PERF_RECORD_STAT_CONFIG` terms (tag, value).
    pub fn stat_config(&self) -> &[(u64, u64)] {
        &self.stat_config
    }

    /// `PERF_RECORD_THREAD_MAP` (pid, comm).
    pub fn thread_map(&self) -> &[(u64, String)] {
        &self.thread_map
    }

    /// `PERF_RECORD_CPU_MAP`.
    pub fn cpu_map(&self) -> &[i32] {
        &self.cpu_map
    }

    /// `PERF_RECORD_TIME_CONV`.
    pub fn time_conv(&self) -> Option<&TimeConv> {
        self.time_conv.as_ref()
    }

    /// `PERF_RECORD_ID_INDEX` entries.
    pub fn id_index(&self) -> &[IdIndexEntry] {
        &self.id_index
    }

    /// What the session saw.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
}

/// Re-exported for handlers: the input types.
pub use perf_data::user;

/// A session moves between threads (a Python object holding one may be
/// used from any thread, one at a time).
#[allow(dead_code)]
fn _session_is_send() {
    fn send<T: Send>() {}
    send::<Session>();
    send::<MachineRef>();
    fn sync<T: Sync>() {}
    sync::<MachineRef>();
}

// SPDX-License-Identifier: GPL-2.0-only
//! Symbols of samples: what a `sample_event` keeps of the machine it came
//! from ([`SampleOrigin`]: a perf.data session's machine, or an evlist's
//! live machine), the lazy getters behind
//! `dso`, `dso_long_name`, `dso_bid`, `map_*`, `symbol`, `sym_*`,
//! `callchain`, `brstack`, `srccode()` and `insn()` (perf-core's
//! `Machine::resolve` and `Machine::resolve_callchain`, perf's
//! `machine__resolve` and `thread__resolve_callchain`), and the types
//! `perf.callchain`, `perf.callchain_node`, `perf.branch_stack`,
//! `perf.branch_entry`.
//!
//! Live samples (`evlist.read_on_cpu`) have a [`SampleOrigin`] only when
//! the evlist tracks mmaps (perf-core's `Evlist::machine`); without one
//! every getter is None, as upstream's.

use std::sync::{Arc, Mutex, PoisonError};

use perf_core::record::{self, BranchEntry, ParseInfo, PERF_RECORD_MISC_CPUMODE_MASK};
use perf_core::session::{CallchainMemo, Lookup, MachineRef};
use perf_core::symbol::callchain::CallchainNode;
use perf_core::symbol::resolve::AddrLocation;
use perf_core::symbol::unwind::UserStack;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyIterator, PyString, PyTuple};

use crate::sequence::sequence_index;

/// What a sample keeps of its machine, for what reads it later (symbols,
/// call chains): the machine (threads and maps as they are when it is
/// read: a session's, or an evlist's live machine), its evsel's record
/// layout, and the record itself (native byte order).
pub struct SampleOrigin {
    /// Shared by the samples of one evsel of one session or evlist.
    pub source: Arc<SampleSource>,
    /// The whole record.
    pub record: Vec<u8>,
    /// The sample's ip resolved, at the first getter that needs it.
    pub resolved: Option<AddrLocation>,
    /// The `callchain` object, made at its first read.
    pub callchain: Option<Py<PyCallchain>>,
    /// The sample's pid and tid when its maker had the record parsed (a
    /// file's sample, [`SampleOrigin::keep_chain`]), with `chain_words`
    /// its `PERF_SAMPLE_CALLCHAIN` words; `None`: the record is parsed
    /// again. Re-parsing was 4.5 % of the stack collapser's instructions.
    chain: Option<(i32, i32)>,
    chain_words: Vec<u64>,
}

/// See [`SampleOrigin`].
pub struct SampleSource {
    /// The session's machine, or the evlist's live machine.
    pub machine: MachineRef,
    /// The evsel's record layout.
    pub info: ParseInfo,
    /// The call chains made, shared by the sources of one session or
    /// evlist (perf-core's `CallchainMemo`: the same chain in the same
    /// address space is one `perf.callchain`, its nodes made once).
    pub memo: ChainMemo,
}

/// See [`SampleSource::memo`]. The objects it keeps hold no other Python
/// object than their nodes: no reference cycle goes through it.
pub type ChainMemo = Arc<Mutex<CallchainMemo<Py<PyCallchain>>>>;

/// The sample's thread and cpumode, from its record (what perf resolves
/// with: the record, not the Python members a script may have changed).
struct Who {
    pid: i32,
    tid: i32,
    cpumode: u8,
    ip: u64,
}

impl SampleOrigin {
    /// Refills for another sample of `source` (a recycled event object).
    pub fn refill(&mut self, source: &Arc<SampleSource>, bytes: &[u8]) {
        self.record.clear();
        self.record.extend_from_slice(bytes);
        if !Arc::ptr_eq(&self.source, source) {
            self.source = Arc::clone(source);
        }
        self.resolved = None;
        self.callchain = None;
        self.chain = None;
    }

    /// Keeps the sample's pid, tid and call chain words, as parsed.
    pub fn keep_chain(&mut self, pid: i32, tid: i32, words: &[u64]) {
        self.chain_words.clear();
        self.chain_words.extend_from_slice(words);
        self.chain = Some((pid, tid));
    }

    /// A new one.
    pub fn new(source: &Arc<SampleSource>, bytes: &[u8]) -> Self {
        SampleOrigin {
            source: Arc::clone(source),
            record: bytes.to_vec(),
            resolved: None,
            callchain: None,
            chain: None,
            chain_words: Vec::new(),
        }
    }

    /// The record parsed again (callchain, branch stack): `None` if it
    /// does not parse, which cannot happen for a record the session or the
    /// ring reader delivered.
    fn parsed(&self) -> Option<record::Record> {
        record::parse(&self.record, &self.source.info).ok()
    }

    fn who(&self) -> Option<Who> {
        let misc = self.record.get(4..6)?;
        let misc = u16::from_ne_bytes([*misc.first()?, *misc.get(1)?]);
        let r = self.parsed()?;
        Some(Who {
            pid: r.sample.pid,
            tid: r.sample.tid,
            cpumode: (misc & PERF_RECORD_MISC_CPUMODE_MASK) as u8,
            ip: r.sample.ip,
        })
    }

    /// `machine__resolve` of `addr` (the sample's ip when `None`) in the
    /// sample's thread.
    fn resolve_addr(&self, addr: Option<u64>) -> Option<AddrLocation> {
        let w = self.who()?;
        let m = &self.source.machine;
        Some(m.resolve(w.pid, w.tid, w.cpumode, addr.unwrap_or(w.ip)))
    }

    /// The sample's ip resolved (once).
    pub fn location(&mut self) -> Option<&AddrLocation> {
        if self.resolved.is_none() {
            self.resolved = self.resolve_addr(None);
        }
        self.resolved.as_ref()
    }

    /// `perf.callchain` of the sample, None without `PERF_SAMPLE_CALLCHAIN`:
    /// the one its source's memo keeps for the same chain in the same
    /// address space, else a new one (kept there).
    pub fn callchain(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyCallchain>>> {
        if let Some(c) = &self.callchain {
            return Ok(Some(c.clone_ref(py)));
        }
        if self.source.info.sample_type() & record::PERF_SAMPLE_CALLCHAIN == 0 {
            return Ok(None);
        }
        let parsed;
        let (pid, tid, words, user) = match self.chain {
            Some((pid, tid)) => (pid, tid, self.chain_words.as_slice(), None),
            None => {
                parsed = self.parsed();
                let Some(r) = &parsed else {
                    return Ok(None);
                };
                let user = UserStack::of(&r.sample, &self.record);
                (
                    r.sample.pid,
                    r.sample.tid,
                    r.sample.callchain.as_slice(),
                    user,
                )
            }
        };
        if words.is_empty() && user.is_none() {
            return Ok(None);
        }
        let resolved = {
            let mut memo = self
                .source
                .memo
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            match self
                .source
                .machine
                .resolve_callchain_memo(&mut memo, pid, tid, words, user)
            {
                Lookup::Hit(c) => Ok(c.clone_ref(py)),
                Lookup::Miss(resolved) => Err(resolved),
            }
        };
        let c = match resolved {
            Ok(c) => c,
            Err(mut resolved) => {
                // Python objects are made with no lock held (a collection
                // they set off may run code that reads the session).
                let nodes = std::mem::take(&mut resolved.nodes)
                    .into_iter()
                    .map(|node| Bound::new(py, PyCallchainNode::new(py, node)))
                    .collect::<PyResult<Vec<_>>>()?;
                let c = Py::new(
                    py,
                    PyCallchain {
                        nodes: PyTuple::new(py, nodes)?.unbind(),
                    },
                )?;
                let mut memo = self
                    .source
                    .memo
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                memo.insert(resolved.pending, c.clone_ref(py));
                c
            }
        };
        self.callchain = Some(c.clone_ref(py));
        Ok(Some(c))
    }

    /// `perf.branch_stack` of the sample, None without
    /// `PERF_SAMPLE_BRANCH_STACK`.
    pub fn brstack(&self) -> Option<PyBranchStack> {
        let b = self.parsed()?.sample.branch_stack?;
        Some(PyBranchStack { entries: b.entries })
    }

    /// `srccode(addr)`: `(file, line, text)` of `addr` (the sample's ip by
    /// default); `(None, 0, None)` when the address has no map or no source
    /// line (upstream's `Py_BuildValue("(sIs#)", NULL, 0, NULL, 0)`), and
    /// `text` None when the source file cannot be read.
    pub fn srccode<'py>(
        &mut self,
        py: Python<'py>,
        addr: Option<u64>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let al = match addr {
            None => self.location().cloned(),
            Some(a) => self.resolve_addr(Some(a)),
        };
        let Some(al) = al else {
            return Ok(None);
        };
        let dsos = Arc::clone(self.source.machine.lock().dsos());
        // Reading DWARF and source files may take long: without the GIL.
        let code = py.detach(|| dsos.srccode(&al));
        let (file, line, text) = match code {
            Some(c) => (Some(c.file), c.line, c.text),
            None => (None, 0, None),
        };
        Ok(Some((file, line, text).into_pyobject(py)?))
    }

    /// `insn()`: the instruction bytes at the sample's ip, read from its
    /// binary.
    pub fn insn<'py>(&mut self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        let al = self.location()?.clone();
        let dsos = Arc::clone(self.source.machine.lock().dsos());
        dsos.fetch_insn(&al).map(|b| PyBytes::new(py, &b))
    }
}

/// The sample getters' answers from a resolved location.
pub mod getters {
    use perf_core::symbol::resolve::AddrLocation;

    /// `dso`: the DSO's name.
    pub fn dso(al: &AddrLocation) -> Option<String> {
        al.map.as_ref().map(|m| m.dso().name().to_owned())
    }

    /// `dso_long_name`.
    pub fn dso_long_name(al: &AddrLocation) -> Option<String> {
        al.map.as_ref().map(|m| m.dso().long_name().to_owned())
    }

    /// `dso_bid`: the build id in hex.
    pub fn dso_bid(al: &AddrLocation) -> Option<String> {
        al.map
            .as_ref()
            .and_then(|m| m.dso().build_id())
            .map(|b| b.to_string())
    }

    /// `map_start`, `map_end`, `map_pgoff`.
    pub fn map(al: &AddrLocation, f: fn(&perf_core::symbol::map::Map) -> u64) -> Option<u64> {
        al.map.as_deref().map(f)
    }

    /// `symbol`.
    pub fn symbol(al: &AddrLocation) -> Option<String> {
        al.symbol_name().map(str::to_owned)
    }

    /// `sym_start` (`true`) or `sym_end`.
    pub fn sym(al: &AddrLocation, start: bool) -> Option<u64> {
        let s = al.sym.as_ref()?.symbol();
        Some(if start { s.start } else { s.end })
    }
}

/// perf callchain object: an immutable sequence of `perf.callchain_node`,
/// shared by the samples of one stack (see [`SampleSource::memo`]).
#[pyclass(module = "perf", name = "callchain", frozen, sequence)]
pub struct PyCallchain {
    /// The `perf.callchain_node`s, leaf first.
    nodes: Py<PyTuple>,
}

impl PyCallchain {
    /// A chain of call path frames, outermost caller first: each node
    /// with the symbol name given ("[unknown]" without).
    pub fn of_frames(
        py: Python<'_>,
        frames: Vec<(CallchainNode, Option<&str>)>,
    ) -> PyResult<Py<PyCallchain>> {
        let nodes = frames
            .into_iter()
            .map(|(node, name)| {
                let node = PyCallchainNode {
                    symbol: PyString::new(py, name.unwrap_or("[unknown]")).unbind(),
                    node,
                    dso: PyOnceLock::new(),
                };
                Bound::new(py, node)
            })
            .collect::<PyResult<Vec<_>>>()?;
        Py::new(
            py,
            PyCallchain {
                nodes: PyTuple::new(py, nodes)?.unbind(),
            },
        )
    }
}

#[pymethods]
impl PyCallchain {
    fn __len__(&self, py: Python<'_>) -> usize {
        self.nodes.bind(py).len()
    }

    fn __getitem__<'py>(&self, index: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let nodes = self.nodes.bind(index.py());
        let i = sequence_index(index, nodes.len())?;
        nodes.get_item(i.0)
    }

    /// The nodes' iterator (the sequence protocol's ends with an
    /// `IndexError` raised and caught per chain).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        self.nodes.bind(py).try_iter()
    }
}

/// perf callchain node object. Shared by the samples of one stack, it
/// holds its `symbol` as a `str`, made with it (a `str` made per read was
/// 2.5 % of the stack collapser's instructions, one made at the first read
/// behind a `PyOnceLock` 1.5 %) and read as a struct member, without a call
/// into the module (a getter was 4 % more of the collapser's instructions),
/// and makes its `dso` at the first read.
#[pyclass(module = "perf", name = "callchain_node", frozen)]
pub struct PyCallchainNode {
    node: CallchainNode,
    /// The function's name, or "[unknown]".
    #[pyo3(get)]
    symbol: Py<PyString>,
    dso: PyOnceLock<Py<PyString>>,
}

impl PyCallchainNode {
    fn new(py: Python<'_>, node: CallchainNode) -> Self {
        PyCallchainNode {
            symbol: PyString::new(py, node.symbol_name()).unbind(),
            node,
            dso: PyOnceLock::new(),
        }
    }
}

#[pymethods]
impl PyCallchainNode {
    /// The frame's address.
    #[getter]
    fn ip(&self) -> u64 {
        self.node.ip
    }

    /// The frame's offset into its symbol (perf script's `sym+0x…`), None
    /// without a symbol.
    #[getter]
    fn sym_offset(&self) -> Option<u64> {
        self.node.location.symoff()
    }

    /// True for a frame of inlined code (perf script's `(inlined)`): with
    /// `perf.session(..., inline=True)`, the frames of an address in
    /// inlined functions but the last, and the last too when its DWARF
    /// name is not its symbol's.
    #[getter]
    fn inlined(&self) -> bool {
        self.node.inlined()
    }

    /// The object's (long) name, or "[unknown]" (perf's session shows
    /// kernel paths).
    #[getter]
    fn dso(&self, py: Python<'_>) -> Py<PyString> {
        let s = self
            .dso
            .get_or_init(py, || PyString::new(py, self.node.dso_name(true)).unbind());
        s.clone_ref(py)
    }
}

/// perf branch stack object.
#[pyclass(module = "perf", name = "branch_stack", frozen, sequence)]
pub struct PyBranchStack {
    entries: Vec<BranchEntry>,
}

#[pymethods]
impl PyBranchStack {
    fn __len__(&self) -> usize {
        self.entries.len()
    }

    fn __getitem__(&self, index: &Bound<'_, PyAny>) -> PyResult<PyBranchEntry> {
        let i = sequence_index(index, self.entries.len())?;
        self.entries
            .get(i.0)
            .map(|e| PyBranchEntry(*e))
            .ok_or_else(|| pyo3::exceptions::PyIndexError::new_err("Index out of range"))
    }
}

/// perf branch entry object.
#[pyclass(module = "perf", name = "branch_entry", frozen)]
pub struct PyBranchEntry(BranchEntry);

#[pymethods]
impl PyBranchEntry {
    /// Branch source.
    #[getter]
    #[allow(clippy::wrong_self_convention)] // upstream's attribute name
    fn from_ip(&self) -> u64 {
        self.0.from
    }

    /// Branch target.
    #[getter]
    fn to_ip(&self) -> u64 {
        self.0.to
    }

    /// Mispredicted.
    #[getter]
    fn mispred(&self) -> bool {
        self.0.mispred()
    }

    /// Predicted.
    #[getter]
    fn predicted(&self) -> bool {
        self.0.predicted()
    }

    /// In a transaction.
    #[getter]
    fn in_tx(&self) -> bool {
        self.0.in_tx()
    }

    /// A transaction abort.
    #[getter]
    fn abort(&self) -> bool {
        self.0.abort()
    }

    /// Cycles since the previous branch (0: unknown).
    #[getter]
    fn cycles(&self) -> u16 {
        self.0.cycles()
    }

    /// The branch type (`PERF_BR_*`).
    #[getter]
    fn r#type(&self) -> u8 {
        self.0.type_()
    }
}

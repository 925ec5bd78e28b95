// SPDX-License-Identifier: GPL-2.0-only
//! The DSOs of a session (perf's `machine->dsos` and `machine->kmaps`):
//! one [`Dso`] per mapped object, found by name and device/inode as perf
//! finds them, with the file's build-id table applied, and symbol tables
//! loaded once per object and shared between DSOs with the same build id.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use super::build_id::BuildId;
use super::conf::SymbolConf;
use super::dso::{BinaryType, Dso, DsoId, DsoKind, DsoSymbols};
use super::kmaps::{self, KernelMaps, KERNEL_MMAP_NAME};
use super::map::{self, Map, MapInfo, MAP_HUGETLB, PROT_EXEC};
use super::srcline::SourceCache;
use super::{dso_load, jit_map};

struct Entry {
    dso: Arc<Dso>,
    id: DsoId,
}

#[derive(Default)]
struct Inner {
    by_name: HashMap<String, Vec<Entry>>,
    header_bids: HashMap<String, BuildId>,
    shared: HashMap<BuildId, Weak<DsoSymbols>>,
}

/// A session's DSOs, kernel maps and symbol sources.
pub struct Dsos {
    conf: SymbolConf,
    inner: Mutex<Inner>,
    kmaps: RwLock<KernelMaps>,
    kernel: Arc<Dso>,
    sources: SourceCache,
    nr_loads: AtomicU64,
    /// See [`Dsos::stamp`].
    stamp: AtomicU64,
}

impl std::fmt::Debug for Dsos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dsos")
            .field("conf", &self.conf)
            .finish_non_exhaustive()
    }
}

/// perf's default symbol sources.
impl Default for Dsos {
    fn default() -> Self {
        Dsos::new(SymbolConf::default())
    }
}

impl Dsos {
    /// No DSOs yet; symbols will come from where `conf` says.
    pub fn new(conf: SymbolConf) -> Self {
        Dsos {
            conf,
            inner: Mutex::new(Inner::default()),
            kmaps: RwLock::new(KernelMaps::default()),
            kernel: kmaps::new_kernel_dso(),
            sources: SourceCache::default(),
            nr_loads: AtomicU64::new(0),
            stamp: AtomicU64::new(super::next_stamp()),
        }
    }

    /// A new stamp at every change that can change where an address of a
    /// user map already resolved, or a kernel address, resolves: a symbol
    /// table loaded (or a load failed: the next lookup in that object
    /// finds nothing, the ones after it what the load had), a kernel map
    /// or BPF program added or removed. Equal stamps: the same answers.
    pub fn stamp(&self) -> u64 {
        self.stamp.load(Ordering::Acquire)
    }

    pub(crate) fn changed(&self) {
        self.stamp.store(super::next_stamp(), Ordering::Release);
    }

    /// The symbol sources.
    pub fn conf(&self) -> &SymbolConf {
        &self.conf
    }

    /// The source files read for `srccode()`.
    pub fn sources(&self) -> &SourceCache {
        &self.sources
    }

    fn inner(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One entry of the file's HEADER_BUILD_ID table (or a
    /// PERF_RECORD_HEADER_BUILD_ID record): maps of `filename` without a
    /// build id of their own get this one.
    pub fn add_header_build_id(&self, filename: &[u8], bid: BuildId) {
        let name = String::from_utf8_lossy(filename).into_owned();
        if name == KERNEL_MMAP_NAME {
            self.kernel.set_build_id(bid);
        }
        let mut inner = self.inner();
        if let Some(entries) = inner.by_name.get(&name) {
            for e in entries {
                e.dso.set_build_id(bid);
            }
        }
        inner.header_bids.insert(name, bid);
    }

    /// `__dsos__findnew_id`: the DSO called `name` with device/inode `id`
    /// (ids are compared only when both are known; an unknown id takes the
    /// first one seen).
    pub fn findnew(&self, name: &str, kind: DsoKind, id: Option<DsoId>) -> Arc<Dso> {
        let id = id.unwrap_or_default();
        let mut inner = self.inner();
        let header_bid = inner.header_bids.get(name).copied();
        let entries = inner.by_name.entry(name.to_owned()).or_default();
        for e in entries.iter_mut() {
            if e.dso.kind() != kind {
                continue;
            }
            if e.id.is_empty() || id.is_empty() || e.id == id {
                if e.id.is_empty() {
                    e.id = id;
                }
                return Arc::clone(&e.dso);
            }
        }
        let dso = Arc::new(Dso::new(name, kind, id));
        if let Some(b) = header_bid {
            dso.set_build_id(b);
        }
        entries.push(Entry {
            dso: Arc::clone(&dso),
            id,
        });
        dso
    }

    /// `machine__findnew_module_dso`: modules are found by their `[name]`.
    fn findnew_module(&self, short: &str, path: &str) -> Arc<Dso> {
        let mut inner = self.inner();
        let header_bid = inner
            .header_bids
            .get(path)
            .or_else(|| inner.header_bids.get(short))
            .copied();
        let entries = inner.by_name.entry(short.to_owned()).or_default();
        if let Some(e) = entries
            .iter()
            .find(|e| e.dso.kind() == DsoKind::KernelModule)
        {
            return Arc::clone(&e.dso);
        }
        let dso = Arc::new(Dso::new_module(short, path));
        if let Some(b) = header_bid {
            dso.set_build_id(b);
        }
        entries.push(Entry {
            dso: Arc::clone(&dso),
            id: DsoId::default(),
        });
        dso
    }

    /// `map__new`: the map an MMAP/MMAP2 record of a user-space mapping
    /// creates, with its DSO.
    pub fn map_new(&self, info: &MapInfo<'_>) -> Arc<Map> {
        let raw = info.filename;
        let anon = map::is_anon_memory(raw) || info.flags & MAP_HUGETLB != 0;
        let no_dso = map::is_no_dso_memory(raw);
        let vdso = map::is_vdso_map(raw);
        let exec = info.prot & PROT_EXEC != 0;
        let end = info.start.wrapping_add(info.len);
        let (name, kind) = if (anon || no_dso) && exec {
            (format!("/tmp/perf-{}.map", info.pid), DsoKind::JitMap)
        } else if anon || no_dso {
            (String::from_utf8_lossy(raw).into_owned(), DsoKind::Anon)
        } else if vdso {
            ("[vdso]".to_owned(), DsoKind::Vdso)
        } else {
            (String::from_utf8_lossy(raw).into_owned(), DsoKind::User)
        };
        let id = if vdso { None } else { info.dso_id };
        let dso = self.findnew(&name, kind, id);
        if let Some(b) = info.build_id {
            dso.set_build_id(b);
        }
        let pgoff = if vdso { 0 } else { info.pgoff };
        Arc::new(Map::new(info.start, end, pgoff, anon || no_dso, dso))
    }

    /// An MMAP/MMAP2 record with a kernel cpumode: the kernel's own map
    /// (`[kernel.kallsyms]_text`), a module, or an entry trampoline.
    pub fn process_kernel_mmap(&self, info: &MapInfo<'_>) {
        let mut k = self.kmaps.write().unwrap_or_else(|e| e.into_inner());
        k.process_mmap(info, Arc::clone(&self.kernel), |short, path| {
            self.findnew_module(short, path)
        });
        self.changed();
    }

    /// A KSYMBOL record: a BPF program registered at `addr` (its map and
    /// DSO), or unregistered.
    pub fn process_ksymbol(&self, addr: u64, len: u32, name: &str, unregister: bool) {
        let mut k = self.kmaps.write().unwrap_or_else(|e| e.into_inner());
        k.process_ksymbol(addr, len, name, unregister);
        self.changed();
    }

    /// How many user-space objects had their symbols loaded so far: each
    /// binary once, whatever the number of processes and DSOs mapping it
    /// (DSOs with one build id share one table).
    pub fn nr_loads(&self) -> u64 {
        self.nr_loads.load(Ordering::Relaxed)
    }

    /// The kernel DSO (`[kernel.kallsyms]`).
    pub fn kernel(&self) -> &Arc<Dso> {
        &self.kernel
    }

    /// `maps__find` in the kernel maps, loading the kernel's symbols first
    /// (as perf's `thread__find_map` does for kernel addresses).
    pub fn find_kernel_map(&self, addr: u64) -> Option<Arc<Map>> {
        {
            let k = self.kmaps.read().unwrap_or_else(|e| e.into_inner());
            if self.kernel.loaded().is_some() || k.kernel_dso().is_none() {
                return k.find(addr);
            }
        }
        let mut k = self.kmaps.write().unwrap_or_else(|e| e.into_inner());
        if k.load(&self.conf) {
            self.changed();
        }
        k.find(addr)
    }

    /// Why the kernel has no symbols, if it has none.
    pub fn kernel_warning(&self) -> Option<String> {
        self.kmaps.read().ok().and_then(|k| k.warning.clone())
    }

    /// `map__load`: the DSO's symbols, loaded on first use and shared by
    /// build id.
    pub fn load(&self, dso: &Arc<Dso>) -> Arc<DsoSymbols> {
        if let Some(l) = dso.loaded() {
            return Arc::clone(l);
        }
        if dso.is_kernel() {
            let mut k = self.kmaps.write().unwrap_or_else(|e| e.into_inner());
            if k.load(&self.conf) {
                self.changed();
            }
            drop(k);
            return dso.loaded().cloned().unwrap_or_default();
        }
        let bid = dso.recorded_build_id();
        let shared = bid.and_then(|b| self.inner().shared.get(&b).and_then(Weak::upgrade));
        let mut first = false;
        let loaded = Arc::clone(dso.loaded.get_or_init(|| {
            first = true;
            shared.unwrap_or_else(|| Arc::new(self.load_now(dso)))
        }));
        if first {
            if loaded.load_failed {
                dso.failed_lookup_pending.store(true, Ordering::Relaxed);
            }
            self.changed();
        }
        if let Some(b) = bid.or(loaded.build_id) {
            if loaded.symtab_type.is_some() {
                self.inner().shared.insert(b, Arc::downgrade(&loaded));
            }
        }
        loaded
    }

    fn load_now(&self, dso: &Dso) -> DsoSymbols {
        self.nr_loads.fetch_add(1, Ordering::Relaxed);
        // perf decides by name: any object under /tmp/perf- is read as a
        // JIT map (`dso__load`'s `perfmap`).
        let perfmap = dso.name().starts_with("/tmp/perf-");
        match dso.kind() {
            DsoKind::Anon => DsoSymbols::default(),
            _ if perfmap => match crate::regular_file::read_capped(dso.path(), jit_map::MAX_FILE) {
                Ok(text) => {
                    let symbols = jit_map::parse(&text);
                    let found = !symbols.is_empty();
                    DsoSymbols {
                        symbols,
                        symtab_type: found.then_some(BinaryType::JavaJit),
                        ..DsoSymbols::default()
                    }
                }
                Err(_) => DsoSymbols::default(),
            },
            _ => dso_load::load_user(dso, &self.conf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Python objects that hold these live behind locks in other
    /// threads than the one that made them.
    #[test]
    fn shareable_between_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<Dsos>();
        send_sync::<Map>();
        send_sync::<crate::symbol::resolve::AddrLocation>();
        send_sync::<crate::symbol::callchain::CallchainNode>();
        send_sync::<crate::symbol::srcline::SourceCache>();
    }
}

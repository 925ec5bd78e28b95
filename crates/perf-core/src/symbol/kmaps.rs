// SPDX-License-Identifier: GPL-2.0-only
//! The kernel's maps (perf's `machine->kmaps`): the kernel map made from
//! the `[kernel.kallsyms]_text` MMAP record, module maps from module MMAP
//! records, and the x86-64 entry trampoline maps; and loading the kernel's
//! symbols into them (`dso__load_kernel_sym`, `maps__split_kallsyms`).

use std::collections::HashMap;
use std::sync::Arc;

use super::build_id::{BuildId, CachedFile};
use super::conf::SymbolConf;
use super::dso::{BinaryType, Dso, DsoId, DsoKind, DsoSymbols};
use super::dso_load::is_regular_file;
use super::elf::{self, with_elf, AnyElf};
use super::kallsyms::{self, ENTRY_TRAMPOLINE};
use super::map::{Map, MapInfo};
use super::symbols::{Symbol, Symbols, STB_GLOBAL, STT_FUNC};

/// `machine->mmap_name` for the host.
pub(crate) const KERNEL_MMAP_NAME: &str = "[kernel.kallsyms]";

/// `__kmod_path__parse` for a module MMAP name: `[name]` as is, a `.ko`
/// path as `[base]` with `-` turned into `_`.
pub(crate) fn module_name(filename: &str) -> String {
    let base = filename.rsplit('/').next().unwrap_or(filename);
    if base.starts_with('[') {
        return base.to_owned();
    }
    let mut stem = base;
    for comp in [".gz", ".xz", ".zst", ".bz2"] {
        if let Some(s) = stem.strip_suffix(comp) {
            stem = s;
            break;
        }
    }
    match stem.strip_suffix(".ko") {
        Some(s) if !s.is_empty() => format!("[{}]", s.replace('-', "_")),
        _ => base.replace('-', "_"),
    }
}

/// Kernel maps and the kernel's relocation reference.
#[derive(Debug, Default)]
pub(crate) struct KernelMaps {
    maps: Vec<Arc<Map>>,
    kernel: Option<Arc<Dso>>,
    /// The reference symbol (`_text`) and its recorded address (the MMAP
    /// record's pgoff), to detect a kernel relocated since recording.
    ref_reloc: Option<(String, u64)>,
    loaded: bool,
    pub(crate) warning: Option<String>,
}

impl KernelMaps {
    fn insert(&mut self, map: Arc<Map>) {
        self.maps
            .retain(|m| !Arc::ptr_eq(m.dso(), map.dso()) || m.start() != map.start());
        let at = self.maps.partition_point(|m| m.start() <= map.start());
        self.maps.insert(at, map);
    }

    /// The kernel DSO, if a kernel MMAP record was seen.
    pub(crate) fn kernel_dso(&self) -> Option<&Arc<Dso>> {
        self.kernel.as_ref()
    }

    /// `maps__find`: the map holding `addr`.
    pub(crate) fn find(&self, addr: u64) -> Option<Arc<Map>> {
        let at = self.maps.partition_point(|m| m.start() <= addr);
        self.maps[..at]
            .iter()
            .rev()
            .find(|m| m.contains(addr))
            .cloned()
    }

    /// `machine__process_kernel_mmap_event`.
    pub(crate) fn process_mmap(
        &mut self,
        info: &MapInfo<'_>,
        kernel: Arc<Dso>,
        module: impl FnOnce(&str, &str) -> Arc<Dso>,
    ) {
        let name = String::from_utf8_lossy(info.filename);
        let name = name.as_ref();
        let (start, len, pgoff, bid) = (info.start, info.len, info.pgoff, info.build_id);
        let end = start.wrapping_add(len);
        let is_kernel_mmap = name.starts_with(&KERNEL_MMAP_NAME[..KERNEL_MMAP_NAME.len() - 1]);
        if name.starts_with('/') || (!is_kernel_mmap && name.starts_with('[')) {
            let dso = module(&module_name(name), name);
            if let Some(b) = bid {
                dso.set_build_id(b);
            }
            self.insert(Arc::new(Map::new(start, end, 0, false, dso)));
        } else if is_kernel_mmap {
            if let Some(b) = bid {
                kernel.set_build_id(b);
            }
            let (start, end) = if start == 0 && end == 0 {
                (0, u64::MAX)
            } else {
                (start, end)
            };
            self.maps.retain(|m| {
                m.dso().kind() != DsoKind::Kernel || m.pgoff() != 0 || !m.is_identity()
            });
            self.insert(Arc::new(Map::new(start, end, 0, true, Arc::clone(&kernel))));
            if pgoff != 0 {
                let sym = &name[KERNEL_MMAP_NAME.len().min(name.len())..];
                self.ref_reloc = Some((sym.to_owned(), pgoff));
            }
            self.kernel = Some(kernel);
        } else if name == ENTRY_TRAMPOLINE {
            // An extra kernel map: trampoline addresses translate to the
            // kernel text they copy.
            self.insert(Arc::new(Map::new(start, end, pgoff, false, kernel)));
        }
    }

    /// `machine__process_ksymbol`: a BPF program's map and DSO (holding
    /// one symbol, the program's name, at map-relative 0), or, with
    /// `unregister`, the removal of the map at `addr` (never the kernel's).
    pub(crate) fn process_ksymbol(&mut self, addr: u64, len: u32, name: &str, unregister: bool) {
        if unregister {
            self.maps
                .retain(|m| m.start() != addr || m.dso().kind() == DsoKind::Kernel);
            return;
        }
        let dso = Dso::new(name, DsoKind::Bpf, DsoId::default());
        let mut symbols = Symbols::new();
        symbols.insert(Symbol::new(0, u64::from(len), STB_GLOBAL, STT_FUNC, name));
        let _ = dso.loaded.set(Arc::new(DsoSymbols {
            symbols,
            symtab_type: Some(BinaryType::BpfProgInfo),
            ..Default::default()
        }));
        let end = addr.wrapping_add(u64::from(len));
        self.insert(Arc::new(Map::new(addr, end, 0, false, Arc::new(dso))));
    }

    /// Loads the kernel's symbols once (`map__load` of the kernel map):
    /// true the first time (when anything may have changed).
    pub(crate) fn load(&mut self, conf: &SymbolConf) -> bool {
        if self.loaded {
            return false;
        }
        self.loaded = true;
        let Some(kernel) = self.kernel.clone() else {
            return true;
        };
        let bid = kernel.recorded_build_id();
        let loaded = match self.kernel_source(conf, bid.as_ref()) {
            Some(Source::Kallsyms(path)) => self.load_kallsyms(conf, &kernel, &path),
            Some(Source::Vmlinux(path, syms)) => self.load_vmlinux(&kernel, path, syms),
            None => {
                let why = match bid {
                    Some(b) => format!("No kallsyms or vmlinux with build-id {b} was found"),
                    None => "no kernel symbols were found".to_owned(),
                };
                self.warning = Some(why.clone());
                DsoSymbols {
                    warning: Some(why),
                    ..DsoSymbols::default()
                }
            }
        };
        let _ = kernel.loaded.set(Arc::new(loaded));
        // Modules that got no kallsyms symbols have none.
        for m in &self.maps {
            let _ = m.dso().loaded.set(Arc::new(DsoSymbols::default()));
        }
        true
    }

    /// `dso__load_kernel_sym`'s choice of source.
    fn kernel_source(&self, conf: &SymbolConf, bid: Option<&BuildId>) -> Option<Source> {
        if let Some(k) = &conf.kallsyms {
            return Some(Source::Kallsyms(k.clone()));
        }
        if let Some(v) = &conf.vmlinux {
            return vmlinux_symbols(v, None).map(|s| Source::Vmlinux(v.clone(), s));
        }
        if let Some(b) = bid {
            let cached = conf.buildid_cache.filename(b, CachedFile::Elf);
            if let Some(s) = vmlinux_symbols(&cached, Some(b)) {
                return Some(Source::Vmlinux(cached, s));
            }
        }
        for p in conf.vmlinux_path() {
            if let Some(s) = vmlinux_symbols(&p, bid) {
                return Some(Source::Vmlinux(p, s));
            }
        }
        if !conf.symfs.as_os_str().is_empty() {
            return None;
        }
        // dso__find_kallsyms (kcore is not used).
        let Some(b) = bid else {
            return Some(Source::Kallsyms(conf.proc_kallsyms.clone()));
        };
        if conf.running_kernel.is_some_and(|r| b.matches(&r)) {
            return Some(Source::Kallsyms(conf.proc_kallsyms.clone()));
        }
        conf.buildid_cache.kallsyms_path(b).map(Source::Kallsyms)
    }

    /// `__dso__load_kallsyms` + `maps__split_kallsyms` +
    /// `map__fixup_start/end`.
    fn load_kallsyms(
        &mut self,
        _conf: &SymbolConf,
        kernel: &Arc<Dso>,
        path: &std::path::Path,
    ) -> DsoSymbols {
        // A regular file (a FIFO or a device is skipped), read up to
        // kallsyms::MAX_FILE.
        let file = match crate::regular_file::open_capped(path, kallsyms::MAX_FILE) {
            Ok(file) => file,
            Err(e) => {
                return DsoSymbols {
                    warning: Some(format!("cannot read {}: {e}", path.display())),
                    ..DsoSymbols::default()
                }
            }
        };
        // Read once: counting the lines first, to size the table, read
        // /proc/kallsyms twice, and the kernel formats every line of each
        // read (35 ms of CPU here, 6 % of the columnar stack collapser of
        // benchmarks/perf_data_symbols.py). The growing table's brief two
        // copies stay below the sort's scratch that follows: the
        // collapsers' peak RSS grew by 0.5 MiB.
        let all = kallsyms::load(std::io::BufReader::new(file));
        // kallsyms__delta: the kernel moved since recording.
        let delta = self
            .ref_reloc
            .as_ref()
            .and_then(|(name, addr)| {
                all.iter()
                    .find(|s| kallsyms::split_module(s.name()).0 == name.as_str())
                    .map(|s| s.start.wrapping_sub(*addr))
            })
            .unwrap_or(0);
        // Split in address order (which the sorted tables keep).
        let mut kernel_syms: Vec<Symbol> = Vec::with_capacity(all.len());
        let mut module_syms: HashMap<String, Vec<Symbol>> = HashMap::new();
        for s in all {
            let (name, module) = kallsyms::split_module(s.name());
            match module {
                Some(m) => {
                    let key = format!("[{m}]");
                    let Some(map) = self.maps.iter().find(|x| x.dso().short_name() == key) else {
                        continue;
                    };
                    let sym = Symbol::new(map.map_ip(s.start), 0, s.binding, s.kind, name)
                        .with_range(map.map_ip(s.start), map.map_ip(s.end));
                    module_syms.entry(key).or_default().push(sym);
                }
                None => {
                    if s.name() == ENTRY_TRAMPOLINE {
                        continue;
                    }
                    let (start, end) = (s.start.wrapping_sub(delta), s.end.wrapping_sub(delta));
                    kernel_syms.push(s.with_range(start, end));
                }
            }
        }
        for m in &self.maps {
            if let Some(syms) = module_syms.remove(m.dso().short_name()) {
                let _ = m.dso().loaded.set(Arc::new(DsoSymbols {
                    symbols: Symbols::from_sorted(syms),
                    symtab_type: Some(BinaryType::Kallsyms),
                    ..DsoSymbols::default()
                }));
            }
        }
        let kernel_syms = Symbols::from_sorted(kernel_syms);
        // map__fixup_start/end: the kernel map spans its symbols.
        if let (Some(first), Some(last)) = (kernel_syms.first(), kernel_syms.last()) {
            let (start, end) = (first.start, last.end);
            self.maps
                .retain(|m| !Arc::ptr_eq(m.dso(), kernel) || !m.is_identity());
            self.insert(Arc::new(Map::new(start, end, 0, true, Arc::clone(kernel))));
        }
        DsoSymbols {
            symbols: kernel_syms,
            symtab_type: Some(BinaryType::Kallsyms),
            symsrc_filename: Some(path.to_path_buf()),
            ..DsoSymbols::default()
        }
    }

    /// A vmlinux's symbols at their link addresses, moved by the
    /// relocation the MMAP record's `_text` shows.
    fn load_vmlinux(
        &mut self,
        _kernel: &Arc<Dso>,
        path: std::path::PathBuf,
        syms: Symbols,
    ) -> DsoSymbols {
        let text = syms
            .iter()
            .find(|s| self.ref_reloc.as_ref().is_some_and(|(n, _)| s.name() == n))
            .map(|s| s.start);
        let delta = match (&self.ref_reloc, text) {
            (Some((_, recorded)), Some(linked)) => recorded.wrapping_sub(linked),
            _ => 0,
        };
        let mut moved = Symbols::new();
        for s in syms.into_sorted() {
            let (start, end) = (s.start.wrapping_add(delta), s.end.wrapping_add(delta));
            moved.insert(s.with_range(start, end));
        }
        DsoSymbols {
            symbols: moved,
            symtab_type: Some(BinaryType::Vmlinux),
            symsrc_filename: Some(path),
            ..DsoSymbols::default()
        }
    }
}

enum Source {
    Kallsyms(std::path::PathBuf),
    Vmlinux(std::path::PathBuf, Symbols),
}

/// A vmlinux's `.symtab` (kernel rules: no demangling, link addresses),
/// if the file is an ELF with a symbol table and, when `bid` is given,
/// that build id.
fn vmlinux_symbols(path: &std::path::Path, bid: Option<&BuildId>) -> Option<Symbols> {
    if !is_regular_file(path) {
        return None;
    }
    let cache = elf::open(path).ok()?;
    let any = AnyElf::parse(&cache)?;
    if let Some(want) = bid {
        if !any.build_id().is_some_and(|have| want.matches(&have)) {
            return None;
        }
    }
    if !any.has_symtab() {
        return None;
    }
    let mut out = Symbols::new();
    let naming = super::elf_syms::Naming { demangle: false };
    with_elf!(&any, e => super::elf_syms::load_kernel_symtab(e, naming, &mut out));
    (!out.is_empty()).then_some(out)
}

/// A new kernel DSO.
pub(crate) fn new_kernel_dso() -> Arc<Dso> {
    Arc::new(Dso::new(
        KERNEL_MMAP_NAME,
        DsoKind::Kernel,
        DsoId::default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::resolve::{ThreadMaps, CPUMODE_KERNEL};
    use crate::symbol::{conf::SymbolConf, Dsos};

    /// Modules, emulated (the test machine has none): kallsyms symbols
    /// tagged `[ext4]` go to the map of the ext4 MMAP record, relative to
    /// its start, and show as `[ext4]`; symbols of a module without a map
    /// are dropped, as perf drops them.
    #[test]
    fn module_symbols_from_kallsyms() {
        let dir = std::env::temp_dir().join(format!("perfpy-kmod-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let ks = dir.join("kallsyms");
        std::fs::write(
            &ks,
            "ffffffff81000000 T _text\n\
ffffffff81000100 T kfunc\n\
ffffffff81000200 T kother\n\
ffffffffc0100000 t ext4_read\t[ext4]\n\
ffffffffc0100080 t ext4_write\t[ext4]\n\
ffffffffc0200000 t xfs_thing\t[xfs]\n",
        )
        .expect("write");
        let conf = SymbolConf {
            kallsyms: Some(ks),
            ..SymbolConf::default()
        };
        let dsos = Dsos::new(conf);
        let kernel = MapInfo {
            pid: -1,
            start: 0xffffffff81000000,
            len: 0x1000,
            pgoff: 0xffffffff81000000,
            filename: b"[kernel.kallsyms]_text",
            prot: 5,
            flags: 0,
            dso_id: None,
            build_id: None,
        };
        dsos.process_kernel_mmap(&kernel);
        dsos.process_kernel_mmap(&MapInfo {
            start: 0xffffffffc0100000,
            len: 0x2000,
            pgoff: 0,
            filename: b"/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko",
            ..kernel
        });
        let at = |addr| {
            let al = dsos.thread_find_symbol(&(), CPUMODE_KERNEL, addr);
            (
                al.map.map(|m| m.dso().name().to_owned()),
                al.sym.map(|s| s.name().to_owned()),
            )
        };
        assert_eq!(
            at(0xffffffff81000105),
            (Some("[kernel.kallsyms]".into()), Some("kfunc".into()))
        );
        assert_eq!(
            at(0xffffffffc0100090),
            (Some("[ext4]".into()), Some("ext4_write".into()))
        );
        // The last kernel symbol before the modules ends a page past its
        // start, rounded up, and so does the kernel map.
        assert_eq!(at(0xffffffff81001100).1, Some("kother".into()));
        assert_eq!(at(0xffffffff81002100), (None, None));
        // No map for xfs: its symbols are dropped.
        assert_eq!(at(0xffffffffc0200010), (None, None));
        let _ = std::fs::remove_dir_all(&dir);
        let _ = (&() as &dyn ThreadMaps).find_map(0);
    }

    #[test]
    fn module_names() {
        assert_eq!(
            module_name("/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko"),
            "[ext4]"
        );
        assert_eq!(
            module_name("/lib/modules/6.1.0/kernel/drivers/x/snd-hda-intel.ko.xz"),
            "[snd_hda_intel]"
        );
        assert_eq!(module_name("[bpf_prog]"), "[bpf_prog]");
    }
}

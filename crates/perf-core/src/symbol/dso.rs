// SPDX-License-Identifier: GPL-2.0-only
//! `struct dso`: one mapped object (a binary, a library, the kernel, a
//! module, the vDSO, a JIT map) with its names, build id and, loaded on
//! first use and shared, its symbol table.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::build_id::BuildId;
use super::symbols::{Symbol, Symbols};

/// What kind of object a DSO is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DsoKind {
    /// A user-space ELF object (`DSO_SPACE__USER`).
    User,
    /// The kernel (`[kernel.kallsyms]`).
    Kernel,
    /// A kernel module (`[name]`, long name the `.ko` path).
    KernelModule,
    /// The vDSO (`[vdso]`).
    Vdso,
    /// A JIT symbol file (`/tmp/perf-<pid>.map`), for executable anonymous
    /// memory.
    JitMap,
    /// Memory with no object (`//anon`, `[heap]`, `[stack]`, SysV shm):
    /// never has symbols.
    Anon,
    /// A BPF program (or trampoline) a KSYMBOL record announced: kernel
    /// space, one symbol, its name.
    Bpf,
}

/// The device and inode of a mapped file (MMAP2's `maj`, `min`, `ino`,
/// `ino_generation`), perf's `struct dso_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DsoId {
    /// Major device number.
    pub maj: u32,
    /// Minor device number.
    pub min: u32,
    /// Inode.
    pub ino: u64,
    /// Inode generation.
    pub ino_generation: u64,
}

impl DsoId {
    /// All zero: perf compares ids only when both are set.
    pub fn is_empty(&self) -> bool {
        *self == DsoId::default()
    }
}

/// Where a DSO's symbols came from (`enum dso_binary_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryType {
    /// `/proc/kallsyms` or a kallsyms copy.
    Kallsyms,
    /// A vmlinux ELF file.
    Vmlinux,
    /// A `/tmp/perf-<pid>.map` file.
    JavaJit,
    /// The file named by `.gnu_debuglink`.
    Debuglink,
    /// `~/.debug/.build-id/xx/…/elf` (or `vdso`).
    BuildIdCache,
    /// `~/.debug/.build-id/xx/…/debug`.
    BuildIdCacheDebuginfo,
    /// `/usr/lib/debug/<path>.debug`.
    FedoraDebuginfo,
    /// `/usr/lib/debug/<path>`.
    UbuntuDebuginfo,
    /// `/usr/lib/debug/.build-id/xx/….debug`.
    BuildidDebuginfo,
    /// The `.gnu_debugdata` (MiniDebugInfo) of the object (newer perf).
    GnuDebugdata,
    /// The object at its own path.
    SystemPathDso,
    /// A module's `.ko` at its own path.
    SystemPathKmodule,
    /// `<dir>/.debug/<name>`.
    OpenembeddedDebuginfo,
    /// `/usr/lib/debug/lib/…` for `/usr/lib/…`.
    MixedupUbuntuDebuginfo,
    /// The running process's own vDSO image.
    RunningVdso,
    /// A KSYMBOL record (`DSO_BINARY_TYPE__BPF_PROG_INFO`).
    BpfProgInfo,
}

impl BinaryType {
    /// `dso__symtab_origin`'s letter, as `perf report -v` shows it.
    pub fn origin(self) -> char {
        match self {
            BinaryType::Kallsyms => 'k',
            BinaryType::Vmlinux => 'v',
            BinaryType::JavaJit => 'j',
            BinaryType::Debuglink => 'l',
            BinaryType::BuildIdCache => 'B',
            BinaryType::BuildIdCacheDebuginfo => 'D',
            BinaryType::FedoraDebuginfo => 'f',
            BinaryType::UbuntuDebuginfo => 'u',
            BinaryType::BuildidDebuginfo => 'b',
            BinaryType::GnuDebugdata => 'n',
            BinaryType::SystemPathDso | BinaryType::RunningVdso => 'd',
            BinaryType::SystemPathKmodule => 'K',
            BinaryType::OpenembeddedDebuginfo => 'o',
            BinaryType::MixedupUbuntuDebuginfo => 'x',
            BinaryType::BpfProgInfo => 'B',
        }
    }
}

/// A loaded symbol table and what perf records next to it. Shared between
/// DSOs with the same build id.
#[derive(Debug, Default)]
pub struct DsoSymbols {
    /// The symbols.
    pub symbols: Symbols,
    /// Symbols are file offsets (`dso->adjust_symbols`): true for user ELF
    /// objects.
    pub adjust_symbols: bool,
    /// `.text`'s `sh_addr - sh_offset` in the runtime object.
    pub text_offset: u64,
    /// The object is `ET_REL`.
    pub rel: bool,
    /// Where the symbols came from, `None` when none were found.
    pub symtab_type: Option<BinaryType>,
    /// The file the symbol table was read from (`dso->symsrc_filename`),
    /// which is also where source lines are looked up.
    pub symsrc_filename: Option<PathBuf>,
    /// The build id read from the object when none was recorded.
    pub build_id: Option<BuildId>,
    /// Why there are no symbols, for the caller to show (perf prints this
    /// at debug level only).
    pub warning: Option<String>,
    /// A symbol table was bad part way (perf's `dso__load` failed after
    /// inserting some symbols): perf keeps them, but its first lookup in
    /// the object finds nothing.
    pub load_failed: bool,
    /// The DWARF line tables of `symsrc_filename`, read on first use.
    pub(crate) dwarf: OnceLock<Option<Arc<super::a2l::A2l>>>,
    /// The inlined frames of `symsrc_filename`'s addresses, read on first
    /// use (only when `inline_name` is set).
    pub(crate) inlines: OnceLock<super::inline::Inliner>,
}

/// `struct dso`.
#[derive(Debug)]
pub struct Dso {
    name: String,
    long_name: String,
    short_name: String,
    kind: DsoKind,
    id: DsoId,
    recorded_build_id: Mutex<Option<BuildId>>,
    pub(crate) loaded: OnceLock<Arc<DsoSymbols>>,
    /// Set when the load failed part way: the next lookup finds nothing.
    pub(crate) failed_lookup_pending: std::sync::atomic::AtomicBool,
    pub(crate) srcline: OnceLock<super::srcline::SrclineState>,
    /// The object's unwind tables, read on first use.
    pub(crate) unwind: OnceLock<Option<Arc<super::unwind_info::UnwindInfo>>>,
}

impl Dso {
    /// A DSO named as perf names it for `kind`: `name` is what the mmap
    /// record (or perf) calls it.
    pub fn new(name: &str, kind: DsoKind, id: DsoId) -> Self {
        let short_name = match kind {
            DsoKind::Kernel | DsoKind::Vdso | DsoKind::KernelModule | DsoKind::Bpf => {
                name.to_owned()
            }
            _ => short_name_of(name),
        };
        Dso {
            name: name.to_owned(),
            long_name: name.to_owned(),
            short_name,
            kind,
            id,
            recorded_build_id: Mutex::new(None),
            loaded: OnceLock::new(),
            failed_lookup_pending: std::sync::atomic::AtomicBool::new(false),
            srcline: OnceLock::new(),
            unwind: OnceLock::new(),
        }
    }

    /// A kernel module: `[name]` with the `.ko` path as long name.
    pub fn new_module(short: &str, path: &str) -> Self {
        let mut d = Dso::new(short, DsoKind::KernelModule, DsoId::default());
        d.long_name = path.to_owned();
        d
    }

    /// `dso->name`: what perf script's `dso` field shows.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `dso->long_name`.
    pub fn long_name(&self) -> &str {
        &self.long_name
    }

    /// `dso->short_name`: the base name, `[JIT] tid <pid>` for JIT maps.
    pub fn short_name(&self) -> &str {
        &self.short_name
    }

    /// The long name as a path.
    pub fn path(&self) -> &Path {
        Path::new(OsStr::from_bytes(self.long_name.as_bytes()))
    }

    /// The kind of object.
    pub fn kind(&self) -> DsoKind {
        self.kind
    }

    /// The device and inode from the mmap record.
    pub fn id(&self) -> DsoId {
        self.id
    }

    /// True for the kernel, its modules and BPF programs.
    pub fn is_kernel(&self) -> bool {
        matches!(
            self.kind,
            DsoKind::Kernel | DsoKind::KernelModule | DsoKind::Bpf
        )
    }

    /// The build id recorded in the file (header table or MMAP2), if any.
    pub fn recorded_build_id(&self) -> Option<BuildId> {
        self.recorded_build_id.lock().ok().and_then(|g| *g)
    }

    /// `dso__set_build_id`; ignored once the symbols are loaded.
    pub fn set_build_id(&self, bid: BuildId) {
        if self.loaded.get().is_some() {
            return;
        }
        if let Ok(mut g) = self.recorded_build_id.lock() {
            *g = Some(bid);
        }
    }

    /// The build id perf shows: the recorded one, else the one read from
    /// the object when it was loaded.
    pub fn build_id(&self) -> Option<BuildId> {
        self.recorded_build_id()
            .or_else(|| self.loaded.get().and_then(|l| l.build_id))
    }

    /// The loaded symbols, if loading already happened.
    pub fn loaded(&self) -> Option<&Arc<DsoSymbols>> {
        self.loaded.get()
    }

    /// The symbol holding `addr` (a map-relative address), once loaded.
    pub fn find_symbol(&self, addr: u64) -> Option<&Symbol> {
        self.loaded.get()?.symbols.find(addr)
    }
}

/// `dso__set_basename`: the base name, or `[JIT] tid <pid>` for
/// `/tmp/perf-<pid>.map`.
fn short_name_of(long: &str) -> String {
    if let Some(pid) = long
        .strip_prefix("/tmp/perf-")
        .and_then(|r| r.strip_suffix(".map"))
        .and_then(|p| p.parse::<i32>().ok())
    {
        return format!("[JIT] tid {pid}");
    }
    // basename(3): the part after the last '/', ignoring trailing slashes.
    let trimmed = long.trim_end_matches('/');
    if trimmed.is_empty() {
        return if long.is_empty() {
            ".".into()
        } else {
            "/".into()
        };
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let d = Dso::new(
            "/usr/lib/x86_64-linux-gnu/libc.so.6",
            DsoKind::User,
            DsoId::default(),
        );
        assert_eq!(d.short_name(), "libc.so.6");
        assert_eq!(d.name(), d.long_name());
        let j = Dso::new("/tmp/perf-1234.map", DsoKind::JitMap, DsoId::default());
        assert_eq!(j.short_name(), "[JIT] tid 1234");
        let k = Dso::new("[kernel.kallsyms]", DsoKind::Kernel, DsoId::default());
        assert_eq!(k.short_name(), "[kernel.kallsyms]");
        let m = Dso::new_module("[ext4]", "/lib/modules/6.1/kernel/fs/ext4/ext4.ko");
        assert_eq!(
            (m.name(), m.long_name()),
            ("[ext4]", "/lib/modules/6.1/kernel/fs/ext4/ext4.ko")
        );
        assert_eq!(short_name_of("//anon"), "anon");
    }
}

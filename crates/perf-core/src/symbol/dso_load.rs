// SPDX-License-Identifier: GPL-2.0-only
//! `dso__load` for user-space objects: which file the symbols come from.
//!
//! perf walks `binary_type_symtab[]` in order, builds each candidate's
//! path (`dso__read_binary_type_filename`), skips what is not a regular
//! file, and rejects any ELF whose build id differs from the DSO's
//! (`symsrc__init`): a rebuilt binary gives no symbols rather than wrong
//! ones. The first candidate with a `.symtab` provides the symbols, the
//! first with a `.dynsym` provides the layout; without a `.symtab`
//! anywhere, the `.dynsym` is used. Newer perf also reads the
//! `.gnu_debugdata` MiniDebugInfo; it is tried where newer perf tries it
//! (after `/usr/lib/debug/.build-id`).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::build_id::{BuildId, CachedFile};
use super::conf::SymbolConf;
use super::debugdata;
use super::dso::{BinaryType, Dso, DsoKind, DsoSymbols};
use super::elf::{self, AnyElf, Elf, FileCache};
use super::elf_syms::{self, Naming};
use super::symbols::Symbols;

/// `is_regular_file`: stat (following links) says regular.
pub(crate) fn is_regular_file(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file())
}

/// The user-space order of `binary_type_symtab[]` (kernel-only types and
/// the JIT map, handled elsewhere, left out).
const USER_ORDER: [BinaryType; 11] = [
    BinaryType::Debuglink,
    BinaryType::BuildIdCache,
    BinaryType::BuildIdCacheDebuginfo,
    BinaryType::FedoraDebuginfo,
    BinaryType::UbuntuDebuginfo,
    BinaryType::BuildidDebuginfo,
    BinaryType::GnuDebugdata,
    BinaryType::SystemPathDso,
    BinaryType::OpenembeddedDebuginfo,
    BinaryType::MixedupUbuntuDebuginfo,
    BinaryType::RunningVdso,
];

/// The directories `.gnu_debuglink` names are looked up in
/// (`debuglink_paths[]`): as given (relative to the working directory),
/// beside the object, in its `.debug`, under /usr/lib/debug.
fn debuglink_candidates(dso_dir: &Path, link: &[u8]) -> Vec<PathBuf> {
    let link = Path::new(std::ffi::OsStr::from_bytes(link));
    let mut under_debug = PathBuf::from("/usr/lib/debug").into_os_string();
    under_debug.push(dso_dir.as_os_str());
    vec![
        link.to_path_buf(),
        dso_dir.join(link),
        dso_dir.join(".debug").join(link),
        PathBuf::from(under_debug).join(link),
    ]
}

/// `dso__read_binary_type_filename` for the user-space types.
fn candidate(
    dso: &Dso,
    conf: &SymbolConf,
    bid: Option<&BuildId>,
    t: BinaryType,
) -> Option<PathBuf> {
    let long = dso.path();
    let debug_root = || conf.join_symfs(Path::new("/usr/lib/debug"));
    let with_suffix = |base: PathBuf, tail: &Path, suffix: &str| {
        let mut s = base.into_os_string();
        s.push(tail.as_os_str());
        s.push(suffix);
        PathBuf::from(s)
    };
    match t {
        BinaryType::Debuglink => {
            let file = conf.join_symfs(long);
            if !is_regular_file(&file) {
                return None;
            }
            let link = elf::open(&file)
                .ok()
                .and_then(|c| AnyElf::parse(&c).and_then(|e| e.debuglink()))?;
            let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
            debuglink_candidates(&dir, &link)
                .into_iter()
                .find(|p| is_regular_file(p))
        }
        BinaryType::BuildIdCache | BinaryType::BuildIdCacheDebuginfo => {
            let kind = match (t, dso.kind()) {
                (BinaryType::BuildIdCacheDebuginfo, _) => CachedFile::Debug,
                (_, DsoKind::Vdso) => CachedFile::Vdso,
                _ => CachedFile::Elf,
            };
            bid.map(|b| conf.buildid_cache.filename(b, kind))
        }
        BinaryType::FedoraDebuginfo => Some(with_suffix(debug_root(), long, ".debug")),
        BinaryType::UbuntuDebuginfo => Some(with_suffix(debug_root(), long, "")),
        BinaryType::MixedupUbuntuDebuginfo => {
            let rest = dso.long_name().strip_prefix("/usr")?;
            rest.starts_with("/lib/")
                .then(|| with_suffix(debug_root(), Path::new(rest), ""))
        }
        BinaryType::BuildidDebuginfo => {
            let hex = bid?.to_string();
            let (head, tail) = hex.split_at(hex.len().min(2));
            Some(
                debug_root()
                    .join(".build-id")
                    .join(head)
                    .join(format!("{tail}.debug")),
            )
        }
        BinaryType::SystemPathDso | BinaryType::GnuDebugdata => Some(conf.join_symfs(long)),
        BinaryType::OpenembeddedDebuginfo => {
            let name = long.file_name()?;
            let dir = long.parent()?;
            Some(conf.join_symfs(&dir.join(".debug").join(name)))
        }
        _ => None,
    }
}

/// The bytes of one candidate: a file read on demand, or an image in
/// memory (a decompressed `.gnu_debugdata`, the running vDSO).
enum Source {
    File(FileCache),
    Memory(Vec<u8>),
}

struct Candidate {
    path: PathBuf,
    kind: BinaryType,
    source: Source,
}

impl Candidate {
    fn with<T>(
        &self,
        f: impl FnOnce(&AnyElf<'_, &[u8]>) -> T,
        g: impl FnOnce(&AnyElf<'_, &FileCache>) -> T,
    ) -> Option<T> {
        match &self.source {
            Source::Memory(v) => AnyElf::parse(&v[..]).map(|e| f(&e)),
            Source::File(c) => AnyElf::parse(c).map(|e| g(&e)),
        }
    }

    fn build_id(&self) -> Option<BuildId> {
        self.with(|e| e.build_id(), |e| e.build_id()).flatten()
    }

    fn has_symtab(&self) -> bool {
        self.with(|e| e.has_symtab(), |e| e.has_symtab())
            .unwrap_or(false)
    }

    fn has_dynsym(&self) -> bool {
        self.with(|e| e.has_dynsym(), |e| e.has_dynsym())
            .unwrap_or(false)
    }
}

/// Opens one candidate: `symsrc__init`, with the build-id check.
fn open_candidate(
    dso: &Dso,
    conf: &SymbolConf,
    bid: Option<&BuildId>,
    kind: BinaryType,
    mismatches: &mut Vec<PathBuf>,
) -> Option<Candidate> {
    let (path, source) = match kind {
        BinaryType::GnuDebugdata => {
            // The MiniDebugInfo belongs to the object at its path: that
            // object's build id is the one checked.
            let path = candidate(dso, conf, bid, kind)?;
            let cache = elf::open(&path).ok()?;
            let outer = AnyElf::parse(&cache)?;
            if let Some(want) = bid {
                if !outer.build_id().is_some_and(|have| want.matches(&have)) {
                    return None;
                }
            }
            let xz = outer.section_data(b".gnu_debugdata")?.to_vec();
            let image = debugdata::decompress(&xz)?;
            let c = Candidate {
                path,
                kind,
                source: Source::Memory(image),
            };
            c.with(|_| (), |_| ())?;
            return Some(c);
        }
        BinaryType::RunningVdso => {
            if dso.kind() != DsoKind::Vdso {
                return None;
            }
            (
                PathBuf::from("[vdso]"),
                Source::Memory(super::vdso::running_image()?),
            )
        }
        _ => {
            let path = candidate(dso, conf, bid, kind)?;
            if !is_regular_file(&path) {
                return None;
            }
            let cache = elf::open(&path).ok()?;
            (path, Source::File(cache))
        }
    };
    let c = Candidate { path, kind, source };
    // Always reject images with a mismatched build-id.
    if let Some(want) = bid {
        let ok = match c.build_id() {
            Some(have) => want.matches(&have),
            None => false,
        };
        if !ok {
            mismatches.push(c.path);
            return None;
        }
    }
    c.with(|_| (), |_| ())?;
    Some(c)
}

/// `dso__load` for a user-space object, a vDSO or a module `.ko`.
pub(crate) fn load_user(dso: &Dso, conf: &SymbolConf) -> DsoSymbols {
    let mut out = DsoSymbols {
        adjust_symbols: true,
        ..DsoSymbols::default()
    };
    // Read the build id if possible (needed for the .build-id lookups).
    let mut bid = dso.recorded_build_id();
    if bid.is_none() {
        let own = conf.join_symfs(dso.path());
        if is_regular_file(&own) {
            bid = elf::open(&own)
                .ok()
                .and_then(|c| AnyElf::parse(&c).and_then(|e| e.build_id()));
            out.build_id = bid;
        }
    }
    let mut mismatches = Vec::new();
    let mut syms: Option<Candidate> = None;
    let mut runtime: Option<Candidate> = None;
    for kind in USER_ORDER {
        if kind == BinaryType::GnuDebugdata && syms.is_some() {
            continue;
        }
        let Some(c) = open_candidate(dso, conf, bid.as_ref(), kind, &mut mismatches) else {
            continue;
        };
        let (has_symtab, has_dynsym) = (c.has_symtab(), c.has_dynsym());
        if syms.is_none() && has_symtab {
            if runtime.is_none() && has_dynsym {
                runtime = Some(Candidate {
                    path: c.path.clone(),
                    kind: c.kind,
                    source: reopen(&c),
                });
            }
            syms = Some(c);
        } else if runtime.is_none() && has_dynsym {
            runtime = Some(c);
        }
        if syms.is_some() && runtime.is_some() {
            break;
        }
    }
    if !mismatches.is_empty() {
        let files: Vec<String> = mismatches.iter().map(|p| p.display().to_string()).collect();
        out.warning = Some(format!(
            "{}: build id mismatch for {} (the file changed since it was recorded)",
            dso.long_name(),
            files.join(", ")
        ));
    }
    let (syms, runtime) = match (syms, runtime) {
        (None, None) => {
            out.warning
                .get_or_insert_with(|| format!("{}: no symbols found", dso.long_name()));
            return out;
        }
        (Some(s), None) => (Some(s), None),
        (s, r) => (s, r),
    };
    let naming = Naming {
        demangle: conf.demangle,
    };
    let syms_ref = syms.as_ref().or(runtime.as_ref());
    let runtime_ref = runtime.as_ref().or(syms.as_ref());
    let (Some(s), Some(r)) = (syms_ref, runtime_ref) else {
        return out;
    };
    out.symtab_type = Some(s.kind);
    out.symsrc_filename = syms.as_ref().map(|c| c.path.clone());
    match load_pair(s, r, naming) {
        Some(loaded) => {
            if loaded.failed {
                out.load_failed = true;
                out.warning = Some(format!(
                    "{}: bad symbol table in {}",
                    dso.long_name(),
                    s.path.display()
                ));
            }
            out.symbols = loaded.symbols;
            out.text_offset = loaded.text_offset;
            out.rel = loaded.rel;
        }
        None => {
            out.warning = Some(format!(
                "{}: bad symbol table in {}",
                dso.long_name(),
                s.path.display()
            ));
        }
    }
    out
}

/// A second handle on the same bytes (the symbols and the layout may come
/// from one file).
fn reopen(c: &Candidate) -> Source {
    match &c.source {
        Source::Memory(v) => Source::Memory(v.clone()),
        Source::File(_) => match elf::open(&c.path) {
            Ok(f) => Source::File(f),
            Err(_) => Source::Memory(Vec::new()),
        },
    }
}

struct Loaded {
    symbols: Symbols,
    text_offset: u64,
    rel: bool,
    /// A table failed part way: perf keeps what it had inserted.
    failed: bool,
}

/// `dso__load_sym` + `dso__synthesize_plt_symbols` for one pair.
fn load_pair(syms: &Candidate, runtime: &Candidate, naming: Naming) -> Option<Loaded> {
    match (&syms.source, &runtime.source) {
        (Source::File(a), Source::File(b)) => {
            load_elves(&AnyElf::parse(a)?, &AnyElf::parse(b)?, naming)
        }
        (Source::Memory(a), Source::File(b)) => {
            load_elves(&AnyElf::parse(&a[..])?, &AnyElf::parse(b)?, naming)
        }
        (Source::File(a), Source::Memory(b)) => {
            load_elves(&AnyElf::parse(a)?, &AnyElf::parse(&b[..])?, naming)
        }
        (Source::Memory(a), Source::Memory(b)) => {
            load_elves(&AnyElf::parse(&a[..])?, &AnyElf::parse(&b[..])?, naming)
        }
    }
}

fn load_elves<'a, 'b, R1, R2>(
    syms: &AnyElf<'a, R1>,
    runtime: &AnyElf<'b, R2>,
    naming: Naming,
) -> Option<Loaded>
where
    R1: object::ReadRef<'a>,
    R2: object::ReadRef<'b>,
{
    let (symbols, text_offset, failed) = match (syms, runtime) {
        (AnyElf::E64(s), AnyElf::E64(r)) => load_class(s, r, naming),
        (AnyElf::E32(s), AnyElf::E32(r)) => load_class(s, r, naming),
        _ => return None,
    };
    Some(Loaded {
        symbols,
        text_offset,
        rel: syms.is_rel(),
        failed,
    })
}

/// The symbols, `.text`'s offset, and whether a table failed part way.
fn load_class<'a, 'b, H, R1, R2>(
    s: &Elf<'a, H, R1>,
    r: &Elf<'b, H, R2>,
    naming: Naming,
) -> (Symbols, u64, bool)
where
    H: object::read::elf::FileHeader<Endian = object::Endianness>,
    R1: object::ReadRef<'a>,
    R2: object::ReadRef<'b>,
{
    let mut symbols = Symbols::new();
    let failed = match elf_syms::load_sym(s, r, naming, &mut symbols) {
        Ok(nr) if nr > 0 => {
            elf_syms::synthesize_plt(r, naming, &mut symbols);
            false
        }
        Ok(_) => false,
        Err(_) => true,
    };
    (symbols, r.text_offset().unwrap_or(0), failed)
}

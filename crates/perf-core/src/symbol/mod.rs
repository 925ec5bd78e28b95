// SPDX-License-Identifier: GPL-2.0-only
//! Symbol resolution as perf 6.1 does it: which object, which function,
//! which source line, for an address in a perf.data file (or a live
//! sample). docs/symbols.md has the design, the sources in perf's order and
//! every known difference from perf.
//!
//! If you know tools/perf/util, the map is:
//!
//! | perf                                   | here                                   |
//! |----------------------------------------|----------------------------------------|
//! | `symbol_conf` (symfs, vmlinux, …)      | [`conf::SymbolConf`]                   |
//! | `machine->dsos`, `machine->kmaps`      | [`Dsos`]                               |
//! | `struct dso`                           | [`dso::Dso`], [`dso::DsoSymbols`]      |
//! | `struct map`, `map__new`               | [`map::Map`], [`Dsos::map_new`]        |
//! | `machine__process_kernel_mmap_event`   | [`Dsos::process_kernel_mmap`]          |
//! | `thread__find_symbol`                  | [`Dsos::thread_find_symbol`]           |
//! | `struct addr_location`                 | [`resolve::AddrLocation`]              |
//! | `thread__resolve_callchain`            | [`Dsos::resolve_callchain`]            |
//! | `unwind__get_entries` (libunwind)      | [`Dsos::unwind_user`]                  |
//! | `struct symbol`, `dso->symbols`        | [`symbols::Symbol`], [`symbols::Symbols`] |
//! | `get_srcline_split`, `find_sourceline` | [`Dsos::srcline`], [`Dsos::srccode`] |
//! | `append_inlines`, `dso__parse_addr_inlines` | [`inline`] (with `SymbolConf::inline_name`) |
//! | `perf_sample__fetch_insn`              | [`Dsos::fetch_insn`]                   |
//! | `demangle_sym`                         | [`demangle::demangle_sym`]             |
//! | `struct build_id`, build-id cache      | [`build_id::BuildId`], [`build_id::BuildIdCache`] |
//!
//! The session feeds it: the file's build-id table
//! ([`Dsos::add_header_build_id`]), each MMAP/MMAP2 record (kernel ones to
//! [`Dsos::process_kernel_mmap`], user ones to [`Dsos::map_new`], whose
//! [`map::Map`] it keeps in its thread's maps), and a view of a thread's
//! maps ([`resolve::ThreadMaps`]) when it asks where an address is.
//!
//! Files are read, never mapped: no `unsafe` here.

mod a2l;
pub mod build_id;
pub mod callchain;
pub mod conf;
mod debugdata;
pub mod demangle;
pub mod dso;
mod dso_load;
pub mod dsos;
mod elf;
mod elf_syms;
mod find_memo;
pub mod inline;
mod insn;
mod jit_map;
mod kallsyms;
mod kmaps;
pub mod map;
mod proc_maps;
mod rbtree;
pub mod resolve;
pub mod srcline;
pub mod symbols;
pub mod unwind;
mod unwind_info;
mod vdso;

pub use dsos::Dsos;

/// A new stamp: every value once per process, never 0 (the stamp of no
/// maps), so two stamps are equal only for the same state of the same
/// object (or copies of it). [`map::Maps::stamp`] and [`Dsos::stamp`] tell
/// a memo of resolved addresses (`session::CallchainMemo`) whether what
/// it resolved against has changed.
pub(crate) fn next_stamp() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

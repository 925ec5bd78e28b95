// SPDX-License-Identifier: GPL-2.0-only
//! Symbol resolution, as perf 6.1 does it (work in progress).

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
mod insn;
mod jit_map;
mod kallsyms;
mod kmaps;
pub mod map;
mod rbtree;
pub mod resolve;
pub mod srcline;
pub mod symbols;
mod vdso;

pub use dsos::Dsos;

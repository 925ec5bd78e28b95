// SPDX-License-Identifier: GPL-2.0-only
//! Symbol resolution, as perf 6.1 does it (work in progress).

pub mod build_id;
pub mod demangle;
mod rbtree;
pub mod symbols;

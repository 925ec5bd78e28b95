// SPDX-License-Identifier: GPL-2.0-only
//! Source lines (work in progress).

/// Per-DSO source line state.
#[derive(Debug, Default)]
pub(crate) struct SrclineState {}

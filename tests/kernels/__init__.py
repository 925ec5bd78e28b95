# SPDX-License-Identifier: GPL-2.0-only
"""Tests that boot real kernels under QEMU (docs/kernels.md)."""

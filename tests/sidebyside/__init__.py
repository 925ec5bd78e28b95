# SPDX-License-Identifier: GPL-2.0-only
"""Side-by-side tests: our `perf` module against the kernel's C module."""

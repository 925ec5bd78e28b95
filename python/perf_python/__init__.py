# SPDX-License-Identifier: GPL-2.0-only
"""Tools of the perf-python wheel; the module itself is `perf`."""

# SPDX-License-Identifier: GPL-2.0-only
"""perf.data files: our perf.data/perf.session API against what Debian's
perf 6.1 says the same files hold."""

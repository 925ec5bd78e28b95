# SPDX-License-Identifier: GPL-2.0-only
"""`import perf`: loads the perf extension built for the running kernel.

The extension found by `perf._loader.find()` replaces this package in
`sys.modules`, so `import perf` gives the extension itself.
"""

from perf import _loader

_loader.load(*_loader.find())

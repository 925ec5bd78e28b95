# SPDX-License-Identifier: GPL-2.0-only
"""`import perf` from the perf-python wheel: the extension itself.

The wheel holds one build of the extension for every kernel (it probes the
running kernel at run time) beside this file. This package loads it and puts
it in its own place in sys.modules, as the loader of the Debian packages does
with the build it chooses (loader/perf/__init__.py), so `import perf` gives
the extension: `perf.__file__` is the extension's, `perf.__build__["build"]`
is "wheel" and `perf.__loaded_by__` says it came from this package. The
`perf.pyi` stubs and `py.typed` beside it serve type checkers (PEP 561).
See docs/packaging.md.
"""

import os
import sys

# As loader/perf/__init__.py does: the import system's own classes, from the
# modules CPython loads at start-up, not importlib.machinery.
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import ExtensionFileLoader


def _load():
    path = os.path.join(__path__[0], "perf.abi3.so")
    loader = ExtensionFileLoader(__name__, path)
    spec = ModuleSpec(__name__, loader, origin=path)
    spec.has_location = True
    module = loader.create_module(spec)
    module.__spec__, module.__loader__, module.__package__ = spec, loader, spec.parent
    module.__file__ = path
    loader.exec_module(module)
    sys.modules[__name__] = module
    module.__loaded_by__ = {"path": path, "reason": "the perf-python wheel's build, beside its package",
                            "step": "wheel", "release": os.uname().release}


_load()

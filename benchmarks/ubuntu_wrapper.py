# SPDX-License-Identifier: GPL-2.0-only
"""Ubuntu's `perf` wrapper package, version 2: the peer the loader is measured
and tested against.

Ubuntu's linux-tools-common installs debian/tools/python-perf.py of its kernel
tree as /usr/lib/python3/dist-packages/perf/__init__.py. Version 2 loads the
perf.*.so in /usr/lib/linux-tools/<uname -r>/lib/ with importlib.util and
raises KernelNotFoundError (an Exception) when that directory is missing
(docs/loader.md). V2 below is its text, re-typed; benchmarks/loader_import.py
and tests/loader write it into temporary directories at run time. It is not
part of what this project installs.
"""

V2 = '''\
import os
import importlib.util
from glob import glob


class KernelNotFoundError(Exception):
    def __init__(self):
        kernel_version = os.uname().release
        flavor = kernel_version.split("-", 2)[2]
        super().__init__(
            f"\\nWARNING: python perf module not found for kernel {kernel_version}\\n\\n"
            f"  You may need to install the following package for this specific kernel:\\n"
            f"    linux-tools-{kernel_version}\\n\\n"
            f"  You may also want to install the following package to keep up to date:\\n"
            f"    linux-tools-{flavor}"
        )


# Load the actual python-perf module for the running kernel
_kernel_version = os.uname().release
_perf_dir = f"/usr/lib/linux-tools/{_kernel_version}/lib"
if not os.path.exists(_perf_dir):
    raise KernelNotFoundError()
_perf_lib = glob(os.path.join(_perf_dir, "perf.*.so"))[-1]

_spec = importlib.util.spec_from_file_location("perf", _perf_lib)
_perf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_perf)

# Expose the 'perf' module.
__all__ = ["perf"]
'''


def v2(root="/", release=None):
    """The wrapper's text, looking for the build under `root` instead of /
    and, if `release` is given, for that release instead of `uname -r`."""
    text = V2
    if root != "/":
        text = text.replace('f"/usr/lib/linux-tools/', 'f"' + root.rstrip("/") + "/usr/lib/linux-tools/")
    if release is not None:
        text = text.replace("os.uname().release", repr(release))
    return text

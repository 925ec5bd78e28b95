# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's own uapi headers as oracles for the syscall and errno tables:
the host's (linux-libc-dev) and Debian's cross packages
(linux-libc-dev-<arch>-cross), fetched at test time with apt and cached under
build/consumers/ (never committed). Headers are read through the C
preprocessor, as perf's arch_errno_names.sh reads errno.h."""

import fcntl
import glob
import os
import re
import subprocess
import tempfile
from pathlib import Path

from sidebyside.harness import REPO

CACHE = REPO / "build" / "consumers" / "linux-libc-dev-cross"
# e_machine -> (Debian cross package or None for the host's headers,
#               include directory, syscall header, -D flags)
MACHINES = {
    62: (None, "/usr/include/x86_64-linux-gnu", "asm/unistd_64.h", ()),
    3: (None, "/usr/include/x86_64-linux-gnu", "asm/unistd_32.h", ()),
    40: ("armhf", "usr/arm-linux-gnueabihf/include", "asm/unistd.h", ("-D__ARM_EABI__",)),
    183: ("arm64", "usr/aarch64-linux-gnu/include", "asm/unistd.h", ()),
    243: ("riscv64", "usr/riscv64-linux-gnu/include", "asm/unistd.h", ()),
    21: ("ppc64el", "usr/powerpc64le-linux-gnu/include", "asm/unistd.h", ("-D__powerpc64__",)),
    22: ("s390x", "usr/s390x-linux-gnu/include", "asm/unistd.h", ("-D__s390x__",)),
}
# __NR_ macros that are not system calls.
NOT_SYSCALLS = {"syscalls", "arch_specific_syscall", "SYSCALL_BASE", "OABI_SYSCALL_BASE", "SYSCALL_MASK"}


class Unavailable(Exception):
    """apt could not download a package; the message says why."""


def include_dir(machine):
    """The include directory of `machine`'s headers (fetching them on first use)."""
    package, include, _, _ = MACHINES[machine]
    if package is None:
        return Path(include)
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        root = CACHE / package
        if not (root / include).is_dir():
            _fetch(f"linux-libc-dev-{package}-cross", root)
    return root / include


def _fetch(package, root):
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        download = ["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", package]
        p = subprocess.run(download, cwd=tmp, capture_output=True, text=True)
        if p.returncode != 0:
            subprocess.run(["apt-get", "update", "-qq"], cwd=tmp, capture_output=True)
            p = subprocess.run(download, cwd=tmp, capture_output=True, text=True)
        debs = glob.glob(os.path.join(tmp, f"{package}_*.deb"))
        if p.returncode != 0 or not debs:
            raise Unavailable(f"apt-get download {package} failed: {p.stderr.strip()[-500:]}")
        unpacked = os.path.join(tmp, "root")
        subprocess.run(["dpkg-deb", "-x", debs[0], unpacked], check=True)
        os.replace(unpacked, root)


def macros(header, include, defines=()):
    """{name: body} of every macro the preprocessor has after `header`."""
    # The host's arch directory needs /usr/include beside it for asm-generic/.
    extra = ["-I", "/usr/include"] if str(include).startswith("/usr/include/") else []
    cmd = ["cpp", "-dM", "-nostdinc", "-I", str(include), *extra, *defines, str(Path(include) / header)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return dict(re.findall(r"^#define (\w+)(?:\(\w*\))? ?(.*)$", out, re.M))


def evaluate(name, defs, depth=0):
    """The integer value of macro `name` (names, numbers, + and parentheses)."""
    if depth > 20:
        raise ValueError(f"{name}: too deep")
    def token(m):
        if m.group(1):
            return str(int(m.group(1), 0))
        return str(evaluate(m.group(0), defs, depth + 1))
    body = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b|[A-Za-z_]\w*", token, defs[name])
    if not re.fullmatch(r"[\d\s()+-]+", body):
        raise ValueError(f"{name}: {defs[name]!r}")
    return int(eval(body))  # noqa: S307 - digits, blanks, + - and parentheses only


def syscalls(machine):
    """{number: name} of `machine`'s system calls, as its uapi headers define them."""
    _, _, header, defines = MACHINES[machine]
    defs = macros(header, include_dir(machine), defines)
    table = {}
    for macro in defs:
        m = re.fullmatch(r"__NR_(\w+)", macro)
        if not m or m.group(1) in NOT_SYSCALLS or re.fullmatch(r"__NR_\w+", defs[macro]):
            continue  # not a call, or another name for one (arm's sync_file_range2)
        number = evaluate(macro, defs)
        assert number not in table, (machine, number, table.get(number), m.group(1))
        table[number] = m.group(1)
    return table


def errno_names(machine):
    """{number: name} as arch_errno_names.sh builds it from `machine`'s
    asm/errno.h: macros defined as a number, one name per number."""
    defs = macros("asm/errno.h", include_dir(machine))
    table = {}
    for name, body in defs.items():
        if re.fullmatch(r"E[A-Z0-9]+", name) and re.fullmatch(r"\d+", body.split("/*")[0].strip()):
            number = int(body.split("/*")[0])
            assert number not in table, (machine, number, table.get(number), name)
            table[number] = name
    return table

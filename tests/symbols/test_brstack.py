# SPDX-License-Identifier: GPL-2.0-only
"""`sample.brstack` on perf.data files with branch stacks. The test machine
has no LBR, so the files are written by hand (tests/symbols/synth.py): a
COMM and an MMAP2 of a binary built here with gcc, and samples whose branch
entries point into its functions, with every flag bit and branch type. Each
`perf.branch_entry` must equal the values written and what perf 6.1's
`perf script -F brstack` and `-F brstacksym` print for the same file."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sidebyside import harness

from .synth import Synth, branch_flags

PERF = "/usr/bin/perf"
SOURCE = Path(__file__).resolve().parents[2] / "crates/perf-core/tests/data/symbols/branches.c"
BASE = 0x555555554000
PID = 4242
FUNCTIONS = ("branch_alpha", "branch_beta", "branch_gamma", "main")
# perf 6.1's branch type names (util/branch.c), by PERF_BR_* value; perf
# script prints "" for PERF_BR_UNKNOWN and, for PERF_BR_EXTEND_ABI (15), the
# name of the entry's new_type (0 here: FAULT_ALGN).
TYPE_NAMES = ("", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
              "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "FAULT_ALGN")
UNMAPPED = 0x1234

DUMP = r'''
import json, sys, perf
out = []
def sample(s):
    b = s.brstack
    out.append(None if b is None else [[e.from_ip, e.to_ip, e.mispred, e.predicted, e.in_tx,
                                        e.abort, e.cycles, e.type] for e in b])
    assert b is None or len(list(b)) == len(b)
perf.session(perf.data(sys.argv[1]), sample=sample).process_events()
json.dump(out, sys.stdout)
'''


class Binary:
    """The workload binary: its executable segment and its functions (nm)."""

    def __init__(self, path):
        self.path = path
        seg = [line.split() for line in subprocess.run(
            ["readelf", "-lW", str(path)], capture_output=True, text=True, check=True
        ).stdout.splitlines() if line.split()[:1] == ["LOAD"] and "E" in line.split()[6:-1]]
        assert len(seg) == 1, seg
        off, vaddr, size = (int(seg[0][i], 16) for i in (1, 2, 5))
        self.pgoff, self.vaddr = off & ~0xfff, vaddr & ~0xfff
        self.len = (vaddr + size - self.vaddr + 0xfff) & ~0xfff
        self.syms = {}
        for line in subprocess.run(["nm", "-S", str(path)], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            f = line.split()
            if len(f) == 4 and f[3] in FUNCTIONS:
                self.syms[f[3]] = (BASE + int(f[0], 16), int(f[1], 16))
        assert sorted(self.syms) == sorted(FUNCTIONS)

    def symoff(self, addr):
        """perf script's brstacksym name of an address."""
        for name, (start, size) in self.syms.items():
            if start <= addr < start + size:
                return "%s+0x%x" % (name, addr - start)
        return "[unknown]"


def entries(binary):
    """Branch stacks of the samples: every function to every other, at
    offsets inside them, each flag bit alone and together, cycles from 0 to
    65535, every branch type; an address outside any map; an empty stack."""
    addrs = [start + (i * 3) % size for i, (start, size) in enumerate(binary.syms.values())]
    stacks = []
    n = 0
    for depth in (1, 2, 4, 7, 16, 0, 3):
        stack = []
        for _ in range(depth):
            bits = n % 16
            flags = branch_flags(mispred=bool(bits & 1), predicted=bool(bits & 2),
                                 in_tx=bool(bits & 4), abort=bool(bits & 8),
                                 cycles=(0, 1, 7, 300, 65535)[n % 5], type=n % 16)
            frm = addrs[n % len(addrs)] + n % 3
            to = addrs[(n + 1) % len(addrs)] if n % 11 else UNMAPPED
            stack.append((frm, to, flags))
            n += 1
        stacks.append(stack)
    return stacks


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    for tool in (PERF, "gcc", "nm", "readelf"):
        if not shutil.which(tool):
            pytest.skip(f"no {tool}")
    exe = tmp_path_factory.mktemp("brstack") / "branches"
    subprocess.run(["gcc", "-O1", "-g", str(SOURCE), "-o", str(exe)], check=True)
    return Binary(exe)


def write(binary, path, hw_index):
    s = Synth(hw_index=hw_index)
    s.comm(PID, PID, "branches", 1000)
    s.mmap2(PID, PID, BASE + binary.vaddr, binary.len, binary.pgoff, str(binary.path), 1001)
    stacks = entries(binary)
    for i, stack in enumerate(stacks):
        s.sample(PID, PID, binary.syms["branch_alpha"][0], 2000 + i, stack, hw_idx=i)
    s.round()
    path.write_bytes(s.build())
    return stacks


def perf_script(path, field):
    env = dict(os.environ, HOME=str(path.parent))
    p = subprocess.run([PERF, "script", "-i", str(path), "-F", field], env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    return [line.split() for line in p.stdout.splitlines()]


def flag_text(mispred, predicted, in_tx, abort, cycles, type_):
    """perf script's "/M/X/A/cycles/type" of an entry (P when both
    predicted and mispred are set, as perf's mispred_str)."""
    return "%s/%s/%s/%d/%s" % ("P" if predicted else "M" if mispred else "-",
                               "X" if in_tx else "-", "A" if abort else "-", cycles,
                               TYPE_NAMES[type_])


@pytest.mark.parametrize("hw_index", [False, True], ids=["plain", "hw_index"])
def test_brstack_equals_written_and_perf_script(staged_root, binary, tmp_path, hw_index):
    if harness.oracle_self_check():
        pytest.skip("PERF_TEST_OURS=c: the C module has no perf.data API")
    path = tmp_path / "branches.data"
    stacks = write(binary, path, hw_index)
    p = subprocess.run([sys.executable, "-c", DUMP, str(path)], env=harness.ours_env(staged_root),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    mine = json.loads(p.stdout)

    # The values written.
    assert len(mine) == len(stacks)
    for m, stack in zip(mine, stacks):
        assert [[e[0], e[1], e[2:]] for e in m] == [
            [frm, to, [bool(f & 1), bool(f & 2), bool(f & 4), bool(f & 8), (f >> 4) & 0xffff,
                       f >> 20]] for frm, to, f in stack]
    every = [e for m in mine for e in m]
    for i in range(2, 6):
        assert any(e[i] for e in every) and not all(e[i] for e in every)
    assert {e[7] for e in every} == set(range(16)) and {0, 65535} <= {e[6] for e in every}

    # perf script -F brstack: "0xfrom/0xto/M/X/A/cycles/type" per entry
    # (an empty line for an empty stack).
    theirs = perf_script(path, "brstack")
    assert len(theirs) == len(mine)
    for m, t in zip(mine, theirs):
        assert t == ["0x%x/0x%x/%s" % (e[0], e[1], flag_text(*e[2:])) for e in m]

    # perf script -F brstacksym: the entries' addresses are perf's symbols.
    theirs = perf_script(path, "brstacksym")
    assert len(theirs) == len(mine)
    for m, t in zip(mine, theirs):
        assert t == ["%s/%s/%s" % (binary.symoff(e[0]), binary.symoff(e[1]), flag_text(*e[2:]))
                     for e in m]
    assert sum(t.count("[unknown]") for line in theirs for t in line) < len(every) // 4

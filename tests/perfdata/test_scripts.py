# SPDX-License-Identifier: GPL-2.0-only
"""Scripts written on the perf.data API the way upstream's ported scripts
are (`perf.session(perf.data(path), sample=...)`, tracepoint fields with
getattr(sample, "field", default), `session.find_thread(sample.sample_pid,
sample.sample_tid)`), tests/perfdata/scripts/, against the scripts perf
6.1 ships, run by `perf script -s` on the same file: what they print must
be the same.

* syscall_counts.py vs scripts/python/syscall-counts.py: perf 6.1 prints
  syscall numbers here (its Util.syscall_name needs the audit module,
  which Debian does not install), ours names: perf's numbers are turned
  into names with perf.syscall_name before comparing; perf's banner lines
  (the audit hint, "Press control+C") are not compared.
* futex_contention.py vs scripts/python/futex-contention.py: line for
  line, in order (perf's banner lines aside).
* rw_by_pid.py vs scripts/perl/rw-by-pid.pl: the headers line for line;
  the rows of each table as multisets, each side in the table's order
  (Perl sorts rows with equal keys in hash order, which varies from run
  to run).
"""

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from perfdata import oracle

SCRIPTS = Path(__file__).resolve().parent / "scripts"
PERF_SCRIPTS = Path("/usr/lib/perf-core/scripts")


def ours(ours_env, script, path, *args):
    p = subprocess.run([sys.executable, str(SCRIPTS / script), "-i", str(path), *args],
                       env=ours_env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def theirs(script, path, *args):
    if not (PERF_SCRIPTS / script).exists():
        pytest.skip(f"perf's {script} is not installed")
    return oracle.perf_script(path, "-s", str(PERF_SCRIPTS / script), *args)


def from_line(text, first):
    """The lines of `text` from the first one equal to `first`."""
    lines = text.splitlines()
    return lines[lines.index(first):]


def test_syscall_counts(perf_ours, ours_env, record):
    path = record("raw_sys")
    mine = from_line(ours(ours_env, "syscall_counts.py", path), "syscall events:")
    perfs = from_line(theirs("python/syscall-counts.py", path), "syscall events:")
    e_machine = perf_ours.session(perf_ours.data(str(path))).e_machine
    assert mine[:4] == perfs[:4]
    rows = []
    for line in perfs[4:]:
        name, count = line.rsplit(None, 1)
        if name.isdigit():
            name = perf_ours.syscall_name(int(name), e_machine) or name
        rows.append("%-40s  %10d" % (name, int(count)))
    assert mine[4:] == rows
    assert len(rows) >= 5, "the workload makes several syscalls"


def test_syscall_counts_for_one_comm(ours_env, record):
    path = record("raw_sys")
    mine = ours(ours_env, "syscall_counts.py", path, "workload")
    perfs = theirs("python/syscall-counts.py", path, "workload")
    first = "syscall events for workload:"
    counts = [int(line.rsplit(None, 1)[1]) for line in from_line(perfs, first)[4:]]
    assert [int(line.rsplit(None, 1)[1]) for line in from_line(mine, first)[4:]] == counts
    assert sum(counts) > 0


def test_futex_contention(ours_env, record):
    path = record("futex")
    mine = ours(ours_env, "futex_contention.py", path).splitlines()
    perfs = [line for line in theirs("python/futex-contention.py", path).splitlines()
             if " contended " in line]  # not perf's banner lines
    assert mine == perfs
    assert len(mine) >= 2 and all(" contended " in line for line in mine), mine


SECTIONS = ["read counts by pid:", "failed reads by pid:", "write counts by pid:",
            "failed writes by pid:", "unhandled events:"]


def sections(text):
    """{title: (header lines, row lines)} of rw-by-pid's output."""
    out, title = {}, None
    for line in text.splitlines():
        if line in SECTIONS:
            title = line
            out[title] = ([], [])
        elif title and line.strip():
            head, rows = out[title]
            (head if len(head) < 2 else rows).append(line)
    return out


def sort_key(title):
    """The column each table is sorted by, descending."""
    column = {"read counts by pid:": 4, "write counts by pid:": 3}.get(title, 3)
    return lambda line: int(line.split()[column] if len(line.split()) > column else 0)


def test_rw_by_pid(ours_env, record):
    path = record("rw")
    mine = sections(ours(ours_env, "rw_by_pid.py", path))
    perfs = sections(theirs("perl/rw-by-pid.pl", path))
    assert mine.keys() == perfs.keys()
    for title in mine:
        (my_head, my_rows), (their_head, their_rows) = mine[title], perfs[title]
        assert my_head == their_head, title
        assert Counter(my_rows) == Counter(their_rows), title
        if title != "unhandled events:":
            for rows in (my_rows, their_rows):
                keys = [sort_key(title)(r) for r in rows]
                assert keys == sorted(keys, reverse=True), (title, rows)
    assert perfs["failed reads by pid:"][1], "the workload makes failing reads"
    assert len(perfs["read counts by pid:"][1]) >= 2, "two processes read"

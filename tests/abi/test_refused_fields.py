# SPDX-License-Identifier: GPL-2.0-only
"""A bare EINVAL or EOVERFLOW from perf_event_open names the field the kernel
refused (docs/abi.md §1.6), on the real kernel; bad `mmap(pages=)`,
`perf.data(fd=)` and `evsel(size=)` arguments name themselves (docs/api.md).

The errno stays the kernel's: where the C module can express the same attr,
both raise OSError with the same errno, and ours says why.
"""

import errno
import os
import platform

import pytest

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="opens breakpoints and sampling events: needs root")

X86_64 = platform.machine() == "x86_64"

# Opens `ev` for this process on every CPU; returns exc()'s outcome.
OPEN = """
def attempt(**kw):
    def go():
        ev = perf.evsel(**kw)
        ev.open(perf.cpu_map(), perf.thread_map())
        return "opened"
    return exc(go)
"""


def outcome(module, call):
    return module.run(OPEN + f"result({call})").check()


def max_stack():
    with open("/proc/sys/kernel/perf_event_max_stack") as f:
        return int(f.read())


def test_breakpoint_without_a_type_names_bp_type_not_config(module):
    got = outcome(module, "attempt(type=5, config=2**64-1)")
    assert got[0] == "OSError" and got[2] == errno.EINVAL, got
    if module.name == "ours":
        assert "bp_type=0 (HW_BREAKPOINT_EMPTY) is not a breakpoint type" in got[1], got
        assert "config" not in got[1], got


def test_a_valid_breakpoint_opens_whatever_config_says(ours):
    code = """
import ctypes
word = ctypes.c_long(0)
result(attempt(type=5, config=2**64-1, bp_type=2, bp_addr=ctypes.addressof(word), bp_len=8))
"""
    assert ours.run(OPEN + code).check() == ["ok", "'opened'"]


@pytest.mark.skipif(not X86_64, reason="x86-64's breakpoint lengths")
def test_breakpoint_length_is_named_with_its_value(module):
    code = """
import ctypes
word = ctypes.c_long(0)
result([attempt(type=5, bp_type=2, bp_addr=ctypes.addressof(word), bp_len=2**64-1),
        attempt(type=5, bp_len=2**64-1)])
"""
    typed, bare = module.run(OPEN + code).check()
    for got in (typed, bare):
        assert got[0] == "OSError" and got[2] == errno.EINVAL, got
    if module.name == "ours":
        length = "bp_len=18446744073709551615: a data breakpoint covers 1, 2, 4 or 8 bytes"
        assert typed[1] == f"[Errno 22] perf_event_open: {length}", typed
        # The kernel refuses the empty type first; the length is named after it.
        assert bare[1].startswith("[Errno 22] perf_event_open: bp_type=0 (HW_BREAKPOINT_EMPTY)"), bare
        assert bare[1].endswith(length), bare


def test_sample_max_stack_above_the_sysctl_names_both(ours):
    got = outcome(ours, "attempt(type=1, config=0, sample_type=perf.SAMPLE_CALLCHAIN, sample_max_stack=65535)")
    assert got[0] == "OSError" and got[2] == errno.EOVERFLOW, got
    assert f"sample_max_stack=65535 is above kernel.perf_event_max_stack ({max_stack()})" in got[1], got


def test_sample_max_stack_at_the_sysctl_opens(ours):
    got = outcome(ours, f"attempt(type=1, config=0, sample_type=perf.SAMPLE_CALLCHAIN, sample_max_stack={max_stack()})")
    assert got == ["ok", "'opened'"]


def test_aux_sample_size_is_named_with_its_value(ours):
    got = outcome(ours, "attempt(type=1, config=0, aux_sample_size=2**32-1)")
    assert got[0] == "OSError" and got[2] == errno.EINVAL, got
    assert "aux_sample_size=4294967295 needs an AUX-area event" in got[1], got


def test_precise_ip_on_a_software_event_opens_or_is_named(module):
    """The software PMU ignores precise_ip (6.1 to 6.18); a kernel that
    refuses it gets precise_ip named, as perf's fallback lowers it."""
    got = outcome(module, "attempt(type=1, config=0, precise_ip=3)")
    if got[0] == "ok":
        return
    assert got[0] == "OSError", got
    if module.name == "ours":
        assert "precise_ip=3" in got[1], got


def test_mmap_pages_names_the_value_given(module):
    code = """
ev = perf.evsel(type=1, config=9)
ev.open(perf.cpu_map(), perf.thread_map())
el = perf.evlist(perf.cpu_map(), perf.thread_map())
el.add(ev)
result([exc(el.mmap, pages=p) for p in (-1, 2**31, 2**70)])
"""
    minus_one, big, huge = module.run(code).check()
    assert big[0] == huge[0] == "OverflowError", (big, huge)
    if module.name == "c":
        return  # the C module maps pages=-1 (see docs/api.md)
    assert minus_one == ["OSError", "[Errno 22] mmap: pages must be a power of two, got -1", errno.EINVAL]
    assert big[1].startswith("pages=2147483648 is out of range for a C int"), big
    assert huge[1].startswith(f"pages={2**70} is out of range for a C int"), huge


def test_data_fd_out_of_range_names_fd(ours):
    got = ours.run("result([exc(perf.data, fd=v) for v in (2**31, 2**70, -2**31 - 1)])").check()
    for value, (cls, text, _) in zip((2**31, 2**70, -2**31 - 1), got):
        assert cls == "OverflowError", got
        assert text.startswith(f"fd={value} is out of range for a C int"), got


def test_size_below_ver0_is_refused_and_the_size_sent_is_reported(ours):
    code = """
ev = perf.evsel(type=1, config=9, size=1000)
before = ev.size
ev.open(perf.cpu_map(), perf.thread_map())
def set_size():
    perf.evsel(type=1).size = 1
result([exc(perf.evsel, type=1, size=1), exc(set_size), before, ev.size])
"""
    keyword, setter, before, sent = ours.run(code).check()
    for got in (keyword, setter):
        assert got[0] == "ValueError", got
        assert got[1].startswith("size=1 is below PERF_ATTR_SIZE_VER0 (64)"), got
    assert (before, sent) == (1000, 256)

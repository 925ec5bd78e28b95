# SPDX-License-Identifier: GPL-2.0-only
"""Symbols of live samples (`evlist.read_on_cpu`), against the real system:
a C workload built with -g here, sampled with cpu-clock and call chains,
resolves to its functions (checked with `nm` and the binary's program
headers) and its path; a process that was running before the evlist was
opened resolves through /proc/<pid>/maps; kernel samples resolve to
/proc/kallsyms names. The C module runs the same code: it has none of the
getters (docs/symbols.md, "Live samples")."""

import bisect
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sidebyside import harness

SOURCE = Path(__file__).resolve().parent / "data/live_work.c"
GETTERS = ("dso", "dso_long_name", "dso_bid", "map_start", "map_end", "map_pgoff", "symbol",
           "sym_start", "sym_end")

SAMPLER = r'''
import os, sys, time, subprocess
exe, how, args = sys.argv[1], sys.argv[2], sys.argv[3:]
GETTERS = %r

def get(e, name):
    try:
        return getattr(e, name)
    except AttributeError:
        return "absent"

def chain(e):
    c = get(e, "callchain")
    return c if c in ("absent", None) else [[n.ip, n.symbol, n.dso] for n in c]

kinds, samples, kept = {}, [], []


def describe(e):
    d = {n: get(e, n) for n in GETTERS}
    d.update(ip=e.sample_ip, pid=e.sample_pid, chain=chain(e))
    return d


def drain(el, cpus, now):
    """Reads every ring; resolves each sample as it is read if `now`, else
    keeps it to resolve once every ring is read (the rings are read one
    after the other, so a sample may come before the mmap record another
    CPU's ring holds: docs/symbols.md, "Live samples")."""
    for cpu in cpus:
        while (e := el.read_on_cpu(cpu)) is not None:
            kind = type(e).__name__
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind == "sample_event" and len(samples) + len(kept) < 2000:
                samples.append(describe(e)) if now else kept.append(e)

sample_type = (perf.SAMPLE_IP | perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU
               | perf.SAMPLE_CALLCHAIN | perf.SAMPLE_PERIOD)
kw = dict(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CPU_CLOCK, sample_period=1000000, freq=0,
          sample_type=sample_type, wakeup_events=1, sample_id_all=1)
if how == "dwarf":
    # perf record --call-graph dwarf: the user registers and 8 KiB of the
    # user stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER), the kernel
    # part of the chain only.
    how = "exec"
    kw.update(sample_type=sample_type | 1 << 12 | 1 << 13, sample_regs_user=0xff0fff,
              sample_stack_user=8192, exclude_callchain_user=1)
if how == "running":
    # Started before the evlist: no mmap record will name its maps.
    p = subprocess.Popen([exe, "ready", "60"], stdout=subprocess.PIPE)
    assert p.stdout.readline() == b"ready\n"
    pid = p.pid
elif how in ("exec", "config"):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        os.execv(exe, [exe, *args])
    os.close(r)
cpus, threads = perf.cpu_map(), perf.thread_map(pid)
if how == "config":
    ev = perf.evsel(**kw)
    ev.tracking = True
else:
    kw.update(mmap=1, comm=1, task=1)
    if how == "exec":
        kw.update(disabled=1, enable_on_exec=1)
    ev = perf.evsel(**kw)
el = perf.evlist(cpus, threads)
el.add(ev)
if how == "config":
    el.config()
el.open()
el.mmap(pages=1024)
if how == "running":
    deadline = time.monotonic() + 60
    while len(samples) < 300 and time.monotonic() < deadline:
        el.poll(100)
        drain(el, cpus, now=True)   # resolved now, while the process runs
    p.kill()
    p.wait()
else:
    os.write(w, b"x")
    os.close(w)
    os.waitpid(pid, 0)   # gone: only the records can name its maps
    drain(el, cpus, now=False)
    samples = [describe(e) for e in kept]
result({"kinds": kinds, "samples": samples, "pid": pid})
''' % (GETTERS,)


@pytest.fixture(scope="module")
def workload(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root (cpu-clock of another process, /proc/kallsyms addresses)")
    for tool in ("gcc", "nm", "readelf"):
        if not shutil.which(tool):
            pytest.skip(f"no {tool}")
    exe = tmp_path_factory.mktemp("live") / "live_work"
    subprocess.run(["gcc", "-g", "-O0", "-fno-omit-frame-pointer", str(SOURCE), "-o", str(exe)],
                   check=True)
    return str(exe.resolve())


def sample(module, exe, how, *args):
    return module.run(SAMPLER, args=[exe, how, *args], timeout=120).check()


class Elf:
    """nm's function symbols of a binary and its PLT entries, by file offset
    (its PT_LOADs)."""

    def __init__(self, exe):
        self.exe = exe
        self.loads = []
        for line in subprocess.run(["readelf", "-lW", exe], capture_output=True, text=True,
                                   check=True).stdout.splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                self.loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
        self.funcs = []
        for line in subprocess.run(["nm", "-S", "--defined-only", exe], capture_output=True,
                                   text=True, check=True).stdout.splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                self.funcs.append((int(f[0], 16), int(f[1], 16), f[3]))
        # The PLT entries perf names "func@plt" (a sample can land in one:
        # the workload calls clock_gettime through it); objdump labels them.
        for line in subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".plt", "-j", ".plt.sec",
                                    exe], capture_output=True, text=True).stdout.splitlines():
            f = line.split()
            if len(f) == 2 and f[1].startswith("<") and f[1].endswith("@plt>:"):
                self.funcs.append((int(f[0], 16), 16, f[1][1:-2]))

    def vaddr(self, offset):
        for off, vaddr, filesz in self.loads:
            if off <= offset < off + filesz:
                return offset - off + vaddr
        return None

    def function(self, offset):
        v = self.vaddr(offset)
        return next((name for a, size, name in self.funcs if a <= v < a + size), None)

    def caller_frame_pointer(self, name):
        """The addresses of `name`'s instructions at which the frame pointer
        is still, or again, its caller's: up to `mov %rsp,%rbp` and at `ret`.
        A frame-pointer walk from a sample there skips the caller, as the
        kernel's walk does for perf."""
        lines = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--disassemble={name}",
                                self.exe], capture_output=True, text=True, check=True).stdout
        body = lines.split(f"<{name}>:", 1)[1].split("\n\n", 1)[0]
        insns = [(int(a, 16), op.split()) for a, _, op in
                 (line.strip().partition(":\t") for line in body.strip().splitlines())]
        setup = next(i for i, (_, op) in enumerate(insns) if op[:2] == ["mov", "%rsp,%rbp"])
        return {a for a, _ in insns[:setup + 1]} | {a for a, op in insns if op[0] == "ret"}


@pytest.fixture(scope="module")
def workload_nofp(tmp_path_factory, workload):
    exe = tmp_path_factory.mktemp("live-nofp") / "live_work"
    subprocess.run(["gcc", "-g", "-O1", "-fomit-frame-pointer", str(SOURCE), "-o", str(exe)],
                   check=True)
    return str(exe.resolve())


def check_user_samples(res, exe, frame_pointers=True):
    """Every sample of `exe` resolves to nm's function, the spin samples
    (most of them) to leaf_spin called from middle_call from main from libc.
    With `frame_pointers` (the chain walked by the kernel), a sample on
    leaf_spin's frame setup or return skips middle_call, as it does for perf;
    a DWARF unwind (not `frame_pointers`) has every frame."""
    elf = Elf(exe)
    skips_caller = elf.caller_frame_pointer("leaf_spin") if frame_pointers else set()
    mine = [s for s in res["samples"] if s["dso"] == exe]
    assert len(mine) >= 50, (len(mine), res["kinds"], res["samples"][:3])
    for s in mine:
        offset = s["ip"] - s["map_start"] + s["map_pgoff"]
        assert s["map_start"] <= s["ip"] < s["map_end"]
        assert s["symbol"] == elf.function(offset), s
        assert s["sym_start"] <= offset < s["sym_end"], s
        assert s["dso_long_name"] == exe and len(s["dso_bid"]) == 40
    spin = [s for s in mine if s["symbol"] == "leaf_spin"]
    assert len(spin) >= 0.8 * len(mine)
    for s in spin:
        frames = [(sym, dso) for _, sym, dso in s["chain"]]
        callers = [("leaf_spin", exe), ("middle_call", exe), ("main", exe)]
        if elf.vaddr(s["ip"] - s["map_start"] + s["map_pgoff"]) in skips_caller:
            del callers[1]
        assert frames[:len(callers)] == callers, (frames, s)
        assert any(sym == "__libc_start_call_main" and "libc.so" in dso for sym, dso in frames)
        # Each frame of the binary as nm names it (return addresses: ip - 1).
        for ip, sym, dso in s["chain"][1:len(callers)]:
            assert sym == elf.function(ip - 1 - s["map_start"] + s["map_pgoff"])


def check_c_module_has_none(res):
    assert res["kinds"].get("sample_event", 0) >= 50, res["kinds"]
    for s in res["samples"]:
        assert all(s[n] in ("absent", None) for n in GETTERS), s
        assert s["chain"] in ("absent", None)


@pytest.fixture
def c_side(c_module, workload):
    return c_module


def test_started_after_open_resolves_from_mmap_records(ours, workload):
    """fork, open on the child, exec (enable_on_exec): the MMAP records name
    every map; read after the child is reaped (no /proc/<pid>/maps)."""
    res = sample(ours, workload, "exec", "user", "0.6")
    assert {"mmap_event", "comm_event", "task_event"} <= set(res["kinds"]), res["kinds"]
    assert not Path(f"/proc/{res['pid']}").exists()
    check_user_samples(res, workload)


def test_evlist_config_tracking(ours, workload):
    """evlist.config() on a tracking evsel asks for MMAP2/COMM/task records."""
    res = sample(ours, workload, "config", "user", "0.6")
    assert {"mmap2_event", "comm_event", "task_event"} <= set(res["kinds"]), res["kinds"]
    check_user_samples(res, workload)


def test_dwarf_user_stacks_unwind(ours, workload_nofp):
    """A workload without frame pointers sampled with its user registers
    and stack (--call-graph dwarf): the user frames are unwound from each
    sample's dump, in the live machine's maps."""
    res = sample(ours, workload_nofp, "dwarf", "user", "0.6")
    check_user_samples(res, workload_nofp, frame_pointers=False)


def test_running_before_open_resolves_through_proc(ours, workload):
    res = sample(ours, workload, "running")
    assert "mmap_event" not in res["kinds"] and "mmap2_event" not in res["kinds"], res["kinds"]
    check_user_samples(res, workload)


def kallsyms():
    addrs, names = [], []
    with open("/proc/kallsyms") as f:
        for line in f:
            a, kind, name = line.split()[:3]
            if kind.upper() in "TWDB":
                addrs.append(int(a, 16))
                names.append(name)
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def test_kernel_samples_resolve_to_kallsyms(ours, workload):
    res = sample(ours, workload, "exec", "kernel", "0.6")
    addrs, names = kallsyms()
    if not any(addrs):
        pytest.skip("/proc/kallsyms shows no addresses (kptr_restrict)")
    kernel = [s for s in res["samples"] if s["dso"] == "[kernel.kallsyms]"]
    assert len(kernel) >= 30, res["kinds"]
    for s in kernel:
        ip, start = s["ip"], s["sym_start"]
        assert start <= ip < s["sym_end"], s
        lo, hi = bisect.bisect_left(addrs, start), bisect.bisect_right(addrs, ip)
        assert s["symbol"] in names[lo:hi] and set(addrs[lo:hi]) == {start}, (s, names[lo:hi])
    # Call chains cross into user space: kernel frames, then libc's read
    # (no frame of its own: its caller's is skipped), then the workload's.
    crossing = [s for s in kernel if ("main", workload) in
                [(sym, dso) for _, sym, dso in s["chain"]]]
    assert crossing, [s["chain"] for s in kernel[:3]]
    assert crossing[0]["chain"][0][2] == "[kernel.kallsyms]"


@pytest.mark.parametrize("how,args", [("exec", ["user", "0.6"]), ("running", []),
                                      ("exec", ["kernel", "0.6"])])
def test_c_module_has_no_live_symbols(c_side, workload, how, args):
    """Side by side: the same sampler under the C module gets the same kinds
    of records and no symbol getter (7.3's return None live)."""
    res = sample(c_side, workload, how, *args)
    check_c_module_has_none(res)
    if how == "exec":
        assert {"mmap_event", "comm_event", "task_event"} <= set(res["kinds"]), res["kinds"]

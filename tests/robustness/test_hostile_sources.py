# SPDX-License-Identifier: GPL-2.0-only
"""Hostile symbol and config sources (docs/reliability.md, "Hostile files"):
decompression bombs in ELF sections, FIFOs and devices where a symbol file,
JIT map, build-id cache entry, source file, kallsyms or config file is
expected, a FIFO as perf.data with no writer, a config of 80 000 sections.

Every input is made here, and every case runs in a subprocess with its
address space limited to 2 GB (prlimit) and 20 s to end: it must end with a
value or a Python exception, never an abort, a crash or a hang."""

import lzma
import os
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from robust_helpers import describe

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "symbols"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sidebyside"))
import harness  # noqa: E402
import synth  # noqa: E402

AS_LIMIT = 2 << 30
LIMITED = ["prlimit", f"--as={AS_LIMIT}", "--"]
TIMEOUT = 20
BASE = 0x400000
PID = 4321

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("objcopy") is None,
                                reason="needs gcc and binutils")


def hostile(ours, code, env=None):
    """Runs `code` (which calls `result(value)`) under the limits; asserts it ended
    cleanly and returns the result."""
    r = ours.run(code, timeout=TIMEOUT, wrapper=LIMITED, env=env)
    assert r.rc == 0, describe(r)
    return r.result


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """A directory with `tiny` (gcc -g -O0, symbols and DWARF) built from
    `tiny.c`, and an empty HOME (no build-id cache)."""
    d = tmp_path_factory.mktemp("hostile")
    (d / "tiny.c").write_text("int main(void)\n{\n\treturn 0;\n}\n")
    subprocess.run(["gcc", "-g", "-O0", "-o", d / "tiny", d / "tiny.c"], check=True)
    (d / "home").mkdir()
    return d


def main_offset(binary):
    """main's st_value (a PIE's first segment maps at offset 0: its file offset)."""
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    return next(int(line.split()[0], 16) for line in out.splitlines() if line.endswith(" T main"))


def synth_data(path, filename, ip_offset, pid=PID):
    """A perf.data of one process mapping `filename` at BASE and one sample
    at BASE + ip_offset."""
    s = synth.Synth()
    s.comm(pid, pid, "tiny", 1)
    s.mmap2(pid, pid, BASE, 0x100000, 0, str(filename), 2)
    s.sample(pid, pid, BASE + ip_offset, 3, [])
    s.round()
    Path(path).write_bytes(s.build())
    return path


RESOLVE = """
import perf
out = []
def sample(s):
    out.append([s.symbol, s.dso, s.srccode() if {srccode} else None])
perf.session(perf.data({data!r}), sample=sample).process_events()
result(out)
"""


def resolve(ours, work, data, srccode=False):
    env = {"HOME": str(work / "home")}
    return hostile(ours, RESOLVE.format(data=str(data), srccode=srccode), env=env)


# --- decompression bombs -------------------------------------------------

def test_xz_bomb_in_gnu_debugdata_is_skipped(ours, work):
    """1.1 GiB of zeros in one xz block (a 160 KiB section): above the
    256 MiB cap, refused from the size its index declares. Before the cap
    the decoder held the whole block and the interpreter aborted
    ("memory allocation of 2147483648 bytes failed")."""
    stripped = work / "tiny-stripped"
    subprocess.run(["strip", "-o", stripped, work / "tiny"], check=True)
    bomb = work / "bomb.xz"
    with open(bomb, "wb") as f:
        c = lzma.LZMACompressor(format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32,
                                filters=[{"id": lzma.FILTER_LZMA2, "preset": 0}])
        chunk = bytes(16 << 20)
        for _ in range(1100 // 16 + 1):
            f.write(c.compress(chunk))
        f.write(c.flush())
    obj = work / "tiny-xz-bomb"
    subprocess.run(["objcopy", f"--add-section=.gnu_debugdata={bomb}", stripped, obj], check=True)
    data = synth_data(work / "xz.data", obj, main_offset(work / "tiny"))
    [[symbol, dso, _]] = resolve(ours, work, data)
    assert dso.endswith(obj.name), dso
    # main is not in .dynsym: with the MiniDebugInfo skipped it has no name.
    assert symbol != "main"


def zlib_debug_info(work, name, size, claim=None):
    """`tiny` with its .debug_info replaced by an SHF_COMPRESSED section of
    `size` zero bytes whose header says `claim` (default: the truth)."""
    payload = work / f"{name}.section"
    with open(payload, "wb") as f:
        f.write(struct.pack("<IIQQ", 1, 0, size if claim is None else claim, 1))  # Elf64_Chdr, zlib
        c = zlib.compressobj(9)
        chunk = bytes(16 << 20)
        left = size
        while left:
            n = min(left, len(chunk))
            f.write(c.compress(chunk[:n]))
            left -= n
        f.write(c.flush())
    obj = work / name
    subprocess.run(["objcopy", f"--update-section=.debug_info={payload}", work / "tiny", obj],
                   check=True)
    # objcopy keeps the flags: mark the section SHF_COMPRESSED.
    raw = bytearray(obj.read_bytes())
    shoff, = struct.unpack_from("<Q", raw, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", raw, 0x3a)
    strtab_off, = struct.unpack_from("<Q", raw, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        at = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", raw, at)
        end = raw.index(b"\0", strtab_off + name_off)
        if raw[strtab_off + name_off:end] == b".debug_info":
            flags, = struct.unpack_from("<Q", raw, at + 8)
            struct.pack_into("<Q", raw, at + 8, flags | 0x800)
    obj.write_bytes(bytes(raw))
    return obj


@pytest.mark.parametrize("size, claim", [(900 << 20, None), (4096, 3 << 30)],
                         ids=["900MiB-of-zeros", "header-claims-3GiB"])
def test_zlib_bomb_in_debug_info(ours, work, size, claim):
    """900 MiB of zeros: bfd stops at a unit of length 0, and so do we (the
    unit index read it 4 bytes at a time: minutes, with the GIL held). A
    header claiming 3 GiB is above the 1 GiB cap: skipped before inflating."""
    obj = zlib_debug_info(work, f"tiny-zlib-{size}", size, claim)
    data = synth_data(work / f"zlib-{size}.data", obj, main_offset(work / "tiny"))
    [[symbol, dso, src]] = resolve(ours, work, data, srccode=True)
    assert symbol == "main" and dso.endswith(obj.name), (symbol, dso)
    # No line table: no source line, or the symbol's file with line 0.
    assert src is None or src[1] == 0, src


# --- FIFOs and devices where files are expected --------------------------

def fifo(path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    os.mkfifo(path)
    return path


def test_fifo_named_by_an_mmap_record(ours, work):
    f = fifo(work / "object-fifo")
    data = synth_data(work / "fifo-object.data", f, 0x1000)
    [[symbol, dso, src]] = resolve(ours, work, data, srccode=True)
    assert (symbol, src) == (None, [None, 0, None])  # upstream's "no source line"
    assert dso.endswith(f.name), dso


def test_fifo_as_jit_map(ours, work):
    pid = 4_190_000 + os.getpid() % 4000
    jit = fifo(f"/tmp/perf-{pid}.map")
    try:
        data = synth_data(work / "jit.data", "//anon", 0x10, pid=pid)
        [[symbol, _, _]] = resolve(ours, work, data)
        assert symbol is None
    finally:
        jit.unlink()


def build_id(binary):
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True,
                         check=True).stdout
    return next(line.split()[-1] for line in out.splitlines() if "Build ID" in line)


def test_fifo_in_the_build_id_cache(ours, work):
    bid = build_id(work / "tiny")
    entry = work / "home" / ".debug" / ".build-id" / bid[:2] / bid[2:]
    fifo(entry / "elf")
    fifo(entry / "debug")
    try:
        data = synth_data(work / "bidcache.data", work / "tiny", main_offset(work / "tiny"))
        [[symbol, dso, _]] = resolve(ours, work, data)
        # The cache's entry is skipped; the object at its path gives main.
        assert symbol == "main" and dso.endswith("tiny"), (symbol, dso)
    finally:
        shutil.rmtree(work / "home" / ".debug")


def test_fifo_as_source_file(ours, work):
    src_dir = work / "src"
    src_dir.mkdir(exist_ok=True)
    (src_dir / "s.c").write_text("int main(void)\n{\n\treturn 0;\n}\n")
    subprocess.run(["gcc", "-g", "-O0", "-o", src_dir / "s", "s.c"], cwd=src_dir, check=True)
    fifo(src_dir / "s.c")
    data = synth_data(work / "src.data", src_dir / "s", main_offset(src_dir / "s"))
    [[symbol, _, src]] = resolve(ours, work, data, srccode=True)
    assert symbol == "main"
    # The file and line are known; the FIFO gives no text.
    assert src is not None and src[0].endswith("s.c") and src[1] > 0, src
    assert not src[2], src


@pytest.fixture(scope="module")
def kernel_data(work):
    """A perf.data with kernel samples (reads of /dev/zero)."""
    if shutil.which("perf") is None:
        pytest.skip("needs perf")
    path = work / "kernel.data"
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", path, "--",
                    "dd", "if=/dev/zero", "of=/dev/null", "bs=64k", "count=20000"],
                   check=True, capture_output=True)
    return path


KALLSYMS = """
import perf
n = [0, 0]
def sample(s):
    if s.sample_ip >= 1 << 63:
        n[0] += 1
        n[1] += s.symbol is not None
perf.session(perf.data({data!r}), sample=sample, kallsyms={kallsyms!r}).process_events()
result(n)
"""


@pytest.mark.parametrize("source", ["/dev/zero", "/dev/urandom", "fifo", "huge"])
def test_hostile_kallsyms(ours, work, kernel_data, source):
    """Before: /dev/zero read until the allocation aborted, /dev/urandom
    spun for ever, a FIFO blocked with SIGINT ignored. perf 6.1 hangs on all
    three (`perf script --kallsyms`). Now none is read: the kernel samples
    have no symbols. A regular file above the 64 MiB cap is refused unread."""
    if source == "fifo":
        source = str(fifo(work / "kallsyms-fifo"))
    elif source == "huge":
        huge = work / "kallsyms-huge"
        with open(huge, "wb") as f:
            f.truncate(65 << 20)
        source = str(huge)
    kernel, named = hostile(ours, KALLSYMS.format(data=str(kernel_data), kallsyms=source),
                            env={"HOME": str(work / "home")})
    assert kernel > 0
    assert named == 0


# --- perf config ---------------------------------------------------------

CONFIG = """
import perf
result([perf.config_get("s0.a"), perf.config_get({key!r})])
"""


@pytest.mark.parametrize("source", ["/dev/zero", "/dev/urandom", "fifo", "80k-sections"])
def test_hostile_perf_config(ours, work, source):
    """PERF_CONFIG naming a device or a FIFO: nothing is read. 80 000
    sections: read and looked up in linear time (quadratic before: 17 s)."""
    n = 80_000
    if source == "fifo":
        source = str(fifo(work / "config-fifo"))
    elif source == "80k-sections":
        cfg = work / "perfconfig"
        cfg.write_text("".join(f"[s{i}]\n\ta = {i}\n" for i in range(n)))
        source = str(cfg)
    got = hostile(ours, CONFIG.format(key=f"s{n - 1}.a"), env={"PERF_CONFIG": source})
    if source.endswith("perfconfig"):
        assert got == ["0", str(n - 1)]
    else:
        assert got == [None, None]


# --- perf.data("fifo") ---------------------------------------------------

def start_ours(code, env=None):
    """Our module in a child (limits as above) that prints "ready" first."""
    full = harness.env_for("ours")
    full.update(env or {})
    p = subprocess.Popen([*LIMITED, harness.python_for("ours"), "-c", textwrap.dedent(code)],
                         env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def test_ctrl_c_while_perf_data_waits_for_a_fifo_writer(ours, work):
    """perf reads a FIFO as a pipe, so waiting for its writer is right; but
    Ctrl-C must end the wait (a blocking open ignored two SIGINTs)."""
    f = fifo(work / "data-fifo")
    p = start_ours(f"""
        import perf
        print("ready", flush=True)
        perf.data({str(f)!r})
        print("opened", flush=True)
        """)
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise
    assert p.returncode in (1, -signal.SIGINT), (p.returncode, err)
    assert err.rstrip().endswith("KeyboardInterrupt"), err
    assert "opened" not in out


def test_a_fifo_with_a_writer_is_read_as_a_pipe(ours, work, kernel_data):
    """The same FIFO read once a writer comes: pipe-mode data, every sample."""
    pipe_data = work / "pipe.data"
    with open(pipe_data, "wb") as out:
        subprocess.run(["perf", "inject", "-i", kernel_data, "-o", "-"], stdout=out, check=True)
    f = fifo(work / "data-fifo-2")
    p = start_ours(f"""
        import perf
        print("ready", flush=True)
        n = []
        perf.session(perf.data({str(f)!r}), sample=n.append).process_events()
        print(len(n), flush=True)
        """)
    time.sleep(0.5)
    with open(f, "wb") as w:
        w.write(pipe_data.read_bytes())
    out, err = p.communicate(timeout=TIMEOUT)
    assert p.returncode == 0, err
    assert int(out.split()[-1]) > 0

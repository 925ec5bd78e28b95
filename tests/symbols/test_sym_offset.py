# SPDX-License-Identifier: GPL-2.0-only
"""`sample_event.sym_offset` and `callchain_node.sym_offset` against the
real perf 6.1's `perf script -F ip,sym,symoff,dso` (`sym+0x…`; no offset,
and None here, where there is no symbol): every frame and every sample's
own ip, through scripts/drop_locations.py (a drop-location counter in the
style of net_dropmonitor), on a `perf record -g -e skb:kfree_skb` file of
packets sent to closed local ports (kernel frames) and on the call-chain
recordings of the other symbol tests (user frames: C, C++, dwarf-unwound)."""

import collections
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PERF = "/usr/bin/perf"
SCRIPT = Path(__file__).resolve().parent / "scripts" / "drop_locations.py"
TRACEPOINT = ("/sys/kernel/tracing/events/skb/kfree_skb", "/sys/kernel/debug/tracing/events/skb/kfree_skb")

# Packets the kernel drops, in this process's context: UDP datagrams and
# TCP connection attempts to a local port nobody listens on.
DROPPER = r'''
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(1500):
    u.sendto(b"x" * 32, ("127.0.0.1", port))
for _ in range(100):
    c = socket.socket()
    try:
        c.connect(("127.0.0.1", port))
    except OSError:
        pass
    c.close()
'''

FRAME = re.compile(r"\s*([0-9a-f]+) (.*) \((.*)\)")
SYMOFF = re.compile(r"(.*)\+0x([0-9a-f]+)", re.S)


def frame(line):
    """(ip, symbol, offset or None, dso) of one line of perf script's
    `-F ip,sym,symoff,dso`."""
    m = FRAME.fullmatch(line)
    assert m, line
    ip, symoff, dso = m.groups()
    o = SYMOFF.fullmatch(symoff)
    sym, off = (o.group(1), int(o.group(2), 16)) if o else (symoff, None)
    return int(ip, 16), sym, off, dso


def perf_chains(text):
    """One list of frames per sample, from perf script with call chains."""
    return [[frame(line) for line in block.splitlines() if line.strip()]
            for block in re.split(r"\n\s*\n", text) if block.strip()]


def ours(ours_env, path, *args):
    p = subprocess.run([sys.executable, str(SCRIPT), "-i", str(path), *args], env=ours_env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


def kernel(dso):
    return dso.startswith("[kernel.")


def check_every_location(recs, ours_env, path, extra=()):
    """Compares each sample's own location and each frame of its chain
    with perf script's; returns the frames compared."""
    mine = [json.loads(line) for line in ours(ours_env, path, "--samples").splitlines()]
    chains = perf_chains(recs.script(path, *extra, "-F", "ip,sym,symoff,dso"))
    own = [frame(line) for line in
           recs.script(path, *extra, "-G", "-F", "ip,sym,symoff,dso").splitlines() if line.strip()]
    assert len(mine) == len(chains) == len(own) > 50
    frames = []
    for i, (m, chain, (ip, sym, off, dso)) in enumerate(zip(mine, chains, own)):
        assert m["ip"] == ip, f"sample {i}"
        assert ((m["symbol"] or "[unknown]"), m["sym_offset"]) == (sym, off), f"sample {i}"
        assert (m["dso"] or "[unknown]") == dso, f"sample {i}"
        assert len(m["chain"]) == len(chain), f"sample {i}"
        for j, (n, t) in enumerate(zip(m["chain"], chain)):
            n_ip, n_sym, n_off, n_dso = n
            t_ip, t_sym, t_off, t_dso = t
            assert (n_sym, n_off, n_dso) == (t_sym, t_off, t_dso), f"sample {i} frame {j}"
            if kernel(t_dso):
                assert n_ip == t_ip, f"sample {i} frame {j}"
            frames.append(t)
    # Most offsets are not 0: a getter answering 0 (or None) would differ.
    assert sum(1 for f in frames if f[2]) > len(frames) // 2
    return frames


@pytest.fixture(scope="module")
def drops(recs):
    if not any(Path(p).is_dir() for p in TRACEPOINT):
        pytest.skip("no skb:kfree_skb tracepoint")
    data = recs.top / "drops.data"
    subprocess.run([PERF, "record", "-q", "-g", "-e", "skb:kfree_skb", "-o", str(data), "--",
                    sys.executable, "-c", DROPPER], env=recs.env, check=True,
                   stdout=subprocess.DEVNULL, timeout=600)
    return data


def test_drop_locations_equal_perf_script(recs, ours_env, drops):
    """kfree_skb's kernel call chains: every frame's symbol and offset,
    and the sample's own, as perf script prints them; the frames past the
    kernel's (libc, the interpreter, an unresolved 0) too."""
    frames = check_every_location(recs, ours_env, drops)
    assert sum(1 for f in frames if kernel(f[3]) and f[2]) > len(frames) // 2
    assert any(not kernel(f[3]) and f[2] is not None for f in frames), "a user frame"


def test_drop_table_equals_perf_scripts_first_frames(recs, ours_env, drops):
    """The script's table: drops counted by the first frame's
    `symbol+0xoffset`, the counts perf script's first frames give."""
    lines = ours(ours_env, drops).splitlines()
    assert lines[0].split() == ["LOCATION", "COUNT"]
    table = collections.Counter()
    for line in lines[1:]:
        where, count = line.rsplit(None, 1)
        table[where.strip()] = int(count)
    theirs = collections.Counter()
    for chain in perf_chains(recs.script(drops, "-F", "ip,sym,symoff,dso")):
        _, sym, off, _ = chain[0]
        theirs[sym if off is None else "%s+0x%x" % (sym, off)] += 1
    assert table == theirs
    assert sum(table.values()) > 50 and all("+0x" in w for w in table)


@pytest.mark.parametrize("name", ["c_g", "cxx_g", "c_dwarf"])
def test_user_frames_equal_perf_script(recs, ours_env, name):
    """The user frames of the other symbol tests' recordings (frame
    pointers, and stacks unwound from their dumps): C, C++ names with
    spaces and parentheses, libc."""
    # No inline frames, as the session's chains (test_symbols.py).
    extra = ["--no-inline"] if name.endswith("_dwarf") else []
    frames = check_every_location(recs, ours_env, recs.files[name], extra)
    user = [f for f in frames if not kernel(f[3]) and f[2] is not None]
    assert len(user) > len(frames) // 4
    assert any(f[3].endswith(("/work", "/workxx", "/work-nofp")) for f in user)

# SPDX-License-Identifier: GPL-2.0-only
"""Symbols, call chains and source lines of perf.data samples through the
Python API (`sample.dso`, `symbol`, `callchain`, `srccode()`, …) against the
real perf 6.1's `perf script` on the same files, and a stack collapser in
the style of upstream's ported scripts against perf's own
stackcollapse.py. Differences allowed are those docs/symbols.md lists (none
arise on these workloads)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent / "scripts"
STACKCOLLAPSE = Path("/usr/lib/perf-core/scripts/python/stackcollapse.py")

DUMP = r'''
import json, sys, perf
out = []
def sample(s):
    chain = s.callchain
    d = {"ip": s.sample_ip, "dso": s.dso, "dso_long_name": s.dso_long_name, "bid": s.dso_bid,
         "map": [s.map_start, s.map_end, s.map_pgoff], "sym": s.symbol,
         "sym_range": [s.sym_start, s.sym_end], "src": s.srccode(), "insn": (s.insn() or b"").hex()}
    if chain is not None:
        d["chain"] = [[n.ip, n.symbol, n.dso, n.inlined] for n in chain]
        assert len(chain) == len(list(chain))
    out.append(d)
perf.session(perf.data(sys.argv[1]), sample=sample, **json.loads(sys.argv[2])).process_events()
json.dump(out, sys.stdout)
'''


def ours(ours_env, path, **kw):
    p = subprocess.run([sys.executable, "-c", DUMP, str(path), json.dumps(kw)], env=ours_env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


def script_args(name):
    """perf script's options that make its call chains the Python
    session's: no inline frames (the session's `inline_name = false`;
    perf 6.1 adds them to unwound user stacks)."""
    return ["--no-inline"] if name.endswith("_dwarf") else []


def perf_blocks(text):
    """perf script's call chain output: one list of (sym, dso) per sample;
    a frame perf prints `(inlined)` (no dso) has dso "inlined"."""
    blocks, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            if cur is not None:
                blocks.append(cur)
            cur = None
            continue
        addr, rest = line.strip().split(" ", 1)
        sym, _, dso = rest.rpartition(" (")
        cur = (cur or []) + [(sym, dso[:-1])]
    if cur is not None:
        blocks.append(cur)
    return blocks


def perf_srclines(text):
    """perf script -F ip,srcline: (ip, srcline or None) per sample. Each
    sample is its ip (" %16lx") and, where perf has one, an indented
    source line ("  file:line", or its fallback); a sample without one
    prints no second line."""
    samples = []
    for line in text.splitlines():
        if len(line) == 17 and line.startswith(" ") and line.strip().isalnum():
            samples.append((int(line, 16), None))
        elif samples and samples[-1][1] is None and line.startswith("  "):
            samples[-1] = (samples[-1][0], line.strip())
    return samples


@pytest.mark.parametrize("name", ["c_g", "cxx_g", "c_dwarf", "c_o0_dwarf", "cxx_dwarf",
                                  "rust_dwarf"])
def test_callchains_equal_perf_script(recs, ours_env, name):
    """Every frame of every sample's call chain: frame pointers (-g), and
    user stacks unwound from their dumps (--call-graph dwarf)."""
    path = recs.file(name)
    mine = ours(ours_env, path)
    theirs = perf_blocks(recs.script(path, *script_args(name), "-F", "ip,sym,dso"))
    assert len(mine) == len(theirs) > 50
    frames = 0
    for i, (m, t) in enumerate(zip(mine, theirs)):
        assert [(n[1], n[2]) for n in m["chain"]] == t, f"sample {i}"
        frames += len(t)
        # The sample's own ip is the chain's first frame.
        assert (m["sym"] or "[unknown]") == t[0][0]
    assert frames > len(mine)
    assert any("work::" in s for b in theirs for s, _ in b) or name != "cxx_g"
    assert not any(n[3] for m in mine for n in m["chain"]), "no inlined frame by default"


def frames_as_perf_prints(chain):
    """A chain's frames as perf_blocks reads perf script's: (sym, dso),
    dso "inlined" for an inlined frame."""
    return [(n[1], "inlined" if n[3] else n[2]) for n in chain]


@pytest.mark.parametrize("name", ["c_dwarf", "c_o0_dwarf", "cxx_dwarf", "rust_dwarf"])
def test_inline_callchains_equal_perf_script(recs, ours_env, name):
    """perf.session(..., inline=True): every frame of every sample's call
    chain equals perf script's with its inline frames (perf's default), on
    user stacks unwound from their dumps; the files have inlined frames
    (the -O0 C one in libc and ld.so, the others in the workloads too)."""
    path = recs.file(name)
    mine = ours(ours_env, path, inline=True)
    theirs = perf_blocks(recs.script(path, "-F", "ip,sym,dso"))
    assert len(mine) == len(theirs) > 50
    for i, (m, t) in enumerate(zip(mine, theirs)):
        assert frames_as_perf_prints(m["chain"]) == t, f"sample {i}"
        # An inlined frame is in the object its address is in.
        assert all(n[2].startswith("/") for n in m["chain"] if n[3]), f"sample {i}"
    inlined = [f for b in theirs for f in b if f[1] == "inlined"]
    assert len(inlined) > len(mine) // 10
    # In the workload's own binary too, except at -O0.
    own = [n for m in mine for n in m["chain"] if n[3] and n[2].startswith(str(recs.top))]
    assert bool(own) == (name != "c_o0_dwarf")


def addr2line_records(exe, addr):
    """The function names `addr2line -i -f` prints for an address."""
    p = subprocess.run(["addr2line", "-i", "-f", "-e", str(exe), "%x" % addr],
                       capture_output=True, text=True, check=True)
    return p.stdout.splitlines()[::2]


def test_inline_keyword_leaves_frame_pointer_chains(recs, ours_env):
    """perf 6.1 adds inline frames to unwound user frames only
    (`unwind_entry`), not to the recorded frames of a -g chain, though its
    addresses lie in inlined code (addr2line says so): inline=True gives
    the same chains as perf script."""
    path = recs.files["c_g"]
    mine = ours(ours_env, path, inline=True)
    theirs = perf_blocks(recs.script(path, "-F", "ip,sym,dso"))
    assert len(mine) == len(theirs) > 50
    assert [frames_as_perf_prints(m["chain"]) for m in mine] == theirs
    exe = recs.binaries["c_g"]
    leaves = {m["ip"] - m["map"][0] + m["map"][2] for m in mine
              if m["dso"] and m["dso"].endswith("/work") and m["sym"] == "leaf_loop"}
    assert any(len(addr2line_records(exe, a)) > 1 for a in sorted(leaves)[:20])


def test_inline_keyword(recs, ours_env):
    """inline is keyword-only; its default is False, as upstream's session."""
    code = ("import perf, sys\n"
            "d = perf.data(sys.argv[1])\n"
            "try:\n"
            "    perf.session(d, None, None, None, None, None, None, None, None, True)\n"
            "except TypeError as e:\n"
            "    print('TypeError')\n"
            "perf.session(d, inline=False)\n")
    p = subprocess.run([sys.executable, "-c", code, str(recs.files["c_g"])], env=ours_env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["TypeError"]


SHARED = r'''
import gc, sys, perf
kept = []
def sample(s):
    c = s.callchain
    frames = [(n.ip, n.symbol, n.dso) for n in c]
    assert frames == [(c[i].ip, c[i].symbol, c[i].dso) for i in range(len(c))]
    assert frames == [(n.ip, n.symbol, n.dso) for n in c], "iterated twice"
    assert s.callchain is c
    kept.append((s, frames))
perf.session(perf.data(sys.argv[1]), sample=sample).process_events()
gc.collect()
# Kept past process_events() and a collection, samples answer as they did.
assert all([(n.ip, n.symbol, n.dso) for n in s.callchain] == f for s, f in kept)
nodes = {id(n) for s, _ in kept for n in s.callchain}
print(len(kept), sum(len(f) for _, f in kept), len({tuple(f) for _, f in kept}), len(nodes))
'''


def test_callchains_are_shared_and_answer_alike(recs, ours_env):
    """Samples of one stack in one address space share their
    `perf.callchain` (a memo of resolved chains, docs/symbols.md): the same
    answers, read by index, by iteration, twice, or after process_events()
    and a garbage collection."""
    p = subprocess.run([sys.executable, "-c", SHARED, str(recs.files["c_g"])], env=ours_env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    samples, frames, stacks, nodes = map(int, p.stdout.split())
    assert samples > 50 and stacks < samples
    # Fewer node objects than frames: stacks seen twice made no new ones.
    assert nodes < frames


def test_sample_getters_equal_perf_script(recs, ours_env):
    path = recs.files["c_flat"]
    mine = ours(ours_env, path)
    theirs = recs.script(path, "-F", "ip,sym,symoff,dso").splitlines()
    assert len(mine) == len(theirs) > 50
    resolved = 0
    for m, t in zip(mine, theirs):
        assert "chain" not in m
        if m["sym"] is None:
            line = "%16x [unknown] (%s)" % (m["ip"], m["dso"] or "[unknown]")
        else:
            start, end = m["map"][0], m["map"][1]
            kernel = m["dso"].startswith("[") and m["dso"] != "[vdso]"
            addr = m["ip"] if kernel else m["ip"] - start + m["map"][2]
            assert m["sym_range"][0] <= addr < m["sym_range"][1] and start <= m["ip"] < end
            line = "%16x %s+0x%x (%s)" % (m["ip"], m["sym"], addr - m["sym_range"][0], m["dso"])
            resolved += 1
        assert line == t.strip().rjust(len(line))
        if m["dso"] and m["dso"].endswith("/work"):
            assert len(m["bid"]) == 40 and m["dso_long_name"] == m["dso"]
            assert m["insn"], "instruction bytes read from the binary"
    assert resolved > len(mine) // 2


def test_srccode_equals_perf_script_srcline(recs, ours_env):
    path = recs.files["c_flat"]
    mine = ours(ours_env, path)
    theirs = perf_srclines(recs.script(path, "-F", "ip,srcline"))
    assert [m["ip"] for m in mine] == [ip for ip, _ in theirs]
    lines = 0
    for m, (_, t) in zip(mine, theirs):
        if t is None:
            # perf prints no line where it found no source line, nor a
            # fallback; neither has ours: None, or "??" at line 0.
            assert m["src"] == [None, 0, None] or m["src"][:2] == ["??", 0], m
            continue
        if m["src"][0] is None:  # (None, 0, None), as upstream
            # No source line: perf shows its fallback (object[address]).
            assert ":" not in t or t.endswith(":0") or "[" in t, t
            continue
        file, line, text = m["src"]
        assert t == "%s:%d" % (os.path.basename(file), line)
        if file.endswith("work.c") and line > 0:
            assert text == Path(file).read_text().splitlines()[line - 1]
            lines += 1
    assert lines > 20


def test_stackcollapse_equals_perfs(recs, ours_env):
    if not STACKCOLLAPSE.exists():
        pytest.skip("perf's stackcollapse.py is not installed")
    for name in ("c_g", "cxx_g", "c_dwarf"):
        path = recs.files[name]
        p = subprocess.run([sys.executable, str(SCRIPTS / "stackcollapse.py"), "-i", str(path)],
                           env=ours_env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        theirs = recs.script(path, *script_args(name), "-s", str(STACKCOLLAPSE))
        assert p.stdout.splitlines() == theirs.splitlines()
        assert len(p.stdout.splitlines()) > 2


@pytest.mark.parametrize("name", ["c_dwarf", "cxx_dwarf", "rust_dwarf"])
def test_stackcollapse_inline_equals_perfs(recs, ours_env, name):
    """stackcollapse.py --inline (the session's inline=True) prints what
    perf's stackcollapse.py prints with perf script's inline frames, which
    differs from the lines without them."""
    if not STACKCOLLAPSE.exists():
        pytest.skip("perf's stackcollapse.py is not installed")
    path = recs.file(name)
    p = subprocess.run([sys.executable, str(SCRIPTS / "stackcollapse.py"), "--inline", "-i",
                        str(path)], env=ours_env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    theirs = recs.script(path, "-s", str(STACKCOLLAPSE))
    assert p.stdout.splitlines() == theirs.splitlines()
    assert len(theirs.splitlines()) > 2
    assert theirs != recs.script(path, "--no-inline", "-s", str(STACKCOLLAPSE))


def test_symfs_keyword(recs, ours_env, tmp_path):
    """symfs= (here an empty directory): no object is found, so no user
    symbol; the same through PERF_SYMBOL_SYMFS."""
    path = recs.files["c_flat"]
    mine = ours(ours_env, path, symfs=str(tmp_path))
    assert not any(m["sym"] for m in mine if m["dso"] and m["dso"].endswith("/work"))
    env = dict(ours_env, PERF_SYMBOL_SYMFS=str(tmp_path))
    assert ours(env, path) == mine
    assert any(m["sym"] for m in ours(ours_env, path) if m["dso"] and m["dso"].endswith("/work"))


FLAMEGRAPH = Path("/usr/lib/perf-core/scripts/python/flamegraph.py")


def collapsed(tree):
    """The stacks of a flame graph tree as stackcollapse.py writes them
    (`comm;outer;...;leaf count`, sorted): the comm without its " (pid)",
    spaces as "_", ";" in names as ":"."""
    counts = {}

    def walk(node, path):
        if node["v"]:
            key = ";".join(path)
            counts[key] = counts.get(key, 0) + node["v"]
        for c in node["c"]:
            walk(c, path + [c["n"].replace(";", ":")])

    for proc in tree["c"]:
        comm = proc["n"].rsplit(" (", 1)[0] if proc["l"] != "kernel" else proc["n"]
        walk(proc, [comm.replace(" ", "_")])
    return ["%s %d" % (k, counts[k]) for k in sorted(counts)]


def test_flamegraph_equals_perfs(recs, ours_env):
    """tests/symbols/scripts/flamegraph.py (the perf.data API) writes the
    tree perf 6.1's flamegraph.py writes for the same file (JSON), and its
    stacks are the ones stackcollapse.py counts."""
    if not FLAMEGRAPH.exists():
        pytest.skip("perf's flamegraph.py is not installed")
    for name in ("c_g", "cxx_g", "c_dwarf"):
        path = recs.files[name]
        p = subprocess.run([sys.executable, str(SCRIPTS / "flamegraph.py"), "-i", str(path),
                            "-f", "json", "-o", "-"],
                           env=ours_env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        mine = json.loads(p.stdout)
        theirs = json.loads(recs.script(path, *script_args(name), "-s", str(FLAMEGRAPH), "--",
                                        "-f", "json", "-o", "-"))
        assert mine == theirs, name
        assert sum(len(c["c"]) for c in mine["c"]) > 0
        if STACKCOLLAPSE.exists():
            stacks = recs.script(path, *script_args(name), "-s", str(STACKCOLLAPSE))
            assert collapsed(mine) == stacks.splitlines(), name


def test_flamegraph_html(recs, ours_env, tmp_path):
    """--format html fills perf's template: the options and the tree where
    its two markers were."""
    template = tmp_path / "t.html"
    template.write_text("<script>var o = /** @options_json **/; "
                        "var s = /** @flamegraph_json **/;</script>")
    out = tmp_path / "fg.html"
    p = subprocess.run([sys.executable, str(SCRIPTS / "flamegraph.py"), "-i",
                        str(recs.files["c_g"]), "--template", str(template), "-o", str(out)],
                       env=ours_env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    html = out.read_text()
    options = json.loads(html.split("var o = ", 1)[1].split("; var s", 1)[0])
    tree = json.loads(html.split("var s = ", 1)[1].rsplit(";</script>", 1)[0])
    assert options["colorscheme"] == "blue-green" and "# os_release: " in options["context"]
    assert tree["n"] == "all" and tree["c"]
    missing = subprocess.run([sys.executable, str(SCRIPTS / "flamegraph.py"), "-i",
                              str(recs.files["c_g"]), "--template", str(tmp_path / "none")],
                             env=ours_env, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 1 and "does not exist" in missing.stderr

# SPDX-License-Identifier: GPL-2.0-only
"""The damaged-file battery behind docs/reliability.md's figures (not a
pytest module: it runs for minutes). It records small files with the real
perf (plain, -z, pipe, -z pipe, tracepoints, -g, --threads), cuts each at
every record boundary, inside every record and inside every feature
section, damages each feature section, and reads every case with our module
in its own process under a 2 GB address-space limit and a 20 s timeout, and
with `perf script`. It prints the tally: cases, outcomes, and how often ours
read fewer samples than perf.

    sudo env PERF_PYTHON_SYSROOT=build/test-root \\
        PYTHONPATH=build/test-root/usr/lib/python3/dist-packages \\
        python3 tests/robustness/damage_battery.py [--every N]
"""

import argparse
import collections
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from perfdata.test_damaged import feature_sections, records  # noqa: E402

WORK = ["dd", "if=/dev/zero", "of=/dev/null", "bs=1k", "count=20000"]
RECORDINGS = {
    "plain": (["-e", "task-clock", "-c", "100000"], False),
    "z": (["-z", "-e", "task-clock", "-c", "100000"], False),
    "pipe": (["-e", "task-clock", "-c", "100000"], True),
    "zpipe": (["-z", "-e", "task-clock", "-c", "100000"], True),
    "tracepoint": (["-e", "syscalls:sys_enter_read,syscalls:sys_enter_write", "--",
                    "dd", "if=/dev/zero", "of=/dev/null", "bs=1k", "count=200"], False),
    "callchain": (["-g", "-e", "task-clock", "-c", "100000"], False),
    "threads": (["--threads", "-e", "task-clock", "-c", "100000"], False),
}
CHILD = r"""
import json, sys, warnings
out = {"samples": 0, "error": None, "warnings": 0, "seen": []}
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        import perf
        def sample(e):
            out["samples"] += 1
            out["seen"].append([e.sample_tid, e.sample_time])
        perf.session(perf.data(sys.argv[1]), sample=sample).process_events()
    except Exception as e:
        out["error"] = type(e).__name__
    out["warnings"] = len(w)
print(json.dumps(out))
"""
LIMIT = 2 << 30
TIMEOUT = 20


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def record(name, args, pipe, into):
    """Records `name`; args may end with "--" and a workload of their own."""
    out = into / f"{name}.data"
    work = WORK
    if "--" in args:
        args, work = args[:args.index("--")], args[args.index("--") + 1:]
    if pipe:
        with open(out, "wb") as f:
            subprocess.run(["perf", "record", "-q", *args, "-o", "-", "--", *work], stdout=f,
                           stderr=subprocess.DEVNULL, check=True)
    else:
        subprocess.run(["perf", "record", "-q", *args, "-o", str(out), "--", *work],
                       capture_output=True, check=True)
    return out


def ours(path):
    """The outcome's class, and the (tid, time) of the samples read."""
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True,
                           timeout=TIMEOUT, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return "hang", collections.Counter()
    if p.returncode != 0:
        return f"abort (rc {p.returncode})", collections.Counter()
    r = json.loads(p.stdout)
    seen = collections.Counter(map(tuple, r["seen"]))
    if r["error"] in ("PanicException", "SystemError"):
        return r["error"], seen
    if r["error"]:
        return f"samples, then {r['error']}" if r["samples"] else f"{r['error']}", seen
    return ("samples and a warning" if r["warnings"] else "samples"), seen


def perf_samples(path):
    """(tid, time) of the samples `perf script` prints."""
    p = subprocess.run(["perf", "script", "-i", str(path), "-F", "tid,time", "--ns"],
                       capture_output=True, text=True, timeout=120, errors="replace")
    out = collections.Counter()
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0].lstrip("-").isdigit() and f[1].endswith(":"):
            out[(int(f[0]), int(f[1].rstrip(":").replace(".", "")))] += 1
    return out


def cases(name, path, pipe, every):
    """(label, bytes, file to write them to) of each damaged case."""
    if path.is_dir():
        victim = max(path.glob("data.*"), key=lambda f: f.stat().st_size)
        b = victim.read_bytes()
        offs, off = [], 0
        while off + 8 <= len(b):
            size = struct.unpack_from("<H", b, off + 6)[0]
            if size < 8:
                break
            offs.append((off, size))
            off += size
        for off, size in offs[::every]:
            for cut in (off, off + size // 2):
                yield f"{victim.name} cut at {cut}", b[:cut], victim.name
        return
    b = path.read_bytes()
    for off, _, size in records(b, pipe)[::every]:
        for cut in (off, off + size // 2):
            yield f"cut at {cut}", b[:cut], None
    if pipe:
        return
    for entry, off, size in feature_sections(b).values():
        for cut in (entry + 8, off + 1, off + size // 2):
            yield f"cut at {cut}", b[:cut], None
        for value in (0, 2**32 - 1, 2**40):
            d = bytearray(b)
            struct.pack_into("<I", d, off, value & 0xffffffff)
            yield f"feature at {off:#x} starts {value}", bytes(d), None
            d = bytearray(b)
            struct.pack_into("<Q", d, entry, value)
            yield f"feature entry at {entry:#x} offset {value}", bytes(d), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--every", type=int, default=1, help="every Nth record (default: all)")
    a = ap.parse_args()
    tally = collections.Counter()
    fewer = []
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        for name, (args, pipe) in RECORDINGS.items():
            src = record(name, args, pipe, d)
            _, whole = ours(src)
            for label, b, member in cases(name, src, pipe, a.every):
                if member:
                    case = d / "case.data"
                    subprocess.run(["rm", "-rf", str(case)], check=True)
                    subprocess.run(["cp", "-r", str(src), str(case)], check=True)
                    (case / member).write_bytes(b)
                else:
                    case = d / "case.data"
                    subprocess.run(["rm", "-rf", str(case)], check=True)
                    case.write_bytes(b)
                outcome, got = ours(case)
                # perf's samples that the whole file holds (perf also prints
                # a record cut short as a sample of garbage).
                theirs = perf_samples(case) & whole
                tally[outcome] += 1
                tally["cases"] += 1
                if theirs - got:
                    fewer.append(f"{name} {label}: ours {sum(got.values())}, perf "
                                 f"{sum(theirs.values())}")
            print(f"{name}: done", file=sys.stderr)
    for k, v in sorted(tally.items()):
        print(f"{v:6}  {k}")
    print(f"{len(fewer):6}  where perf script read a sample of the file that ours did not")
    for line in fewer[:20]:
        print("        " + line)


if __name__ == "__main__":
    if os.geteuid() != 0:
        sys.exit("damage_battery: run as root (perf record)")
    main()

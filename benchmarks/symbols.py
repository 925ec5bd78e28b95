# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: symbol resolution and source lines, ours (perf_core::symbol
through crates/perf-core/examples/symbol_bench.rs) against the real perf 6.1
(`perf script`), on one perf.data file of about 100 000 samples with call
chains (the C and C++ workloads of the symbol tests, recorded with
`perf record -g`). Wall time and peak RSS of each; ratios.

perf 6.1 on Debian computes source lines by running addr2line; when its run
would exceed --perf-timeout seconds it is stopped and its rate over the
samples it printed is extrapolated (said so in the output).

Usage: python3 benchmarks/symbols.py [--samples N] [--perf-timeout S]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(ROOT, "crates/perf-core/tests/data/symbols")
BENCH = os.path.join(ROOT, "target/release/examples/symbol_bench")


def timed(cmd, env, stdin=None, stdout=subprocess.DEVNULL, timeout=None):
    """Runs cmd under /usr/bin/time; returns (seconds, maxrss_kb, timed_out)."""
    with tempfile.NamedTemporaryFile("r") as t:
        full = ["/usr/bin/time", "-o", t.name, "-f", "%e %M"] + cmd
        start = time.monotonic()
        timed_out = False
        try:
            subprocess.run(full, env=env, stdin=stdin, stdout=stdout,
                           stderr=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        wall = time.monotonic() - start
        parts = t.read().split()
        rss = int(parts[-1]) if parts and parts[-1].isdigit() else 0
        return wall, rss, timed_out


def convert(dump, out):
    """`perf script -D` to symbol_bench's input (see the example's doc)."""
    misc_at = {}
    pending = None
    samples = 0
    lines = iter(dump)
    for line in lines:
        if "]: event: " in line and "@" in line:
            pending = line.split("@")[0]
            continue
        if pending is not None and line.startswith(".  0000:  "):
            b = line[10:].split(" ")[:8]
            if len(b) == 8:
                misc_at[pending] = int(b[5] + b[4], 16)
            pending = None
            continue
        p = line.find(": PERF_RECORD_")
        if p < 0:
            continue
        head = line[:p].split()
        offset = head[-2] if len(head) >= 2 else "0"
        body = line[p + len(": PERF_RECORD_"):]
        if body.startswith("MMAP"):
            v2 = body.startswith("MMAP2")
            rest = body.split(" ", 1)[1].strip()
            ids, rest = rest.split(": [", 1)
            pid = int(ids.split("/")[0])
            inside, tail = rest.split("]: ", 1)
            rng, after = inside.split(" @ ")
            start, ln = rng.split("(")
            f = after.split()
            pgoff = int(f[0], 16)
            maj = mn = ino = gen = 0
            bid = "-"
            if v2:
                if f[1].startswith("<"):
                    bid = f[1].strip("<>")
                else:
                    maj, mn = (int(x, 16) for x in f[1].split(":"))
                    ino, gen = int(f[2]), int(f[3])
            perms, _, filename = tail.partition(" ")
            if v2:
                prot = (perms[0] == "r") | (perms[1] == "w") << 1 | (perms[2] == "x") << 2
                flags = 1 if perms[3] == "s" else 2
            else:
                prot, flags = (1 if perms == "r" else 5), 0
            misc = misc_at.get(offset, 0)
            out.write(f"M {misc:x} {pid & 0xffffffff:x} {int(start, 16):x} {int(ln.rstrip(')'), 16):x} "
                      f"{pgoff:x} {prot:x} {flags:x} {maj:x} {mn:x} {ino:x} {gen:x} {bid} {filename}\n")
        elif body.startswith("FORK("):
            nums = body[5:].replace("):(", ":").rstrip(")").split(":")
            out.write(f"F {int(nums[0]):x} {int(nums[2]):x}\n")
        elif body.startswith("SAMPLE("):
            misc = int(body.split(")")[0].split(", ")[1], 16)
            after = body.split("): ", 1)[1].split()
            pid = int(after[0].split("/")[0])
            ip = int(after[1], 16)
            chain = []
            nxt = next(lines, "")
            if "chain: nr:" in nxt:
                for _ in range(int(nxt.rsplit("nr:", 1)[1])):
                    chain.append(next(lines, "").rsplit(": ", 1)[-1].strip())
            out.write(f"S {misc:x} {pid & 0xffffffff:x} {ip:x} {' '.join(chain)}\n")
            samples += 1
    return samples


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--perf-timeout", type=float, default=600)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "perf-core", "--example", "symbol_bench"],
                   cwd=ROOT, check=True)
    tmp = tempfile.mkdtemp(prefix="perfpy-symbench-")
    try:
        home = os.path.join(tmp, "home")
        os.makedirs(home)
        env = dict(os.environ, HOME=home)
        for src, cc in (("work.c", "gcc"), ("work.cpp", "g++")):
            subprocess.run([cc, "-O2", "-g", "-fno-omit-frame-pointer", os.path.join(DATA, src), "-o",
                            os.path.join(tmp, src.replace(".", "_"))], check=True)
        data = os.path.join(tmp, "perf.data")
        inp = os.path.join(tmp, "input.txt")
        # cpu-clock samples only while the workload runs: on a busy machine
        # fewer than 4999 a second; record again, longer, until enough.
        seconds = max(5, args.samples // 4000)
        while True:
            loop = (f"end=$(($(date +%s)+{seconds})); while [ $(date +%s) -lt $end ]; do "
                    f"{tmp}/work_c 20; {tmp}/work_cpp; done")
            subprocess.run(["perf", "record", "-q", "-g", "-e", "cpu-clock", "-F", "4999", "-o", data,
                            "--", "sh", "-c", loop], env=env, check=True, stdout=subprocess.DEVNULL)
            with open(inp, "w") as out:
                bids = subprocess.run(["perf", "buildid-list", "-i", data], env=env, check=True,
                                      capture_output=True, text=True).stdout
                for l in bids.splitlines():
                    b, _, name = l.partition(" ")
                    out.write(f"B {b} {name}\n")
                p = subprocess.Popen(["perf", "script", "-D", "-i", data], env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
                samples = convert(p.stdout, out)
                p.wait()
            if samples >= args.samples:
                break
            seconds = int(seconds * args.samples / max(samples, 1) * 1.15) + 1
        print(f"perf.data: {samples} samples with call chains ({seconds} s of the C and C++ workloads, "
              f"-F 4999), {os.path.getsize(data) >> 20} MiB")

        rows = []
        for mode, perf_fields in (("sym", "ip,sym,symoff,dso"), ("srcline", "ip,srcline"), ("srccode", None)):
            with open(inp) as f:
                ours_s, ours_rss, _ = timed([BENCH, mode], env, stdin=f, stdout=subprocess.PIPE)
            if perf_fields is None:
                rows.append((mode, ours_s, ours_rss, None, None, ""))
                continue
            out = os.path.join(tmp, "perf.out")
            with open(out, "w") as o:
                perf_s, perf_rss, stopped = timed(["perf", "script", "-i", data, "-F", perf_fields], env,
                                                  stdout=o, timeout=args.perf_timeout)
            note = ""
            if stopped:
                with open(out) as o:
                    done = sum(1 for l in o if l == "\n") // 2 or 1
                rate = done / perf_s
                note = f"stopped after {perf_s:.0f} s at {done} samples; time extrapolated"
                perf_s = samples / rate
            rows.append((mode, ours_s, ours_rss, perf_s, perf_rss, note))

        print(f"{'':26} {'ours s':>8} {'perf s':>9} {'speed-up':>9}   {'ours RSS':>9} {'perf RSS':>9}")
        what = {"sym": "symbols (-F ip,sym,symoff,dso)", "srcline": "source lines (-F ip,srcline)",
                "srccode": "srccode() of every sample"}
        for mode, os_, orss, ps, prss, note in rows:
            if ps is None:
                print(f"{what[mode]:26} {os_:8.2f} {'':>9} {'':>9}   {orss / 1024:8.1f}M")
                continue
            print(f"{what[mode]:26} {os_:8.2f} {ps:9.2f} {ps / os_:8.1f}x   {orss / 1024:8.1f}M "
                  f"{prss / 1024:8.1f}M  {note}")
        srcline = next(r for r in rows if r[0] == "srcline")
        srccode = next(r for r in rows if r[0] == "srccode")
        print(f"srccode() for every sample vs perf script -F ip,srcline: {srcline[3] / srccode[1]:.1f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

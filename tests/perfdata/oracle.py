# SPDX-License-Identifier: GPL-2.0-only
"""What Debian's perf 6.1 says a perf.data file holds, in Python values:

* `samples(path)`: every sample as perf's own Python scripting engine
  (`perf script -s`) hands it to a script: the event, the thread's comm,
  perf's sample dict (pid, tid, cpu, time, period, ip, addr, phys_addr,
  weight, datasrc) and, for tracepoints, every field of the format. A
  first run (`trace_unhandled`) learns each tracepoint's field names; the
  script of the second run has one handler per tracepoint with exactly
  those arguments plus `perf_sample_dict` (perf passes that dict only to
  handlers that take one more argument than the fields). Values are
  printed with repr() and read back (literals and bytearrays only).
* `script_fields(path, fields)`: `perf script -F ... --ns`, parsed.
* `raw_samples(path)`: `perf script -D`: every SAMPLE as delivered (time
  order), with the bytes of its record (dumped where it was read).
* `stat_rows(path)`: `perf script` of a `perf stat record` file.
"""

import ast
import re
import subprocess
import textwrap

PERF = "/usr/bin/perf"


def perf_script(path, *args, timeout=600):
    p = subprocess.run([PERF, "script", "-i", str(path), *args], capture_output=True, text=True,
                       timeout=timeout, errors="replace")
    if p.returncode != 0:
        raise AssertionError(f"perf script {' '.join(args)}: rc {p.returncode}: {p.stderr[-2000:]}")
    return p.stdout


DISCOVER = '''
names = {}
def trace_unhandled(event_name, context, fields):
    if event_name not in names:
        names[event_name] = [k for k in fields if not k.startswith("common_")]
def trace_end():
    print(repr(names))
'''


def tracepoint_fields(path, tmp_path):
    """{handler name ("sys__name"): [field names]} of the file's tracepoints,
    as perf's engine names the fields."""
    script = tmp_path / "discover.py"
    script.write_text(DISCOVER)
    out = perf_script(path, "-s", str(script))
    return ast.literal_eval(out.strip().splitlines()[-1])


def dumper_script(fields):
    """A script printing one repr'd dict per sample (see the module doc)."""
    lines = ["import sys",
             "def emit(d):",
             "    sys.stdout.write(repr(d) + '\\n')",
             "def process_event(param_dict):",
             "    emit({'event': param_dict['ev_name'], 'comm': param_dict['comm'],",
             "          'sample': param_dict['sample']})"]
    for handler, names in fields.items():
        args = ", ".join(f"f{i}" for i in range(len(names)))
        lines.append(textwrap.dedent(f"""\
            def {handler}(event_name, context, common_cpu, common_secs, common_nsecs, common_pid,
                    common_comm, common_callchain, {args + ', ' if args else ''}perf_sample_dict):
                emit({{'event': {handler!r}, 'comm': common_comm, 'common_pid': common_pid,
                      'fields': dict(zip({names!r}, [{args}])),
                      'sample': perf_sample_dict['sample']}})"""))
    return "\n".join(lines) + "\n"


def read_repr(text):
    """A repr'd value of literals and bytearrays (what perf's engine makes
    of array fields)."""
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name)
                                               and node.func.id == "bytearray"):
            raise ValueError(f"unexpected call in {text!r}")
        if isinstance(node, ast.Name) and node.id != "bytearray":
            raise ValueError(f"unexpected name in {text!r}")
    return eval(compile(tree, "<perf>", "eval"), {"__builtins__": {}}, {"bytearray": bytearray})


def samples(path, tmp_path):
    """Every sample of `path`, in perf's order, as perf's Python engine sees it."""
    fields = tracepoint_fields(path, tmp_path)
    script = tmp_path / "dump.py"
    script.write_text(dumper_script(fields))
    out = perf_script(path, "-s", str(script))
    return [read_repr(line) for line in out.splitlines() if line.startswith("{")], fields


SCRIPT_LINE = re.compile(r"^\s*(?P<comm>.*?)\s+(?P<pid>-?\d+)/(?P<tid>-?\d+)\s+"
                         r"(?:\[(?P<cpu>\d+)\]\s+)?(?:(?P<secs>\d+)\.(?P<nsecs>\d{9}):\s+)?"
                         r"(?:(?P<period>\d+)\s+)?(?P<event>\S+):\s+(?P<ip>[0-9a-f]+)\s*$")


def script_fields(path, fields):
    """`perf script -F <fields> --ns` (fields from comm,pid,tid,cpu,time,
    period,event,ip, in that order), one dict per sample with int values."""
    out = perf_script(path, "-F", ",".join(fields), "--ns")
    rows = []
    for line in out.splitlines():
        m = SCRIPT_LINE.match(line)
        if not m:
            raise AssertionError(f"unparsed perf script line: {line!r}")
        d = m.groupdict()
        row = {"comm": d["comm"], "pid": int(d["pid"]), "tid": int(d["tid"]),
               "event": d["event"], "ip": int(d["ip"], 16)}
        if d["cpu"] is not None:
            row["cpu"] = int(d["cpu"])
        if d["secs"] is not None:
            row["time"] = int(d["secs"]) * 1_000_000_000 + int(d["nsecs"])
        if d["period"] is not None:
            row["period"] = int(d["period"])
        rows.append(row)
    return rows


# A record's file offset as -D prints it ("%#" PRIx64): "0", not "0x0", for
# the first record of a file, which in a --threads directory is a sample
# whenever a CPU's first record was one.
OFFSET = r"(0x[0-9a-f]+|0)"
RAW_START = re.compile(r"^" + OFFSET + r"@\S+ \[0x[0-9a-f]+\]: event: (\d+)$")
RAW_LINE = re.compile(r"^\.\s+[0-9a-f]{4}:\s+((?:[0-9a-f]{2} ?)+)")
DELIVERED = re.compile(r"^((?:-?\d+ )*)" + OFFSET + r" \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\(")


def raw_samples(path):
    """[(offset, stamp, record bytes)] of every SAMPLE in delivery order
    (`perf script -D`; stamp: the numbers -D prints before the offset, the
    cpu (%u) if any event samples CPU, then the time if any samples TIME).
    Offsets repeat (records of one compressed record, the files of a
    --threads directory): each delivered offset is matched with the next
    unmatched dump at that offset."""
    out = perf_script(path, "-D")
    dumps = {}
    delivered = []
    current = None
    for line in out.splitlines():
        m = RAW_START.match(line)
        if m:
            current = (m.group(1), bytearray())
            if m.group(2) == "9":
                dumps.setdefault(m.group(1), []).append(current[1])
            continue
        if current is not None:
            r = RAW_LINE.match(line)
            if r:
                current[1].extend(bytes.fromhex(r.group(1).replace(" ", "")))
                continue
        m = DELIVERED.match(line)
        if m:
            delivered.append((m.group(2), [int(n) for n in m.group(1).split()]))
    result = []
    for offset, stamp in delivered:
        candidates = dumps.get(offset) or [b""]
        result.append((int(offset, 16), stamp, bytes(candidates.pop(0))))
    return result


STAT_ROW = re.compile(r"^\s*(-?\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s*$")


def stat_rows(path):
    """[(cpu, thread pid, val, ena, run, time, event)] of `perf script` on a
    `perf stat record` file, in its order."""
    out = perf_script(path)
    rows = []
    for line in out.splitlines():
        m = STAT_ROW.match(line)
        if m:
            cpu, thread, val, ena, run, time = (int(g) for g in m.groups()[:6])
            rows.append((cpu, thread, val, ena, run, time, m.group(7)))
    return rows

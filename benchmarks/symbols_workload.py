# SPDX-License-Identifier: GPL-2.0-only
"""What benchmarks/perf_data_symbols.py times of ours besides the stack
collapser (tests/symbols/scripts/stackcollapse.py): one perf.session over a
perf.data file.

    symbols_workload.py FILE srccode   srccode() of every sample: the work
                                       of `perf script -F ip,srcline` on a
                                       file without call chains
    symbols_workload.py FILE columns   the stack collapser on the columnar
                                       path (session.read_columns); exits
                                       with status 3 and the reason on
                                       stderr when the module has none

srccode prints one JSON line {"samples": N, "with_line": M}; columns prints
the collapsed stacks as stackcollapse.py does.
"""

import collections
import json
import sys

import perf

NO_COLUMNS = 3


def srccode(path):
    n = with_line = 0

    def sample(s):
        nonlocal n, with_line
        n += 1
        if s.srccode() is not None:
            with_line += 1

    perf.session(perf.data(path), sample=sample).process_events()
    print(json.dumps({"samples": n, "with_line": with_line}))


def columns(path):
    """Collapsed stacks (comm;outer;...;leaf count) from columns: call
    chains as offsets into a flat column of frames, each frame's symbol a
    small int into one string table, as the columnar reader of sessions is
    specified; nothing made per sample but the key of the counter."""
    session = perf.session(perf.data(path))
    if not hasattr(session, "read_columns"):
        print("perf.session has no read_columns()", file=sys.stderr)
        sys.exit(NO_COLUMNS)
    cols = session.read_columns(("comm", "callchain", "callchain_symbol"))
    comm, comm_names = cols["comm"], cols["comm_names"]
    offsets, sym, names = cols["callchain_offsets"], cols["callchain_symbol"], cols["symbol_names"]
    counts = collections.Counter(
        (comm[i], tuple(sym[offsets[i]:offsets[i + 1]])) for i in range(len(comm)))
    tidy = [("[unknown]" if s is None else s).replace(";", ":") for s in names]
    lines = {}
    for (c, chain), n in counts.items():
        key = ";".join([(comm_names[c] or "").replace(" ", "_"), *(tidy[s] for s in reversed(chain))])
        lines[key] = lines.get(key, 0) + n
    for key in sorted(lines):
        print("%s %d" % (key, lines[key]))


def main():
    path, mode = sys.argv[1], sys.argv[2]
    {"srccode": srccode, "columns": columns}[mode](path)


if __name__ == "__main__":
    main()

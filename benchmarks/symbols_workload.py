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
    """Collapsed stacks (comm;outer;...;leaf count) from columns: each
    sample's thread's comm (`comm`) and its distinct resolved call chain
    (`callchain`), small ints into the session's tables (cols.names,
    cols.callchains), counted as pairs in C (Counter over a zip of the two
    arrays); the names are joined once per distinct pair. The same lines as
    stackcollapse.py (perf's and tests/symbols/scripts/stackcollapse.py): a
    chain perf could not resolve is an empty stack, as perf's script sees
    it."""
    session = perf.session(perf.data(path))
    if not hasattr(session, "read_columns"):
        print("perf.session has no read_columns()", file=sys.stderr)
        sys.exit(NO_COLUMNS)
    counts = collections.Counter()
    names = chains = ()
    while cols := session.read_columns(("comm", "callchain")):
        counts.update(zip(cols["comm"], cols["callchain"]))
        names, chains = cols.names, cols.callchains
    tidy = [s.replace(";", ":") for s in names]
    lines = collections.Counter()
    for (comm, chain), n in counts.items():
        _, symbols = chains[chain]
        lines[";".join([names[comm].replace(" ", "_"), *map(tidy.__getitem__, reversed(symbols))])] += n
    for key in sorted(lines):
        print("%s %d" % (key, lines[key]))


def main():
    path, mode = sys.argv[1], sys.argv[2]
    {"srccode": srccode, "columns": columns}[mode](path)


if __name__ == "__main__":
    main()

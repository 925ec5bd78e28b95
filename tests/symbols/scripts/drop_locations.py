#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Where the kernel drops packets, from a perf.data file of
`perf record -g -e skb:kfree_skb`: each sample's drop location is the first
frame of its call chain (the sample's own ip without one), as function and
offset (`sym_offset`), counted per location, most frequent first, in the way
net_dropmonitor reports them.

    drop_locations.py [-i perf.data] [--samples]

--samples prints, instead of the table, one JSON object per sample: its
ip, symbol, sym_offset and dso, and its call chain's frames as
[ip, symbol, sym_offset, dso].
"""

import argparse
import collections
import json
import sys

import perf


def location(symbol, offset):
    """`symbol+0xoffset`, or the bare name where there is no offset."""
    name = symbol or "[unknown]"
    return name if offset is None else "%s+0x%x" % (name, offset)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-i", "--input", default="perf.data")
    ap.add_argument("--samples", action="store_true", help="one JSON line per sample")
    opts = ap.parse_args()
    drops = collections.Counter()
    out = sys.stdout

    def sample(s):
        chain = s.callchain
        frames = [[n.ip, n.symbol, n.sym_offset, n.dso] for n in chain] if chain else []
        if opts.samples:
            json.dump({"ip": s.sample_ip, "symbol": s.symbol, "sym_offset": s.sym_offset,
                       "dso": s.dso, "chain": frames}, out)
            out.write("\n")
            return
        if frames:
            drops[location(frames[0][1], frames[0][2])] += 1
        else:
            drops[location(s.symbol, s.sym_offset)] += 1

    perf.session(perf.data(opts.input), sample=sample).process_events()
    if not opts.samples:
        out.write("%-50s %8s\n" % ("LOCATION", "COUNT"))
        for where, count in sorted(drops.items(), key=lambda kv: (-kv[1], kv[0])):
            out.write("%-50s %8d\n" % (where, count))


if __name__ == "__main__":
    main()

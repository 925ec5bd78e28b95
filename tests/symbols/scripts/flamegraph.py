#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flame graph input from a perf.data file recorded with call chains: the
tree of stacks d3-flame-graph draws (`{"n": name, "l": libtype, "v": value,
"c": children}`), as JSON or in perf's HTML template. perf's
scripts/python/flamegraph.py on the perf.data API: its JSON is what perf
6.1's prints for the same file (`perf script -s flamegraph.py -- -f json`).

    flamegraph.py [-i perf.data] [-f json|html] [-o OUTPUT] [--template T] [--colorscheme C]
"""

import argparse
import json
import os
import sys

import perf


class Node:
    __slots__ = ("name", "libtype", "value", "children", "index")

    def __init__(self, name, libtype):
        self.name = name
        # "root" | "kernel" | "" (user space)
        self.libtype = libtype
        self.value = 0
        self.children = []
        # children by name: perf searches the list, the result is the same
        self.index = {}

    def child(self, name, libtype):
        node = self.index.get(name)
        if node is None:
            node = self.index[name] = Node(name, libtype)
            self.children.append(node)
        return node

    def to_json(self):
        return {"n": self.name, "l": self.libtype, "v": self.value, "c": self.children}


def libtype_of(dso):
    # With kernel debuginfo installed the kernel's dso is a vmlinux path.
    if dso and (dso == "[kernel.kallsyms]" or dso.endswith("/vmlinux")):
        return "kernel"
    return ""


class FlameGraph:
    def __init__(self, args):
        self.args = args
        self.root = Node("all", "root")
        self.session = None

    def sample(self, sample):
        pid = sample.sample_pid
        if pid == 0:
            # pid 0 is the kernel: its name is the thread's comm alone
            node = self.root.child(self.comm(sample), "kernel")
        else:
            node = self.root.child("{} ({})".format(self.comm(sample), pid), "")
        chain = sample.callchain
        if chain is not None:
            for frame in reversed(chain):
                node = node.child(frame.symbol, libtype_of(frame.dso))
        else:
            node = node.child(sample.symbol or "[unknown]", libtype_of(sample.dso))
        node.value += 1

    def comm(self, sample):
        thread = self.session.find_thread(sample.sample_pid, sample.sample_tid)
        return (thread.comm() if thread is not None else None) or ""

    def context(self, data):
        """What the HTML shows of the recording (perf runs `perf report
        --header-only`; this is the file's own header)."""
        h = data.header
        keys = ("hostname", "os_release", "perf_version", "arch", "cmdline")
        shown = {k: " ".join(h[k]) if isinstance(h[k], list) else h[k] for k in keys if h.get(k)}
        return "\n".join("# {}: {}".format(k, v) for k, v in shown.items())

    def run(self):
        data = perf.data(self.args.input)
        self.session = perf.session(data, sample=self.sample)
        try:
            self.session.process_events()
        finally:
            self.session = None
        stacks = json.dumps(self.root, default=Node.to_json)
        if self.args.format == "html":
            options = json.dumps({"colorscheme": self.args.colorscheme,
                                  "context": self.context(data)})
            with open(self.args.template, encoding="utf-8") as f:
                out = (f.read().replace("/** @options_json **/", options)
                       .replace("/** @flamegraph_json **/", stacks))
            name = self.args.output or "flamegraph.html"
        else:
            out = stacks
            name = self.args.output or "stacks.json"
        if name == "-":
            sys.stdout.write(out)
        else:
            print("dumping data to {}".format(name))
            with open(name, "w", encoding="utf-8") as f:
                f.write(out)


def main():
    ap = argparse.ArgumentParser(description="Create flame graphs.")
    ap.add_argument("-i", "--input", default="perf.data")
    ap.add_argument("-f", "--format", default="html", choices=["json", "html"])
    ap.add_argument("-o", "--output")
    ap.add_argument("--template", default="/usr/share/d3-flame-graph/d3-flamegraph-base.html")
    ap.add_argument("--colorscheme", default="blue-green", choices=["blue-green", "orange"])
    args = ap.parse_args()
    if args.format == "html" and not os.path.isfile(args.template):
        sys.exit("Flame Graph template {} does not exist. Install libjs-d3-flame-graph, give "
                 "--template PATH, or use --format json.".format(args.template))
    FlameGraph(args).run()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: GPL-2.0-only
"""A client in the style of the kernel's tools/perf/python/ilist.py (6.18),
without Textual: a tree of PMUs and their events and of metrics and their
groups, from perf.pmus() and perf.metrics(); one software event and one
metric selected from the tree, counted and read every interval across CPUs
and threads, as ilist's counter view reads them.

Usage: ilist_client.py EVENT METRIC INTERVALS SECONDS
Prints the tree's sizes, then one JSON line per interval."""

import json
import sys
import time

import perf


def pmu_tree():
    """{pmu name: [event names]}, as ilist's PMU branch shows them."""
    return {pmu.name(): sorted(e["name"] for e in pmu.events() if "name" in e)
            for pmu in perf.pmus()}


def metric_tree():
    """{group: [metric names]} from perf.metrics(), as ilist's metric branch
    (a metric in no group sits under "")."""
    tree = {}
    for m in perf.metrics():
        for group in m.get("MetricGroup") or [""]:
            tree.setdefault(group, []).append(m["MetricName"])
    return tree


def find_event(tree, wanted):
    """The (pmu, event) whose event is `wanted`."""
    for pmu, events in tree.items():
        if wanted in events:
            return pmu, wanted
    raise SystemExit(f"no event {wanted}")


def main():
    event, metric, intervals, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    pmus = pmu_tree()
    metrics = metric_tree()
    print(json.dumps({"pmus": len(pmus), "events": sum(map(len, pmus.values())),
                      "metric_groups": sorted(metrics)}), flush=True)
    pmu, name = find_event(pmus, event)
    if not any(metric in names for names in metrics.values()):
        raise SystemExit(f"no metric {metric}")
    counted = perf.parse_events(name)
    measured = perf.parse_metrics(metric, pmu if pmu != "software" else None)
    for evlist in (counted, measured):
        evlist.open()
        evlist.enable()
    for _ in range(intervals):
        time.sleep(seconds)
        line = {"event": {}, "metric": {}}
        for evsel in counted:
            for cpu in evsel.cpus():
                for thread in evsel.threads():
                    line["event"][f"{cpu}/{thread}"] = evsel.read(cpu, thread).val
        for cpu in measured.all_cpus():
            for thread in measured[0].threads():
                line["metric"][f"{cpu}/{thread}"] = measured.compute_metric(metric, cpu, thread)
        print(json.dumps(line), flush=True)
    for evlist in (counted, measured):
        evlist.disable()
        evlist.close()


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: GPL-2.0-only
"""The CPU time the hypervisor took from this VM (the `steal` column of
/proc/stat, summed over every CPU).

task-clock runs on perf's clock, so it goes on counting while the host has
the vCPU; the scheduler's CPU time (/proc/<pid>/stat, time.process_time())
leaves that stolen time out. Tests that compare the two allow for what was
stolen while they ran: zero on an idle host, tens of milliseconds on a busy
CI host."""

import os

_CLK_TCK = os.sysconf("SC_CLK_TCK")


def stolen_seconds():
    """Seconds stolen from all CPUs since boot."""
    with open("/proc/stat") as f:
        fields = f.readline().split()  # "cpu user nice system idle iowait irq softirq steal ..."
    return int(fields[8]) / _CLK_TCK if len(fields) > 8 else 0.0

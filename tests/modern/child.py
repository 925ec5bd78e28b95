# SPDX-License-Identifier: GPL-2.0-only
"""A workload child that waits for its start: counters opened on its pid
before `go()` see the whole of `python3 -c code`."""

import os
import subprocess
import sys

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Child:
    """A child that blocks reading its stdin, then execs `python3 -c code`."""

    def __init__(self, code):
        self.proc = subprocess.Popen(["/bin/sh", "-c", 'read go; exec "$0" -c "$1"', sys.executable, code],
                                     stdin=subprocess.PIPE)
        self.pid = self.proc.pid

    def go(self):
        """Starts the workload (once)."""
        if self.proc.stdin.closed:
            return
        try:
            self.proc.stdin.write(b"go\n")
        except BrokenPipeError:
            pass
        self.proc.stdin.close()

    def wait_exited(self):
        """Waits for the exit without reaping: /proc/<pid>/stat stays."""
        os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)

    def stat(self):
        """{'cpu_seconds', 'faults'} from /proc/<pid>/stat."""
        with open(f"/proc/{self.pid}/stat") as f:
            data = f.read()
        fields = data[data.rindex(")") + 2:].split()  # fields[0] is field 3, state
        minflt, majflt = int(fields[10 - 3]), int(fields[12 - 3])
        utime, stime = int(fields[14 - 3]), int(fields[15 - 3])
        return {"cpu_seconds": (utime + stime) / CLK_TCK, "faults": minflt + majflt}

    def reap(self):
        """Reaps it, started first if it never was (a test that failed on
        the way must not leave it blocked): (user, system) seconds of its
        rusage. Its exit status must be 0."""
        self.go()
        _, status, usage = os.wait4(self.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        assert self.proc.returncode == 0, self.proc.returncode
        return usage.ru_utime, usage.ru_stime

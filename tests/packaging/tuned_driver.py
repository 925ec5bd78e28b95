# SPDX-License-Identifier: GPL-2.0-only
"""Drive tuned's scheduler-plugin perf logic, unmodified, against `import perf`.

Usage: /usr/bin/python3 tuned_driver.py DIST_PACKAGES COMMAND...

DIST_PACKAGES is usr/lib/python3/dist-packages of Debian's tuned package,
extracted at test time (never committed). The driver builds tuned's own
SchedulerPlugin with stand-ins for the daemon's plumbing (storage, variables,
repositories), calls its _instance_init (which opens the perf events: evsel,
evlist, mmap, exactly as consumers.md 3.1 quotes), runs its _thread_code in a
thread (poll on get_pollfd(), read_on_cpu() for each CPU of cpu_map(), the
RECORD_COMM/FORK/EXIT dispatch) while COMMAND runs, and records which pids
tuned's code hands to _add_pid and _remove_pid. Prints one JSON line.
"""

import importlib.util
import json
import subprocess
import sys
import threading
import time
import types

sys.path.insert(0, sys.argv[1])
# tuned imports python3-linux-procfs at the top of the plugin; the perf logic
# never uses it, and tuned's package (not installed, only extracted) brings
# no dependencies.
if importlib.util.find_spec("procfs") is None:
    sys.modules["procfs"] = types.ModuleType("procfs")

import perf  # noqa: E402
from tuned.plugins import plugin_scheduler  # noqa: E402


class Storage:
    def __init__(self):
        self.data = {}

    def get(self, key, default=None):
        return self.data.get(key, default)

    def set(self, key, value):
        self.data[key] = value

    def unset(self, key):
        self.data.pop(key, None)


class StorageFactory:
    def create(self, name):
        return Storage()


class Variables:
    def expand(self, value):
        return value


class Instance:
    def __init__(self, options):
        self.options = options
        self._sched_lookup = {}


def main():
    out = {"perf_file": perf.__file__, "has_evsel": hasattr(perf, "evsel")}
    if not out["has_evsel"]:
        print(json.dumps(out))
        return
    plugin = plugin_scheduler.SchedulerPlugin(None, StorageFactory(), None, None, None, None, None,
                                              Variables())
    plugin._perf_process_fork_value = True
    added, removed = [], []
    plugin._add_pid = lambda instance, pid, r: added.append(pid)
    plugin._remove_pid = lambda instance, pid: removed.append(pid)
    instance = Instance(dict(plugin._get_config_options()))
    plugin._instance_init(instance)
    out["daemon"] = plugin._daemon
    out["runtime_tuning"] = instance._runtime_tuning
    out["cpus"] = list(plugin._cpus)
    if not instance._runtime_tuning:
        print(json.dumps(out))
        return
    thread = threading.Thread(target=plugin._thread_code, args=(instance,), daemon=True)
    thread.start()
    time.sleep(0.2)
    child = subprocess.Popen(sys.argv[2:])
    child.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and child.pid not in removed:
        time.sleep(0.1)
    instance._terminate.set()
    thread.join(timeout=5)
    out["thread_stopped"] = not thread.is_alive()
    out["child"] = child.pid
    out["child_added"] = added.count(child.pid)      # its FORK and its COMM (exec)
    out["child_removed"] = removed.count(child.pid)  # its EXIT
    out["pids_added"] = len(set(added))
    out["pids_removed"] = len(set(removed))
    out["pollfds"] = [fd.name for fd in instance._evlist.get_pollfd()]
    plugin._instance_cleanup(instance)
    print(json.dumps(out))


main()

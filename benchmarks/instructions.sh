#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Instructions per decoded event (valgrind callgrind: counts, not seconds, so
# the figures repeat on a busy machine), ours vs the kernel's C module on the
# same interpreter (/usr/bin/python3) and workload. Per-event cost =
# (Ir(30000 events) - Ir(10000 events)) / 20000, minus the generation cost.
# Usage: benchmarks/instructions.sh   (needs `make install`: build/stage)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stage=${PERF_TEST_ROOT:-$here/../build/stage}
ir() { # which n mode
    local envs=()
    if [ "$1" = ours ]; then
        envs=(PERF_PYTHON_SYSROOT="$stage" PERF_PYTHON_KERNEL_RELEASE="$(uname -r)"
              PYTHONPATH="$stage/usr/lib/python3/dist-packages")
    fi
    env "${envs[@]}" PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        /usr/bin/python3 "$here/drain_workload.py" "$2" "$3" 2>&1 \
        | awk '/refs:/ {gsub(",", "", $4); print $4}'
}
per_event() { echo $(( ( $(ir "$1" 30000 "$2") - $(ir "$1" 10000 "$2") ) / 20000 )); }
declare -A r
for which in c ours; do
    base=$(per_event "$which" skip)
    for mode in classic attr members; do r[$which.$mode]=$(( $(per_event "$which" "$mode") - base )); done
done
base=$(per_event ours skip)
for mode in batch batchattr columns columnsattr; do r[ours.$mode]=$(( $(per_event ours "$mode") - base )); done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf 'instructions per event (generation subtracted)\n'
printf '  read_on_cpu loop:              C %5d   ours %5d   C/ours %s\n' "${r[c.classic]}" "${r[ours.classic]}" "$(ratio "${r[c.classic]}" "${r[ours.classic]}")"
printf '  read_on_cpu + 2 attributes:    C %5d   ours %5d   C/ours %s\n' "${r[c.attr]}" "${r[ours.attr]}" "$(ratio "${r[c.attr]}" "${r[ours.attr]}")"
printf '  read_on_cpu + type, 3 members: C %5d   ours %5d   C/ours %s\n' "${r[c.members]}" "${r[ours.members]}" "$(ratio "${r[c.members]}" "${r[ours.members]}")"
printf '  ours read_all():                          ours %5d   C classic/batch %s, ours classic/batch %s\n' "${r[ours.batch]}" "$(ratio "${r[c.classic]}" "${r[ours.batch]}")" "$(ratio "${r[ours.classic]}" "${r[ours.batch]}")"
printf '  ours read_all() + 2 attributes:           ours %5d   C classic/batch %s\n' "${r[ours.batchattr]}" "$(ratio "${r[c.attr]}" "${r[ours.batchattr]}")"
printf '  ours read_columns():                      ours %5d   ours classic/columns %s\n' "${r[ours.columns]}" "$(ratio "${r[ours.classic]}" "${r[ours.columns]}")"
printf '  ours read_columns() + max() of both:      ours %5d   ours classic+2 attributes/columns %s, C %s\n' "${r[ours.columnsattr]}" "$(ratio "${r[ours.attr]}" "${r[ours.columnsattr]}")" "$(ratio "${r[c.attr]}" "${r[ours.columnsattr]}")"

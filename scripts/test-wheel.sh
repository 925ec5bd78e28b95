#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make test-wheel: builds the wheel (scripts/wheel.sh), runs tests/wheel
# (contents, auditwheel, a fresh venv of every CPython >= 3.10 here, `pip
# install .`, coexistence with the system's perf), then the side-by-side suite
# and the perf.data session tests (tests/perfdata) against the wheel in a
# fresh venv of the oldest CPython >= 3.10 (pyenv's, else python3), and the
# side-by-side suite in one of the newest (docs/packaging.md says why): the
# same tests, with "ours" pointed at the venv (PERF_TEST_VENV,
# tests/sidebyside/harness.py).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
top=build/wheel
wheel=$(scripts/wheel.sh "$top/dist")
PERF_TEST_WHEEL=$(realpath "$wheel") "$PY" -m pytest -q -rs --durations=5 tests/wheel

# The newest patch release of each minor >= 3.10, oldest minor first.
mapfile -t pythons < <(for d in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.*; do
        v=${d##*/}
        [[ $v =~ ^3\.([0-9]+)\.[0-9]+$ ]] && ((BASH_REMATCH[1] >= 10)) && [ -x "$d/bin/python3" ] \
            && echo "$v $d/bin/python3"
    done | sort -V | awk '{split($1, v, ".")} NR > 1 && v[2] != minor {print path}
                         {minor = v[2]; path = $2} END {if (NR) print path}')
((${#pythons[@]})) || pythons=("$(command -v "$PY")")
# python <tab> the suites it runs
runs=("${pythons[0]}	tests/sidebyside tests/perfdata")
[ "${pythons[-1]}" != "${pythons[0]}" ] && runs+=("${pythons[-1]}	tests/sidebyside")
for run in "${runs[@]}"; do
    python=${run%%	*}
    read -ra suites <<< "${run#*	}"
    venv=$top/venv-$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$wheel"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check pytest
    echo "test-wheel: ${suites[*]} under $venv/bin/python ($("$venv/bin/python" -V))"
    PERF_TEST_VENV=$(realpath "$venv") "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider \
        --durations=5 "${suites[@]}"
done

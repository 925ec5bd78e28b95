# SPDX-License-Identifier: GPL-2.0-only
"""session.read_columns() of a --call-graph dwarf recording through Arrow
(pyarrow, polars, DuckDB): each sample's frames (ip, dso, symbol) as the
sample callback sees them (tests/perfdata/test_arrow.py does the other
kinds of recordings)."""

import pytest

from perfdata import arrow_check as ac
from perfdata.test_arrow import arrow_rows, expected, with_duckdb, with_polars, with_pyarrow

COLUMNS = ac.MEMBERS + ["evsel", "comm", "callchain_ips", "callchain_dso", "callchain_symbol"]


@pytest.mark.parametrize("consumer", [with_pyarrow, with_polars, with_duckdb],
                         ids=["pyarrow", "polars", "duckdb"])
def test_dwarf_frames_through_arrow(perf_ours, recs, consumer):
    path = recs.files["c_dwarf"]
    theirs = expected(perf_ours, path, frames=True)
    ours, _ = arrow_rows(perf_ours, path, COLUMNS, consumer)
    assert ours == theirs
    user = {s for r in ours for d, s in zip(r["callchain_dso"], r["callchain_symbol"])
            if d.endswith("work-nofp")}
    assert "main" in user, "user frames unwound from the stack dumps"

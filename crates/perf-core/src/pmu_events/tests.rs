// SPDX-License-Identifier: GPL-2.0-only
//! The built-in tables: every model decodes, and the CPU identifier picks
//! the row perf picks. What the tables hold is checked against perf 6.1 in
//! tests/modern/test_metrics_tables.py.

use super::*;

#[test]
fn every_model_decodes() {
    if source().is_none() {
        assert!(mapfile().is_empty());
        return;
    }
    assert!(!mapfile().is_empty());
    for entry in mapfile() {
        let table = model_table(entry.model).unwrap_or_else(|| panic!("{entry:?}"));
        assert!(
            !table.events.is_empty() || !table.metrics.is_empty(),
            "{}",
            table.name
        );
        for e in &table.events {
            assert!(
                !e.name.is_empty() && e.name == e.name.to_lowercase(),
                "{e:?}"
            );
        }
        for m in &table.metrics {
            assert!(!m.name.is_empty() && !m.expr.is_empty(), "{m:?}");
        }
    }
    assert!(model_table(usize::MAX).is_none());
}

#[test]
fn first_matching_row_wins() {
    let Some(entry) = mapfile().first() else {
        return;
    };
    let table = find_table(entry.cpuid);
    // A pattern that is a plain identifier selects its own row's table.
    if !entry.cpuid.contains(['(', '[', '|', '*', '+', '{']) {
        assert_eq!(
            table.map(|t| t.name),
            model_table(entry.model).map(|t| t.name)
        );
    }
    assert!(find_table("NoSuchVendor-0-0-0").is_none());
}

// SPDX-License-Identifier: GPL-2.0-only
//! How perf writes the strings of a PMU event's description: C's `%G`
//! (`scale_unit`), terms as `parse_events_terms__to_strbuf()` prints them
//! (`str`), and an alias's `pmu/name/` (`format_alias()`).

/// C's `printf("%G", v)`: 6 significant digits, trailing zeros dropped,
/// exponent form (`1E-06`) below 1e-4 or from 1e6.
pub fn format_g(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "NAN".to_owned()
        } else if v > 0.0 {
            "INF".to_owned()
        } else {
            "-INF".to_owned()
        };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // The exponent after rounding to 6 significant digits.
    let sci = format!("{v:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        let decimals = usize::try_from(5 - exp).unwrap_or(0);
        strip_zeros(&format!("{v:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}E{sign}{:02}", strip_zeros(mantissa), exp.unsigned_abs())
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s.to_owned()
    }
}

/// A numeric term value as perf's lexer reads it (decimal or `0x` hex).
fn number(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

fn terms(text: &str) -> impl Iterator<Item = (&str, Option<&str>)> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| match t.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (t, None),
        })
}

/// `parse_events_terms__to_strbuf()`: numbers as `%#x` (`0` for zero),
/// other values as written, terms joined by `,`.
pub fn terms_str(text: &str) -> String {
    terms(text)
        .map(|(k, v)| match v {
            Some(v) => match number(v) {
                Some(0) => format!("{k}=0"),
                Some(n) => format!("{k}={n:#x}"),
                None => format!("{k}={v}"),
            },
            None => k.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// perf's `format_alias()`: `pmu/alias/`, with the string-valued terms
/// appended (`pmu/alias,term=value/`) unless the alias takes parameters
/// (`=?`).
pub fn alias_name(pmu: &str, alias: &str, text: &str) -> String {
    let mut out = format!("{pmu}/{alias}");
    if !text.contains("=?") {
        for (k, v) in terms(text) {
            if let Some(v) = v.filter(|v| number(v).is_none()) {
                out.push_str(&format!(",{k}={v}"));
            }
        }
    }
    out.push('/');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_g() {
        for (v, s) in [
            (1.0, "1"),
            (1e-6, "1E-06"),
            (0.5, "0.5"),
            (2.328_306_436_538_696_3e-10, "2.32831E-10"),
            (123_456.0, "123456"),
            (1_234_567.0, "1.23457E+06"),
            (0.0001, "0.0001"),
            (0.000_012_5, "1.25E-05"),
            (61.035_156_25e-6, "6.10352E-05"),
            (999_999.5, "1E+06"),
        ] {
            assert_eq!(format_g(v), s, "{v}");
        }
    }

    #[test]
    fn terms_as_perf_prints_them() {
        assert_eq!(terms_str("event=0x00"), "event=0");
        assert_eq!(terms_str("event=0x3c,umask=0x01"), "event=0x3c,umask=0x1");
        assert_eq!(terms_str("config=10"), "config=0xa");
        assert_eq!(terms_str("event=0x2,edge"), "event=0x2,edge");
        assert_eq!(terms_str("name=x,event=?"), "name=x,event=?");
    }

    #[test]
    fn alias_names() {
        assert_eq!(alias_name("msr", "tsc", "event=0x00"), "msr/tsc/");
        assert_eq!(alias_name("p", "a", "event=1,name=x"), "p/a,name=x/");
        assert_eq!(alias_name("p", "a", "event=?,name=x"), "p/a/");
    }
}

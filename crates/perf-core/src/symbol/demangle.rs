// SPDX-License-Identifier: GPL-2.0-only
//! Symbol names as perf 6.1 shows them (`demangle_sym` in
//! tools/perf/util/symbol-elf.c).
//!
//! Debian's perf is built without libbfd but with libiberty: it calls
//! `cplus_demangle(name, DMGL_NO_OPTS)` (no parameters, no return types),
//! which tries libiberty's Rust demangler first (legacy `_ZN…17h<hash>E`
//! and v0 `_R…` symbols) and then the C++ one; if both fail, perf tries its
//! own OCaml rule. The demangling itself comes from the `rustc-demangle`
//! and `cpp_demangle` crates; this module reproduces libiberty's choices
//! around them (which names count as Rust, what "no parameters" removes,
//! how literals and special names are printed). The residual differences
//! are listed in docs/symbols.md and measured by the corpus test.

use cpp_demangle::{BorrowedSymbol, DemangleOptions};

/// perf's `demangle_sym`: the shown name, or `None` to keep `name`.
/// Kernel and module symbols are not demangled (`symbol_conf.demangle_kernel`
/// is off by default).
pub fn demangle_sym(name: &str, kernel: bool) -> Option<String> {
    if kernel {
        return None;
    }
    cplus_demangle(name).or_else(|| ocaml_demangle(name))
}

/// libiberty's `cplus_demangle(name, 0)` in auto style: Rust, then C++.
pub fn cplus_demangle(name: &str) -> Option<String> {
    rust_demangle(name).or_else(|| cplus_demangle_v3(name))
}

/// libiberty's `rust_demangle` without `DMGL_VERBOSE` (no hash).
fn rust_demangle(name: &str) -> Option<String> {
    let sym = if let Some(rest) = name.strip_prefix("_R") {
        // v0: the path starts with an uppercase tag; only [_0-9a-zA-Z]
        // up to an optional '.' suffix, which libiberty drops.
        let body = rest.split('.').next().unwrap_or("");
        if !body.starts_with(|c: char| c.is_ascii_uppercase())
            || !body.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
        {
            return None;
        }
        &name[..2 + body.len()]
    } else if let Some(rest) = name.strip_prefix("_ZN") {
        let end = legacy_end(rest)?;
        &name[..3 + end]
    } else {
        return None;
    };
    let d = rustc_demangle::try_demangle(sym).ok()?;
    Some(format!("{d:#}"))
}

/// Where a legacy Rust symbol ends (its final `E`, before any `.suffix`),
/// if libiberty would take `_ZN<rest>` for Rust: only `[_0-9a-zA-Z$.:@]`,
/// and a last path segment `17h` + 16 lowercase hex digits with at least
/// five distinct digits.
fn legacy_end(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    if !b
        .iter()
        .all(|&c| c == b'_' || c.is_ascii_alphanumeric() || b"$.:@".contains(&c))
    {
        return None;
    }
    // Strip a trailing ".suffix" back to the last 'E' that ends the path.
    let mut len = b.len();
    let mut dot_suffix = true;
    while len > 0 && !(dot_suffix && b[len - 1] == b'E') {
        dot_suffix = b[len - 1] == b'.';
        len -= 1;
    }
    if len == 0 {
        return None;
    }
    let path = &b[..len - 1];
    if path.len() <= 19 || &path[path.len() - 19..path.len() - 16] != b"17h" {
        return None;
    }
    let hash = &path[path.len() - 16..];
    let mut seen = 0u16;
    for &c in hash {
        let nibble = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => return None,
        };
        seen |= 1 << nibble;
    }
    (seen.count_ones() >= 5).then_some(len)
}

/// libiberty's `cplus_demangle_v3(name, DMGL_NO_OPTS)`.
fn cplus_demangle_v3(name: &str) -> Option<String> {
    let global_ctor_dtor = name.len() > 10
        && name.starts_with("_GLOBAL_")
        && matches!(name.as_bytes()[8], b'.' | b'_' | b'$')
        && matches!(name.as_bytes()[9], b'D' | b'I')
        && name.as_bytes()[10] == b'_';
    if global_ctor_dtor {
        return full(name, true).map(|s| tidy(&s));
    }
    let rest = name.strip_prefix("_Z")?;
    let out = match rest.as_bytes().first() {
        Some(b'T') | Some(b'G') => special(name)?,
        _ => top_level_name(name)?,
    };
    Some(tidy(&out))
}

/// The whole demangling with parameters, as libiberty prints nested
/// encodings; `return_types` as for the encodings of special names.
fn full(name: &str, return_types: bool) -> Option<String> {
    let (sym, _tail) = BorrowedSymbol::with_tail(name.as_bytes()).ok()?;
    let mut opts = DemangleOptions::new();
    if !return_types {
        opts = opts.no_return_type();
    }
    sym.demangle_with_options(&opts).ok()
}

/// A function or data encoding without parameters: libiberty does not
/// even parse the parameter types at the top level, drops the function's
/// cv- and ref-qualifiers and any clone suffix, and accepts trailing bytes.
fn top_level_name(name: &str) -> Option<String> {
    full(name, false).map(|s| strip_parameters(&s).to_owned())
}

/// Removes a trailing `[clone …]`, cv/ref qualifiers and the outermost
/// `(…)` parameter list.
fn strip_parameters(s: &str) -> &str {
    let mut t = s.trim_end();
    loop {
        let before = t.len();
        if t.ends_with(']') {
            if let Some(i) = t.rfind(" [clone ") {
                t = &t[..i];
            }
        }
        for q in [" const", " volatile", " restrict", " &&", " &"] {
            if let Some(x) = t.strip_suffix(q) {
                t = x;
                break;
            }
        }
        if t.len() == before {
            break;
        }
    }
    if !t.ends_with(')') {
        return t;
    }
    let mut depth = 0usize;
    for (i, c) in t.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &t[..i];
                }
            }
            _ => {}
        }
    }
    t
}

/// Special names (`_ZT…`, `_ZG…`): libiberty prints their encodings in
/// full. cpp_demangle writes vtables, VTTs and thunks in its own compact
/// form, so those are rebuilt from the parts.
fn special(name: &str) -> Option<String> {
    let rest = name.strip_prefix("_ZT").unwrap_or("");
    let typeinfo = |ty: &str, label: &str| {
        full(&format!("_ZTI{ty}"), true).and_then(|s| {
            s.strip_prefix("typeinfo for ")
                .map(|t| format!("{label}{t}"))
        })
    };
    if let Some(ty) = rest.strip_prefix('V') {
        return typeinfo(ty, "vtable for ");
    }
    if let Some(ty) = rest.strip_prefix('T') {
        return typeinfo(ty, "VTT for ");
    }
    if rest.starts_with('C') {
        // Construction vtables: cpp_demangle prints "<derived>-in-<base>",
        // libiberty "<base>-in-<derived>" (the parts share substitutions,
        // so they are swapped in the printed text).
        let text = full(name, true)?;
        let (derived, base) = text
            .strip_prefix("construction vtable for ")?
            .split_once("-in-")?;
        return Some(format!("construction vtable for {base}-in-{derived}"));
    }
    let thunk = |label: &str, after_offsets: Option<&str>| {
        after_offsets
            .and_then(|enc| full(&format!("_Z{enc}"), true))
            .map(|s| format!("{label}{s}"))
    };
    if let Some(r) = rest.strip_prefix('h') {
        return thunk("non-virtual thunk to ", skip_number(r));
    }
    if let Some(r) = rest.strip_prefix('v') {
        return thunk("virtual thunk to ", skip_number(r).and_then(skip_number));
    }
    if let Some(r) = rest.strip_prefix('c') {
        let enc = skip_call_offset(r).and_then(skip_call_offset);
        return thunk("covariant return thunk to ", enc);
    }
    full(name, true)
}

/// `[n]<digits>_`.
fn skip_number(s: &str) -> Option<&str> {
    let s = s.strip_prefix('n').unwrap_or(s);
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    s[digits..].strip_prefix('_')
}

/// `h <number> _` or `v <number> _ <number> _`.
fn skip_call_offset(s: &str) -> Option<&str> {
    if let Some(r) = s.strip_prefix('h') {
        skip_number(r)
    } else {
        s.strip_prefix('v')
            .and_then(skip_number)
            .and_then(skip_number)
    }
}

/// Printing rules where cpp_demangle differs from libiberty: integer
/// literals (`(unsigned long)3` is `3ul`) and empty packs (`X<int, >` is
/// `X<int>`).
fn tidy(s: &str) -> String {
    const SUFFIXES: [(&str, &str); 6] = [
        ("(unsigned long long)", "ull"),
        ("(unsigned long)", "ul"),
        ("(unsigned int)", "u"),
        ("(long long)", "ll"),
        ("(long)", "l"),
        ("(int)", ""),
    ];
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    'outer: while !rest.is_empty() {
        if rest.starts_with('(') {
            for (cast, suffix) in SUFFIXES {
                if let Some(after) = rest.strip_prefix(cast) {
                    let neg = usize::from(after.starts_with('-'));
                    let digits = after[neg..].bytes().take_while(u8::is_ascii_digit).count();
                    if digits > 0 {
                        out.push_str(&after[..neg + digits]);
                        out.push_str(suffix);
                        rest = &after[neg + digits..];
                        continue 'outer;
                    }
                }
            }
        }
        // Empty packs at the end of a template's arguments print nothing,
        // nor the ", " before them (d_print_comp's TEMPLATE_ARGLIST).
        if rest.starts_with(", ") {
            let after = rest.trim_start_matches(", ");
            if after.starts_with('>') {
                rest = after;
                continue;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// perf's `ocaml_demangle_sym` (demangle-ocaml.c): `caml<Upper>…` with
/// `__` for `.` and `$xx` hex escapes.
pub fn ocaml_demangle(sym: &str) -> Option<String> {
    let rest = sym.strip_prefix("caml")?;
    if !rest.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let b = rest.as_bytes();
    let hex = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' && b.get(i + 1) == Some(&b'_') {
            out.push(b'.');
            i += 2;
        } else if b[i] == b'$' {
            match (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            ) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values are libiberty's `cplus_demangle(name, 0)` (the
    /// corpus test checks many more against libiberty itself).
    #[test]
    fn cplus() {
        for (m, want) in [
            ("_ZN2ns1W4spinIlEET_S2_", "ns::W::spin<long>"),
            ("_ZNK1A1fEv", "A::f"),
            ("_ZNKO1A1fEv", "A::f"),
            ("_Z3foov.cold", "foo"),
            ("_Z3foov.constprop.0.isra.0", "foo"),
            ("_ZZ1fvE1x", "f()::x"),
            ("_ZZ1fvENKUlvE_clEv", "f()::{lambda()#1}::operator()"),
            ("_Z1fILm3EEvv", "f<3ul>"),
            ("_Z1fILin3EEvv", "f<-3>"),
            ("_Z1fILb1EEvv", "f<true>"),
            ("_Z1fILc65EEvv", "f<(char)65>"),
            ("_Z1fv@plt", "f"),
            ("_ZTV10BaseMetric", "vtable for BaseMetric"),
            ("_ZTTN2v84base18CheckMessageStreamE", "VTT for v8::base::CheckMessageStream"),
            ("_ZThn104_N13TrcPktProcPtmD0Ev", "non-virtual thunk to TrcPktProcPtm::~TrcPktProcPtm()"),
            ("_ZTv0_n24_N1AD1Ev", "virtual thunk to A::~A()"),
            ("_ZTch0_h16_N1A1fEv", "covariant return thunk to A::f()"),
            ("_ZGVZ1fvE1x", "guard variable for f()::x"),
            ("_ZNSt8functionIFviEE6invokeEv", "std::function<void (int)>::invoke"),
            ("_Z1fIJEEvv", "f<>"),
            // Two empty packs last: neither prints, nor its ", ".
            ("_Z1fIiJEJEEvv", "f<int>"),
            (
                "_ZNSt4pairIKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEElEC4IJRS6_EJLm0EEJEJEEERSt5tupleIJDpT_EERSA_IJDpT1_EESt12_Index_tupleIJXspT0_EEESJ_IJXspT2_EEE",
                "std::pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const, long>::pair<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, 0ul>",
            ),
            (
                "_ZGVZN2v88internal28CFunctionBuilderWithFunctionINS_16CTypeInfoBuilderIbJEEEJEE5BuildEvE8instance",
                "guard variable for v8::internal::CFunctionBuilderWithFunction<v8::CTypeInfoBuilder<bool>>::Build()::instance",
            ),
        ] {
            assert_eq!(cplus_demangle(m).as_deref(), Some(want), "{m}");
        }
        for m in ["main", "_GLOBAL__sub_I_a.cpp", "_Z", "__Z3foov", "i"] {
            assert_eq!(cplus_demangle(m), None, "{m}");
        }
    }

    #[test]
    fn rust() {
        assert_eq!(
            cplus_demangle("_ZN4core3fmt5write17h0123456789abcdefE").as_deref(),
            Some("core::fmt::write")
        );
        assert_eq!(
            cplus_demangle("_ZN4core3fmt5write17h0123456789abcdefE.llvm.123").as_deref(),
            Some("core::fmt::write")
        );
        // Fewer than five distinct hash digits: not Rust for libiberty, so
        // the C++ demangler prints the hash as a name.
        assert_eq!(
            cplus_demangle("_ZN4core3fmt5write17h0000000000000000E").as_deref(),
            Some("core::fmt::write::h0000000000000000")
        );
        assert_eq!(
            cplus_demangle("_RNvCs1234_7mycrate3foo").as_deref(),
            Some("mycrate::foo")
        );
    }

    #[test]
    fn ocaml_and_kernel() {
        assert_eq!(
            demangle_sym("camlStdlib__array__map_154", false).as_deref(),
            Some("Stdlib.array.map_154")
        );
        assert_eq!(demangle_sym("camlstdlib", false), None);
        assert_eq!(demangle_sym("_ZN1A1fEv", true), None);
    }
}

// SPDX-License-Identifier: GPL-2.0-only
//! EINVAL from a hardware breakpoint (`PERF_TYPE_BREAKPOINT`): which of
//! `bp_type`, `bp_len` and `bp_addr` the breakpoint code refused, checked in
//! the kernel's order (`reserve_bp_slot()`, then the architecture's
//! `hw_breakpoint_arch_parse()`). The breakpoint PMU ignores `config`: the
//! sentence names the field that was really refused.

use crate::attr::Attr;

/// `PERF_TYPE_BREAKPOINT`.
pub const PERF_TYPE_BREAKPOINT: u32 = 5;
/// `HW_BREAKPOINT_R`, `_W`, `_RW`, `_X`.
const BP_R: u32 = 1;
const BP_W: u32 = 2;
const BP_RW: u32 = 3;
const BP_X: u32 = 4;
/// `HW_BREAKPOINT_INVALID` (R | W | X).
const BP_INVALID: u32 = 7;

/// Whose `hw_breakpoint_arch_parse()` rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BpArch {
    /// x86-64: W, RW or X; data lengths 1, 2, 4, 8 (AMD range breakpoints
    /// beyond); X only with `bp_len = 8`.
    X86_64,
    /// Elsewhere only the architecture-independent checks are known.
    Other,
}

impl BpArch {
    /// The architecture this module was built for.
    pub fn this() -> Self {
        if cfg!(target_arch = "x86_64") {
            BpArch::X86_64
        } else {
            BpArch::Other
        }
    }
}

/// The breakpoint field the kernel refused, as a sentence, followed by the
/// other fields it would refuse next (a bare `perf.evsel(type=5)` lacks
/// both `bp_type` and `bp_len`); `None` when the attr is not a breakpoint or
/// none of the known checks fails.
pub fn explain(attr: &Attr, arch: BpArch) -> Option<String> {
    if attr.type_ != PERF_TYPE_BREAKPOINT {
        return None;
    }
    let mut problems = Vec::new();
    let ty = attr.bp_type;
    // reserve_bp_slot(): on every architecture.
    if ty == 0 || ty == BP_INVALID {
        let what = match ty {
            0 => "HW_BREAKPOINT_EMPTY",
            _ => "HW_BREAKPOINT_INVALID",
        };
        problems.push(format!(
            "bp_type={ty} ({what}) is not a breakpoint type: give HW_BREAKPOINT_W (2), \
             HW_BREAKPOINT_RW (3) or HW_BREAKPOINT_X (4)"
        ));
    }
    if arch == BpArch::X86_64 {
        problems.extend(x86_64(attr));
    }
    match problems.is_empty() {
        true => None,
        false => Some(problems.join("; ")),
    }
}

/// x86-64's `arch_build_bp_info()` and alignment check, in its order; an
/// empty type is judged as a data breakpoint for its length.
fn x86_64(attr: &Attr) -> Vec<String> {
    let (ty, addr, len) = (attr.bp_type, attr.config1, attr.config2);
    let mut out = Vec::new();
    match ty {
        0 | BP_INVALID | BP_W | BP_RW => {}
        BP_X if len == 8 => return out,
        BP_X => {
            out.push(format!(
                "bp_len={len}: an execute breakpoint (HW_BREAKPOINT_X) takes bp_len=8 \
                 (sizeof(long)) on x86-64"
            ));
            return out;
        }
        BP_R => out.push(
            "bp_type=1 (HW_BREAKPOINT_R): x86 has no read-only breakpoints; \
             HW_BREAKPOINT_RW (3) traps reads and writes"
                .into(),
        ),
        _ => out.push(format!(
            "bp_type={ty} is not a breakpoint type x86 has: HW_BREAKPOINT_W (2), \
             HW_BREAKPOINT_RW (3) or HW_BREAKPOINT_X (4)"
        )),
    }
    if !len.is_power_of_two() {
        out.push(format!(
            "bp_len={len}: a data breakpoint covers 1, 2, 4 or 8 bytes"
        ));
    } else if addr & (len - 1) != 0 {
        out.push(format!("bp_addr={addr:#x} is not aligned to bp_len={len}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bp(bp_type: u32, addr: u64, len: u64) -> Attr {
        Attr {
            type_: PERF_TYPE_BREAKPOINT,
            bp_type,
            config1: addr,
            config2: len,
            ..Attr::default()
        }
    }

    #[test]
    fn an_empty_type_is_named_whatever_config_says() {
        let attr = Attr {
            config: u64::MAX,
            ..bp(0, 0, 0)
        };
        for arch in [BpArch::X86_64, BpArch::Other] {
            let s = explain(&attr, arch).unwrap();
            assert!(s.starts_with("bp_type=0 (HW_BREAKPOINT_EMPTY)"), "{s}");
        }
        let s = explain(&bp(7, 0x1000, 8), BpArch::Other).unwrap();
        assert!(s.starts_with("bp_type=7 (HW_BREAKPOINT_INVALID)"), "{s}");
        // On x86-64 the length it lacks too, after the type.
        assert_eq!(
            explain(&attr, BpArch::X86_64).unwrap(),
            "bp_type=0 (HW_BREAKPOINT_EMPTY) is not a breakpoint type: give \
             HW_BREAKPOINT_W (2), HW_BREAKPOINT_RW (3) or HW_BREAKPOINT_X (4); bp_len=0: a \
             data breakpoint covers 1, 2, 4 or 8 bytes"
        );
        assert_eq!(
            explain(&attr, BpArch::Other)
                .unwrap()
                .matches("bp_")
                .count(),
            1
        );
    }

    #[test]
    fn x86_lengths_types_and_alignment() {
        let x86 = BpArch::X86_64;
        assert_eq!(
            explain(&bp(2, 0x1000, u64::MAX), x86).unwrap(),
            "bp_len=18446744073709551615: a data breakpoint covers 1, 2, 4 or 8 bytes"
        );
        assert!(explain(&bp(3, 0x1000, 0), x86)
            .unwrap()
            .starts_with("bp_len=0:"));
        assert_eq!(
            explain(&bp(2, 0x1004, 8), x86).unwrap(),
            "bp_addr=0x1004 is not aligned to bp_len=8"
        );
        assert!(explain(&bp(1, 0x1000, 8), x86)
            .unwrap()
            .contains("no read-only breakpoints"));
        assert!(explain(&bp(4, 0x1000, 4), x86)
            .unwrap()
            .starts_with("bp_len=4: an execute breakpoint"));
        assert!(explain(&bp(12, 0x1000, 8), x86)
            .unwrap()
            .starts_with("bp_type=12 is not"));
        for ok in [bp(2, 0x1000, 8), bp(3, 0x1001, 1), bp(4, 0x1003, 8)] {
            assert_eq!(explain(&ok, x86), None, "{ok:?}");
        }
        // Not a breakpoint, or an architecture whose rules are not known.
        let sw = Attr {
            type_: 1,
            ..bp(0, 0, 0)
        };
        assert_eq!(explain(&sw, x86), None);
        assert_eq!(explain(&bp(2, 0x1000, u64::MAX), BpArch::Other), None);
    }
}

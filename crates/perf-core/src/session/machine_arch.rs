// SPDX-License-Identifier: GPL-2.0-only
//! The ELF machine (`EM_*`) of a recorded system from its `HEADER_ARCH`
//! string (`uname -m`), by perf's prefix table (`perf_arch_to_e_machine`
//! in env.c), for files that have no `HEADER_E_MACHINE`.

use crate::e_machine::*;

/// The prefixes perf maps to an `EM_*`, some refined below.
const PREFIXES: [(&str, u16); 31] = [
    ("aarch64", EM_AARCH64),
    ("alpha", EM_ALPHA),
    ("arc", EM_ARC),
    ("arm", EM_ARM), // arm64 → EM_AARCH64
    ("avr", EM_AVR), // avr32 → EM_AVR32
    ("bfin", EM_BLACKFIN),
    ("blackfin", EM_BLACKFIN),
    ("cris", EM_CRIS),
    ("csky", EM_CSKY),
    ("hppa", EM_PARISC),
    ("i386", EM_386),
    ("i486", EM_386),
    ("i586", EM_386),
    ("i686", EM_386),
    ("loongarch", EM_LOONGARCH),
    ("m32r", EM_M32R),
    ("m68k", EM_68K),
    ("microblaze", EM_MICROBLAZE),
    ("mips", EM_MIPS),
    ("msp430", EM_MSP430),
    ("parisc", EM_PARISC),
    ("powerpc", EM_PPC), // 64-bit → EM_PPC64
    ("ppc", EM_PPC),     // 64-bit → EM_PPC64
    ("riscv", EM_RISCV),
    ("s390", EM_S390),
    ("sa110", EM_ARM),
    ("sh", EM_SH),
    ("sparc", EM_SPARC), // 64-bit → EM_SPARCV9
    ("sun4u", EM_SPARC), // 64-bit → EM_SPARCV9
    ("x86", EM_X86_64),  // 32-bit → EM_386
    ("xtensa", EM_XTENSA),
];

/// perf's `perf_env__kernel_is_64_bit` from an arch string: `64` in it, or
/// `s390x`.
pub fn is_64_bit_arch(arch: &str) -> bool {
    arch.contains("64") || arch.contains("s390x")
}

/// Whether machine `e_machine` is 64-bit, where the machine alone says
/// (`None` for machines of both word sizes: MIPS, PA-RISC, RISC-V, s390…),
/// as perf's Python `session.is_64_bit` decides first.
pub fn is_64_bit_machine(e_machine: u16) -> Option<bool> {
    match e_machine {
        EM_AARCH64 | EM_ALPHA | EM_IA_64 | EM_LOONGARCH | EM_PPC64 | EM_SPARCV9 | EM_X86_64 => {
            Some(true)
        }
        EM_386 | EM_ARM | EM_PPC | EM_SPARC => Some(false),
        _ => None,
    }
}

/// The `EM_*` of an arch string (`EM_NONE` when unknown).
pub fn e_machine_of_arch(arch: &str) -> u16 {
    let Some(&(_, em)) = PREFIXES.iter().find(|(p, _)| arch.starts_with(p)) else {
        return EM_NONE;
    };
    let is_64 = is_64_bit_arch(arch);
    match em {
        EM_ARM if arch == "arm64" || arch == "aarch64" => EM_AARCH64,
        EM_AVR if arch == "avr32" => EM_AVR32,
        EM_PPC if is_64 => EM_PPC64,
        EM_SPARC if is_64 => EM_SPARCV9,
        EM_X86_64 if !is_64 => EM_386,
        em => em,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_arch_strings() {
        for (arch, em) in [
            ("x86_64", 62),
            ("x86", 3),
            ("i686", 3),
            ("aarch64", 183),
            ("arm64", 183),
            ("armv7l", 40),
            ("ppc64le", 21),
            ("ppc", 20),
            ("powerpc", 20),
            ("s390x", 22),
            ("riscv64", 243),
            ("mips64", 8),
            ("sparc64", 43),
            ("loongarch64", 258),
            ("vax", 0),
        ] {
            assert_eq!(e_machine_of_arch(arch), em, "{arch}");
        }
        assert!(is_64_bit_arch("x86_64") && is_64_bit_arch("s390x") && !is_64_bit_arch("i686"));
        assert_eq!(is_64_bit_machine(EM_X86_64), Some(true));
        assert_eq!(is_64_bit_machine(EM_386), Some(false));
        assert_eq!(is_64_bit_machine(EM_S390), None);
    }
}

// SPDX-License-Identifier: GPL-2.0-only
//! The ELF machine (`EM_*`) of a recorded system from its `HEADER_ARCH`
//! string (`uname -m`), by perf's prefix table (`perf_arch_to_e_machine`
//! in env.c), for files that have no `HEADER_E_MACHINE`.

/// The prefixes perf maps to an `EM_*`, some refined below.
const PREFIXES: [(&str, u16); 31] = [
    ("aarch64", 183),    // EM_AARCH64
    ("alpha", 0x9026),   // EM_ALPHA
    ("arc", 45),         // EM_ARC
    ("arm", 40),         // EM_ARM (arm64 → EM_AARCH64)
    ("avr", 83),         // EM_AVR (avr32 → EM_AVR32)
    ("bfin", 106),       // EM_BLACKFIN
    ("blackfin", 106),   // EM_BLACKFIN
    ("cris", 76),        // EM_CRIS
    ("csky", 252),       // EM_CSKY
    ("hppa", 15),        // EM_PARISC
    ("i386", 3),         // EM_386
    ("i486", 3),         // EM_386
    ("i586", 3),         // EM_386
    ("i686", 3),         // EM_386
    ("loongarch", 258),  // EM_LOONGARCH
    ("m32r", 88),        // EM_M32R
    ("m68k", 4),         // EM_68K
    ("microblaze", 189), // EM_MICROBLAZE
    ("mips", 8),         // EM_MIPS
    ("msp430", 105),     // EM_MSP430
    ("parisc", 15),      // EM_PARISC
    ("powerpc", 20),     // EM_PPC (64-bit → EM_PPC64)
    ("ppc", 20),         // EM_PPC (64-bit → EM_PPC64)
    ("riscv", 243),      // EM_RISCV
    ("s390", 22),        // EM_S390
    ("sa110", 40),       // EM_ARM
    ("sh", 42),          // EM_SH
    ("sparc", 2),        // EM_SPARC (64-bit → EM_SPARCV9)
    ("sun4u", 2),        // EM_SPARC (64-bit → EM_SPARCV9)
    ("x86", 62),         // EM_X86_64 (32-bit → EM_386)
    ("xtensa", 94),      // EM_XTENSA
];

/// perf's `perf_env__kernel_is_64_bit` from an arch string: `64` in it, or
/// `s390x`.
pub fn is_64_bit_arch(arch: &str) -> bool {
    arch.contains("64") || arch.contains("s390x")
}

/// The `EM_*` of an arch string (`EM_NONE`, 0, when unknown).
pub fn e_machine_of_arch(arch: &str) -> u16 {
    let Some(&(_, em)) = PREFIXES.iter().find(|(p, _)| arch.starts_with(p)) else {
        return 0;
    };
    let is_64 = is_64_bit_arch(arch);
    match em {
        40 if arch == "arm64" || arch == "aarch64" => 183,
        83 if arch == "avr32" => 0x18ad,
        20 if is_64 => 21,
        2 if is_64 => 43,
        62 if !is_64 => 3,
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
    }
}

// SPDX-License-Identifier: GPL-2.0-only
//! ELF machine numbers (`e_machine`), which key perf's per-architecture
//! tables (syscall names, errno names). The constants are libc's.

pub use libc::{
    EM_386, EM_68K, EM_AARCH64, EM_ALPHA, EM_ARC, EM_ARM, EM_AVR, EM_CRIS, EM_IA_64, EM_M32R,
    EM_MIPS, EM_NONE, EM_PARISC, EM_PPC, EM_PPC64, EM_RISCV, EM_S390, EM_SH, EM_SPARC,
    EM_SPARC32PLUS, EM_SPARCV9, EM_X86_64, EM_XTENSA,
};

// The machines perf names that libc does not (values from the kernel's
// include/uapi/linux/elf-em.h).
/// Analog Devices Blackfin.
pub const EM_BLACKFIN: u16 = 106;
/// Texas Instruments MSP430.
pub const EM_MSP430: u16 = 105;
/// Xilinx MicroBlaze.
pub const EM_MICROBLAZE: u16 = 189;
/// C-SKY.
pub const EM_CSKY: u16 = 252;
/// LoongArch.
pub const EM_LOONGARCH: u16 = 258;
/// Atmel AVR32.
pub const EM_AVR32: u16 = 0x18ad;

/// The machine this module was built for (perf's `EM_HOST`).
pub const HOST: u16 = if cfg!(target_arch = "x86_64") {
    EM_X86_64
} else if cfg!(target_arch = "x86") {
    EM_386
} else if cfg!(target_arch = "aarch64") {
    EM_AARCH64
} else if cfg!(target_arch = "arm") {
    EM_ARM
} else if cfg!(target_arch = "riscv64") {
    EM_RISCV
} else if cfg!(target_arch = "powerpc64") {
    EM_PPC64
} else if cfg!(target_arch = "powerpc") {
    EM_PPC
} else if cfg!(target_arch = "s390x") {
    EM_S390
} else {
    EM_NONE
};

/// The machine a caller asked for: python.c's `pyrf__parse_elf_machine`
/// takes `None`, and anything that is not a valid `e_machine` (≤ 0 or
/// > 65535), as the host.
pub fn or_host(value: Option<i64>) -> u16 {
    value
        .and_then(|v| u16::try_from(v).ok())
        .filter(|&m| m != EM_NONE)
        .unwrap_or(HOST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_is_the_build_target() {
        #[cfg(target_arch = "x86_64")]
        assert_eq!(HOST, 62);
        #[cfg(target_arch = "aarch64")]
        assert_eq!(HOST, 183);
    }

    #[test]
    fn out_of_range_means_host() {
        assert_eq!(or_host(None), HOST);
        for v in [0, -1, i64::MIN, 65536, i64::MAX] {
            assert_eq!(or_host(Some(v)), HOST, "{v}");
        }
        assert_eq!(or_host(Some(1)), 1);
        assert_eq!(or_host(Some(65535)), 65535);
        assert_eq!(or_host(Some(183)), EM_AARCH64);
    }
}

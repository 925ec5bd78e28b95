// SPDX-License-Identifier: GPL-2.0-only
//! errno names by architecture (perf's `arch_syscalls__strerrno`, generated
//! by tools/perf/trace/beauty/arch_errno_names.sh): `perf.arch_strerrno()`.
//!
//! perf reads each architecture's uapi `asm/errno.h` through the C
//! preprocessor and keeps, per number, the macros defined as a number
//! (aliases such as `EWOULDBLOCK` and the generic `EDEADLOCK`, defined as
//! other names, drop out). x86, arm, arm64, riscv and s390 use the
//! asm-generic numbering; powerpc adds `EDEADLOCK` = 58. The tables are
//! built (build.rs) from data/errno/, which `make tables` writes from the
//! `syscalls` crate's asm-generic errno list (see syscalltbl.rs for why the
//! data comes through a generator); the kernel-internal codes (512 and up:
//! ERESTARTSYS, ...) are not in uapi and have no name here, as in perf.
//!
//! Machines with no table of their own fall back to the generic one, as in
//! perf, except alpha, mips, parisc and sparc, whose numbering differs and
//! whose tables perf has but this module does not: those answer `None`.

use crate::e_machine::{
    EM_ALPHA, EM_MIPS, EM_PARISC, EM_PPC, EM_PPC64, EM_SPARC, EM_SPARC32PLUS, EM_SPARCV9,
};
use crate::syscalltbl::Table;

include!(concat!(env!("OUT_DIR"), "/errno_names.rs"));

/// The name of errno `err` on machine `e_machine` (a negative `err` is taken
/// as its absolute value, as python.c does), or `None` if it has none.
pub fn arch_strerrno(e_machine: u16, err: i32) -> Option<&'static str> {
    let table = match e_machine {
        EM_PPC | EM_PPC64 => &POWERPC,
        EM_ALPHA | EM_MIPS | EM_PARISC | EM_SPARC | EM_SPARC32PLUS | EM_SPARCV9 => return None,
        _ => &GENERIC,
    };
    table.name(err.checked_abs()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::e_machine::{EM_386, EM_AARCH64, EM_ARM, EM_RISCV, EM_S390, EM_X86_64};

    const GENERIC_MACHINES: [u16; 6] = [EM_X86_64, EM_386, EM_ARM, EM_AARCH64, EM_RISCV, EM_S390];

    #[test]
    fn generic_numbering() {
        for machine in GENERIC_MACHINES {
            assert_eq!(arch_strerrno(machine, 1), Some("EPERM"));
            assert_eq!(arch_strerrno(machine, 2), Some("ENOENT"));
            assert_eq!(arch_strerrno(machine, -2), Some("ENOENT"));
            assert_eq!(arch_strerrno(machine, 11), Some("EAGAIN"));
            assert_eq!(arch_strerrno(machine, 35), Some("EDEADLK"));
            assert_eq!(arch_strerrno(machine, 95), Some("EOPNOTSUPP"));
            assert_eq!(arch_strerrno(machine, 133), Some("EHWPOISON"));
            // Numbers asm-generic leaves unused, and past the last one.
            assert_eq!(arch_strerrno(machine, 41), None);
            assert_eq!(arch_strerrno(machine, 58), None);
            assert_eq!(arch_strerrno(machine, 134), None);
        }
    }

    #[test]
    fn powerpc_has_edeadlock_at_58() {
        for machine in [EM_PPC, EM_PPC64] {
            assert_eq!(arch_strerrno(machine, 58), Some("EDEADLOCK"));
            assert_eq!(arch_strerrno(machine, 35), Some("EDEADLK"));
            assert_eq!(arch_strerrno(machine, 2), Some("ENOENT"));
        }
    }

    #[test]
    fn no_name() {
        for machine in [EM_X86_64, EM_PPC64] {
            for err in [0, i32::MIN, i32::MAX, 512, -512, 4095] {
                assert_eq!(arch_strerrno(machine, err), None, "{err}");
            }
        }
        // Machines with their own numbering that this module has no table for.
        for machine in [EM_MIPS, EM_SPARC, EM_ALPHA, EM_PARISC] {
            assert_eq!(arch_strerrno(machine, 2), None);
        }
        // Unknown machines: the generic table.
        assert_eq!(arch_strerrno(0xfffe, 2), Some("ENOENT"));
    }

    #[test]
    fn generic_has_every_uapi_number_but_two() {
        let named = (1..=133).filter(|&e| GENERIC.name(e).is_some()).count();
        assert_eq!(named, 131);
    }
}

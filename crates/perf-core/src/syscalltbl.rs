// SPDX-License-Identifier: GPL-2.0-only
//! System call names and numbers by architecture (perf's util/syscalltbl.c):
//! `perf.syscall_name()` and `perf.syscall_id()`.
//!
//! # Where the tables come from
//!
//! perf generates its tables at build time from the kernel's own
//! `syscall*.tbl` files, keeping the ABIs each architecture uses. The
//! tables here are built the same way (build.rs) from `number name` files in
//! data/syscalls/, which `make tables` writes from the `syscalls` crate
//! (BSD-2-Clause; 0.8.1, the Linux 6.18 tables), itself generated from the
//! kernel's tables. The crate cannot be a dependency: 0.7 and later need
//! rustc 1.87 (`is_multiple_of`) and the workspace builds with 1.85; 0.6.18,
//! the last that builds, stops at Linux 6.8 and has wrong riscv tables.
//! Other crates were weighed and left: `linux-raw-sys` and `linux-syscall`
//! (exact, but only the build target's architecture is compiled in),
//! `syscall-numbers` (needs rustc 1.88), `linux-sysno` (riscv64 is the
//! asm-generic header's list, without riscv_hwprobe; aarch64 has the
//! 32-bit-only time64 calls). Taking the data from the crate with a
//! generator (crates/perf-core/gen) keeps the tables machine-made and their
//! update a version bump; tests/modern/test_module_functions.py checks every
//! entry against the kernel's own headers (Debian's linux-libc-dev cross
//! packages) and the running kernel.
//!
//! The ABIs are perf's (tools/perf/scripts/syscalltbl.sh): x86_64
//! common,64; i386; powerpc64 common,nospu,64; s390x common,64; riscv64 and
//! aarch64 the kernel's scripts/syscall.tbl with common,64,rlimit,memfd_secret
//! plus riscv (riscv64) or renameat (aarch64; the generator derives it, see
//! gen/src/main.rs). Differences from perf: arm is the EABI table, without
//! the 12 numbers only OABI has (time=13, umount=22, ...), which perf also
//! names; and perf compiled for one architecture has only that family's
//! tables and answers every other machine from the generic asm-generic
//! table, wrong for most of them, where this module knows all seven and
//! answers `None` for other machines.

use crate::e_machine::{EM_386, EM_AARCH64, EM_ARM, EM_PPC64, EM_RISCV, EM_S390, EM_X86_64};
use crate::{Error, Result};

/// One generated table: names by number, and (name, number) sorted by name.
pub(crate) struct Table {
    pub(crate) by_number: &'static [Option<&'static str>],
    pub(crate) by_name: &'static [(&'static str, u16)],
}

impl Table {
    /// The name of `number`, if it has one.
    pub(crate) fn name(&self, number: i32) -> Option<&'static str> {
        let index = usize::try_from(number).ok()?;
        self.by_number.get(index).copied().flatten()
    }

    /// The number of `name` (case-sensitive, as perf's strcmp).
    pub(crate) fn number(&self, name: &str) -> Option<u16> {
        let i = self
            .by_name
            .binary_search_by(|(n, _)| (*n).cmp(name))
            .ok()?;
        self.by_name.get(i).map(|&(_, number)| number)
    }

    /// Every (number, name), by number.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u16, &'static str)> {
        self.by_number
            .iter()
            .enumerate()
            .filter_map(|(i, name)| Some((u16::try_from(i).ok()?, (*name)?)))
    }
}

include!(concat!(env!("OUT_DIR"), "/syscalltbl.rs"));

/// The table of machine `e_machine`.
fn table(e_machine: u16) -> Option<&'static Table> {
    Some(match e_machine {
        EM_X86_64 => &X86_64,
        EM_386 => &I386,
        EM_ARM => &ARM,
        EM_AARCH64 => &AARCH64,
        EM_PPC64 => &POWERPC64,
        EM_S390 => &S390X,
        EM_RISCV => &RISCV64,
        _ => return None,
    })
}

/// The name of system call `id` on machine `e_machine` (`None` if the number
/// has no name there, as `syscalltbl__name`).
pub fn name(e_machine: u16, id: i32) -> Option<&'static str> {
    table(e_machine)?.name(id)
}

/// The number of system call `name` on machine `e_machine`; an unknown name
/// is an error worded as python.c's.
pub fn id(e_machine: u16, name: &str) -> Result<i32> {
    table(e_machine)
        .and_then(|t| t.number(name))
        .map(i32::from)
        .ok_or_else(|| Error::InvalidArgument(format!("Failed to find syscall {name}")))
}

/// Every (number, name) of machine `e_machine`, by number (empty for a
/// machine without a table).
pub fn entries(e_machine: u16) -> impl Iterator<Item = (u16, &'static str)> {
    table(e_machine).into_iter().flat_map(Table::entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MACHINES: [u16; 7] = [
        EM_X86_64, EM_386, EM_ARM, EM_AARCH64, EM_PPC64, EM_S390, EM_RISCV,
    ];

    #[test]
    fn getppid_on_every_machine() {
        // From each architecture's syscall table in Linux 6.12's sources.
        for (machine, number) in [
            (EM_X86_64, 110),
            (EM_386, 64),
            (EM_ARM, 64),
            (EM_AARCH64, 173),
            (EM_PPC64, 64),
            (EM_S390, 64),
            (EM_RISCV, 173),
        ] {
            assert_eq!(name(machine, number), Some("getppid"), "{machine}");
            assert_eq!(id(machine, "getppid"), Ok(number), "{machine}");
        }
    }

    #[test]
    fn known_entries() {
        // Spot checks across the tables (Linux 6.12 sources, 6.13+ from
        // the syscalls' merge commits): the first and recent calls, the
        // abi-specific ones, and the names the derivation gets right.
        for (machine, number, expected) in [
            (EM_X86_64, 0, "read"),
            (EM_X86_64, 451, "cachestat"),
            (EM_X86_64, 452, "fchmodat2"),
            (EM_X86_64, 453, "map_shadow_stack"),
            (EM_X86_64, 454, "futex_wake"),
            (EM_X86_64, 458, "listmount"),
            (EM_X86_64, 459, "lsm_get_self_attr"),
            (EM_X86_64, 462, "mseal"),
            (EM_X86_64, 463, "setxattrat"),
            (EM_X86_64, 467, "open_tree_attr"),
            (EM_X86_64, 469, "file_setattr"),
            (EM_X86_64, 335, "uretprobe"),
            (EM_386, 17, "break"),
            (EM_386, 0, "restart_syscall"),
            (EM_AARCH64, 38, "renameat"),
            (EM_AARCH64, 79, "newfstatat"),
            (EM_AARCH64, 84, "sync_file_range"),
            (EM_AARCH64, 163, "getrlimit"),
            (EM_AARCH64, 447, "memfd_secret"),
            (EM_RISCV, 258, "riscv_hwprobe"),
            (EM_RISCV, 259, "riscv_flush_icache"),
            (EM_PPC64, 363, "switch_endian"),
            (EM_S390, 1, "exit"),
        ] {
            assert_eq!(name(machine, number), Some(expected), "{machine} {number}");
        }
    }

    #[test]
    fn what_each_abi_leaves_out() {
        // x32 calls (512+) are not x86_64's; the 32-bit time64 calls are
        // not aarch64's; riscv's own are not aarch64's; renameat is not
        // riscv64's; OABI-only numbers are not in the EABI table.
        assert_eq!(name(EM_X86_64, 512), None);
        assert_eq!(name(EM_AARCH64, 403), None);
        assert_eq!(name(EM_AARCH64, 258), None);
        assert_eq!(name(EM_RISCV, 38), None);
        assert_eq!(name(EM_ARM, 13), None);
        // ARM's private calls (__ARM_NR_set_tls, ...) are not in perf's table.
        assert_eq!(name(EM_ARM, 0x0f_0005), None);
        assert_eq!(id(EM_AARCH64, "clock_gettime64").ok(), None);
        assert_eq!(id(EM_386, "clock_gettime64"), Ok(403));
    }

    #[test]
    fn unknown_numbers_names_and_machines() {
        for machine in MACHINES {
            assert_eq!(name(machine, -1), None);
            assert_eq!(name(machine, i32::MIN), None);
            assert_eq!(name(machine, i32::MAX), None);
            assert_eq!(name(machine, 65535), None);
            assert_eq!(
                id(machine, "nosuchcall"),
                Err(Error::InvalidArgument(
                    "Failed to find syscall nosuchcall".into()
                ))
            );
            assert!(id(machine, "").is_err());
            assert!(id(machine, "GETPPID").is_err());
        }
        assert_eq!(name(crate::e_machine::EM_MIPS, 1), None);
        assert!(id(crate::e_machine::EM_NONE, "read").is_err());
        assert_eq!(entries(crate::e_machine::EM_SPARC).count(), 0);
    }

    #[test]
    fn every_entry_round_trips() {
        for machine in MACHINES {
            let mut count = 0;
            for (number, entry) in entries(machine) {
                assert_eq!(name(machine, i32::from(number)), Some(entry));
                assert_eq!(
                    id(machine, entry),
                    Ok(i32::from(number)),
                    "{machine} {entry}"
                );
                count += 1;
            }
            assert!(count > 300, "{machine}: {count} entries");
        }
    }
}

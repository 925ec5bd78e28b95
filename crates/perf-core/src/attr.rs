// SPDX-License-Identifier: GPL-2.0-only
//! `struct perf_event_attr` as a plain value, and its byte image.
//!
//! The value holds every field of the newest uapi header (size 144, VER9). The
//! byte image is what the syscall gets: the fields at their uapi offsets, and
//! `size` set to what we tell the kernel, so an older kernel's size can be
//! targeted by writing fewer bytes (see `probe`).

use perf_abi::{FeatureKind, FeatureTable};

/// `sizeof(struct perf_event_attr)` of the newest header we know (VER9).
pub const ATTR_SIZE_LATEST: u32 = 144;

/// Bit positions of the flags word the module sets by name. The full list,
/// with the release that added each bit, is the feature table.
pub mod flag {
    /// `disabled`
    pub const DISABLED: u64 = 1 << 0;
    /// `inherit`
    pub const INHERIT: u64 = 1 << 1;
    /// `freq`
    pub const FREQ: u64 = 1 << 10;
    /// `enable_on_exec`
    pub const ENABLE_ON_EXEC: u64 = 1 << 12;
    /// `watermark`
    pub const WATERMARK: u64 = 1 << 14;
    /// `sample_id_all`
    pub const SAMPLE_ID_ALL: u64 = 1 << 18;
    /// `exclude_host`
    pub const EXCLUDE_HOST: u64 = 1 << 19;
    /// `exclude_guest`
    pub const EXCLUDE_GUEST: u64 = 1 << 20;
    /// `mmap2`
    pub const MMAP2: u64 = 1 << 23;
}

/// One `perf_event_attr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attr {
    /// `type` (PERF_TYPE_*).
    pub type_: u32,
    /// `size` the kernel is told; 0 means "the full struct".
    pub size: u32,
    /// `config`.
    pub config: u64,
    /// `sample_period` / `sample_freq` (one union slot; `freq` decides).
    pub sample_period: u64,
    /// `sample_type` (PERF_SAMPLE_*).
    pub sample_type: u64,
    /// `read_format` (PERF_FORMAT_*).
    pub read_format: u64,
    /// The bitfield word (`disabled` = bit 0 … `defer_output` = bit 39).
    pub flags: u64,
    /// `wakeup_events` / `wakeup_watermark`.
    pub wakeup_events: u32,
    /// `bp_type`.
    pub bp_type: u32,
    /// `config1` / `bp_addr` / `kprobe_func` / `uprobe_path`.
    pub config1: u64,
    /// `config2` / `bp_len` / `kprobe_addr` / `probe_offset`.
    pub config2: u64,
    /// `branch_sample_type`.
    pub branch_sample_type: u64,
    /// `sample_regs_user`.
    pub sample_regs_user: u64,
    /// `sample_stack_user`.
    pub sample_stack_user: u32,
    /// `clockid`.
    pub clockid: i32,
    /// `sample_regs_intr`.
    pub sample_regs_intr: u64,
    /// `aux_watermark`.
    pub aux_watermark: u32,
    /// `sample_max_stack`.
    pub sample_max_stack: u16,
    /// `__reserved_2` (must be 0).
    pub reserved_2: u16,
    /// `aux_sample_size`.
    pub aux_sample_size: u32,
    /// `aux_action` (aux_start_paused, aux_pause, aux_resume).
    pub aux_action: u32,
    /// `sig_data`.
    pub sig_data: u64,
    /// `config3`.
    pub config3: u64,
    /// `config4`.
    pub config4: u64,
}

impl Attr {
    /// Reads a flag (or multi-bit flag such as `precise_ip`) by its uapi name.
    pub fn flag(&self, name: &str) -> Option<u64> {
        let f = FeatureTable::builtin()
            .get(name)
            .filter(|f| f.kind == FeatureKind::Flag)?;
        let mask = f.mask();
        Some((self.flags & mask) >> mask.trailing_zeros())
    }

    /// Sets a flag by its uapi name, keeping only the bits the field has (C
    /// bitfield assignment); `None` when there is no such flag.
    pub fn set_flag(&mut self, name: &str, value: u64) -> Option<()> {
        let f = FeatureTable::builtin()
            .get(name)
            .filter(|f| f.kind == FeatureKind::Flag)?;
        let mask = f.mask();
        let shift = mask.trailing_zeros();
        self.flags = (self.flags & !mask) | ((value << shift) & mask);
        Some(())
    }

    /// Sets a struct member by its uapi name (the feature table's field rows,
    /// with their union aliases: `bp_addr` is `config1`, `bp_len` is
    /// `config2`, `wakeup_watermark` is `wakeup_events`), truncating the value
    /// to the member's width as C assignment does; `None` for any other name.
    pub fn set_field(&mut self, name: &str, value: u64) -> Option<()> {
        match name {
            "bp_type" => self.bp_type = value as u32,
            "bp_addr" | "config1" => self.config1 = value,
            "bp_len" | "config2" => self.config2 = value,
            "branch_sample_type" => self.branch_sample_type = value,
            "sample_regs_user" => self.sample_regs_user = value,
            "sample_stack_user" => self.sample_stack_user = value as u32,
            "clockid" => self.clockid = value as i32,
            "sample_regs_intr" => self.sample_regs_intr = value,
            "aux_watermark" => self.aux_watermark = value as u32,
            "sample_max_stack" => self.sample_max_stack = value as u16,
            "aux_sample_size" => self.aux_sample_size = value as u32,
            "aux_action" => self.aux_action = value as u32,
            "sig_data" => self.sig_data = value,
            "config3" => self.config3 = value,
            "config4" => self.config4 = value,
            "wakeup_events" | "wakeup_watermark" => self.wakeup_events = value as u32,
            _ => return None,
        }
        Some(())
    }

    /// True when a flag bit is set.
    pub fn has(&self, bit: u64) -> bool {
        self.flags & bit != 0
    }

    /// Sets or clears flag bits.
    pub fn set(&mut self, bit: u64, on: bool) {
        if on {
            self.flags |= bit;
        } else {
            self.flags &= !bit;
        }
    }

    /// The byte image with `size` = `size` (the kernel reads that many bytes).
    pub fn to_bytes(&self, size: u32) -> AttrBytes {
        let mut b = AttrBytes::zeroed();
        let mut put =
            |off: usize, bytes: &[u8]| b.bytes_mut()[off..off + bytes.len()].copy_from_slice(bytes);
        put(0, &self.type_.to_ne_bytes());
        put(4, &size.to_ne_bytes());
        put(8, &self.config.to_ne_bytes());
        put(16, &self.sample_period.to_ne_bytes());
        put(24, &self.sample_type.to_ne_bytes());
        put(32, &self.read_format.to_ne_bytes());
        put(40, &self.flags.to_ne_bytes());
        put(48, &self.wakeup_events.to_ne_bytes());
        put(52, &self.bp_type.to_ne_bytes());
        put(56, &self.config1.to_ne_bytes());
        put(64, &self.config2.to_ne_bytes());
        put(72, &self.branch_sample_type.to_ne_bytes());
        put(80, &self.sample_regs_user.to_ne_bytes());
        put(88, &self.sample_stack_user.to_ne_bytes());
        put(92, &self.clockid.to_ne_bytes());
        put(96, &self.sample_regs_intr.to_ne_bytes());
        put(104, &self.aux_watermark.to_ne_bytes());
        put(108, &self.sample_max_stack.to_ne_bytes());
        put(110, &self.reserved_2.to_ne_bytes());
        put(112, &self.aux_sample_size.to_ne_bytes());
        put(116, &self.aux_action.to_ne_bytes());
        put(120, &self.sig_data.to_ne_bytes());
        put(128, &self.config3.to_ne_bytes());
        put(136, &self.config4.to_ne_bytes());
        b
    }

    /// The attr in a perf.data file: the first `bytes.len()` bytes of the
    /// struct, written on a machine of byte order `order` (fields past the
    /// end are 0, as for an older kernel's smaller struct; bytes past 144
    /// are ignored). The bitfield word of a big-endian writer holds the
    /// first field in the top bit of each byte; it is read with the bits of
    /// each byte reversed, as perf's `perf_event__attr_swap` does.
    pub fn from_image(bytes: &[u8], order: crate::endian::Endian) -> Attr {
        use crate::endian::Endian;
        let mut b = [0u8; ATTR_SIZE_LATEST as usize];
        let n = bytes.len().min(b.len());
        if let (Some(dst), Some(src)) = (b.get_mut(..n), bytes.get(..n)) {
            dst.copy_from_slice(src);
        }
        let u16_at = |at| order.u16_at(&b, at).unwrap_or(0);
        let u32_at = |at| order.u32_at(&b, at).unwrap_or(0);
        let u64_at = |at| order.u64_at(&b, at).unwrap_or(0);
        let flags = match order {
            Endian::Little => Endian::Little.u64_at(&b, 40).unwrap_or(0),
            Endian::Big => {
                let mut w = b
                    .get(40..48)
                    .and_then(|w| w.first_chunk::<8>())
                    .copied()
                    .unwrap_or_default();
                w.iter_mut().for_each(|byte| *byte = byte.reverse_bits());
                u64::from_le_bytes(w)
            }
        };
        Attr {
            type_: u32_at(0),
            size: u32_at(4),
            config: u64_at(8),
            sample_period: u64_at(16),
            sample_type: u64_at(24),
            read_format: u64_at(32),
            flags,
            wakeup_events: u32_at(48),
            bp_type: u32_at(52),
            config1: u64_at(56),
            config2: u64_at(64),
            branch_sample_type: u64_at(72),
            sample_regs_user: u64_at(80),
            sample_stack_user: u32_at(88),
            clockid: u32_at(92) as i32,
            sample_regs_intr: u64_at(96),
            aux_watermark: u32_at(104),
            sample_max_stack: u16_at(108),
            reserved_2: u16_at(110),
            aux_sample_size: u32_at(112),
            aux_action: u32_at(116),
            sig_data: u64_at(120),
            config3: u64_at(128),
            config4: u64_at(136),
        }
    }

    /// The smallest attr size that carries every non-zero field of this attr
    /// (the kernel only needs to read that far).
    pub fn needed_size(&self) -> u32 {
        let img = self.to_bytes(ATTR_SIZE_LATEST);
        let bytes = &img.bytes()[..ATTR_SIZE_LATEST as usize];
        let last = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1) as u32;
        // Round up to the 8-byte steps of PERF_ATTR_SIZE_VERn, at least VER0.
        last.div_ceil(8).max(8) * 8
    }
}

/// A u64-aligned buffer holding an attr image (room for sizes beyond VER9 so
/// probes can ask for a larger struct than the kernel knows).
#[derive(Clone)]
#[repr(C, align(8))]
pub struct AttrBytes([u8; AttrBytes::CAPACITY]);

impl AttrBytes {
    /// Bytes in the buffer.
    pub const CAPACITY: usize = 256;

    /// All zeros.
    pub fn zeroed() -> Self {
        AttrBytes([0; Self::CAPACITY])
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8; Self::CAPACITY] {
        &self.0
    }

    /// The bytes, writable.
    pub fn bytes_mut(&mut self) -> &mut [u8; Self::CAPACITY] {
        &mut self.0
    }

    /// A pointer for the syscall.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.0.as_mut_ptr()
    }

    /// The `size` field (offset 4).
    pub fn size_field(&self) -> u32 {
        u32::from_ne_bytes([self.0[4], self.0[5], self.0[6], self.0[7]])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_by_name_keep_their_width() {
        let mut a = Attr::default();
        a.set_flag("disabled", 2).unwrap();
        assert_eq!(a.flag("disabled"), Some(0));
        a.set_flag("precise_ip", 7).unwrap();
        assert_eq!(a.flag("precise_ip"), Some(3));
        a.set_flag("sample_id_all", 1).unwrap();
        assert!(a.has(flag::SAMPLE_ID_ALL));
        assert_eq!(a.set_flag("config3", 1), None);
        assert_eq!(a.set_flag("nonsense", 1), None);
    }

    #[test]
    fn from_image_reads_what_to_bytes_wrote() {
        use crate::endian::Endian;
        let a = Attr {
            type_: 2,
            size: 136,
            config: 0x1234,
            sample_period: 1,
            sample_type: 0x10487,
            read_format: 0x14,
            flags: flag::DISABLED | flag::SAMPLE_ID_ALL | flag::MMAP2 | (3 << 15),
            wakeup_events: 7,
            clockid: -1,
            sample_max_stack: 127,
            config3: 0x33,
            ..Attr::default()
        };
        let img = a.to_bytes(136);
        let native = &img.bytes()[..136];
        assert_eq!(Attr::from_image(native, Endian::NATIVE), a);
        // Only the bytes given: a VER0 image has no config2 and beyond.
        let ver0 = Attr::from_image(&native[..64], Endian::NATIVE);
        assert_eq!(
            (ver0.config, ver0.config3, ver0.sample_max_stack),
            (0x1234, 0, 0)
        );
        // A big-endian writer: every field reversed, the bitfield word
        // byte for byte with its bits reversed (the first field is the top
        // bit of byte 0).
        let mut be = native.to_vec();
        for (at, n) in [
            (0, 4),
            (4, 4),
            (8, 8),
            (16, 8),
            (24, 8),
            (32, 8),
            (48, 4),
            (92, 4),
            (108, 2),
            (128, 8),
        ] {
            be[at..at + n].reverse();
        }
        let le_flags = a.flags.to_le_bytes();
        for (i, byte) in le_flags.iter().enumerate() {
            be[40 + i] = byte.reverse_bits();
        }
        let theirs = if cfg!(target_endian = "big") {
            Endian::Little
        } else {
            Endian::Big
        };
        assert_eq!(Attr::from_image(&be, theirs), a);
        assert_eq!(be[40] & 0x80, 0x80, "disabled is the top bit of byte 0");
    }

    #[test]
    fn image_layout_matches_the_bindings() {
        use perf_event_open_sys::bindings::perf_event_attr;
        assert_eq!(
            std::mem::size_of::<perf_event_attr>(),
            ATTR_SIZE_LATEST as usize
        );
        let a = Attr {
            type_: 1,
            config: 9,
            config3: 0x33,
            config4: 0x44,
            sig_data: 0x55,
            ..Attr::default()
        };
        let img = a.to_bytes(144);
        // SAFETY-free check through the bindings' own field offsets.
        let b = img.bytes();
        assert_eq!(b[128], 0x33);
        assert_eq!(b[136], 0x44);
        assert_eq!(b[120], 0x55);
        assert_eq!(img.size_field(), 144);
        assert_eq!(a.needed_size(), 144);
        assert_eq!(Attr::default().needed_size(), 64);
    }
}

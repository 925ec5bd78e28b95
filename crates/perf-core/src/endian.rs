// SPDX-License-Identifier: GPL-2.0-only
//! Byte order of data that did not come from this machine: a perf.data file
//! written on a machine of the other endianness, and the tracepoint
//! payloads in it (perf keeps those in the file's order and decodes them
//! with the order its tracing data names, as libtraceevent's
//! `file_bigendian` does).

/// A byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Least significant byte first (x86, arm64, riscv…).
    Little,
    /// Most significant byte first (s390x, big-endian powerpc…).
    Big,
}

impl Endian {
    /// This machine's byte order.
    pub const NATIVE: Endian = if cfg!(target_endian = "big") {
        Endian::Big
    } else {
        Endian::Little
    };

    /// The other byte order.
    pub fn swapped(self) -> Endian {
        match self {
            Endian::Little => Endian::Big,
            Endian::Big => Endian::Little,
        }
    }

    /// True for this machine's byte order.
    #[inline]
    pub fn is_native(self) -> bool {
        self == Endian::NATIVE
    }

    /// A u16 from 2 bytes in this order.
    #[inline]
    pub fn u16(self, b: [u8; 2]) -> u16 {
        match self {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        }
    }

    /// A u32 from 4 bytes in this order.
    #[inline]
    pub fn u32(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    /// A u64 from 8 bytes in this order.
    #[inline]
    pub fn u64(self, b: [u8; 8]) -> u64 {
        match self {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        }
    }

    /// The u16 at `at` in `bytes`, if there are 2 bytes there.
    #[inline]
    pub fn u16_at(self, bytes: &[u8], at: usize) -> Option<u16> {
        chunk(bytes, at).map(|b| self.u16(b))
    }

    /// The u32 at `at` in `bytes`, if there are 4 bytes there.
    #[inline]
    pub fn u32_at(self, bytes: &[u8], at: usize) -> Option<u32> {
        chunk(bytes, at).map(|b| self.u32(b))
    }

    /// The u64 at `at` in `bytes`, if there are 8 bytes there.
    #[inline]
    pub fn u64_at(self, bytes: &[u8], at: usize) -> Option<u64> {
        chunk(bytes, at).map(|b| self.u64(b))
    }
}

/// `N` bytes at `at`, if they are there.
#[inline]
fn chunk<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..)?.first_chunk::<N>().copied()
}

/// Reverses the bytes of the `N`-byte field at `at`, if it is there
/// (a field cut short by the end of `bytes` is left alone).
#[inline]
pub fn swap_at<const N: usize>(bytes: &mut [u8], at: usize) {
    if let Some(field) = bytes.get_mut(at..).and_then(<[u8]>::first_chunk_mut::<N>) {
        field.reverse();
    }
}

/// Reverses the bytes of every whole `N`-byte word of `bytes[range]`
/// (perf's `mem_bswap_64` / `mem_bswap_32`); a tail shorter than a word is
/// left alone.
pub fn swap_words<const N: usize>(bytes: &mut [u8], range: std::ops::Range<usize>) {
    if let Some(area) = bytes.get_mut(range) {
        for word in area.chunks_exact_mut(N) {
            word.reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_either_order() {
        let b = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(Endian::Little.u32_at(&b, 1), Some(0x0504_0302));
        assert_eq!(Endian::Big.u32_at(&b, 1), Some(0x0203_0405));
        assert_eq!(Endian::Big.u16_at(&b, 7), Some(0x0809));
        assert_eq!(Endian::Big.u64_at(&b, 2), None);
        assert_eq!(
            Endian::NATIVE.u64_at(&b, 0),
            Some(u64::from_ne_bytes([1, 2, 3, 4, 5, 6, 7, 8]))
        );
        assert_eq!(Endian::Little.swapped(), Endian::Big);
    }

    #[test]
    fn swaps_only_whole_fields() {
        let mut b = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        swap_at::<4>(&mut b, 0);
        assert_eq!(b[..4], [4, 3, 2, 1]);
        swap_at::<4>(&mut b, 8);
        assert_eq!(b[8..], [9, 10]);
        swap_words::<8>(&mut b, 0..10);
        assert_eq!(b, [8, 7, 6, 5, 1, 2, 3, 4, 9, 10]);
    }
}

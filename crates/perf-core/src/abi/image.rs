// SPDX-License-Identifier: GPL-2.0-only
//! An attr seen through the feature table: which field rows are non-zero,
//! and setting or clearing a row's bits by name.

use perf_abi::{Feature, FeatureKind, FeatureTable, Reserved};

use crate::attr::{Attr, ATTR_SIZE_LATEST};

/// `PERF_TYPE_BREAKPOINT`: the `bp_*` names apply to its union slots.
const PERF_TYPE_BREAKPOINT: u32 = 5;

/// True when any byte of `bytes[offset..offset + size]` is non-zero (bytes
/// past the end count as zero).
pub(crate) fn nonzero(bytes: &[u8], offset: u32, size: u32) -> bool {
    let start = offset as usize;
    let end = start.saturating_add(size as usize).min(bytes.len());
    bytes
        .get(start..end)
        .is_some_and(|b| b.iter().any(|&x| x != 0))
}

/// The field rows whose bytes are non-zero in `attr`, one name per union
/// slot (`bp_addr`/`bp_len` for breakpoints, `config1`/`config2` otherwise).
pub(crate) fn fields_set(attr: &Attr) -> Vec<&'static Feature> {
    let image = attr.to_bytes(ATTR_SIZE_LATEST);
    let bytes = image.bytes();
    let breakpoint = attr.type_ == PERF_TYPE_BREAKPOINT;
    let mut out: Vec<&'static Feature> = Vec::new();
    for f in FeatureTable::builtin().of_kind(FeatureKind::Field) {
        let (Some(offset), Some(size)) = (f.offset, f.size) else {
            continue;
        };
        if !nonzero(bytes, offset, size) {
            continue;
        }
        // Two rows share a slot only as union aliases: keep the one that
        // matches the event type.
        if let Some(pos) = out.iter().position(|g| g.offset == f.offset) {
            if f.name.starts_with("bp_") == breakpoint {
                if let Some(slot) = out.get_mut(pos) {
                    *slot = f;
                }
            }
            continue;
        }
        out.push(f);
    }
    out
}

/// The reserved padding rows that are non-zero in `attr`.
pub(crate) fn reserved_set(attr: &Attr) -> Vec<&'static Reserved> {
    let image = attr.to_bytes(ATTR_SIZE_LATEST);
    FeatureTable::builtin()
        .reserved
        .iter()
        .filter(|r| nonzero(image.bytes(), r.offset, r.size))
        .collect()
}

/// The word of one bit kind in an attr (and its open flags).
pub(crate) fn word(attr: &Attr, open_flags: u64, kind: FeatureKind) -> u64 {
    super::AttrBits::of_attr(attr, open_flags).get(kind)
}

/// Sets (`on`) or clears `mask` in the word of `kind`.
pub(crate) fn apply_bits(
    attr: &mut Attr,
    open_flags: &mut u64,
    kind: FeatureKind,
    mask: u64,
    on: bool,
) {
    let edit = |w: &mut u64| {
        if on {
            *w |= mask;
        } else {
            *w &= !mask;
        }
    };
    match kind {
        FeatureKind::Flag => edit(&mut attr.flags),
        FeatureKind::SampleType => edit(&mut attr.sample_type),
        FeatureKind::ReadFormat => edit(&mut attr.read_format),
        FeatureKind::BranchSampleType => edit(&mut attr.branch_sample_type),
        FeatureKind::AuxAction => {
            let mut w = u64::from(attr.aux_action);
            edit(&mut w);
            attr.aux_action = w as u32;
        }
        FeatureKind::OpenFlag => edit(open_flags),
        FeatureKind::Field => {}
    }
}

/// Sets a field row by name; `None` for a name that is not a field.
pub(crate) fn set_field(attr: &mut Attr, name: &str, value: u64) -> Option<()> {
    attr.set_field(name, value)
}

/// Sets a feature row in an attr: its bits, or (fields) the value 1.
pub(crate) fn set_feature(attr: &mut Attr, open_flags: &mut u64, f: &Feature) {
    match f.kind {
        FeatureKind::Field => {
            let _ = set_field(attr, &f.name, 1);
        }
        kind => apply_bits(attr, open_flags, kind, f.mask(), true),
    }
}

/// Applies one `probe_with` entry: another row's name, or `field=value`.
pub(crate) fn apply_recipe(attr: &mut Attr, open_flags: &mut u64, entry: &str) -> Option<()> {
    match entry.split_once('=') {
        Some((field, value)) => set_field(attr, field, value.parse().ok()?),
        None => {
            let f = FeatureTable::builtin().get(entry)?;
            set_feature(attr, open_flags, f);
            Some(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_set_names_the_union_slot_by_type() {
        let mut a = Attr {
            config1: 7,
            config4: 1,
            ..Attr::default()
        };
        let names: Vec<&str> = fields_set(&a).iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["config1", "config4"]);
        a.type_ = PERF_TYPE_BREAKPOINT;
        let names: Vec<&str> = fields_set(&a).iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["bp_addr", "config4"]);
        assert!(fields_set(&Attr::default()).is_empty());
    }

    #[test]
    fn every_field_row_can_be_set_by_name() {
        for f in FeatureTable::builtin().of_kind(FeatureKind::Field) {
            let mut a = Attr::default();
            assert_eq!(set_field(&mut a, &f.name, 1), Some(()), "{}", f.name);
            let set = fields_set(&a);
            assert_eq!(set.len(), 1, "{}", f.name);
            assert_eq!(set.first().map(|g| g.offset), Some(f.offset), "{}", f.name);
        }
    }

    #[test]
    fn reserved_2_is_seen() {
        let a = Attr {
            reserved_2: 1,
            ..Attr::default()
        };
        let names: Vec<(u32, &str)> = reserved_set(&a)
            .iter()
            .map(|r| (r.offset, r.name.as_str()))
            .collect();
        assert_eq!(names, [(110, "__reserved_2")]);
    }

    #[test]
    fn recipes_set_bits_and_fields() {
        let mut a = Attr::default();
        let mut flags = 0;
        apply_recipe(&mut a, &mut flags, "remove_on_exec").unwrap();
        apply_recipe(&mut a, &mut flags, "sample_regs_user=1").unwrap();
        apply_recipe(&mut a, &mut flags, "FLAG_FD_CLOEXEC").unwrap();
        apply_recipe(&mut a, &mut flags, "aux_pause").unwrap();
        assert_eq!(a.flag("remove_on_exec"), Some(1));
        assert_eq!(a.sample_regs_user, 1);
        assert_eq!(flags, 8);
        assert_eq!(a.aux_action, 2);
        assert_eq!(apply_recipe(&mut a, &mut flags, "nonsense"), None);
        assert_eq!(apply_recipe(&mut a, &mut flags, "clockid=x"), None);
    }
}

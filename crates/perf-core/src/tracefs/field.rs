// SPDX-License-Identifier: GPL-2.0-only
//! One field of a tracepoint `format` file: libtraceevent's
//! `struct tep_format_field` and its `TEP_FIELD_IS_*` flags.

use std::sync::atomic::{AtomicBool, Ordering};

/// `TEP_FIELD_IS_ARRAY`: `[…]` in the declaration, or a `__data_loc`/`__rel_loc` field.
pub const TEP_FIELD_IS_ARRAY: u32 = 1;
/// `TEP_FIELD_IS_POINTER`: a `*` in the type.
pub const TEP_FIELD_IS_POINTER: u32 = 2;
/// `TEP_FIELD_IS_SIGNED`: `signed:1` in the format file.
pub const TEP_FIELD_IS_SIGNED: u32 = 4;
/// `TEP_FIELD_IS_STRING`: an array whose type text contains `char`, `u8` or `s8`.
pub const TEP_FIELD_IS_STRING: u32 = 8;
/// `TEP_FIELD_IS_DYNAMIC`: `__data_loc` (and `__rel_loc`) fields.
pub const TEP_FIELD_IS_DYNAMIC: u32 = 16;
/// `TEP_FIELD_IS_LONG`: the type text contains `long`.
pub const TEP_FIELD_IS_LONG: u32 = 32;
/// `TEP_FIELD_IS_RELATIVE`: `__rel_loc` fields (offset relative to the field's end).
pub const TEP_FIELD_IS_RELATIVE: u32 = 256;

/// A field of a tracepoint, as libtraceevent's `event_read_fields()` sees it.
///
/// The flags are fixed at parse time except `TEP_FIELD_IS_STRING`: the
/// C module clears it for good the first time a string field's bytes are
/// not a printable C string (python.c's `tracepoint_field()`), and every
/// later read of the field, on any event, then yields bytes. [`Field::value`] does the same;
/// the flag is shared by everyone holding this field (formats are cached
/// process-wide as `Arc<Format>`).
#[derive(Debug)]
pub struct Field {
    /// The field name: the last identifier of the declaration.
    pub name: String,
    /// libtraceevent's type text, e.g. `char[16]`, `__data_loc char[]`,
    /// `const char *`, `unsigned long[6]`.
    pub type_name: String,
    /// Byte offset of the field in the `PERF_SAMPLE_RAW` payload.
    pub offset: u32,
    /// Size in bytes (for `__data_loc`/`__rel_loc`: of the location word).
    pub size: u32,
    /// The number in `[N]` (0 for `[]` or a non-numeric bound).
    pub arraylen: u32,
    flags: u32,
    string: AtomicBool,
}

impl Clone for Field {
    fn clone(&self) -> Self {
        Field {
            name: self.name.clone(),
            type_name: self.type_name.clone(),
            offset: self.offset,
            size: self.size,
            arraylen: self.arraylen,
            flags: self.flags,
            string: AtomicBool::new(self.is_string()),
        }
    }
}

impl PartialEq for Field {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.type_name == other.type_name
            && self.offset == other.offset
            && self.size == other.size
            && self.arraylen == other.arraylen
            && self.flags() == other.flags()
    }
}

impl Eq for Field {}

impl Field {
    /// A field with the given flags (`TEP_FIELD_IS_*`).
    pub fn new(
        name: impl Into<String>,
        type_name: impl Into<String>,
        offset: u32,
        size: u32,
        arraylen: u32,
        flags: u32,
    ) -> Field {
        Field {
            name: name.into(),
            type_name: type_name.into(),
            offset,
            size,
            arraylen,
            flags: flags & !TEP_FIELD_IS_STRING,
            string: AtomicBool::new(flags & TEP_FIELD_IS_STRING != 0),
        }
    }

    /// The `TEP_FIELD_IS_*` bits, with `TEP_FIELD_IS_STRING` as it is now.
    pub fn flags(&self) -> u32 {
        if self.is_string() {
            self.flags | TEP_FIELD_IS_STRING
        } else {
            self.flags
        }
    }

    /// `TEP_FIELD_IS_ARRAY`.
    pub fn is_array(&self) -> bool {
        self.flags & TEP_FIELD_IS_ARRAY != 0
    }

    /// `TEP_FIELD_IS_DYNAMIC` (`__data_loc` or `__rel_loc`).
    pub fn is_dynamic(&self) -> bool {
        self.flags & TEP_FIELD_IS_DYNAMIC != 0
    }

    /// `TEP_FIELD_IS_RELATIVE` (`__rel_loc`).
    pub fn is_relative(&self) -> bool {
        self.flags & TEP_FIELD_IS_RELATIVE != 0
    }

    /// `TEP_FIELD_IS_STRING`, as it is now (see [`Field::clear_string`]).
    pub fn is_string(&self) -> bool {
        self.string.load(Ordering::Relaxed)
    }

    /// `TEP_FIELD_IS_POINTER`.
    pub fn is_pointer(&self) -> bool {
        self.flags & TEP_FIELD_IS_POINTER != 0
    }

    /// `TEP_FIELD_IS_SIGNED`.
    pub fn is_signed(&self) -> bool {
        self.flags & TEP_FIELD_IS_SIGNED != 0
    }

    /// `TEP_FIELD_IS_LONG`.
    pub fn is_long(&self) -> bool {
        self.flags & TEP_FIELD_IS_LONG != 0
    }

    /// Clears `TEP_FIELD_IS_STRING` for good, as python.c's
    /// `field->flags &= ~TEP_FIELD_IS_STRING` does. [`Field::value`] calls it.
    pub fn clear_string(&self) {
        self.string.store(false, Ordering::Relaxed);
    }
}

/// libtraceevent's flag rules (`field_is_string`, `field_is_dynamic`,
/// `field_is_relative_dynamic`, `field_is_long`) applied to a type text.
/// `array` is whether the declaration had `[…]`.
pub(crate) fn flags_from_type(type_name: &str, array: bool, pointer: bool) -> u32 {
    let mut flags = 0;
    if array {
        flags |= TEP_FIELD_IS_ARRAY;
    }
    if pointer {
        flags |= TEP_FIELD_IS_POINTER;
    }
    if array && ["char", "u8", "s8"].iter().any(|t| type_name.contains(t)) {
        flags |= TEP_FIELD_IS_STRING;
    }
    if type_name.starts_with("__data_loc") {
        flags |= TEP_FIELD_IS_DYNAMIC;
    }
    if type_name.starts_with("__rel_loc") {
        flags |= TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_RELATIVE;
    }
    if type_name.contains("long") {
        flags |= TEP_FIELD_IS_LONG;
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtraceevent_flag_rules() {
        let a = TEP_FIELD_IS_ARRAY;
        let s = TEP_FIELD_IS_STRING;
        let d = TEP_FIELD_IS_DYNAMIC;
        let r = TEP_FIELD_IS_RELATIVE;
        let l = TEP_FIELD_IS_LONG;
        assert_eq!(flags_from_type("char[16]", true, false), a | s);
        assert_eq!(flags_from_type("__data_loc char[]", true, false), a | s | d);
        assert_eq!(
            flags_from_type("__rel_loc char[]", true, false),
            a | s | d | r
        );
        assert_eq!(flags_from_type("__data_loc u64[]", true, false), a | d);
        assert_eq!(flags_from_type("__data_loc u8[]", true, false), a | s | d);
        assert_eq!(flags_from_type("__s8[4]", true, false), a | s);
        assert_eq!(flags_from_type("unsigned long[6]", true, false), a | l);
        // Not an array: never a string, even for `char`.
        assert_eq!(flags_from_type("char", false, false), 0);
        assert_eq!(
            flags_from_type("const char *", false, true),
            TEP_FIELD_IS_POINTER
        );
        assert_eq!(flags_from_type("long long", false, false), l);
        assert_eq!(flags_from_type("u64", false, false), 0);
    }

    #[test]
    fn string_flag_clears_for_every_holder() {
        let f = Field::new(
            "comm",
            "char[16]",
            8,
            16,
            16,
            TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING,
        );
        assert!(f.is_string());
        assert_eq!(f.flags(), TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING);
        let copy = f.clone();
        f.clear_string();
        assert!(!f.is_string());
        assert_eq!(f.flags(), TEP_FIELD_IS_ARRAY);
        assert!(copy.is_string(), "a clone has its own flag");
        assert_ne!(f, copy);
    }
}

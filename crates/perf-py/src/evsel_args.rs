// SPDX-License-Identifier: GPL-2.0-only
//! `perf.evsel(...)` arguments: the C module's 30 keywords (positional or by
//! name, converted as PyArg_ParseTupleAndKeywords' `i` and `K` formats do),
//! then every other `perf_event_attr` field of the newest header, by keyword
//! only. Produces an `Attr` and the names the caller set explicitly.

use perf_abi::{FeatureKind, FeatureTable};
use perf_core::abi::AttrBits;
use perf_core::attr::Attr;
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyString, PyTuple};

use crate::error::PerfError;

/// How an argument is converted.
#[derive(Clone, Copy)]
enum Conv {
    /// C `int` (`i`): OverflowError outside i32, TypeError for non-integers.
    CInt,
    /// `unsigned long long` masked (`K`): any integer, taken modulo 2**64.
    Mask,
}

/// The 6.1/7.3 kwlist, in positional order.
const CLASSIC: [(&str, Conv); 30] = [
    ("type", Conv::CInt),
    ("config", Conv::Mask),
    ("sample_freq", Conv::CInt),
    ("sample_period", Conv::Mask),
    ("sample_type", Conv::Mask),
    ("read_format", Conv::CInt),
    ("disabled", Conv::CInt),
    ("inherit", Conv::CInt),
    ("pinned", Conv::CInt),
    ("exclusive", Conv::CInt),
    ("exclude_user", Conv::CInt),
    ("exclude_kernel", Conv::CInt),
    ("exclude_hv", Conv::CInt),
    ("exclude_idle", Conv::CInt),
    ("mmap", Conv::CInt),
    ("context_switch", Conv::CInt),
    ("comm", Conv::CInt),
    ("freq", Conv::CInt),
    ("inherit_stat", Conv::CInt),
    ("enable_on_exec", Conv::CInt),
    ("task", Conv::CInt),
    ("watermark", Conv::CInt),
    ("precise_ip", Conv::CInt),
    ("mmap_data", Conv::CInt),
    ("sample_id_all", Conv::CInt),
    ("wakeup_events", Conv::CInt),
    ("bp_type", Conv::CInt),
    ("bp_addr", Conv::Mask),
    ("bp_len", Conv::Mask),
    ("idx", Conv::CInt),
];

/// Keyword-only fields beyond the classic list (flags come from the feature
/// table): (name, byte width).
const FIELDS: &[(&str, u32)] = &[
    ("config1", 8),
    ("config2", 8),
    ("config3", 8),
    ("config4", 8),
    ("branch_sample_type", 8),
    ("sample_regs_user", 8),
    ("sample_stack_user", 4),
    ("clockid", 4),
    ("sample_regs_intr", 8),
    ("aux_watermark", 4),
    ("sample_max_stack", 2),
    ("aux_sample_size", 4),
    ("aux_action", 4),
    ("aux_start_paused", 0),
    ("aux_pause", 0),
    ("aux_resume", 0),
    ("sig_data", 8),
    ("wakeup_watermark", 4),
    ("size", 4),
];

/// The result of parsing.
pub struct EvselArgs {
    /// The attr.
    pub attr: Attr,
    /// Bits the module set by default that the caller did not ask for.
    pub defaults: AttrBits,
}

fn to_u64(name: &str, v: &Bound<'_, PyAny>, conv: Conv) -> PyResult<u64> {
    match conv {
        Conv::CInt => {
            let i: i32 = v.extract().map_err(|e| with_name(v.py(), name, e))?;
            Ok(u64::from(i as u32))
        }
        Conv::Mask => mask_u64(name, v),
    }
}

/// `K` semantics: any int (or `__index__` object) modulo 2**64.
fn mask_u64(name: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    if !v.is_instance_of::<PyInt>() && !v.hasattr("__index__")? {
        let t = v.get_type().name()?;
        return Err(PyTypeError::new_err(format!(
            "{name} must be an integer, not {t}"
        )));
    }
    let i = v.call_method0("__index__")?;
    i.bitand(u64::MAX)?.extract()
}

fn with_name(py: Python<'_>, name: &str, e: PyErr) -> PyErr {
    let msg = format!("{name}: {}", e.value(py));
    if e.is_instance_of::<PyOverflowError>(py) {
        PyOverflowError::new_err(msg)
    } else {
        PyTypeError::new_err(msg)
    }
}

/// Parses `(*args, **kwargs)` of `perf.evsel`.
pub fn parse(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<EvselArgs> {
    if args.len() > CLASSIC.len() {
        return Err(PyTypeError::new_err(format!(
            "function takes at most {} arguments ({} given)",
            CLASSIC.len(),
            args.len()
        )));
    }
    let mut given: Vec<(String, Bound<'_, PyAny>)> = Vec::new();
    for (i, v) in args.iter().enumerate() {
        given.push((CLASSIC[i].0.to_owned(), v));
    }
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let k: String = k.cast::<PyString>()?.extract()?;
            if let Some(pos) = CLASSIC.iter().position(|(n, _)| *n == k) {
                if pos < args.len() {
                    return Err(PyTypeError::new_err(format!(
                        "argument for function given by name ('{k}') and position ({})",
                        pos + 1
                    )));
                }
            }
            given.push((k, v));
        }
    }

    let table = FeatureTable::builtin();
    // The C defaults.
    let mut attr = Attr {
        sample_type: 0x102, // PERF_SAMPLE_PERIOD | PERF_SAMPLE_TID
        ..Attr::default()
    };
    attr.set_flag("freq", 1);
    attr.set_flag("sample_id_all", 1);
    let (mut sample_freq, mut sample_period) = (0u64, 0u64);
    let mut aux_bits: Option<(u32, u32)> = None; // (set mask, clear mask)
    let mut explicit = Vec::with_capacity(given.len());

    for (name, v) in &given {
        let n = name.as_str();
        if let Some((_, conv)) = CLASSIC.iter().find(|(c, _)| *c == n) {
            let x = to_u64(n, v, *conv)?;
            match n {
                "type" => attr.type_ = x as u32,
                "config" => attr.config = x,
                "sample_freq" => sample_freq = x,
                "sample_period" => sample_period = x,
                "sample_type" => attr.sample_type = x,
                "read_format" => attr.read_format = x,
                "wakeup_events" => attr.wakeup_events = x as u32,
                "bp_type" => attr.bp_type = x as u32,
                "bp_addr" => attr.config1 = x,
                "bp_len" => attr.config2 = x,
                "idx" => {}
                flag => {
                    attr.set_flag(flag, x);
                }
            }
        } else if table.get(n).is_some_and(|f| f.kind == FeatureKind::Flag) {
            let x = mask_u64(n, v)?;
            attr.set_flag(n, x);
        } else if let Some(&(_, width)) = FIELDS.iter().find(|(f, _)| *f == n) {
            let x = mask_u64(n, v)?;
            if width > 0 && width < 8 && x >> (width * 8) != 0 && n != "clockid" {
                return Err(PyValueError::new_err(format!(
                    "{n}={x} does not fit the {}-bit field",
                    width * 8
                )));
            }
            match n {
                "size" => {
                    // Below VER0 every kernel answers E2BIG: refused here.
                    perf_core::abi::check_size(x as u32).map_err(PerfError::from)?;
                    attr.size = x as u32;
                }
                "aux_start_paused" | "aux_pause" | "aux_resume" => {
                    let b = match n {
                        "aux_start_paused" => 1,
                        "aux_pause" => 2,
                        _ => 4,
                    };
                    let (set, clear) = aux_bits.unwrap_or((0, 0));
                    aux_bits = Some(if x & 1 != 0 {
                        (set | b, clear)
                    } else {
                        (set, clear | b)
                    });
                }
                field => {
                    attr.set_field(field, x);
                }
            }
        } else {
            return Err(PyTypeError::new_err(format!(
                "'{n}' is an invalid keyword argument for this function"
            )));
        }
        explicit.push(name.clone());
    }
    if let Some((set, clear)) = aux_bits {
        attr.aux_action = (attr.aux_action | set) & !clear;
    }
    // One union slot: sample_period wins only when sample_freq is unset.
    if sample_period != 0 {
        if sample_freq != 0 {
            return Err(PyValueError::new_err(
                "perf: sample_freq and sample_period are mutually exclusive",
            ));
        }
        attr.sample_period = sample_period;
    } else {
        attr.sample_period = sample_freq;
    }
    // The module's own defaults: freq and sample_id_all when not passed, and
    // close-on-exec; they may fall back on kernels that lack them.
    let mut names = vec!["FLAG_FD_CLOEXEC"];
    for d in ["freq", "sample_id_all"] {
        if !explicit.iter().any(|e| e == d) {
            names.push(d);
        }
    }
    let defaults = AttrBits::from_names(names).map_err(PyValueError::new_err)?;
    Ok(EvselArgs { attr, defaults })
}

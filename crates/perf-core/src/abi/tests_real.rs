// SPDX-License-Identifier: GPL-2.0-only
//! The probes, the fallback and the emulator against the running kernel.
//!
//! These need perf_event_open for software events (this project's machine:
//! Linux 6.18, no hardware PMU). The expectations follow the running release
//! through the feature table, so they also hold on other releases.

use perf_abi::{Feature, FeatureKind, FeatureTable, KernelVersion};

use super::*;
use crate::attr::Attr;
use crate::error::Error;

/// `Linux 6.19`: defer_callchain, defer_output, config4.
const V6_19: KernelVersion = KernelVersion::new(6, 19, 0);

fn running_version() -> KernelVersion {
    KernelVersion::from_release(&running_release()).expect("uname -r has a version")
}

fn sys_error(e: Error) -> (i32, String) {
    match e {
        Error::Sys {
            op: "perf_event_open",
            errno,
            hint,
        } => (errno, hint.unwrap_or_default()),
        other => panic!("not a perf_event_open error: {other:?}"),
    }
}

#[test]
fn probe_learns_the_running_kernel() {
    let abi = running_abi();
    let v = running_version();
    assert_eq!(abi.source, AbiSource::Probed);
    assert_eq!(abi.attr_size, FeatureTable::builtin().attr_size_for(v));
    if (KernelVersion::new(6, 3, 0)..V6_19).contains(&v) {
        assert_eq!(abi.attr_size, 136);
    }
    let table = KernelAbi::from_table(&abi.release, v);
    assert_eq!(abi.differences(&table), Vec::<String>::new());
    assert!(std::ptr::eq(running_abi(), RealKernel.abi()));
}

#[test]
fn defer_callchain_names_itself_and_6_19() {
    let mut attr = base_attr();
    attr.set_flag("defer_callchain", 1).unwrap();
    let result = open(&attr, base_args(), &AttrBits::NONE, &Policy::default());
    if running_version() >= V6_19 {
        assert!(result.is_ok());
        return;
    }
    let (errno, hint) = sys_error(result.unwrap_err());
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        format!(
            "this kernel ({}) does not support 'defer_callchain' (added in Linux 6.19)",
            running_version()
        )
    );
}

#[test]
fn config4_names_itself_and_the_kernel_size() {
    let attr = Attr {
        config4: 1,
        ..base_attr()
    };
    let result = open(&attr, base_args(), &AttrBits::NONE, &Policy::default());
    if running_version() >= V6_19 {
        assert!(result.is_ok());
        return;
    }
    let (errno, hint) = sys_error(result.unwrap_err());
    assert_eq!(errno, libc::E2BIG);
    let size = running_abi().attr_size;
    assert_eq!(
        hint,
        format!(
            "this kernel ({}) does not support 'config4' (added in Linux 6.19): its \
             perf_event_attr is {size} bytes",
            running_version()
        )
    );
}

#[test]
fn a_default_the_kernel_lacks_falls_back_on_the_real_kernel() {
    let mut attr = base_attr();
    attr.set_flag("defer_output", 1).unwrap();
    attr.set_flag("sample_id_all", 1).unwrap();
    let defaults = AttrBits::from_names(["defer_output", "sample_id_all"]).unwrap();
    let opened = open(&attr, OpenArgs::new(0, -1), &defaults, &Policy::default()).unwrap();
    assert_eq!(opened.flags, crate::sys::PERF_FLAG_FD_CLOEXEC);
    assert_eq!(opened.attr.flag("sample_id_all"), Some(1));
    if running_version() < V6_19 {
        assert_eq!(opened.attr.flag("defer_output"), Some(0));
        let names: Vec<&str> = opened.fallbacks.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["defer_output"]);
    }
}

#[test]
fn hardware_event_enoent_says_so() {
    let attr = Attr {
        type_: 0,
        config: 0,
        ..base_attr()
    };
    let policy = Policy::default();
    if !super::environment::cpu_pmus(&policy.env).is_empty() {
        return; // a machine with a PMU counts cycles
    }
    let (errno, hint) = sys_error(open(&attr, base_args(), &AttrBits::NONE, &policy).unwrap_err());
    assert_eq!(errno, libc::ENOENT);
    assert!(hint.starts_with("no hardware PMU for this event on this machine"));
}

#[test]
fn pid_and_cpu_minus_one_is_explained() {
    let args = OpenArgs {
        pid: -1,
        ..base_args()
    };
    let (errno, hint) =
        sys_error(open(&base_attr(), args, &AttrBits::NONE, &Policy::default()).unwrap_err());
    assert_eq!(errno, libc::EINVAL);
    assert!(hint.starts_with("pid=-1 with cpu=-1 names neither a task nor a CPU"));
}

/// How two answers compare: the same class, or the emulator's fd against the
/// kernel's fd or EOPNOTSUPP (both mean "known").
fn agree(real: OutcomeClass, emulated: OutcomeClass) -> bool {
    real == emulated
        || (emulated == OutcomeClass::Ok && real == OutcomeClass::Other(libc::EOPNOTSUPP))
}

/// The base with just one row set: a bit (branch bits under
/// PERF_SAMPLE_BRANCH_STACK, where the kernel looks at them), or a field = 1.
fn bare(f: &Feature) -> (Attr, OpenArgs) {
    let mut attr = base_attr();
    let mut args = base_args();
    if f.kind == FeatureKind::BranchSampleType {
        image::apply_recipe(&mut attr, &mut args.flags, "SAMPLE_BRANCH_STACK").unwrap();
    }
    image::set_feature(&mut attr, &mut args.flags, f);
    (attr, args)
}

#[test]
fn emulator_agrees_with_the_running_kernel_on_every_feature() {
    let emulated = EmulatedKernel::new(running_version());
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for f in &FeatureTable::builtin().feature {
        let mut attempts = vec![("bare", bare(f))];
        if let Some(recipe) = feature_probe(f) {
            attempts.push(("probe", recipe));
        }
        for (how, (attr, args)) in attempts {
            let real = probe::try_open(&RealKernel, &attr, args);
            let emu = probe::try_open(&emulated, &attr, args);
            checked += 1;
            if !agree(real, emu) {
                disagreements.push(format!(
                    "{} ({how}): real {real:?}, emulated {emu:?}",
                    f.name
                ));
            }
        }
    }
    assert!(checked > 150, "{checked}");
    assert_eq!(disagreements, Vec::<String>::new());
}

#[test]
fn emulator_agrees_on_sizes_and_rules() {
    let emulated = EmulatedKernel::new(running_version());
    let sizes = [0u32, 8, 32, 63, 64, 72, 128, 136, 144, 200, 256];
    for size in sizes {
        let mut real = base_attr().to_bytes(size);
        let mut emu = base_attr().to_bytes(size);
        let r = OutcomeClass::of(RealKernel.open(&mut real, base_args()));
        let e = OutcomeClass::of(emulated.open(&mut emu, base_args()));
        assert_eq!(r, e, "size {size}");
        assert_eq!(real.size_field(), emu.size_field(), "size {size}");
    }
    let rules: [&[&str]; 8] = [
        &["sigtrap", "remove_on_exec"],
        &["remove_on_exec", "enable_on_exec"],
        &["inherit", "inherit_thread"],
        &["SAMPLE_WEIGHT", "SAMPLE_WEIGHT_STRUCT"],
        &["inherit", "SAMPLE_READ"],
        &["inherit", "SAMPLE_READ", "SAMPLE_TID"],
        &["use_clockid", "clockid=12345"],
        &["SAMPLE_STACK_USER", "sample_stack_user=12"],
    ];
    for names in rules {
        let mut attr = base_attr();
        let mut flags = 0;
        for n in names {
            image::apply_recipe(&mut attr, &mut flags, n).unwrap();
        }
        let args = OpenArgs {
            flags,
            ..base_args()
        };
        let r = probe::try_open(&RealKernel, &attr, args);
        let e = probe::try_open(&emulated, &attr, args);
        assert!(agree(r, e), "{names:?}: real {r:?}, emulated {e:?}");
    }
    for args in [
        OpenArgs {
            pid: -1,
            ..base_args()
        },
        OpenArgs {
            cpu: 9999,
            ..base_args()
        },
    ] {
        let r = probe::try_open(&RealKernel, &base_attr(), args);
        let e = probe::try_open(&emulated, &base_attr(), args);
        assert_eq!(r, e, "{args:?}");
    }
}

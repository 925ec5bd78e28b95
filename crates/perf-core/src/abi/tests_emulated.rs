// SPDX-License-Identifier: GPL-2.0-only
//! The probes and `open_with_fallback` against emulated kernels 3.2 … 6.19.

use perf_abi::{Feature, FeatureKind, FeatureTable, KernelVersion};

use super::*;
use crate::attr::Attr;
use crate::error::Error;

const VERSIONS: [&str; 11] = [
    "3.2", "3.12", "4.1", "4.19", "5.4", "5.13", "6.1", "6.3", "6.13", "6.18", "6.19",
];

fn v(s: &str) -> KernelVersion {
    KernelVersion::parse_exact(s).unwrap()
}

fn kernel(s: &str) -> EmulatedKernel {
    EmulatedKernel::new(v(s))
}

fn row(name: &str) -> &'static Feature {
    FeatureTable::builtin().get(name).unwrap()
}

/// The base attr with named bit rows set.
fn with(names: &[&str]) -> (Attr, OpenArgs) {
    let mut attr = base_attr();
    let mut args = base_args();
    for name in names {
        image::apply_recipe(&mut attr, &mut args.flags, name).unwrap();
    }
    (attr, args)
}

fn class(k: &EmulatedKernel, attr: &Attr, args: OpenArgs) -> OutcomeClass {
    probe::try_open(k, attr, args)
}

fn hint_of(e: &Error) -> (i32, String) {
    match e {
        Error::Sys {
            op: "perf_event_open",
            errno,
            hint,
        } => (*errno, hint.clone().unwrap_or_default()),
        other => panic!("not a perf_event_open error: {other:?}"),
    }
}

fn open_err(k: &EmulatedKernel, attr: &Attr, args: OpenArgs, defaults: &AttrBits) -> (i32, String) {
    match open_with_fallback(k, attr, args, defaults, &Policy::default()) {
        Ok(o) => panic!("{} opened {:?}", k.version(), o.attr),
        Err(e) => hint_of(&e),
    }
}

#[test]
fn probed_abi_equals_the_table_for_every_release() {
    for s in VERSIONS {
        let k = kernel(s);
        let probed = probe(&k);
        let table = KernelAbi::from_table(&k.release(), v(s));
        assert_eq!(probed.source, AbiSource::Probed, "{s}");
        assert_eq!(probed.differences(&table), Vec::<String>::new(), "{s}");
        assert_eq!(
            probed.attr_size,
            FeatureTable::builtin().attr_size_for(v(s))
        );
        assert_eq!(probed.version, Some(v(s)));
    }
}

#[test]
fn size_probe_reads_the_written_back_size() {
    for (s, size) in [
        ("3.2", 72),
        ("4.19", 112),
        ("6.1", 128),
        ("6.18", 136),
        ("6.19", 144),
    ] {
        assert_eq!(probe_attr_size(&kernel(s)), Some(size), "{s}");
    }
}

#[test]
fn unprobeable_kernel_falls_back_to_the_table() {
    // Paranoid 3 on a Debian kernel refuses everything; here only kernel
    // profiling is refused, so the base (which excludes the kernel) opens.
    let k = kernel("5.13").unprivileged(2, false);
    assert_eq!(probe(&k).source, AbiSource::Probed);
    // A base that cannot open: every probe would answer EACCES for the wrong
    // reason, so the bits come from the table.
    struct Deny(EmulatedKernel);
    impl PerfSyscall for Deny {
        fn open(
            &self,
            attr: &mut crate::attr::AttrBytes,
            args: OpenArgs,
        ) -> crate::sys::OpenOutcome {
            match self.0.open(attr, args) {
                crate::sys::OpenOutcome::Fd(_) => crate::sys::OpenOutcome::Failed {
                    errno: libc::EACCES,
                    size: attr.size_field(),
                },
                failed => failed,
            }
        }
        fn release(&self) -> String {
            "4.19.0-26-amd64".into()
        }
        fn abi(&self) -> &KernelAbi {
            self.0.abi()
        }
    }
    let abi = probe(&Deny(kernel("4.19")));
    assert_eq!(abi.source, AbiSource::SizeProbed);
    assert_eq!(abi.attr_size, 112);
    assert_eq!(abi.known, AttrBits::for_version(v("4.19")));
}

/// (release, rows set on the base, size sent or 0 for "needed", outcome).
#[test]
fn emulator_follows_perf_copy_attr_by_release() {
    use OutcomeClass::*;
    let cases: &[(&str, &[&str], u32, OutcomeClass)] = &[
        ("3.2", &[], 0, Ok),
        ("3.2", &[], 8, E2big(72)),
        ("3.2", &[], 144, Ok),
        ("3.2", &["mmap2"], 0, Einval),
        ("3.12", &["mmap2"], 0, Ok),
        ("3.12", &["FLAG_FD_CLOEXEC"], 0, Einval),
        ("4.1", &["FLAG_FD_CLOEXEC"], 0, Ok),
        ("4.19", &["sigtrap", "remove_on_exec"], 0, Einval),
        ("5.13", &["sigtrap"], 0, Einval),
        ("5.13", &["sigtrap", "remove_on_exec"], 0, Ok),
        ("5.13", &["inherit_thread"], 0, Einval),
        ("6.1", &["aux_output"], 0, Other(libc::EOPNOTSUPP)),
        ("5.4", &["SAMPLE_AUX"], 0, Einval),
        ("6.1", &["inherit", "SAMPLE_READ", "SAMPLE_TID"], 0, Einval),
        ("6.13", &["inherit", "SAMPLE_READ", "SAMPLE_TID"], 0, Ok),
        ("6.13", &["inherit", "SAMPLE_READ"], 0, Einval),
        ("6.1", &["SAMPLE_BRANCH_STACK"], 0, Einval),
        (
            "6.1",
            &["SAMPLE_BRANCH_STACK", "BRANCH_ANY"],
            0,
            Other(libc::EOPNOTSUPP),
        ),
        (
            "6.1",
            &["SAMPLE_BRANCH_STACK", "BRANCH_COUNTERS"],
            0,
            Einval,
        ),
        ("6.12", &["aux_start_paused"], 0, Einval),
        ("6.13", &["aux_start_paused"], 0, Other(libc::EOPNOTSUPP)),
        ("6.13", &["aux_pause"], 0, Einval),
        (
            "6.13",
            &["aux_pause", "aux_output"],
            0,
            Other(libc::EOPNOTSUPP),
        ),
        ("4.19", &["aux_start_paused"], 0, E2big(112)),
        ("6.18", &["defer_callchain"], 0, Einval),
        ("6.19", &["defer_callchain"], 0, Ok),
        ("6.18", &["config4=1"], 0, E2big(136)),
        ("6.19", &["config4=1"], 0, Ok),
        ("6.1", &["config3=1"], 0, E2big(128)),
        ("6.18", &["SAMPLE_REGS_USER"], 0, Einval),
        ("6.18", &["SAMPLE_REGS_USER", "sample_regs_user=1"], 0, Ok),
        (
            "6.18",
            &["SAMPLE_STACK_USER", "sample_stack_user=12"],
            0,
            Einval,
        ),
        ("6.18", &["use_clockid", "clockid=12345"], 0, Einval),
        ("6.18", &["use_clockid", "clockid=1"], 0, Ok),
        (
            "6.18",
            &["SAMPLE_CALLCHAIN", "sample_max_stack=60000"],
            0,
            Other(libc::EOVERFLOW),
        ),
        (
            "4.1",
            &["SAMPLE_CALLCHAIN", "sample_max_stack=60000"],
            0,
            Ok,
        ),
        ("6.18", &["aux_sample_size=8"], 0, Einval),
    ];
    for &(s, names, size, want) in cases {
        let (mut attr, args) = with(names);
        attr.size = size;
        let mut bytes = attr.to_bytes(if size == 0 { attr.needed_size() } else { size });
        let got = OutcomeClass::of(kernel(s).open(&mut bytes, args));
        assert_eq!(got, want, "{s} {names:?} size {size}");
    }
}

#[test]
fn reserved_2_is_checked_from_5_4() {
    let attr = Attr {
        reserved_2: 1,
        ..base_attr()
    };
    assert_eq!(class(&kernel("4.19"), &attr, base_args()), OutcomeClass::Ok);
    assert_eq!(
        class(&kernel("5.4"), &attr, base_args()),
        OutcomeClass::Einval
    );
    let (errno, hint) = open_err(&kernel("6.18"), &attr, base_args(), &AttrBits::NONE);
    assert_eq!(errno, libc::EINVAL);
    assert!(
        hint.contains("'__reserved_2' (padding that must be zero)"),
        "{hint}"
    );
}

#[test]
fn size_rules() {
    let k = kernel("6.18");
    let mut bytes = base_attr().to_bytes(0);
    assert_eq!(
        OutcomeClass::of(k.open(&mut bytes, base_args())),
        OutcomeClass::Ok
    );
    let mut bytes = base_attr().to_bytes(200);
    assert_eq!(
        OutcomeClass::of(k.open(&mut bytes, base_args())),
        OutcomeClass::Ok
    );
    if let Some(b) = bytes.bytes_mut().get_mut(190) {
        *b = 1;
    }
    assert_eq!(
        OutcomeClass::of(k.open(&mut bytes, base_args())),
        OutcomeClass::E2big(136)
    );
    assert_eq!(bytes.size_field(), 136);
    let mut bytes = base_attr().to_bytes(4104);
    assert_eq!(
        OutcomeClass::of(k.open(&mut bytes, base_args())),
        OutcomeClass::E2big(136)
    );
}

/// Every bit row a release lacks, asked for by the user, is an error naming
/// the row and the release that added it; every row it has is not.
#[test]
fn every_missing_feature_is_named_on_every_release() {
    let table = FeatureTable::builtin();
    for s in VERSIONS {
        let k = kernel(s);
        let size = table.attr_size_for(v(s));
        for f in &table.feature {
            let Some((attr, args)) = feature_probe(f).or_else(|| field_attr(f)) else {
                continue;
            };
            let result = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &Policy::default());
            let missing = match f.kind {
                // Beyond the struct (E2BIG), or on padding the release checks
                // (EINVAL); padding it does not check ignores the field.
                FeatureKind::Field => {
                    f.end() > size || (!f.in_version(v(s)) && on_checked_padding(f, v(s)))
                }
                _ => !f.in_version(v(s)),
            };
            match (missing, result) {
                (true, Err(e)) => {
                    let (errno, hint) = hint_of(&e);
                    assert!(
                        errno == libc::EINVAL || errno == libc::E2BIG,
                        "{s} {}",
                        f.name
                    );
                    let named = format!("'{}' (added in Linux {})", f.name, f.since_text());
                    let named_bits = f.name == "aux_action" && hint.contains("'aux_start_paused'");
                    assert!(
                        hint.contains(&named) || named_bits,
                        "{s} {}: {hint}",
                        f.name
                    );
                    assert!(hint.starts_with(&format!("this kernel ({s}.0) does not support")));
                    if errno == libc::E2BIG {
                        assert!(hint.ends_with(&format!("its perf_event_attr is {size} bytes")));
                    }
                }
                (true, Ok(o)) => panic!("{s} {}: opened {:?}", f.name, o.attr),
                (false, Ok(o)) => assert!(o.fallbacks.is_empty()),
                (false, Err(e)) => {
                    let (errno, hint) = hint_of(&e);
                    assert!(!hint.contains("does not support"), "{s} {}: {hint}", f.name);
                    assert!(errno != libc::E2BIG, "{s} {}", f.name);
                }
            }
        }
    }
}

/// True when a field lies on padding `version` rejects when non-zero.
fn on_checked_padding(f: &Feature, version: KernelVersion) -> bool {
    let (o, e) = (f.offset.unwrap_or(0), f.end());
    FeatureTable::builtin()
        .reserved
        .iter()
        .any(|r| r.checked_in(version) && o < r.offset + r.size && e > r.offset)
}

#[test]
fn fields_on_unchecked_padding_are_ignored_by_the_kernel() {
    // The documented limit: 3.7-4.0 ignore clockid's bytes, 4.1-4.7
    // sample_max_stack's. Only a build target can refuse them.
    for (s, name) in [("3.12", "clockid"), ("4.1", "sample_max_stack")] {
        let (attr, args) = field_attr(row(name)).unwrap();
        let k = kernel(s);
        assert!(open_with_fallback(&k, &attr, args, &AttrBits::NONE, &Policy::default()).is_ok());
        let policy = Policy {
            target: Some(BuildTarget::for_release(&format!("{s}.0-1-amd64"))),
            ..Policy::default()
        };
        let err = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &policy).unwrap_err();
        assert!(hint_of(&err).1.contains(&format!("which has no '{name}'")));
    }
}

/// The base attr with a field row set to 1 (fields are not probed).
fn field_attr(f: &Feature) -> Option<(Attr, OpenArgs)> {
    if f.kind != FeatureKind::Field {
        return None;
    }
    let mut attr = base_attr();
    image::set_field(&mut attr, &f.name, 1)?;
    Some((attr, base_args()))
}

#[test]
fn module_defaults_fall_back_silently_and_show() {
    let (attr, mut args) = with(&["sample_id_all", "mmap2", "comm_exec", "exclude_guest"]);
    args.flags = crate::sys::PERF_FLAG_FD_CLOEXEC;
    let defaults =
        AttrBits::from_names(["sample_id_all", "mmap2", "comm_exec", "FLAG_FD_CLOEXEC"]).unwrap();
    let k = kernel("3.2");
    let opened = open_with_fallback(&k, &attr, args, &defaults, &Policy::default()).unwrap();
    let names: Vec<&str> = opened.fallbacks.iter().map(|f| f.name.as_str()).collect();
    // perf's order (cloexec, then mmap2); comm_exec is not one of perf's.
    assert_eq!(names, ["FLAG_FD_CLOEXEC", "mmap2", "comm_exec"]);
    assert!(opened
        .fallbacks
        .iter()
        .all(|f| f.reason == FallbackReason::Kernel));
    assert_eq!(opened.attr.flag("mmap2"), Some(0));
    assert_eq!(opened.attr.flag("comm_exec"), Some(0));
    assert_eq!(opened.attr.flag("sample_id_all"), Some(1));
    assert_eq!(opened.attr.flag("exclude_guest"), Some(1));
    assert_eq!(opened.flags, 0);
    assert_eq!(opened.attr.size, 64);
    // On a kernel that has them nothing falls back.
    let opened = open_with_fallback(&kernel("6.1"), &attr, args, &defaults, &Policy::default());
    let opened = opened.unwrap();
    assert!(opened.fallbacks.is_empty());
    assert_eq!(opened.attr.flags, attr.flags);
}

#[test]
fn strict_mode_refuses_even_defaults() {
    let (attr, args) = with(&["sample_id_all", "mmap2"]);
    let defaults = AttrBits::from_names(["sample_id_all", "mmap2"]).unwrap();
    let policy = Policy {
        mode: FallbackMode::Strict,
        ..Policy::default()
    };
    let err = open_with_fallback(&kernel("3.2"), &attr, args, &defaults, &policy).unwrap_err();
    let (errno, hint) = hint_of(&err);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "this kernel (3.2.0) does not support 'mmap2' (added in Linux 3.12), a module default \
         that strict mode does not drop"
    );
}

#[test]
fn lenient_mode_drops_user_requests_too() {
    let (attr, args) = with(&["sample_id_all", "mmap2"]);
    let policy = Policy {
        mode: FallbackMode::Lenient,
        ..Policy::default()
    };
    // mmap2 was asked for (no defaults): the default mode refuses it.
    let k = kernel("3.2");
    assert!(open_with_fallback(&k, &attr, args, &AttrBits::NONE, &Policy::default()).is_err());
    let opened = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &policy).unwrap();
    let names: Vec<&str> = opened.fallbacks.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["mmap2"]);
    assert_eq!(opened.attr.flag("mmap2"), Some(0));
    assert_eq!(opened.attr.flag("sample_id_all"), Some(1));
}

#[test]
fn user_requests_are_errors_and_defaults_are_not_blamed() {
    let (attr, args) = with(&["defer_callchain", "FORMAT_LOST", "sample_id_all"]);
    let defaults = AttrBits::from_names(["FORMAT_LOST", "sample_id_all"]).unwrap();
    let (errno, hint) = open_err(&kernel("5.13"), &attr, args, &defaults);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "this kernel (5.13.0) does not support 'defer_callchain' (added in Linux 6.19)"
    );
    let (attr, args) = with(&["sigtrap", "remove_on_exec"]);
    let (_, hint) = open_err(&kernel("4.19"), &attr, args, &AttrBits::NONE);
    assert_eq!(
        hint,
        "this kernel (4.19.0) does not support 'remove_on_exec' (added in Linux 5.13), \
         'sigtrap' (added in Linux 5.13)"
    );
}

#[test]
fn e2big_names_fields_and_the_kernel_size() {
    let (attr, args) = with(&["config4=1"]);
    let (errno, hint) = open_err(&kernel("6.18"), &attr, args, &AttrBits::NONE);
    assert_eq!(errno, libc::E2BIG);
    assert_eq!(
        hint,
        "this kernel (6.18.0) does not support 'config4' (added in Linux 6.19): its \
         perf_event_attr is 136 bytes"
    );
    let (attr, args) = with(&["config3=1", "config4=1", "defer_output"]);
    let (errno, hint) = open_err(&kernel("6.1"), &attr, args, &AttrBits::NONE);
    assert_eq!(errno, libc::E2BIG);
    assert_eq!(
        hint,
        "this kernel (6.1.0) does not support 'defer_output' (added in Linux 6.19), 'config4' \
         (added in Linux 6.19), 'config3' (added in Linux 6.3): its perf_event_attr is 128 bytes"
    );
}

#[test]
fn build_target_refuses_before_any_syscall() {
    let target = BuildTarget::for_release("6.8.0-31-generic");
    let policy = Policy {
        target: Some(target),
        ..Policy::default()
    };
    let k = kernel("6.19");
    let (attr, args) = with(&["config4=1", "sample_id_all"]);
    let err = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &policy).unwrap_err();
    let (errno, hint) = hint_of(&err);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "this build targets Linux 6.8 (ABI 6.8.0-31) which has no 'config4' (added in Linux 6.19)"
    );
    assert_eq!(k.calls(), 0);
    // A default beyond the target is dropped, and says why.
    let (attr, args) = with(&["defer_callchain", "sample_id_all"]);
    let defaults = AttrBits::from_names(["defer_callchain"]).unwrap();
    let opened = open_with_fallback(&k, &attr, args, &defaults, &policy).unwrap();
    assert_eq!(
        opened.fallbacks,
        [Fallback {
            name: "defer_callchain".into(),
            reason: FallbackReason::BuildTarget,
            replacement: None,
        }]
    );
    assert_eq!(k.calls(), 1);
    // Strict: refused too.
    let strict = Policy {
        mode: FallbackMode::Strict,
        ..policy
    };
    let err = open_with_fallback(&k, &attr, args, &defaults, &strict).unwrap_err();
    assert!(hint_of(&err).1.contains("'defer_callchain'"));
}

#[test]
fn consistency_einval_is_explained() {
    let k = kernel("6.18");
    let cases: &[(&[&str], OpenArgs, &str)] = &[
        (
            &["sigtrap"],
            base_args(),
            "'sigtrap' needs 'remove_on_exec'",
        ),
        (
            &["inherit_thread"],
            base_args(),
            "'inherit_thread' needs 'inherit'",
        ),
        (
            &["SAMPLE_WEIGHT", "SAMPLE_WEIGHT_STRUCT"],
            base_args(),
            "PERF_SAMPLE_WEIGHT and PERF_SAMPLE_WEIGHT_STRUCT exclude each other",
        ),
        (&["SAMPLE_BRANCH_STACK"], base_args(), "needs a branch type"),
        (
            &["SAMPLE_REGS_INTR"],
            base_args(),
            "needs registers in sample_regs_intr",
        ),
        (
            &["use_clockid", "clockid=2"],
            base_args(),
            "clockid=2 is not a clock",
        ),
        (
            &["inherit", "SAMPLE_READ"],
            base_args(),
            "also needs PERF_SAMPLE_TID",
        ),
        (
            &["aux_sample_size=4"],
            base_args(),
            "aux_sample_size=4 needs an AUX-area event",
        ),
        (
            &[],
            OpenArgs {
                pid: -1,
                ..base_args()
            },
            "pid=-1 with cpu=-1 names neither a task nor a CPU",
        ),
    ];
    for &(names, args, want) in cases {
        let (attr, _) = with(names);
        let (errno, hint) = open_err(&k, &attr, args, &AttrBits::NONE);
        assert_eq!(errno, libc::EINVAL, "{names:?}");
        assert!(hint.contains(want), "{names:?}: {hint}");
    }
    let (attr, args) = with(&["inherit", "SAMPLE_READ", "SAMPLE_TID"]);
    let (_, hint) = open_err(&kernel("6.1"), &attr, args, &AttrBits::NONE);
    assert_eq!(
        hint,
        "'inherit' with PERF_SAMPLE_READ needs Linux 6.12 (this kernel is 6.1.0); perf's \
         fallback drops 'inherit', as set_abi_policy(\"lenient\") does"
    );
}

/// A scratch directory with the files an [`Environment`] reads.
struct FakeProc {
    dir: std::path::PathBuf,
}

impl FakeProc {
    fn new(tag: &str, paranoid: &str, cap_eff: u64, pmus: &[(&str, u32)]) -> Self {
        let dir = std::env::temp_dir().join(format!("perf-abi-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("devices")).unwrap();
        std::fs::write(dir.join("paranoid"), paranoid).unwrap();
        std::fs::write(
            dir.join("status"),
            format!("Name:\tx\nCapEff:\t{cap_eff:016x}\n"),
        )
        .unwrap();
        std::fs::write(dir.join("rate"), "1000\n").unwrap();
        std::fs::write(dir.join("max_stack"), "127\n").unwrap();
        for (pmu, ty) in pmus {
            std::fs::create_dir_all(dir.join("devices").join(pmu)).unwrap();
            std::fs::write(
                dir.join("devices").join(pmu).join("type"),
                format!("{ty}\n"),
            )
            .unwrap();
        }
        FakeProc { dir }
    }

    fn policy(&self) -> Policy {
        Policy {
            env: Environment {
                paranoid: self.dir.join("paranoid"),
                proc_status: self.dir.join("status"),
                event_source: self.dir.join("devices"),
                max_sample_rate: self.dir.join("rate"),
                max_stack: self.dir.join("max_stack"),
                cpu_dir: self.dir.join("cpu"),
            },
            ..Policy::default()
        }
    }
}

impl Drop for FakeProc {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn permission_errors_explain_themselves() {
    let fake = FakeProc::new("perm", "2\n", 0, &[]);
    let policy = fake.policy();
    let k = kernel("6.18").unprivileged(2, false);
    let mut attr = base_attr();
    attr.set_flag("exclude_kernel", 0);
    let err = open_with_fallback(&k, &attr, base_args(), &AttrBits::NONE, &policy).unwrap_err();
    let (errno, hint) = hint_of(&err);
    assert_eq!(errno, libc::EACCES);
    assert!(
        hint.starts_with(
            "kernel.perf_event_paranoid is 2 and this process has neither CAP_PERFMON nor \
         CAP_SYS_ADMIN: at level 2 only user-space measurement is allowed: set exclude_kernel=1"
        ),
        "{hint}"
    );
    assert!(hint.contains("sysctl kernel.perf_event_paranoid=1"));

    let fake = FakeProc::new("perm1", "1\n", 0, &[]);
    let k = kernel("6.18").unprivileged(1, false);
    let args = OpenArgs {
        pid: -1,
        cpu: 0,
        ..base_args()
    };
    let err = open_with_fallback(&k, &base_attr(), args, &AttrBits::NONE, &fake.policy());
    let (errno, hint) = hint_of(&err.unwrap_err());
    assert_eq!(errno, libc::EACCES);
    assert!(
        hint.contains("CPU-wide events (pid=-1) need level 0"),
        "{hint}"
    );

    let fake = FakeProc::new("perm3", "3\n", 1 << CAP_PERFMON, &[]);
    let hint = permission_hint(libc::EACCES, &base_attr(), base_args(), &fake.policy().env);
    assert!(hint.starts_with("kernel.perf_event_paranoid is 3 and this process has CAP_PERFMON"));
    assert!(
        hint.contains("on Ubuntu CAP_PERFMON is not enough"),
        "{hint}"
    );

    let fake = FakeProc::new("permroot", "2\n", 1 << CAP_SYS_ADMIN, &[]);
    let hint = permission_hint(libc::EPERM, &base_attr(), base_args(), &fake.policy().env);
    assert!(
        hint.contains("CAP_SYS_ADMIN: so the paranoid level is not the cause"),
        "{hint}"
    );
}

#[test]
fn enoent_for_hardware_events_says_there_is_no_pmu() {
    let attr = Attr {
        type_: 0,
        config: 0,
        ..base_attr()
    };
    let vm = FakeProc::new("vm", "2\n", 0, &[("software", 1), ("tracepoint", 2)]);
    let err = open_with_fallback(
        &kernel("6.18"),
        &attr,
        base_args(),
        &AttrBits::NONE,
        &vm.policy(),
    );
    let (errno, hint) = hint_of(&err.unwrap_err());
    assert_eq!(errno, libc::ENOENT);
    assert_eq!(
        hint,
        "no hardware PMU for this event on this machine (e.g. a VM); the software event \
         'cpu-clock' (type=PERF_TYPE_SOFTWARE, config=COUNT_SW_CPU_CLOCK) counts time instead"
    );
    let metal = FakeProc::new("metal", "2\n", 0, &[("cpu", 4), ("software", 1)]);
    let hint = enoent_hint(&attr, &metal.policy().env).unwrap();
    assert!(
        hint.starts_with("this machine's CPU PMU (cpu) does not count"),
        "{hint}"
    );
    let sw = Attr {
        config: 4242,
        ..base_attr()
    };
    let err = open_with_fallback(
        &kernel("6.18"),
        &sw,
        base_args(),
        &AttrBits::NONE,
        &vm.policy(),
    );
    assert_eq!(hint_of(&err.unwrap_err()), (libc::ENOENT, String::new()));
}

#[test]
fn sample_rate_limit_is_read_from_the_environment() {
    let fake = FakeProc::new("rate", "2\n", 0, &[]);
    let (mut attr, args) = with(&["freq"]);
    attr.sample_period = 5000;
    let mut k = kernel("6.18");
    k.max_sample_rate = 1000;
    let err = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &fake.policy()).unwrap_err();
    assert_eq!(
        hint_of(&err).1,
        "sample_freq=5000 is above kernel.perf_event_max_sample_rate (1000)"
    );
}

#[test]
fn cached_abi_is_probed_once() {
    let k = kernel("5.4");
    let (attr, args) = with(&["cgroup"]);
    let _ = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &Policy::default());
    let after_first = k.calls();
    let _ = open_with_fallback(&k, &attr, args, &AttrBits::NONE, &Policy::default());
    assert_eq!(k.calls(), after_first + 1);
    assert!(std::ptr::eq(k.abi(), k.abi()));
    assert_eq!(row("cgroup").since, "5.7");
}

/// Stable 6.12.24 backported the `aux_action` field and its bits. Recorded
/// on real kernels (tests/kernels, docs/kernels.md): Debian's 6.12.107 and
/// 6.12.111 answer `aux_action=1`, `aux_start_paused`, and `aux_pause` or
/// `aux_resume` with `aux_output`, with EOPNOTSUPP on a software event, as
/// 6.13 does; Debian's 6.1.176 answers EINVAL.
#[test]
fn aux_action_is_in_6_12_from_the_stable_backport_on() {
    let known = |c: OutcomeClass| !matches!(c, OutcomeClass::Einval | OutcomeClass::E2big(_));
    for (s, has) in [
        ("6.1.176", false),
        ("6.12.23", false),
        ("6.12.24", true),
        ("6.12.111", true),
        ("6.13", true),
    ] {
        let k = kernel(s);
        for name in ["aux_start_paused", "aux_pause", "aux_resume"] {
            let (attr, args) = feature_probe(row(name)).unwrap();
            assert_eq!(known(class(&k, &attr, args)), has, "{s} {name}");
            assert_eq!(k.abi().knows(row(name)), has, "{s} {name}");
        }
        for (value, accepted) in [(1, has), (1 << 3, false)] {
            let attr = Attr {
                aux_action: value,
                ..base_attr()
            };
            assert_eq!(
                known(class(&k, &attr, base_args())),
                accepted,
                "{s} {value}"
            );
        }
    }
    let (attr, args) = with(&["aux_start_paused"]);
    let (errno, hint) = open_err(&kernel("6.12.23"), &attr, args, &AttrBits::NONE);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "this kernel (6.12.23) does not support 'aux_start_paused' (added in Linux 6.13 and 6.12.24)"
    );
}

// SPDX-License-Identifier: GPL-2.0-only
//! Feature sections built by hand, in both byte orders.

use super::*;
use crate::error::Error;

/// A writer of feature data in a byte order.
struct W(Vec<u8>, Endian);

impl W {
    fn u32(mut self, v: u32) -> W {
        match self.1 {
            Endian::Little => self.0.extend_from_slice(&v.to_le_bytes()),
            Endian::Big => self.0.extend_from_slice(&v.to_be_bytes()),
        }
        self
    }
    fn u64(mut self, v: u64) -> W {
        match self.1 {
            Endian::Little => self.0.extend_from_slice(&v.to_le_bytes()),
            Endian::Big => self.0.extend_from_slice(&v.to_be_bytes()),
        }
        self
    }
    /// perf's `do_write_string`: len (NUL and padding to 64 included).
    fn string(self, s: &str) -> W {
        let len = (s.len() + 1).div_ceil(64) * 64;
        let mut w = self.u32(len as u32);
        w.0.extend_from_slice(s.as_bytes());
        w.0.resize(w.0.len() + len - s.len(), 0);
        w
    }
    fn bytes(mut self, b: &[u8]) -> W {
        self.0.extend_from_slice(b);
        self
    }
}

fn parse(bit: u32, w: &W) -> Result<Features> {
    let mut f = Features::default();
    f.parse_section(bit, &w.0, w.1, "f", 0x1000)?;
    Ok(f)
}

#[test]
fn plain_values_in_both_orders() {
    for e in [Endian::Little, Endian::Big] {
        let w = |_: ()| W(Vec::new(), e);
        assert_eq!(
            parse(feature::HOSTNAME, &w(()).string("vm"))
                .unwrap()
                .hostname
                .as_deref(),
            Some("vm")
        );
        let f = parse(feature::NRCPUS, &w(()).u32(4).u32(2)).unwrap();
        assert_eq!(
            f.nr_cpus,
            Some(NrCpus {
                available: 4,
                online: 2
            })
        );
        assert_eq!(
            parse(feature::TOTAL_MEM, &w(()).u64(24 << 20))
                .unwrap()
                .total_mem,
            Some(24 << 20)
        );
        let f = parse(
            feature::CMDLINE,
            &w(()).u32(3).string("perf").string("record").string("-a"),
        )
        .unwrap();
        assert_eq!(f.cmdline.unwrap(), ["perf", "record", "-a"]);
        let f = parse(feature::SAMPLE_TIME, &w(()).u64(5).u64(9)).unwrap();
        assert_eq!(f.sample_time, Some((5, 9)));
        let f = parse(
            feature::COMPRESSED,
            &w(()).u32(0).u32(1).u32(1).u32(4).u32(528384),
        )
        .unwrap();
        assert_eq!(
            f.compressed.map(|c| (c.type_, c.mmap_len)),
            Some((1, 528384))
        );
        let f = parse(feature::E_MACHINE, &w(()).u32(62).u32(0)).unwrap();
        assert_eq!(f.e_machine, Some((62, 0)));
        let f = parse(
            feature::PMU_MAPPINGS,
            &w(())
                .u32(2)
                .u32(1)
                .string("software")
                .u32(2)
                .string("tracepoint"),
        )
        .unwrap();
        assert_eq!(
            f.pmu_mappings,
            [(1, "software".into()), (2, "tracepoint".into())]
        );
        let f = parse(
            feature::GROUP_DESC,
            &w(()).u32(1).string("{a,b}").u32(0).u32(2),
        )
        .unwrap();
        assert_eq!(
            f.group_desc,
            [GroupDesc {
                name: "{a,b}".into(),
                leader_idx: 0,
                nr_members: 2
            }]
        );
        let f = parse(feature::CLOCK_DATA, &w(()).u32(1).u32(1).u64(100).u64(7)).unwrap();
        assert_eq!(
            f.clock_data.map(|c| (c.clockid, c.tod_ns, c.clockid_ns)),
            Some((1, 100, 7))
        );
        assert!(parse(feature::STAT, &w(())).unwrap().stat);
        let f = parse(30, &w(()).u32(1)).unwrap();
        assert_eq!(f.raw, [(30, w(()).u32(1).0)]);
        assert_eq!(f.present, [30]);
    }
}

#[test]
fn event_desc_names_the_attrs() {
    for e in [Endian::Little, Endian::Big] {
        let attr = Attr {
            type_: 2,
            size: 128,
            config: 372,
            ..Attr::default()
        };
        let img = attr.to_bytes(128);
        let mut image = img.bytes()[..128].to_vec();
        if !e.is_native() {
            // What a writer of that order would have written, for the
            // fields set here.
            for (at, n) in [(0, 4), (4, 4), (8, 8)] {
                image[at..at + n].reverse();
            }
        }
        let w = W(Vec::new(), e)
            .u32(1)
            .u32(128)
            .bytes(&image)
            .u32(2)
            .string("sched:sched_switch")
            .u64(7)
            .u64(8);
        let f = parse(feature::EVENT_DESC, &w).unwrap();
        assert_eq!(f.event_desc.len(), 1);
        assert_eq!(
            (f.event_desc[0].attr.config, f.event_desc[0].attr.type_),
            (372, 2)
        );
        assert_eq!(f.event_name(0), Some("sched:sched_switch"));
        assert_eq!(f.event_desc[0].ids, [7, 8]);
    }
}

#[test]
fn build_id_records() {
    let mut b = Vec::new();
    for (misc, pid, name, size) in [
        (1u16, -1i32, "[kernel.kallsyms]", 20u8),
        (2 | 1 << 15, 5, "/usr/lib/libc.so.6", 12),
    ] {
        let mut rec = Vec::new();
        rec.extend_from_slice(&67u32.to_ne_bytes());
        rec.extend_from_slice(&misc.to_ne_bytes());
        let len = (36 + name.len() + 1).div_ceil(8) * 8;
        rec.extend_from_slice(&(len as u16).to_ne_bytes());
        rec.extend_from_slice(&pid.to_ne_bytes());
        rec.extend((0..20).map(|i| i as u8 + 0xa0));
        rec.extend_from_slice(&[size, 0, 0, 0]);
        rec.extend_from_slice(name.as_bytes());
        rec.resize(len, 0);
        b.extend(rec);
    }
    let ids = build_ids(&b, Endian::NATIVE, "f", 0).unwrap();
    assert_eq!(ids.len(), 2);
    assert_eq!(
        (ids[0].pid, ids[0].build_id.len(), ids[0].filename.as_str()),
        (-1, 20, "[kernel.kallsyms]")
    );
    assert_eq!(
        (ids[1].pid, ids[1].build_id.len(), ids[1].filename.as_str()),
        (5, 12, "/usr/lib/libc.so.6")
    );
    // A record claiming more than the section holds.
    let e = build_ids(&b[..70], Endian::NATIVE, "f", 0x200).unwrap_err();
    assert!(
        e.to_string()
            .contains("truncated build id record: needs 56 bytes, has 14")
            && e.to_string().contains("0x238"),
        "{e}"
    );
    let mut short = b.clone();
    short[6..8].copy_from_slice(&20u16.to_ne_bytes());
    let e = build_ids(&short, Endian::NATIVE, "f", 0x200).unwrap_err();
    assert!(
        e.to_string()
            .contains("PERF_RECORD_HEADER_BUILD_ID with header.size 20"),
        "{e}"
    );
}

#[test]
fn truncated_sections_are_named() {
    let e = parse(feature::NRCPUS, &W(Vec::new(), Endian::Little).u32(4)).unwrap_err();
    assert!(
        matches!(&e, Error::PerfData(d) if d.offset == 0x1004),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("truncated feature NRCPUS (nr_cpus_online): needs 4 bytes, has 0"),
        "{e}"
    );
    // A string whose length runs past the section.
    let e = parse(
        feature::HOSTNAME,
        &W(Vec::new(), Endian::Little).u32(1 << 30),
    )
    .unwrap_err();
    assert!(e.to_string().contains("feature HOSTNAME"), "{e}");
    // A count that cannot fit allocates nothing.
    let e = parse(
        feature::CMDLINE,
        &W(Vec::new(), Endian::Little).u32(u32::MAX),
    )
    .unwrap_err();
    assert!(e.to_string().contains("truncated feature CMDLINE"), "{e}");
    let e = parse(
        feature::EVENT_DESC,
        &W(Vec::new(), Endian::Little).u32(1).u32(3),
    )
    .unwrap_err();
    assert!(e.to_string().contains("attr size 3"), "{e}");
}

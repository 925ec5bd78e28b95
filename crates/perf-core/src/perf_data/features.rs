// SPDX-License-Identifier: GPL-2.0-only
//! The feature sections of the header (perf's `perf_env`), parsed into
//! plain values by the layouts of `tools/perf/util/header.c` (`process_*`):
//!
//! | feature | layout |
//! |---|---|
//! | HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID | string `{ u32 len; char s[len]; }` (NUL-padded) |
//! | NRCPUS | `{ u32 nr_cpus_available; u32 nr_cpus_online; }` |
//! | TOTAL_MEM | `u64` (kB) |
//! | CMDLINE | `{ u32 nr; string argv[nr]; }` |
//! | EVENT_DESC | `{ u32 nr; u32 attr_size; { attr; u32 nr_ids; string name; u64 ids[nr_ids]; }[nr] }` |
//! | BUILD_ID | `perf_record_header_build_id` records |
//! | PMU_MAPPINGS | `{ u32 nr; { u32 type; string name; }[nr] }` |
//! | GROUP_DESC | `{ u32 nr; { string name; u32 leader_idx; u32 nr_members; }[nr] }` |
//! | SAMPLE_TIME | `{ u64 first; u64 last; }` |
//! | CLOCKID | `u64` clockid resolution in ns |
//! | DIR_FORMAT | `u64` version |
//! | COMPRESSED | `{ u32 version, type, level, ratio, mmap_len; }` |
//! | CLOCK_DATA | `{ u32 version; u32 clockid; u64 tod_ns; u64 clockid_ns; }` |
//! | E_MACHINE | `{ u32 e_machine; u32 e_flags; }` |
//!
//! TRACING_DATA is parsed by [`tracing_data`](super::tracing_data); the
//! other features are kept as their bytes ([`Features::raw`]).

use super::abi::feature;
use super::attrs::check_attr_size;
use super::cursor::SectionCursor;
use crate::attr::Attr;
use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};

/// `HEADER_NRCPUS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NrCpus {
    /// `nr_cpus_available` (possible CPUs).
    pub available: u32,
    /// `nr_cpus_online`.
    pub online: u32,
}

/// One entry of `HEADER_EVENT_DESC`: an event as `perf record` named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDesc {
    /// The attr.
    pub attr: Attr,
    /// The name (`cpu-clock`, `sched:sched_switch`, …).
    pub name: String,
    /// The ids of its fds.
    pub ids: Vec<u64>,
}

/// One build id: `HEADER_BUILD_ID` entries and `PERF_RECORD_HEADER_BUILD_ID`
/// records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildId {
    /// `header.misc` (its cpumode says kernel or user space).
    pub misc: u16,
    /// The machine's pid (-1 for the host, as perf writes it).
    pub pid: i32,
    /// The build id bytes (20 unless the record says its size).
    pub build_id: Vec<u8>,
    /// The file it belongs to.
    pub filename: String,
}

/// `HEADER_GROUP_DESC` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupDesc {
    /// The group's name (`{a,b}` or given with `:name`).
    pub name: String,
    /// Index of the leader among the attrs.
    pub leader_idx: u32,
    /// Members, the leader included.
    pub nr_members: u32,
}

/// `HEADER_COMPRESSED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compressed {
    /// Format version.
    pub version: u32,
    /// 1 = zstd.
    pub type_: u32,
    /// The compression level.
    pub level: u32,
    /// The ratio perf measured.
    pub ratio: u32,
    /// The ring's size: what one compressed record may expand to.
    pub mmap_len: u32,
}

/// `HEADER_CLOCK_DATA`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClockData {
    /// Format version (1).
    pub version: u32,
    /// The clock the events were timed with.
    pub clockid: u32,
    /// Wall-clock time at the reference point (ns).
    pub tod_ns: u64,
    /// The clock's time at the reference point (ns).
    pub clockid_ns: u64,
}

/// The header's features, as plain values (perf's `struct perf_env`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Features {
    /// The feature bits present.
    pub present: Vec<u32>,
    /// `HEADER_HOSTNAME`.
    pub hostname: Option<String>,
    /// `HEADER_OSRELEASE`.
    pub os_release: Option<String>,
    /// `HEADER_VERSION` (perf's version).
    pub version: Option<String>,
    /// `HEADER_ARCH` (`uname -m`).
    pub arch: Option<String>,
    /// `HEADER_NRCPUS`.
    pub nr_cpus: Option<NrCpus>,
    /// `HEADER_CPUDESC`.
    pub cpu_desc: Option<String>,
    /// `HEADER_CPUID`.
    pub cpuid: Option<String>,
    /// `HEADER_TOTAL_MEM` in kB.
    pub total_mem: Option<u64>,
    /// `HEADER_CMDLINE`.
    pub cmdline: Option<Vec<String>>,
    /// `HEADER_EVENT_DESC`.
    pub event_desc: Vec<EventDesc>,
    /// `HEADER_BUILD_ID`.
    pub build_ids: Vec<BuildId>,
    /// `HEADER_PMU_MAPPINGS`: (type, name).
    pub pmu_mappings: Vec<(u32, String)>,
    /// `HEADER_GROUP_DESC`.
    pub group_desc: Vec<GroupDesc>,
    /// `HEADER_SAMPLE_TIME`: (first, last) sample time.
    pub sample_time: Option<(u64, u64)>,
    /// `HEADER_CLOCKID`: the clock's resolution in ns.
    pub clockid_res_ns: Option<u64>,
    /// `HEADER_CLOCK_DATA`.
    pub clock_data: Option<ClockData>,
    /// `HEADER_DIR_FORMAT`: the directory format's version.
    pub dir_format: Option<u64>,
    /// `HEADER_COMPRESSED`.
    pub compressed: Option<Compressed>,
    /// `HEADER_E_MACHINE`: (e_machine, e_flags).
    pub e_machine: Option<(u32, u32)>,
    /// `HEADER_STAT`: written by `perf stat record`.
    pub stat: bool,
    /// `HEADER_BRANCH_STACK`.
    pub branch_stack: bool,
    /// The other features, as (bit, bytes in the file's order).
    pub raw: Vec<(u32, Vec<u8>)>,
    /// The feature sections that could not be read, as (bit, why): cut
    /// short, past the end of the file, overlapping another part, or
    /// malformed. perf reads the samples of such a file; so do we.
    pub unreadable: Vec<(u32, String)>,
}

impl Features {
    /// Parses one feature section (`bytes`, at file offset `base`) into
    /// `self`. TRACING_DATA is not handled here.
    ///
    /// # Errors
    /// [`DataErrorKind::Truncated`] when a field runs past the section,
    /// [`DataErrorKind::AttrSize`] for a bad EVENT_DESC attr size.
    pub fn parse_section(
        &mut self,
        bit: u32,
        bytes: &[u8],
        order: Endian,
        path: &str,
        base: u64,
    ) -> Result<()> {
        if !self.present.contains(&bit) {
            self.present.push(bit);
        }
        let what = format!("feature {}", feature::name(bit));
        let mut c = SectionCursor::new(bytes, order, what, path, base);
        match bit {
            feature::HOSTNAME => self.hostname = Some(c.string("hostname")?),
            feature::OSRELEASE => self.os_release = Some(c.string("os release")?),
            feature::VERSION => self.version = Some(c.string("version")?),
            feature::ARCH => self.arch = Some(c.string("arch")?),
            feature::CPUDESC => self.cpu_desc = Some(c.string("cpu description")?),
            feature::CPUID => self.cpuid = Some(c.string("cpuid")?),
            feature::NRCPUS => {
                let available = c.u32("nr_cpus_available")?;
                let online = c.u32("nr_cpus_online")?;
                self.nr_cpus = Some(NrCpus { available, online });
            }
            feature::TOTAL_MEM => self.total_mem = Some(c.u64("total_mem")?),
            feature::CMDLINE => {
                let nr = c.count("nr", 4)?;
                let argv = (0..nr).map(|_| c.string("argv")).collect::<Result<_>>()?;
                self.cmdline = Some(argv);
            }
            feature::EVENT_DESC => self.event_desc = event_desc(&mut c)?,
            feature::BUILD_ID => self.build_ids = build_ids(bytes, order, path, base)?,
            feature::PMU_MAPPINGS => {
                let nr = c.count("nr", 8)?;
                self.pmu_mappings = (0..nr)
                    .map(|_| Ok((c.u32("type")?, c.string("name")?)))
                    .collect::<Result<_>>()?;
            }
            feature::GROUP_DESC => {
                let nr = c.count("nr_groups", 12)?;
                self.group_desc = (0..nr)
                    .map(|_| {
                        Ok(GroupDesc {
                            name: c.string("name")?,
                            leader_idx: c.u32("leader_idx")?,
                            nr_members: c.u32("nr_members")?,
                        })
                    })
                    .collect::<Result<_>>()?;
            }
            feature::SAMPLE_TIME => self.sample_time = Some((c.u64("first")?, c.u64("last")?)),
            feature::CLOCKID => self.clockid_res_ns = Some(c.u64("clockid_res_ns")?),
            feature::DIR_FORMAT => self.dir_format = Some(c.u64("version")?),
            feature::COMPRESSED => {
                self.compressed = Some(Compressed {
                    version: c.u32("version")?,
                    type_: c.u32("type")?,
                    level: c.u32("level")?,
                    ratio: c.u32("ratio")?,
                    mmap_len: c.u32("mmap_len")?,
                });
            }
            feature::CLOCK_DATA => {
                self.clock_data = Some(ClockData {
                    version: c.u32("version")?,
                    clockid: c.u32("clockid")?,
                    tod_ns: c.u64("tod_ns")?,
                    clockid_ns: c.u64("clockid_ns")?,
                });
            }
            feature::E_MACHINE => self.e_machine = Some((c.u32("e_machine")?, c.u32("e_flags")?)),
            feature::STAT => self.stat = true,
            feature::BRANCH_STACK => self.branch_stack = true,
            _ => self.raw.push((bit, bytes.to_vec())),
        }
        Ok(())
    }

    /// The name `HEADER_EVENT_DESC` gives the `idx`-th attr.
    pub fn event_name(&self, idx: usize) -> Option<&str> {
        self.event_desc.get(idx).map(|d| d.name.as_str())
    }
}

/// `HEADER_EVENT_DESC`, as perf's `read_event_desc`.
fn event_desc(c: &mut SectionCursor<'_>) -> Result<Vec<EventDesc>> {
    let nr = c.u32("nr")?;
    let at = c.offset();
    let sz = c.u32("attr_size")?;
    check_attr_size(u64::from(sz), c.path(), at)?;
    let need = u64::from(nr).saturating_mul(u64::from(sz) + 4);
    if need > c.left() {
        return Err(c.short("events", need));
    }
    let mut out = Vec::new();
    for _ in 0..nr {
        let image = c.take(u64::from(sz), "attr")?;
        let attr = Attr::from_image(image, c.order);
        let nr_ids = c.u32("nr_ids")?;
        let name = c.string("name")?;
        let ids = c.take(u64::from(nr_ids).saturating_mul(8), "ids")?;
        let ids = ids
            .chunks_exact(8)
            .map(|w| c.order.u64_at(w, 0).unwrap_or(0))
            .collect();
        out.push(EventDesc { attr, name, ids });
    }
    Ok(out)
}

/// The `perf_record_header_build_id` records of `HEADER_BUILD_ID` (or one
/// such record): `{ header; s32 pid; u8 build_id[24]; char filename[]; }`,
/// where `build_id[20]` is the size when `header.misc` has
/// `PERF_RECORD_MISC_BUILD_ID_SIZE`.
///
/// # Errors
/// [`DataErrorKind::RecordSize`] for a record whose size is below its
/// fixed fields or past the section.
pub fn build_ids(bytes: &[u8], order: Endian, path: &str, base: u64) -> Result<Vec<BuildId>> {
    const FIXED: usize = 36;
    const MISC_BUILD_ID_SIZE: u16 = 1 << 15;
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let rest = bytes.get(pos..).unwrap_or_default();
        let at = base + pos as u64;
        let truncated = |need: usize| {
            DataErrorKind::Truncated {
                what: "build id record".into(),
                need: need as u64,
                have: rest.len() as u64,
            }
            .at(path, at)
        };
        let Some(h) = super::reader::read_header(rest, order) else {
            return Err(truncated(8));
        };
        let size = usize::from(h.size);
        if size < FIXED {
            let detail = format!("a build id record has at least {FIXED} bytes");
            return Err(super::reader::record_size(h, &detail, path, at));
        }
        let Some(rec) = rest.get(..size) else {
            return Err(truncated(size));
        };
        let header = Some(h);
        let misc = header.map_or(0, |h| h.misc);
        let pid = order.u32_at(rec, 8).unwrap_or(0) as i32;
        let n = if misc & MISC_BUILD_ID_SIZE != 0 {
            usize::from(rec.get(32).copied().unwrap_or(20)).min(20)
        } else {
            20
        };
        let build_id = rec.get(12..12 + n).unwrap_or_default().to_vec();
        let name = rec.get(FIXED..).unwrap_or_default();
        let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
        let filename = String::from_utf8_lossy(name.get(..end).unwrap_or_default()).into_owned();
        out.push(BuildId {
            misc,
            pid,
            build_id,
            filename,
        });
        pos += size;
    }
    Ok(out)
}

#[cfg(test)]
#[path = "features_tests.rs"]
mod tests;

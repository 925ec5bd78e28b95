// SPDX-License-Identifier: GPL-2.0-only
//! PMUs as sysfs describes them under `bus/event_source/devices/<pmu>/`:
//! `type` (the value for `attr.type`), `format/<field>` (which config bits a
//! term sets: `config:0-7`, `config1:0-15,32-47`) and `events/<alias>`
//! (named events: `event=0x3c,umask=0x01`).
//!
//! | perf                           | here                    |
//! |--------------------------------|-------------------------|
//! | `struct perf_pmu`              | [`Pmu`]                 |
//! | `struct perf_pmu_format`       | [`PmuFormat`]           |
//! | `struct perf_pmu_alias`        | [`PmuAlias`]            |
//! | `perf_pmu__format_parse()`     | [`PmuFormat::parse`]    |
//! | `pmu_format_value()`           | [`PmuFormat::encode`]   |
//! | `pmu_format_max_value()`       | [`PmuFormat::max_value`]|

use std::path::{Path, PathBuf};

use crate::attr::Attr;
use crate::error::{Error, Result};

/// Which attr word a format field lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigField {
    /// `attr.config`
    Config,
    /// `attr.config1`
    Config1,
    /// `attr.config2`
    Config2,
    /// `attr.config3`
    Config3,
}

impl ConfigField {
    /// The attr word this field names.
    pub fn word_mut(self, attr: &mut Attr) -> &mut u64 {
        match self {
            ConfigField::Config => &mut attr.config,
            ConfigField::Config1 => &mut attr.config1,
            ConfigField::Config2 => &mut attr.config2,
            ConfigField::Config3 => &mut attr.config3,
        }
    }
}

/// One `format/<name>` file: a term and the config bits it fills.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmuFormat {
    /// The term name (`event`, `umask`).
    pub name: String,
    /// The attr word.
    pub field: ConfigField,
    /// The bits of that word, in order from the value's bit 0.
    pub mask: u64,
}

impl PmuFormat {
    /// Parses a format file's text: `config[123]:` then comma-separated
    /// bit numbers or inclusive ranges (`config:0-7,21`).
    ///
    /// # Errors
    /// [`Error::Malformed`] for another word, a bit past 63 or a reversed
    /// range.
    pub fn parse(name: &str, text: &str) -> Result<PmuFormat> {
        let bad = |why: &str| Error::Malformed {
            what: "PMU format",
            detail: format!("{name}: {why}: {:?}", text.trim()),
        };
        let (word, bits) = text.trim().split_once(':').ok_or_else(|| bad("no ':'"))?;
        let field = match word.trim() {
            "config" => ConfigField::Config,
            "config1" => ConfigField::Config1,
            "config2" => ConfigField::Config2,
            "config3" => ConfigField::Config3,
            _ => return Err(bad("unknown config word")),
        };
        let mut mask = 0u64;
        for range in bits.split(',') {
            let (lo, hi) = range.split_once('-').unwrap_or((range, range));
            let lo: u32 = lo.trim().parse().map_err(|_| bad("bad bit number"))?;
            let hi: u32 = hi.trim().parse().map_err(|_| bad("bad bit number"))?;
            if lo > hi || hi > 63 {
                return Err(bad("bad bit range"));
            }
            for bit in lo..=hi {
                mask |= 1 << bit;
            }
        }
        Ok(PmuFormat {
            name: name.to_owned(),
            field,
            mask,
        })
    }

    /// The largest value the field holds: all ones in as many bits as the
    /// mask has.
    pub fn max_value(&self) -> u64 {
        match self.mask.count_ones() {
            64 => u64::MAX,
            n => (1u64 << n) - 1,
        }
    }

    /// ORs `value` into `word`, its bit 0 at the mask's lowest bit and so on
    /// (bits of `value` beyond the field are dropped).
    pub fn encode(&self, value: u64, word: &mut u64) {
        let mut vbit = 0;
        for fbit in 0..64 {
            if self.mask & (1 << fbit) == 0 {
                continue;
            }
            if vbit < 64 && value & (1 << vbit) != 0 {
                *word |= 1 << fbit;
            }
            vbit += 1;
        }
    }
}

/// One `events/<name>` file: a named event and the terms it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmuAlias {
    /// The alias (`tsc`, `cpu-cycles`).
    pub name: String,
    /// Its terms as the file says (`event=0x00`).
    pub terms: String,
    /// `<name>.scale`, trimmed, when the file exists.
    pub scale: Option<String>,
    /// `<name>.unit`, trimmed, when the file exists.
    pub unit: Option<String>,
}

/// A PMU from sysfs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pmu {
    /// The directory name (`software`, `msr`, `uncore_imc_0`).
    pub name: String,
    /// The `type` file: the value for `attr.type`.
    pub type_: u32,
    /// Format fields, sorted by name.
    pub formats: Vec<PmuFormat>,
    /// Event aliases, sorted by name.
    pub aliases: Vec<PmuAlias>,
    /// A core PMU as perf decides it (`cpu`, `cpum_cf`, or one with a
    /// `cpus` file): perf lists its aliases by their own name.
    pub is_core: bool,
}

impl Pmu {
    /// The format field `name`.
    pub fn format(&self, name: &str) -> Option<&PmuFormat> {
        self.formats.iter().find(|f| f.name == name)
    }

    /// The alias `name`, compared ignoring ASCII case as perf does.
    pub fn alias(&self, name: &str) -> Option<&PmuAlias> {
        self.aliases
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(name))
    }
}

/// A sysfs tree (the directory that has `bus/event_source/devices`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sysfs {
    root: PathBuf,
}

/// Suffixes of `events/` files that describe an alias rather than being one.
const ALIAS_METADATA: &[&str] = &[".scale", ".unit", ".per-pkg", ".snapshot"];

impl Sysfs {
    /// The running system's sysfs, `/sys`.
    pub fn system() -> Sysfs {
        Sysfs::at("/sys")
    }

    /// The sysfs tree at `root` (tests use a fake one).
    pub fn at(root: impl Into<PathBuf>) -> Sysfs {
        Sysfs { root: root.into() }
    }

    /// The directory this instance reads.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn devices(&self) -> PathBuf {
        self.root.join("bus/event_source/devices")
    }

    /// The names of the PMUs, sorted.
    ///
    /// # Errors
    /// [`Error::Sys`] if the devices directory can't be listed.
    pub fn pmu_names(&self) -> Result<Vec<String>> {
        let dir = self.devices();
        let entries = std::fs::read_dir(&dir).map_err(|e| sys_error("list PMUs", &dir, &e))?;
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
    }

    /// Reads PMU `name`: its type, formats and aliases. A format file that
    /// does not parse is left out (perf warns and ignores it too).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a name with `/`; [`Error::Sys`]
    /// (`ENOENT` for no such PMU) or [`Error::Malformed`] for its `type`.
    pub fn pmu(&self, name: &str) -> Result<Pmu> {
        if name.is_empty() || name.starts_with('.') || name.contains(['/', '\0']) {
            return Err(Error::InvalidArgument(format!("invalid PMU name {name:?}")));
        }
        let dir = self.devices().join(name);
        let type_path = dir.join("type");
        let text = std::fs::read_to_string(&type_path)
            .map_err(|e| sys_error("read PMU type", &type_path, &e))?;
        let type_ = text.trim().parse().map_err(|_| Error::Malformed {
            what: "PMU type file",
            detail: format!("{}: {:?}", type_path.display(), text.trim()),
        })?;
        let mut formats: Vec<PmuFormat> = files(&dir.join("format"))
            .into_iter()
            .filter_map(|(n, text)| PmuFormat::parse(&n, &text).ok())
            .collect();
        formats.sort_by(|a, b| a.name.cmp(&b.name));
        let events = dir.join("events");
        let metadata = |n: &str, suffix: &str| {
            std::fs::read_to_string(events.join(format!("{n}{suffix}")))
                .ok()
                .map(|t| t.trim().to_owned())
        };
        let mut aliases: Vec<PmuAlias> = files(&events)
            .into_iter()
            .filter(|(n, _)| !ALIAS_METADATA.iter().any(|s| n.ends_with(s)))
            .map(|(n, text)| PmuAlias {
                scale: metadata(&n, ".scale"),
                unit: metadata(&n, ".unit"),
                name: n,
                terms: text.trim().to_owned(),
            })
            .collect();
        aliases.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Pmu {
            is_core: name == "cpu" || name == "cpum_cf" || dir.join("cpus").is_file(),
            name: name.to_owned(),
            type_,
            formats,
            aliases,
        })
    }

    /// Every PMU that can be read, sorted by name.
    ///
    /// # Errors
    /// As [`Sysfs::pmu_names`].
    pub fn pmus(&self) -> Result<Vec<Pmu>> {
        Ok(self
            .pmu_names()?
            .iter()
            .filter_map(|n| self.pmu(n).ok())
            .collect())
    }
}

fn sys_error(op: &'static str, path: &Path, e: &std::io::Error) -> Error {
    Error::Sys {
        op,
        errno: e.raw_os_error().unwrap_or(libc::EIO),
        hint: Some(path.display().to_string()),
    }
}

/// `(file name, text)` of the readable UTF-8 files in `dir`; nothing if
/// `dir` is missing.
fn files(dir: &Path) -> Vec<(String, String)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            let text = std::fs::read_to_string(e.path()).ok()?;
            Some((name, text))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(text: &str) -> PmuFormat {
        PmuFormat::parse("f", text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn format_files() {
        assert_eq!(fmt("config:0-7\n").mask, 0xff);
        assert_eq!(fmt("config:0-7").field, ConfigField::Config);
        assert_eq!(fmt("config1:0-15,32-47").mask, 0xffff_0000_ffff);
        assert_eq!(fmt("config1:0-15,32-47").field, ConfigField::Config1);
        assert_eq!(fmt("config2:5").mask, 1 << 5);
        assert_eq!(fmt("config3:63").field, ConfigField::Config3);
        assert_eq!(fmt("config:0-63").max_value(), u64::MAX);
        assert_eq!(fmt("config:24-31").max_value(), 255);
        for bad in [
            "",
            "config",
            "config4:0",
            "config:64",
            "config:7-0",
            "config:a-b",
            "config:0-7,",
        ] {
            assert!(PmuFormat::parse("f", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn values_scatter_into_the_mask() {
        let split = fmt("config:0-3,8-11");
        let mut w = 0;
        split.encode(0xab, &mut w);
        assert_eq!(w, 0xa0b);
        let mut w = 0x1000;
        fmt("config:4-7").encode(0x1ff, &mut w);
        assert_eq!(w, 0x10f0);
        let mut w = 0;
        fmt("config:0-63").encode(u64::MAX, &mut w);
        assert_eq!(w, u64::MAX);
    }
}

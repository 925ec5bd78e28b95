// SPDX-License-Identifier: GPL-2.0-only
//! A live process's maps from `/proc/<pid>/maps`: how live events resolve
//! when the evlist did not track mmaps (perf's
//! `perf_event__synthesize_mmap_events` reads the same file).

use super::dso::DsoId;
use super::dsos::Dsos;
use super::map::{self, MapInfo, Maps};

/// `PROT_READ`, `PROT_WRITE`, `MAP_SHARED`, `MAP_PRIVATE`.
const PROT_READ: u32 = 0x1;
const PROT_WRITE: u32 = 0x2;
const MAP_SHARED: u32 = 0x1;
const MAP_PRIVATE: u32 = 0x2;

/// One `/proc/<pid>/maps` line as an MMAP2 record would say it:
/// `start-end perms offset maj:min inode [path]`; anonymous lines are
/// `//anon`, as perf names them.
fn parse_line(pid: i32, line: &str) -> Option<(MapInfo<'_>, DsoId)> {
    let mut f = line.splitn(6, ' ');
    let (range, perms, off, dev, ino) = (f.next()?, f.next()?, f.next()?, f.next()?, f.next()?);
    let path = f.next().map(str::trim_start).unwrap_or("");
    let (a, b) = range.split_once('-')?;
    let start = u64::from_str_radix(a, 16).ok()?;
    let end = u64::from_str_radix(b, 16).ok()?;
    let p = perms.as_bytes();
    let prot = if p.first() == Some(&b'r') {
        PROT_READ
    } else {
        0
    } | if p.get(1) == Some(&b'w') {
        PROT_WRITE
    } else {
        0
    } | if p.get(2) == Some(&b'x') {
        map::PROT_EXEC
    } else {
        0
    };
    let flags = if p.get(3) == Some(&b's') {
        MAP_SHARED
    } else {
        MAP_PRIVATE
    };
    let (maj, min) = dev.split_once(':')?;
    let id = DsoId {
        maj: u32::from_str_radix(maj, 16).ok()?,
        min: u32::from_str_radix(min, 16).ok()?,
        ino: ino.parse().ok()?,
        ino_generation: 0,
    };
    let info = MapInfo {
        pid,
        start,
        len: end.checked_sub(start)?,
        pgoff: u64::from_str_radix(off, 16).ok()?,
        filename: if path.is_empty() {
            b"//anon"
        } else {
            path.as_bytes()
        },
        prot,
        flags,
        dso_id: None,
        build_id: None,
    };
    Some((info, id))
}

impl Dsos {
    /// The executable maps of a live process (perf synthesizes only
    /// executable mappings by default).
    pub fn proc_maps(&self, pid: i32) -> std::io::Result<Maps> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/maps"))?;
        let mut maps = Maps::default();
        for line in text.lines() {
            let Some((mut info, id)) = parse_line(pid, line) else {
                continue;
            };
            if info.prot & map::PROT_EXEC == 0 {
                continue;
            }
            info.dso_id = (!id.is_empty()).then_some(id);
            maps.insert(self.map_new(&info));
        }
        Ok(maps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbol::conf::SymbolConf;
    use crate::symbol::resolve::CPUMODE_USER;

    #[test]
    fn lines() {
        let (i, id) = parse_line(7, "7f00aa000000-7f00aa021000 r-xp 00026000 fe:00 326279 /usr/lib/x86_64-linux-gnu/libc.so.6")
            .expect("line");
        assert_eq!(
            (i.start, i.len, i.pgoff, i.prot, i.flags),
            (0x7f00aa000000, 0x21000, 0x26000, 5, 2)
        );
        assert_eq!(i.filename, b"/usr/lib/x86_64-linux-gnu/libc.so.6");
        assert_eq!((id.maj, id.min, id.ino), (0xfe, 0, 326279));
        let (a, _) =
            parse_line(7, "7ffd5a000000-7ffd5a021000 rw-p 00000000 00:00 0").expect("anon");
        assert_eq!(a.filename, b"//anon");
        assert!(parse_line(7, "garbage").is_none());
    }

    /// This process resolves its own libc function by address.
    #[test]
    fn resolves_this_process() {
        let dsos = Dsos::new(SymbolConf::default());
        let maps = dsos.proc_maps(std::process::id() as i32).expect("maps");
        let addr = libc::getpid as *const () as usize as u64;
        let al = dsos.thread_find_symbol(&maps, CPUMODE_USER, addr);
        let name = al.symbol_name().unwrap_or_default().to_owned();
        assert!(name.contains("getpid"), "{name}");
        assert!(al.map.is_some_and(|m| m.dso().name().contains("libc")));
    }
}

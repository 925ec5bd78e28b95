// SPDX-License-Identifier: GPL-2.0-only
//! The records of a perf.data file as `perf script -D` prints them, in
//! the order perf delivers them: the test's input, taken from perf itself
//! so these tests do not depend on this project's perf.data reader.

use std::collections::HashMap;

/// One MMAP or MMAP2 record.
#[derive(Debug, Clone)]
pub struct Mmap {
    pub misc: u16,
    pub pid: i32,
    pub start: u64,
    pub len: u64,
    pub pgoff: u64,
    pub dev_ino: Option<(u32, u32, u64, u64)>,
    pub build_id: Option<String>,
    pub prot: u32,
    pub flags: u32,
    pub filename: String,
}

/// A record that matters for symbols.
#[derive(Debug, Clone)]
pub enum Event {
    Mmap(Mmap),
    /// `FORK(pid:tid):(ppid:ptid)`.
    Fork {
        pid: i32,
        ppid: i32,
    },
    Sample {
        misc: u16,
        pid: i32,
        ip: u64,
        callchain: Option<Vec<u64>>,
    },
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// Parses `perf script -D` output.
pub fn parse(text: &str) -> Vec<Event> {
    // misc of each event by file offset, from the raw dumps:
    // "0x2a0@perf.data [0x70]: event: 10" then ".  0000:  0a 00 00 00 02 00 70 00 ...".
    let mut misc_at: HashMap<u64, u16> = HashMap::new();
    let mut pending: Option<u64> = None;
    let mut events = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(at) = line.find("@") {
            if line.contains("]: event: ") {
                pending = hex(&line[..at]);
                continue;
            }
        }
        if let (Some(off), Some(rest)) = (pending, line.strip_prefix(".  0000:  ")) {
            let b: Vec<u8> = rest
                .split(' ')
                .take(8)
                .filter_map(|x| u8::from_str_radix(x, 16).ok())
                .collect();
            if b.len() == 8 {
                misc_at.insert(off, u16::from_le_bytes([b[4], b[5]]));
            }
            pending = None;
            continue;
        }
        let Some(p) = line.find(": PERF_RECORD_") else {
            continue;
        };
        let head: Vec<&str> = line[..p].split_whitespace().collect();
        let offset = head.iter().rev().nth(1).and_then(|s| hex(s)).unwrap_or(0);
        let body = &line[p + ": PERF_RECORD_".len()..];
        if let Some(rest) = body
            .strip_prefix("MMAP2 ")
            .or_else(|| body.strip_prefix("MMAP "))
        {
            let v2 = body.starts_with("MMAP2");
            if let Some(m) = parse_mmap(rest, v2, *misc_at.get(&offset).unwrap_or(&0)) {
                events.push(Event::Mmap(m));
            }
        } else if let Some(rest) = body.strip_prefix("FORK(") {
            // FORK(pid:tid):(ppid:ptid)
            let nums: Vec<i32> = rest
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .filter(|s| !s.is_empty())
                .filter_map(|s| s.parse().ok())
                .collect();
            if let [pid, _tid, ppid, _ptid] = nums[..] {
                events.push(Event::Fork { pid, ppid });
            }
        } else if let Some(rest) = body.strip_prefix("SAMPLE(") {
            // SAMPLE(IP, 0x2): pid/tid: 0xip period: ...
            let misc = rest
                .split(')')
                .next()
                .and_then(|s| s.split(", ").nth(1))
                .and_then(hex)
                .unwrap_or(0) as u16;
            let after = rest.split("): ").nth(1).unwrap_or("");
            let mut it = after.split_whitespace();
            let pid = it
                .next()
                .and_then(|s| s.split('/').next())
                .and_then(|p| p.parse().ok())
                .unwrap_or(-1);
            let ip = it.next().and_then(hex).unwrap_or(0);
            let mut callchain = None;
            if lines.peek().is_some_and(|l| l.contains("chain: nr:")) {
                let l = lines.next().unwrap_or_default();
                let nr: usize = l
                    .rsplit("nr:")
                    .next()
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(0);
                let mut chain = Vec::with_capacity(nr);
                for _ in 0..nr {
                    let Some(l) = lines.next() else { break };
                    if let Some(v) = l.rsplit(": ").next().and_then(hex) {
                        chain.push(v);
                    }
                }
                callchain = Some(chain);
            }
            events.push(Event::Sample {
                misc,
                pid,
                ip,
                callchain,
            });
        }
    }
    events
}

// " 13052/13052: [0x555a2f230000(0x1000) @ 0x1000 fe:00 10095243 1724352760]: r-xp /path"
// " -1/0: [0xffffffff81000000(0x120bb08) @ 0xffffffff81000000]: x [kernel.kallsyms]_text"
fn parse_mmap(rest: &str, v2: bool, misc: u16) -> Option<Mmap> {
    let (ids, rest) = rest.trim_start().split_once(": [")?;
    let pid: i32 = ids.split('/').next()?.parse().ok()?;
    let (inside, tail) = rest.split_once("]: ")?;
    let (range, after_at) = inside.split_once(" @ ")?;
    let (start, len) = range.split_once('(')?;
    let (start, len) = (hex(start)?, hex(len.trim_end_matches(')'))?);
    let mut f = after_at.split_whitespace();
    let pgoff = hex(f.next()?)?;
    let (mut dev_ino, mut build_id) = (None, None);
    if v2 {
        let next = f.next()?;
        if let Some(b) = next.strip_prefix('<') {
            build_id = Some(b.trim_end_matches('>').to_owned());
        } else {
            let (maj, min) = next.split_once(':')?;
            let ino: u64 = f.next()?.parse().ok()?;
            let gen: u64 = f.next()?.parse().ok()?;
            dev_ino = Some((
                u32::from_str_radix(maj, 16).ok()?,
                u32::from_str_radix(min, 16).ok()?,
                ino,
                gen,
            ));
        }
    }
    let (perms, filename) = tail.split_once(' ').unwrap_or((tail, ""));
    let (prot, flags) = if v2 {
        let p = perms.as_bytes();
        let prot = u32::from(p.first() == Some(&b'r'))
            | u32::from(p.get(1) == Some(&b'w')) << 1
            | u32::from(p.get(2) == Some(&b'x')) << 2;
        let flags = if p.get(3) == Some(&b's') { 1 } else { 2 };
        (prot, flags)
    } else {
        // MMAP: 'x' unless PERF_RECORD_MISC_MMAP_DATA.
        (if perms == "r" { 1 } else { 4 | 1 }, 0)
    };
    Some(Mmap {
        misc,
        pid,
        start,
        len,
        pgoff,
        dev_ino,
        build_id,
        prot,
        flags,
        filename: filename.to_owned(),
    })
}

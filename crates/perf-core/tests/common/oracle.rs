// SPDX-License-Identifier: GPL-2.0-only
//! What the real perf says a file holds: `perf script -D` (every record,
//! in delivery order, with the sample members and thread), `perf script -F`
//! (the sample members), `perf script -s` with a script printing every
//! tracepoint field, `perf script` on a `perf stat record` file, and
//! `perf report --header-only`.

use std::path::Path;

use perf_core::tracefs::Value;

use super::{perf, Rec};

/// A tracepoint field value as perf's Python scripting gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// `str`.
    Str(String),
    /// `bytearray`.
    Bytes(Vec<u8>),
    /// `int`.
    Int(i128),
}

impl FieldValue {
    /// Ours, as perf's scripting builds it (numbers zero-extended, then
    /// read as a C `long`, as python.c does too).
    pub fn of(v: &Value<'_>) -> FieldValue {
        match v {
            Value::Str(s) => FieldValue::Str((*s).to_owned()),
            Value::Bytes(b) => FieldValue::Bytes(b.to_vec()),
            Value::Unsigned(u) => FieldValue::Int(i128::from(*u)),
            Value::Signed(s) => FieldValue::Int(i128::from(s.c_compatible())),
        }
    }

    fn parse(s: &str) -> FieldValue {
        match s.split_once(':') {
            Some(("s", v)) => FieldValue::Str(
                unhex(v)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default(),
            ),
            Some(("b", v)) => FieldValue::Bytes(unhex(v).unwrap_or_default()),
            Some(("i", v)) => FieldValue::Int(v.parse().unwrap_or(i128::MIN)),
            _ => panic!("bad field value {s:?}"),
        }
    }
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A sample as `perf script -D` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpSample {
    pub pid: i32,
    pub tid: i32,
    pub ip: u64,
    pub period: u64,
    pub addr: u64,
    pub comm: String,
}

/// `perf script -D`: every record (offset, file, size, type, and the time
/// perf prints when it prints one), and the samples.
pub fn dump(dir: &Path, file: &str) -> (Vec<(Rec, Option<u64>)>, Vec<DumpSample>) {
    let out = perf(dir, &["script", "-D", "-i", file]);
    let mut recs = Vec::new();
    let mut samples = Vec::new();
    let mut lines = out.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((head, ty)) = line.split_once("]: event: ") else {
            continue;
        };
        let Some((at, size)) = head.split_once(" [") else {
            continue;
        };
        let Some((off, path)) = at.split_once('@') else {
            continue;
        };
        let offset = num(off);
        let type_: u32 = ty.trim().parse().unwrap();
        let size = num(size);
        let file = path.rsplit('/').next().unwrap_or("").to_owned();
        // The line that names the record: "[cpu ][time ]<off> [<size>]: PERF_RECORD_…".
        let mut time = None;
        let needle = format!(" [{size:#x}]: PERF_RECORD_");
        for l in lines.by_ref() {
            if l.starts_with('.') || l.is_empty() {
                continue;
            }
            if let Some(pos) = l.find(&needle) {
                let prefix: Vec<&str> = l[..pos].split_whitespace().collect();
                // prefix = [cpu] [time] offset
                if prefix.len() >= 2 && prefix[0] != "-1" {
                    time = prefix[prefix.len() - 2].parse().ok();
                }
                if type_ == 9 {
                    samples.push(sample_line(&l[pos + needle.len()..], lines.peek().copied()));
                }
            }
            break;
        }
        recs.push((
            Rec {
                offset,
                file,
                size,
                type_,
                time: 0,
            },
            time,
        ));
    }
    (recs, samples)
}

fn num(s: &str) -> u64 {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap(),
        None => s.parse().unwrap(),
    }
}

/// `SAMPLE(IP, 0x1): 15791/15791: 0xffffffff81b759be period: 100000 addr: 0`
/// and the ` ... thread: comm:tid` line after it.
fn sample_line(rest: &str, next: Option<&str>) -> DumpSample {
    let rest = rest.split_once("): ").map_or(rest, |(_, r)| r);
    let mut it = rest.split_whitespace();
    let (pid, tid) = it
        .next()
        .unwrap()
        .trim_end_matches(':')
        .split_once('/')
        .unwrap();
    let ip = num(it.next().unwrap());
    let mut period = 0;
    let mut addr = 0;
    while let Some(k) = it.next() {
        match k {
            "period:" => period = it.next().unwrap().parse().unwrap(),
            "addr:" => addr = num(it.next().unwrap()),
            _ => {}
        }
    }
    let comm = next
        .and_then(|l| l.strip_prefix(" ... thread: "))
        .and_then(|l| l.rsplit_once(':'))
        .map_or_else(String::new, |(c, _)| c.to_owned());
    DumpSample {
        pid: pid.parse().unwrap(),
        tid: tid.parse().unwrap(),
        ip,
        period,
        addr,
        comm,
    }
}

/// A sample as `perf script -F comm,pid,tid[,cpu],time,period,event,ip --ns` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub comm: String,
    pub pid: i32,
    pub tid: i32,
    pub cpu: Option<u32>,
    pub time: u64,
    pub period: u64,
    pub event: String,
    pub ip: u64,
}

/// `perf script -F comm,pid,tid[,cpu],time,period,event,ip --ns`.
pub fn fields(dir: &Path, file: &str, cpu: bool) -> Vec<Line> {
    let f = if cpu {
        "comm,pid,tid,cpu,time,period,event,ip"
    } else {
        "comm,pid,tid,time,period,event,ip"
    };
    let out = perf(dir, &["script", "--ns", "-F", f, "-i", file]);
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_line(l, cpu))
        .collect()
}

fn parse_line(l: &str, cpu: bool) -> Line {
    // "<comm> <pid>/<tid> [<cpu>] <s>.<ns>: <period> <event>: <ip>"; the
    // comm may hold spaces, so find the pid/tid token from the right of it.
    let toks: Vec<&str> = l.split_whitespace().collect();
    let at = toks
        .iter()
        .rposition(|t| {
            t.split_once('/')
                .is_some_and(|(a, b)| a.parse::<i32>().is_ok() && b.parse::<i32>().is_ok())
                && !t.ends_with(':')
        })
        .unwrap_or_else(|| panic!("no pid/tid in {l:?}"));
    let comm = toks[..at].join(" ");
    let (pid, tid) = toks[at].split_once('/').unwrap();
    let mut i = at + 1;
    let cpu = cpu.then(|| {
        i += 1;
        toks[i - 1]
            .trim_matches(|c| c == '[' || c == ']')
            .parse()
            .unwrap()
    });
    let (s, ns) = toks[i].trim_end_matches(':').split_once('.').unwrap();
    let time = s.parse::<u64>().unwrap() * 1_000_000_000 + ns.parse::<u64>().unwrap();
    let period = toks[i + 1].parse().unwrap();
    let event = toks[i + 2].trim_end_matches(':').to_owned();
    let ip = u64::from_str_radix(toks[i + 3], 16).unwrap();
    Line {
        comm,
        pid: pid.parse().unwrap(),
        tid: tid.parse().unwrap(),
        cpu,
        time,
        period,
        event,
        ip,
    }
}

/// The perf script (Python) that prints every tracepoint sample with its
/// fields.
const FIELDS_PY: &str = r#"
import json, sys
def enc(v):
    if isinstance(v, str):
        return "s:" + v.encode("utf-8", "surrogateescape").hex()
    if isinstance(v, (bytes, bytearray)):
        return "b:" + bytes(v).hex()
    if isinstance(v, int):
        return "i:%d" % v
    return "?:%r" % (v,)
def trace_unhandled(event_name, context, fields, sample):
    s = sample["sample"]
    out = [sample["ev_name"], s["pid"], s["tid"], s["cpu"], s["time"], s["period"], s["ip"], sample.get("comm", "")]
    names = [k for k in fields if not k.startswith("common_")]
    out.append([[k, enc(fields[k])] for k in names])
    sys.stdout.write(json.dumps(out) + "\n")
"#;

/// A tracepoint sample as perf's Python scripting sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptSample {
    pub event: String,
    pub pid: i32,
    pub tid: i32,
    pub cpu: u32,
    pub time: u64,
    pub period: u64,
    pub ip: u64,
    pub comm: String,
    pub fields: Vec<(String, FieldValue)>,
}

/// `perf script -s` with [`FIELDS_PY`]: every tracepoint sample.
pub fn script_fields(dir: &Path, file: &str) -> Vec<ScriptSample> {
    let script = dir.join("fields.py");
    std::fs::write(&script, FIELDS_PY).unwrap();
    let out = perf(dir, &["script", "-s", script.to_str().unwrap(), "-i", file]);
    out.lines()
        .filter(|l| l.starts_with('['))
        .map(|l| {
            let v = json(l);
            let arr = v.as_array();
            let s = |i: usize| arr[i].as_str().to_owned();
            let n = |i: usize| arr[i].as_num();
            ScriptSample {
                event: s(0),
                pid: n(1) as i32,
                tid: n(2) as i32,
                cpu: n(3) as u32,
                time: n(4) as u64,
                period: n(5) as u64,
                ip: n(6) as u64,
                comm: s(7),
                fields: arr[8]
                    .as_array()
                    .iter()
                    .map(|kv| {
                        (
                            kv.as_array()[0].as_str().to_owned(),
                            FieldValue::parse(kv.as_array()[1].as_str()),
                        )
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The JSON the scripts print (lists, strings, integers): parsed by hand
/// to need no crate.
#[derive(Debug, Clone)]
pub enum Json {
    Arr(Vec<Json>),
    Str(String),
    Num(i128),
}

impl Json {
    pub fn as_array(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            j => panic!("not an array: {j:?}"),
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            j => panic!("not a string: {j:?}"),
        }
    }
    pub fn as_num(&self) -> i128 {
        match self {
            Json::Num(n) => *n,
            j => panic!("not a number: {j:?}"),
        }
    }
}

pub fn json(s: &str) -> Json {
    let b = s.as_bytes();
    let mut i = 0;
    value(b, &mut i)
}

fn ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && (b[*i] == b' ' || b[*i] == b',') {
        *i += 1;
    }
}

fn value(b: &[u8], i: &mut usize) -> Json {
    ws(b, i);
    match b[*i] {
        b'[' => {
            *i += 1;
            let mut v = Vec::new();
            loop {
                ws(b, i);
                if b[*i] == b']' {
                    *i += 1;
                    return Json::Arr(v);
                }
                v.push(value(b, i));
            }
        }
        b'"' => {
            *i += 1;
            let mut s = String::new();
            while b[*i] != b'"' {
                if b[*i] == b'\\' {
                    *i += 1;
                    match b[*i] {
                        b'u' => {
                            let code = u32::from_str_radix(
                                std::str::from_utf8(&b[*i + 1..*i + 5]).unwrap(),
                                16,
                            )
                            .unwrap();
                            s.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                            *i += 4;
                        }
                        b'n' => s.push('\n'),
                        b't' => s.push('\t'),
                        c => s.push(c as char),
                    }
                } else {
                    s.push(b[*i] as char);
                }
                *i += 1;
            }
            *i += 1;
            Json::Str(s)
        }
        _ => {
            let start = *i;
            while *i < b.len() && (b[*i] == b'-' || b[*i].is_ascii_digit()) {
                *i += 1;
            }
            Json::Num(std::str::from_utf8(&b[start..*i]).unwrap().parse().unwrap())
        }
    }
}

/// `perf script` on a `perf stat record` file: (cpu, thread, val, ena,
/// run, time, event) per line.
pub fn stat_lines(dir: &Path, file: &str) -> Vec<(i32, i32, u64, u64, u64, u64, String)> {
    let out = perf(dir, &["script", "-i", file]);
    out.lines()
        .filter(|l| !l.starts_with("CPU") && !l.trim().is_empty())
        .map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            (
                t[0].parse().unwrap(),
                t[1].parse().unwrap(),
                t[2].parse().unwrap(),
                t[3].parse().unwrap(),
                t[4].parse().unwrap(),
                t[5].parse().unwrap(),
                t[6..].join(" "),
            )
        })
        .collect()
}

/// `perf report --header-only`: the `# key : value` lines.
pub fn header(dir: &Path, file: &str) -> Vec<(String, String)> {
    let out = perf(dir, &["report", "--header-only", "-i", file]);
    out.lines()
        .filter_map(|l| l.strip_prefix("# "))
        .filter_map(|l| l.split_once(" : "))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

/// The event names `perf report --header-only` lists (`# event : name = …, `).
pub fn perf_event_names(dir: &Path, file: &str) -> Vec<String> {
    let out = perf(dir, &["report", "--header-only", "-i", file]);
    out.lines()
        .filter_map(|l| l.strip_prefix("# event : name = "))
        .map(|l| l.split_once(", ").map_or(l, |(n, _)| n).to_owned())
        .collect()
}

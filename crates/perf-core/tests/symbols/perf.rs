// SPDX-License-Identifier: GPL-2.0-only
//! Building workloads and running the real perf 6.1 on them. Every
//! recording has its own HOME, so perf's build-id cache (`~/.debug`) is the
//! recording's own and other users of the machine's cache are not touched.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use perf_core::symbol::build_id::BuildIdCache;
use perf_core::symbol::conf::SymbolConf;

/// A directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "perfpy-symbols-{}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed),
            tag
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("PERF_SYMBOLS_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// The committed workload sources.
pub fn source(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/symbols")
        .join(name)
}

/// Runs a command, panicking with its output if it fails.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Why these tests cannot run here, if they cannot.
pub fn unavailable() -> Option<String> {
    // Root: perf record -a and writing /usr/lib/debug need it.
    let uid = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(str::to_owned))
        .unwrap_or_default();
    if uid.split_whitespace().nth(1) != Some("0") {
        return Some("not root".into());
    }
    if Command::new("perf").arg("version").output().is_err() {
        return Some("no perf".into());
    }
    None
}

/// A perf.data file with its own HOME (and so its own build-id cache).
pub struct Recording {
    pub dir: TempDir,
    pub data: PathBuf,
}

impl Recording {
    pub fn home(&self) -> PathBuf {
        self.dir.0.join("home")
    }

    fn perf(&self) -> Command {
        let mut c = Command::new("perf");
        c.env("HOME", self.home()).env_remove("PERF_BUILDID_DIR");
        c
    }

    /// `perf record -g -e cpu-clock <extra> -o data -- cmd`.
    pub fn record(dir: TempDir, extra: &[&str], cmd: &[&str]) -> Recording {
        let rec = Recording {
            data: dir.0.join("perf.data"),
            dir,
        };
        std::fs::create_dir_all(rec.home()).expect("home");
        let mut c = rec.perf();
        c.args(["record", "-q", "-g", "-e", "cpu-clock", "-F", "2999"])
            .args(extra)
            .arg("-o")
            .arg(&rec.data)
            .arg("--")
            .args(cmd)
            .stdout(Stdio::null());
        run(&mut c);
        rec
    }

    /// `perf script -i data <args>`.
    pub fn script(&self, args: &[&str]) -> String {
        let mut c = self.perf();
        c.arg("script").arg("-i").arg(&self.data).args(args);
        run(&mut c)
    }

    /// `perf script -i data <args>`, also when perf dies of SIGPIPE part
    /// way (perf 6.1 writes to an `addr2line` that has exited, for example
    /// on an object that no longer exists): the output up to its last
    /// complete line, and whether perf died.
    pub fn script_until_sigpipe(&self, args: &[&str]) -> (String, bool) {
        use std::os::unix::process::ExitStatusExt;
        let mut c = self.perf();
        c.arg("script")
            .arg("-i")
            .arg(&self.data)
            .args(args)
            .stdin(Stdio::null());
        let out = c.output().unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let died = out.status.signal() == Some(13);
        assert!(out.status.success() || died, "{c:?} failed: {}", out.status);
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        if died {
            let keep = text.rfind('\n').map_or(0, |i| i + 1);
            text.truncate(keep);
        }
        (text, died)
    }

    /// The symbol sources perf script uses for this recording.
    pub fn conf(&self) -> SymbolConf {
        SymbolConf {
            buildid_cache: BuildIdCache::new(self.home().join(".debug")),
            ..SymbolConf::default()
        }
    }
}

/// Compiles `src` with `compiler` and `flags` into `dir/out`.
pub fn build(dir: &Path, compiler: &str, src: &str, flags: &[&str], out: &str) -> PathBuf {
    let exe = dir.join(out);
    let mut c = Command::new(compiler);
    c.args(flags).arg(source(src)).arg("-o").arg(&exe);
    run(&mut c);
    exe
}

/// libiberty's `cplus_demangle(name, DMGL_NO_OPTS)` (what perf calls), from
/// the oracle in tests/data/symbols/libiberty_demangle.c, built once.
pub fn libiberty_demangle(name: &str) -> Option<String> {
    use std::io::Write;
    use std::sync::OnceLock;
    static ORACLE: OnceLock<Option<PathBuf>> = OnceLock::new();
    let exe = ORACLE.get_or_init(|| {
        let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libiberty_demangle");
        let ok = Command::new("gcc")
            .arg("-O2")
            .arg(source("libiberty_demangle.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-liberty")
            .status()
            .ok()?
            .success();
        ok.then_some(exe)
    });
    let mut child = Command::new(exe.as_ref()?)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    child
        .stdin
        .take()?
        .write_all(format!("{name}\n").as_bytes())
        .ok()?;
    let out = child.wait_with_output().ok()?;
    let line = String::from_utf8_lossy(&out.stdout)
        .trim_end_matches('\n')
        .to_owned();
    (line != "\u{1}").then_some(line)
}

// SPDX-License-Identifier: GPL-2.0-only
//! Where symbols come from: perf's `symbol_conf` for symbol sources.

use std::path::{Path, PathBuf};

use super::build_id::{BuildId, BuildIdCache};

/// The symbol sources (the session's `vmlinux=`, `kallsyms=`, `symfs=`
/// keywords and perf's defaults).
#[derive(Debug, Clone)]
pub struct SymbolConf {
    /// `--symfs`: a directory prefixed to every path looked up. Empty for
    /// none (perf treats `/` as none too).
    pub symfs: PathBuf,
    /// The build-id cache (`~/.debug`, or `<symfs>/.debug` with a symfs).
    pub buildid_cache: BuildIdCache,
    /// `--vmlinux`: kernel symbols from this ELF file only.
    pub vmlinux: Option<PathBuf>,
    /// `--kallsyms`: kernel symbols from this kallsyms file only.
    pub kallsyms: Option<PathBuf>,
    /// Demangle user-space names (perf's default: on).
    pub demangle: bool,
    /// `symbol_conf.inline_name`: call chains get a frame for each
    /// inlined function holding a frame's address (perf script's default;
    /// the Python session's is false).
    pub inline_name: bool,
    /// The kernel release the file was recorded on (its OSRELEASE
    /// feature), for the vmlinux search path; the running release if
    /// unknown.
    pub os_release: Option<String>,
    /// The running kernel's build id (from /sys/kernel/notes), which
    /// decides whether /proc/kallsyms describes the recorded kernel.
    pub running_kernel: Option<BuildId>,
    /// Where the running kernel's symbols are (`/proc/kallsyms`).
    pub proc_kallsyms: PathBuf,
}

impl Default for SymbolConf {
    fn default() -> Self {
        SymbolConf {
            symfs: PathBuf::new(),
            buildid_cache: BuildIdCache::new(BuildIdCache::default_dir()),
            vmlinux: None,
            kallsyms: None,
            demangle: true,
            inline_name: false,
            os_release: None,
            running_kernel: BuildId::running_kernel(),
            proc_kallsyms: PathBuf::from("/proc/kallsyms"),
        }
    }
}

impl SymbolConf {
    /// perf's defaults with a symfs (`symbol__config_symfs`: the build-id
    /// cache moves to `<symfs>/.debug`; `/` means none).
    pub fn with_symfs(symfs: impl Into<PathBuf>) -> Self {
        let mut conf = SymbolConf::default();
        conf.set_symfs(symfs);
        conf
    }

    /// The symbol sources a Python session is given: each keyword
    /// (`vmlinux=`, `kallsyms=`, `symfs=`), else its environment variable
    /// (`PERF_SYMBOL_VMLINUX`, `PERF_SYMBOL_KALLSYMS`, `PERF_SYMBOL_SYMFS`,
    /// as upstream's session reads them; empty means unset), else perf's
    /// default.
    pub fn from_keywords(
        vmlinux: Option<PathBuf>,
        kallsyms: Option<PathBuf>,
        symfs: Option<PathBuf>,
    ) -> Self {
        let env = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let mut conf = SymbolConf::default();
        if let Some(dir) = symfs.or_else(|| env("PERF_SYMBOL_SYMFS")) {
            conf.set_symfs(dir);
        }
        conf.vmlinux = vmlinux.or_else(|| env("PERF_SYMBOL_VMLINUX"));
        conf.kallsyms = kallsyms.or_else(|| env("PERF_SYMBOL_KALLSYMS"));
        conf
    }

    /// Sets the symfs as `--symfs` does.
    pub fn set_symfs(&mut self, symfs: impl Into<PathBuf>) {
        let symfs = symfs.into();
        self.buildid_cache = BuildIdCache::new(symfs.join(".debug"));
        let real = std::fs::canonicalize(&symfs).unwrap_or_else(|_| symfs.clone());
        self.symfs = if real == Path::new("/") {
            PathBuf::new()
        } else {
            symfs
        };
    }

    /// `__symbol__join_symfs`: `<symfs>/<path>` (perf's `path__join` puts
    /// a `/` between them even when `path` starts with one).
    pub fn join_symfs(&self, path: &Path) -> PathBuf {
        if self.symfs.as_os_str().is_empty() {
            return path.to_path_buf();
        }
        let mut joined = self.symfs.clone().into_os_string();
        joined.push("/");
        joined.push(path.as_os_str());
        PathBuf::from(joined)
    }

    /// The kernel release used in the vmlinux search path.
    pub fn kernel_release(&self) -> Option<String> {
        self.os_release.clone().or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .ok()
                .map(|s| s.trim_end().to_owned())
        })
    }

    /// `vmlinux_path__init`: the places perf looks for a vmlinux.
    pub fn vmlinux_path(&self) -> Vec<PathBuf> {
        let mut paths = vec![PathBuf::from("vmlinux"), PathBuf::from("/boot/vmlinux")];
        if !self.symfs.as_os_str().is_empty() {
            return paths;
        }
        if let Some(rel) = self.kernel_release() {
            for f in [
                format!("/boot/vmlinux-{rel}"),
                format!("/usr/lib/debug/boot/vmlinux-{rel}"),
                format!("/lib/modules/{rel}/build/vmlinux"),
                format!("/usr/lib/debug/lib/modules/{rel}/vmlinux"),
                format!("/usr/lib/debug/boot/vmlinux-{rel}.debug"),
            ] {
                paths.push(PathBuf::from(f));
            }
        }
        paths
    }
}

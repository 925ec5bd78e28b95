// SPDX-License-Identifier: GPL-2.0-only
//! Test helpers: the checked-in fixtures and a self-deleting temporary
//! directory (no extra crate needed).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory under the system temp dir, removed on drop.
pub(crate) struct TempTree(PathBuf);

impl TempTree {
    pub(crate) fn new(tag: &str) -> TempTree {
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!(
            "perf-core-tracefs-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).ok();
        TempTree(p)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `rel`, creating parent directories.
    pub(crate) fn write(&self, rel: &str, text: &str) {
        let p = self.0.join(rel);
        if let Some(dir) = p.parent() {
            std::fs::create_dir_all(dir).ok();
        }
        std::fs::write(p, text).ok();
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `testdata/`, the fake tracefs tree of fixtures.
pub(crate) fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tracefs/testdata")
}

/// The text of the fixture `testdata/events/<sys>/<name>/format`.
pub(crate) fn fixture(sys: &str, name: &str) -> String {
    let path = testdata().join(format!("events/{sys}/{name}/format"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

//! Helpers shared by the test files of idlc and idlc-cli (cli/tests/ includes this file): where
//! the schemas are, and temporary directories.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The seed examples, beside the project.
pub const SEED_EXAMPLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/seed-examples/");
/// The project's own schemas.
pub const SCHEMAS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../schemas/");

/// The path of a seed example.
pub fn seed(name: &str) -> String {
    format!("{SEED_EXAMPLES}{name}")
}

/// The path of one of the project's schemas.
pub fn schema(name: &str) -> String {
    format!("{SCHEMAS}{name}")
}

/// A fresh directory under the system's temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new, empty directory.
    pub fn new() -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let test = std::env::current_exe()
            .ok()
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_default();
        let path = std::env::temp_dir().join(format!("idlc-{test}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create a temp dir");
        TempDir(path)
    }

    /// Writes `content` to `name` inside the directory and returns its path.
    pub fn file(&self, name: &str, content: impl AsRef<[u8]>) -> String {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a temp subdir");
        }
        std::fs::write(&path, content).expect("write a temp file");
        path.to_string_lossy().into_owned()
    }

    /// Copies the file at `from` to `name` inside the directory.
    pub fn copy(&self, from: &str, name: &str) -> String {
        self.file(name, std::fs::read(from).expect("read a schema"))
    }

    /// The text of `name` inside the directory.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).expect("read a generated file")
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

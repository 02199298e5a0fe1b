//! Which files a document is compiled with, and the compiler's view of the editor's buffers.
//!
//! A document's companions are the files of the `idlc.toml` at the workspace's root, compiled
//! once per side as `idlc check` does; a document that none of them reads is compiled with the
//! files beside it (and the open documents there). Open documents are read from the editor's text, every other
//! file from disk.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use crate::Inputs;
use crate::cli::inputs::{InputArgs, Sides};
use crate::config::{self, Config};
use crate::fmt::language_of;
use crate::front::lexer::Language;
use crate::load::{FileSystem, RealFs};

/// The real file system, with the open documents' text in place of what is on disk.
#[derive(Debug)]
pub struct Overlay<'a> {
    /// The open documents, by canonical path.
    pub open: &'a HashMap<PathBuf, String>,
}

impl FileSystem for Overlay<'_> {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.open.get(&RealFs.canonicalize(path)) {
            Some(text) => Ok(text.clone().into_bytes()),
            None => RealFs.read(path),
        }
    }

    fn canonicalize(&self, path: &Path) -> PathBuf {
        RealFs.canonicalize(path)
    }
}

/// The compilations of `root`'s idlc.toml, one per side, as `idlc check` runs them (none without
/// one, or when it cannot be read).
pub fn project(root: Option<&Path>) -> Vec<Inputs> {
    let Some(config) = root
        .map(|root| root.join(config::FILE_NAME))
        .filter(|path| path.is_file())
        .and_then(|path| Config::load(&path).ok())
    else {
        return Vec::new();
    };
    InputArgs::default()
        .targets_from(&config, Sides::All)
        .map(|targets| targets.into_iter().map(|target| target.inputs).collect())
        .unwrap_or_default()
}

/// The inputs to compile `document` with when no project holds it: the files beside it and the
/// `open` documents, `document` always among them.
pub fn alone<'a>(document: &Path, open: impl Iterator<Item = &'a PathBuf>) -> Inputs {
    let mut inputs = Inputs::default();
    let mut files = beside(document);
    files.extend(
        open.filter(|path| path.parent() == document.parent())
            .cloned(),
    );
    files.push(document.to_path_buf());
    let mut seen = Vec::new();
    for file in files {
        let key = RealFs.canonicalize(&file);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        match language_of(&file) {
            Some(Language::Idl) => inputs.idl.push(file),
            Some(Language::Encoding) => inputs.encodings.push(file),
            Some(Language::Mapping) => inputs.mappings.push(file),
            None => {}
        }
    }
    inputs
}

/// The schema files in the directory of `document`, in name order.
fn beside(document: &Path) -> Vec<PathBuf> {
    let Some(dir) = document.parent() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && language_of(path).is_some())
        .collect();
    files.sort();
    files
}

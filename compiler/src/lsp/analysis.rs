//! One analysis of a document's project: its compilations (each with its syntax trees), their
//! diagnostics, and the symbol index made from them on first use.
//!
//! The server makes one after every change and answers every request from it until the next.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use lsp_types::Url;

use super::index::Index;
use super::{diagnostics, project};
use crate::Compilation;
use crate::load::{FileSystem, Parsed, RealFs};

/// The compilations of a document's project.
#[derive(Debug)]
pub struct Analysis {
    /// Each compilation with its parsed files: one per side of the project, and the document's
    /// own when no side reads it.
    pub compiled: Vec<(Compilation, Parsed)>,
    index: OnceCell<Index>,
}

impl Analysis {
    /// Compiles the project of `document`: the sides of `root`'s idlc.toml (as `idlc check`
    /// does), and `document` with the files beside it when none of them reads it. `open` is the
    /// editor's text of the open documents, by canonical path. A compilation that panicked (a
    /// bug of idlc) or could not read a named file is left out and reported in the log.
    pub fn new(root: Option<&Path>, document: &Path, open: &HashMap<PathBuf, String>) -> Self {
        let overlay = project::Overlay { open };
        let compile = |inputs: &crate::Inputs| {
            let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::compile_every_side_parsed(inputs, &overlay)
            }));
            match compiled {
                Ok(Ok(compiled)) => Some(compiled),
                Ok(Err(error)) => {
                    eprintln!("idlc lsp: {error}");
                    None
                }
                Err(_) => {
                    eprintln!("idlc lsp: the compiler panicked (a bug of idlc)");
                    None
                }
            }
        };
        let mut analysis = Analysis {
            compiled: project::project(root).iter().filter_map(compile).collect(),
            index: OnceCell::new(),
        };
        if !analysis.covers(document) {
            analysis
                .compiled
                .extend(compile(&project::alone(document, open.keys())));
        }
        analysis
    }

    /// Whether a compilation reads `path`.
    pub fn covers(&self, path: &Path) -> bool {
        self.source(path).is_some()
    }

    /// The text of `path` as compiled (the editor's, when it is open).
    pub fn source(&self, path: &Path) -> Option<&str> {
        let key = RealFs.canonicalize(path);
        self.compiled.iter().find_map(|(compilation, _)| {
            let sources = &compilation.sources;
            (0..sources.len())
                .find(|&file| RealFs.canonicalize(sources.path(file)) == key)
                .map(|file| sources.source(file))
        })
    }

    /// The diagnostics of every file compiled, by file (each diagnostic once).
    pub fn diagnostics(&self) -> BTreeMap<Url, Vec<lsp_types::Diagnostic>> {
        let mut all: BTreeMap<Url, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        for (compilation, _) in &self.compiled {
            for (uri, found) in diagnostics::by_file(&compilation.sources, &compilation.diagnostics)
            {
                let known = all.entry(uri).or_default();
                for diagnostic in found {
                    if !known.contains(&diagnostic) {
                        known.push(diagnostic);
                    }
                }
            }
        }
        all
    }

    /// The symbol index of every compilation.
    pub fn index(&self) -> &Index {
        self.index
            .get_or_init(|| Index::new(self.compiled.iter().map(|(c, p)| (c, p))))
    }

    /// Every compilation, those without errors (a complete IR) first.
    pub fn best_first(&self) -> impl Iterator<Item = &Compilation> {
        self.complete().chain(
            self.compiled
                .iter()
                .map(|(compilation, _)| compilation)
                .filter(|compilation| compilation.has_errors()),
        )
    }

    /// The compilations without errors: their IR is complete.
    pub fn complete(&self) -> impl Iterator<Item = &Compilation> {
        self.compiled
            .iter()
            .map(|(compilation, _)| compilation)
            .filter(|compilation| !compilation.has_errors())
    }
}

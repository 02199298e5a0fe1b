//! Both versions compiled into one [`SourceMap`], through the same entry points as
//! [`crate::compile_with`] (load, then resolve), so that one diagnostic can point into OLD and
//! NEW at once.

use std::collections::HashMap;

use crate::Inputs;
use crate::diagnostics::{Diagnostic, FileId, SourceMap, has_errors};
use crate::ir::Ir;
use crate::load::{self, FileSystem, LoadError};

/// OLD and NEW, compiled.
#[derive(Debug)]
pub struct Pair {
    /// The files of both versions (OLD's first).
    pub sources: SourceMap,
    /// Errors and warnings of both compilations (those of a file both read, once).
    pub diagnostics: Vec<Diagnostic>,
    /// OLD's IR; complete only when there are no errors.
    pub old: Ir,
    /// NEW's IR; complete only when there are no errors.
    pub new: Ir,
    /// The files read for OLD.
    pub old_files: Vec<FileId>,
    /// The files read for NEW (where `// idlc:allow` comments are looked for).
    pub new_files: Vec<FileId>,
}

impl Pair {
    /// Whether either version has errors.
    pub fn has_errors(&self) -> bool {
        has_errors(&self.diagnostics)
    }
}

/// Compiles `old` through `old_fs` and `new` through `new_fs`. Fails only when a file named in
/// the inputs cannot be read; every problem inside the files is a diagnostic.
pub fn compile_pair(
    old: &Inputs,
    old_fs: &dyn FileSystem,
    new: &Inputs,
    new_fs: &dyn FileSystem,
) -> Result<Pair, LoadError> {
    let mut sources = SourceMap::new();
    let (old_parsed, mut diagnostics) = load::load(&mut sources, old, old_fs)?;
    let (old_ir, resolved) = crate::resolve::resolve(&old_parsed, old.side.as_deref());
    diagnostics.extend(resolved);
    let old_files: Vec<FileId> = (0..sources.len()).collect();

    let (new_parsed, mut new_diagnostics) = load::load(&mut sources, new, new_fs)?;
    let (new_ir, resolved) = crate::resolve::resolve(&new_parsed, new.side.as_deref());
    new_diagnostics.extend(resolved);
    let new_files: Vec<FileId> = (old_files.len()..sources.len()).collect();

    // A file both versions read (a `--with` file, an unchanged IMPORT) gives its diagnostics
    // twice; keep OLD's.
    let same: HashMap<FileId, FileId> = new_files
        .iter()
        .filter_map(|&n| {
            old_files
                .iter()
                .find(|&&o| {
                    sources.path(o) == sources.path(n) && sources.source(o) == sources.source(n)
                })
                .map(|&o| (n, o))
        })
        .collect();
    for diagnostic in new_diagnostics {
        let mut as_old = diagnostic.clone();
        let mut all_shared = true;
        for label in &mut as_old.labels {
            match same.get(&label.file_id) {
                Some(&o) => label.file_id = o,
                None => all_shared = false,
            }
        }
        if !(all_shared && diagnostics.contains(&as_old)) {
            diagnostics.push(diagnostic);
        }
    }
    Ok(Pair {
        sources,
        diagnostics,
        old: old_ir,
        new: new_ir,
        old_files,
        new_files,
    })
}

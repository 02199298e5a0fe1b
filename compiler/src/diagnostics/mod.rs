//! Diagnostics: the source files they point into, how they are collected and rendered.
//!
//! Library code only collects [`Diagnostic`]s; rendering happens at the edge (the CLI, tests).

pub mod codes;
pub mod suggest;
pub mod text_diff;

use codespan_reporting::diagnostic::{Label, Severity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config};
use std::path::{Path, PathBuf};

use crate::front::span::Span;

/// Identifies one source file in a [`SourceMap`].
pub type FileId = usize;

/// A diagnostic pointing into files of a [`SourceMap`].
pub type Diagnostic = codespan_reporting::diagnostic::Diagnostic<FileId>;

/// The source files of one compilation: their display names, paths and text.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: SimpleFiles<String, String>,
    paths: Vec<PathBuf>,
}

impl SourceMap {
    /// An empty source map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a file; `path` is where it was read from (used to resolve IMPORTs), and its display
    /// form is the name diagnostics show.
    pub fn add(&mut self, path: impl AsRef<Path>, source: impl Into<String>) -> FileId {
        let path = path.as_ref();
        self.paths.push(path.to_path_buf());
        self.files
            .add(path.display().to_string().replace('\\', "/"), source.into())
    }

    /// The text of a file.
    pub fn source(&self, file: FileId) -> &str {
        self.files
            .get(file)
            .map(|f| f.source().as_str())
            .unwrap_or("")
    }

    /// The path a file was read from.
    pub fn path(&self, file: FileId) -> &Path {
        self.paths
            .get(file)
            .map(PathBuf::as_path)
            .unwrap_or(Path::new(""))
    }

    /// The file already added from `path`, if any.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.paths.iter().position(|p| p == path)
    }

    /// The number of files.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether there are no files.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The text under `span` in `file`, or "" when the span is out of bounds.
    pub fn text(&self, file: FileId, span: Span) -> &str {
        self.source(file).get(span.range()).unwrap_or("")
    }

    /// The codespan file database, for rendering.
    pub fn files(&self) -> &SimpleFiles<String, String> {
        &self.files
    }

    /// Renders diagnostics as plain text (no colour), as a snapshot test wants them.
    pub fn render_plain(&self, diagnostics: &[Diagnostic]) -> String {
        let config = Config::default();
        let mut out = String::new();
        for diagnostic in diagnostics {
            // A diagnostic whose spans fall outside their file is a bug of ours; render what we
            // can rather than fail.
            if term::emit_to_string(&mut out, &config, &self.files, diagnostic).is_err() {
                out.push_str(&diagnostic.message);
                out.push('\n');
            }
        }
        out
    }
}

/// A primary label at `span` of `file`.
pub fn primary(file: FileId, span: Span) -> Label<FileId> {
    Label::primary(file, span.range())
}

/// A secondary label at `span` of `file`.
pub fn secondary(file: FileId, span: Span) -> Label<FileId> {
    Label::secondary(file, span.range())
}

/// Whether any of the diagnostics is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(|d| d.severity >= Severity::Error)
}

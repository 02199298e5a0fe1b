//! Loading: reads the files of a compilation, follows IMPORTs, and parses each file with its
//! front end.
//!
//! Files are read through a [`FileSystem`], so tests can compile from memory ([`MemoryFs`]).
//! Only a file *named in the [`Inputs`]* that cannot be read stops loading (a [`LoadError`]:
//! the CLI exits 2). Everything wrong *inside* the inputs is a diagnostic:
//!
//! - an IMPORT of a file that cannot be read: [`codes::IMPORT_UNREADABLE`], at the import's
//!   string literal, naming the path it resolved to;
//! - a file that is not UTF-8: [`codes::NOT_UTF8`], at the first invalid byte (the file is then
//!   not parsed).
//!
//! A leading UTF-8 byte-order mark is dropped before parsing.
//!
//! # Order
//!
//! IDL files are loaded depth-first, in pre-order: each named file, then the files it imports
//! (recursively, in the order its IMPORTs are written), then the next named file. A file is
//! loaded once, the first time it is reached; reaching it again (a diamond, a cycle, a named
//! file that another one already imported) adds nothing. [`Parsed::idl`] is in that order, and
//! so are the [`FileId`]s. Encoding and Mapping files keep the order they are named in (each
//! once).
//!
//! # Paths
//!
//! An IMPORT path is relative to the directory of the importing file (an absolute path stays
//! absolute). Diagnostics show paths as joined and lexically normalized (`schemas/a/../item.idl`
//! shows as `schemas/item.idl`); whether two paths are the same file is decided by
//! [`FileSystem::canonicalize`] (for [`RealFs`], the operating system's canonical path, so
//! symbolic links and different spellings of one file are one file).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;

use crate::Inputs;
use crate::diagnostics::{Diagnostic, FileId, SourceMap, codes, primary, secondary};
use crate::front::span::Span;
use crate::front::{self, enc::ast::EncFile, idl::ast::IdlFile, map::ast::MapFile};

/// The parsed files of one compilation.
#[derive(Debug, Default)]
pub struct Parsed {
    /// IDL files, those named and those imported, each once, in the order described in the
    /// [module documentation](self) (depth-first, importer before its imports).
    pub idl: Vec<(FileId, IdlFile)>,
    /// Encoding files, in the order named.
    pub encodings: Vec<(FileId, EncFile)>,
    /// Mapping files, in the order named.
    pub mappings: Vec<(FileId, MapFile)>,
}

/// A file named in the inputs could not be read.
#[derive(Debug)]
pub struct LoadError {
    /// The file, as named.
    pub path: PathBuf,
    /// Why it could not be read.
    pub error: io::Error,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read `{}`: {}", self.path.display(), self.error)
    }
}

// The io error is part of the message (Display), so it is not repeated as `source()`.
impl std::error::Error for LoadError {}

/// Where files come from.
pub trait FileSystem {
    /// The whole content of the file at `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// The key under which `path` is loaded once: two paths with the same key are the same
    /// file. The default normalizes `path` lexically (see [`normalize`]).
    fn canonicalize(&self, path: &Path) -> PathBuf {
        normalize(path)
    }
}

/// The real file system.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

/// The largest file the real file system reads: far beyond any schema, and a bound for what is
/// not a file of text (`IMPORT "/dev/zero";` would read until memory runs out).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

impl FileSystem for RealFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        use std::io::Read as _;
        let mut bytes = Vec::new();
        std::fs::File::open(path)?
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("larger than {} MiB", MAX_FILE_BYTES >> 20),
            ));
        }
        Ok(bytes)
    }

    fn canonicalize(&self, path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
    }
}

/// An in-memory file system for tests: a map from (lexically normalized) paths to bytes.
#[derive(Debug, Clone, Default)]
pub struct MemoryFs {
    files: HashMap<PathBuf, Vec<u8>>,
}

impl MemoryFs {
    /// An empty file system.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) the file at `path`.
    pub fn insert(&mut self, path: impl AsRef<Path>, content: impl Into<Vec<u8>>) {
        self.files.insert(normalize(path.as_ref()), content.into());
    }

    /// Builder form of [`MemoryFs::insert`].
    pub fn with(mut self, path: impl AsRef<Path>, content: impl Into<Vec<u8>>) -> Self {
        self.insert(path, content);
        self
    }
}

impl FileSystem for MemoryFs {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.files.get(&normalize(path)).cloned().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                "no such file in the memory file system",
            )
        })
    }
}

/// Normalizes `path` lexically: drops `.` components and folds `dir/..`, without touching the
/// file system. Leading `..` components of a relative path are kept; `..` at the root is
/// dropped. An empty result is `.`.
pub fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match parts.last() {
                Some(Component::Normal(_)) => {
                    parts.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => parts.push(component),
            },
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return PathBuf::from(".");
    }
    parts.iter().collect()
}

/// Where an imported file was imported from.
#[derive(Debug, Clone, Copy)]
struct ImportSite {
    file: FileId,
    /// The span of the import's string literal.
    span: Span,
}

/// Reads and parses `inputs` through `fs`, adding every file read to `sources`.
///
/// Fails only when a file named in `inputs` cannot be read; every problem inside the files
/// (syntax errors, unreadable IMPORTs, text that is not UTF-8) is a diagnostic.
pub fn load(
    sources: &mut SourceMap,
    inputs: &Inputs,
    fs: &dyn FileSystem,
) -> Result<(Parsed, Vec<Diagnostic>), LoadError> {
    let mut loader = Loader {
        sources,
        fs,
        diagnostics: Vec::new(),
    };
    let mut parsed = Parsed::default();

    let mut seen = HashSet::new();
    // Depth-first, pre-order, with an explicit stack so that a long chain of IMPORTs cannot
    // overflow the call stack. Visiting on pop gives the same order as the recursive walk.
    for named in &inputs.idl {
        let mut stack: Vec<(PathBuf, Option<ImportSite>)> = vec![(named.clone(), None)];
        while let Some((path, site)) = stack.pop() {
            let key = fs.canonicalize(&path);
            if seen.contains(&key) {
                continue;
            }
            let read = loader.read(&path, site)?;
            if !matches!(read, Read::Unreadable) {
                seen.insert(key);
            }
            let Read::Text(file, text) = read else {
                continue;
            };
            let (ast, diagnostics) = front::idl::parse(file, &text);
            loader.note_empty(file, ast.items.is_empty() && diagnostics.is_empty());
            loader.diagnostics.extend(diagnostics);
            let dir = path.parent().unwrap_or(Path::new(""));
            let imports = ast.items.iter().filter_map(|item| match item {
                front::idl::ast::Item::Import(import) => Some(import),
                _ => None,
            });
            let pending: Vec<_> = imports
                .map(|import| {
                    let target = normalize(&dir.join(&import.path.value));
                    let site = ImportSite {
                        file,
                        span: import.path.span,
                    };
                    (target, Some(site))
                })
                .collect();
            stack.extend(pending.into_iter().rev());
            parsed.idl.push((file, ast));
        }
    }

    let mut seen = HashSet::new();
    for path in &inputs.encodings {
        if !seen.insert(fs.canonicalize(path)) {
            continue;
        }
        if let Read::Text(file, text) = loader.read(path, None)? {
            let (ast, diagnostics) = front::enc::parse(file, &text);
            loader.note_empty(file, ast.items.is_empty() && diagnostics.is_empty());
            loader.diagnostics.extend(diagnostics);
            parsed.encodings.push((file, ast));
        }
    }

    let mut seen = HashSet::new();
    for path in &inputs.mappings {
        if !seen.insert(fs.canonicalize(path)) {
            continue;
        }
        if let Read::Text(file, text) = loader.read(path, None)? {
            let (ast, diagnostics) = front::map::parse(file, &text);
            loader.note_empty(file, ast.items.is_empty() && diagnostics.is_empty());
            loader.diagnostics.extend(diagnostics);
            parsed.mappings.push((file, ast));
        }
    }

    Ok((parsed, loader.diagnostics))
}

/// What reading one file gave.
enum Read {
    /// UTF-8 text, added to the source map.
    Text(FileId, String),
    /// Not UTF-8: added to the source map for the diagnostic, not to be parsed.
    NotUtf8,
    /// An import that could not be read (diagnosed).
    Unreadable,
}

struct Loader<'a> {
    sources: &'a mut SourceMap,
    fs: &'a dyn FileSystem,
    diagnostics: Vec<Diagnostic>,
}

impl Loader<'_> {
    /// A warning for a file that parsed and declares nothing (empty, or comments only): it is
    /// most likely not the file that was meant.
    fn note_empty(&mut self, file: FileId, empty: bool) {
        if !empty {
            return;
        }
        self.diagnostics.push(
            CodespanDiagnostic::warning()
                .with_code(codes::EMPTY_FILE)
                .with_message(format!(
                    "`{}` declares nothing",
                    display(self.sources.path(file))
                ))
                .with_labels(vec![
                    primary(file, Span::new(0, 0)).with_message("no item in this file"),
                ])
                .with_notes(vec![
                    "check that this is the file you meant; an empty file changes nothing".into(),
                ]),
        );
    }

    /// Reads `path` and adds it to the source map. `site` is the IMPORT that named it, `None`
    /// for a file named in the inputs. An unreadable import or a file that is not UTF-8 gets a
    /// diagnostic; a file that is not UTF-8 is still added to the source map, so that the
    /// diagnostic can point into it.
    fn read(&mut self, path: &Path, site: Option<ImportSite>) -> Result<Read, LoadError> {
        let bytes = match (self.fs.read(path), site) {
            (Ok(bytes), _) => bytes,
            (Err(error), None) => {
                return Err(LoadError {
                    path: path.to_path_buf(),
                    error,
                });
            }
            (Err(error), Some(site)) => {
                self.diagnostics.push(
                    CodespanDiagnostic::error()
                        .with_code(codes::IMPORT_UNREADABLE)
                        .with_message(format!("cannot read imported file `{}`", display(path)))
                        .with_labels(vec![
                            primary(site.file, site.span).with_message(error.to_string()),
                        ])
                        .with_notes(vec![
                            "an IMPORT path is relative to the directory of the importing file"
                                .to_string(),
                        ]),
                );
                return Ok(Read::Unreadable);
            }
        };
        let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => rest.to_vec(),
            None => bytes,
        };
        match String::from_utf8(bytes) {
            Ok(text) => {
                let file = self.sources.add(path, text.clone());
                Ok(Read::Text(file, text))
            }
            Err(error) => {
                let utf8 = error.utf8_error();
                let at = utf8.valid_up_to();
                let bad = &error.as_bytes()[at..at + utf8.error_len().unwrap_or(1).max(1)];
                let bad: Vec<String> = bad.iter().map(|b| format!("0x{b:02X}")).collect();
                let bytes = error.as_bytes();
                // What the snippet shows: the valid text before the bad byte, control
                // characters made visible one byte for one (the caret stays in place, the
                // terminal gets no escape sequence), then U+FFFD; nothing after it.
                let shown: String = String::from_utf8_lossy(&bytes[..at])
                    .chars()
                    .map(|c| {
                        if c.is_control() && !matches!(c, '\n' | '\t') {
                            '?'
                        } else {
                            c
                        }
                    })
                    .chain(['\u{FFFD}'])
                    .collect();
                let file = self.sources.add(path, shown);
                let binary = bytes.contains(&0);
                let mut labels = Vec::new();
                if !binary {
                    labels.push(
                        primary(file, Span::new(at, at + '\u{FFFD}'.len_utf8()))
                            .with_message(format!("invalid UTF-8: {}", bad.join(" "))),
                    );
                }
                if let Some(site) = site {
                    labels.push(secondary(site.file, site.span).with_message("imported here"));
                }
                let message = if binary {
                    format!(
                        "`{}` is not UTF-8 text: it looks like a binary file (byte {at} is {})",
                        display(path),
                        bad.join(" ")
                    )
                } else {
                    format!("`{}` is not UTF-8 text", display(path))
                };
                self.diagnostics.push(
                    CodespanDiagnostic::error()
                        .with_code(codes::NOT_UTF8)
                        .with_message(message)
                        .with_labels(labels)
                        .with_notes(vec!["idlc reads source files as UTF-8".to_string()]),
                );
                Ok(Read::NotUtf8)
            }
        }
    }
}

fn display(path: &Path) -> String {
    path.display().to_string().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::has_errors;

    fn inputs(idl: &[&str]) -> Inputs {
        Inputs {
            idl: idl.iter().map(PathBuf::from).collect(),
            ..Inputs::default()
        }
    }

    fn load_mem(fs: &MemoryFs, inputs: &Inputs) -> (SourceMap, Parsed, Vec<Diagnostic>) {
        let mut sources = SourceMap::new();
        let (parsed, diagnostics) = load(&mut sources, inputs, fs).expect("named files exist");
        (sources, parsed, diagnostics)
    }

    fn idl_paths(sources: &SourceMap, parsed: &Parsed) -> Vec<String> {
        parsed
            .idl
            .iter()
            .map(|(file, _)| display(sources.path(*file)))
            .collect()
    }

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(
            normalize(Path::new("a/./b/../c.idl")),
            PathBuf::from("a/c.idl")
        );
        assert_eq!(
            normalize(Path::new("../x/../y.idl")),
            PathBuf::from("../y.idl")
        );
        assert_eq!(normalize(Path::new("/../a.idl")), PathBuf::from("/a.idl"));
        assert_eq!(normalize(Path::new("a/..")), PathBuf::from("."));
        assert_eq!(normalize(Path::new("")), PathBuf::from("."));
    }

    #[test]
    fn imports_are_followed_depth_first_importer_first() {
        let fs = MemoryFs::new()
            .with(
                "s/main.idl",
                r#"IMPORT "a.idl"; IMPORT "sub/b.idl"; STRUCT M { UINT8 x; }"#,
            )
            .with("s/a.idl", r#"IMPORT "sub/c.idl"; STRUCT A { UINT8 x; }"#)
            .with("s/sub/b.idl", r#"IMPORT "../a.idl"; STRUCT B { UINT8 x; }"#)
            .with("s/sub/c.idl", r#"IMPORT "./c.idl"; STRUCT C { UINT8 x; }"#)
            .with("s/other.idl", "STRUCT O { UINT8 x; }");
        let (sources, parsed, diagnostics) =
            load_mem(&fs, &inputs(&["s/main.idl", "s/sub/b.idl", "s/other.idl"]));
        assert!(
            diagnostics.is_empty(),
            "{}",
            sources.render_plain(&diagnostics)
        );
        assert_eq!(
            idl_paths(&sources, &parsed),
            [
                "s/main.idl",
                "s/a.idl",
                "s/sub/c.idl",
                "s/sub/b.idl",
                "s/other.idl"
            ]
        );
        // File ids follow the same order.
        let ids: Vec<FileId> = parsed.idl.iter().map(|(file, _)| *file).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn import_cycle_loads_each_file_once() {
        let fs = MemoryFs::new()
            .with("a.idl", r#"IMPORT "b.idl";"#)
            .with("b.idl", r#"IMPORT "a.idl"; IMPORT "b.idl";"#);
        let (sources, parsed, diagnostics) = load_mem(&fs, &inputs(&["a.idl", "./a.idl"]));
        assert!(diagnostics.is_empty());
        assert_eq!(idl_paths(&sources, &parsed), ["a.idl", "b.idl"]);
        assert_eq!(sources.len(), 2);
    }

    #[test]
    fn missing_import_is_a_diagnostic_at_the_string() {
        let source = r#"STRUCT A { UINT8 x; }
IMPORT "gone/../missing.idl";
"#;
        let fs = MemoryFs::new().with("dir/a.idl", source);
        let (sources, parsed, diagnostics) = load_mem(&fs, &inputs(&["dir/a.idl"]));
        assert_eq!(parsed.idl.len(), 1);
        assert_eq!(diagnostics.len(), 1);
        let diagnostic = &diagnostics[0];
        assert_eq!(diagnostic.code.as_deref(), Some(codes::IMPORT_UNREADABLE));
        assert!(
            diagnostic.message.contains("dir/missing.idl"),
            "{}",
            diagnostic.message
        );
        let label = &diagnostic.labels[0];
        assert_eq!(&source[label.range.clone()], r#""gone/../missing.idl""#);
        let rendered = sources.render_plain(&diagnostics);
        assert!(rendered.contains("dir/a.idl:2:8"), "{rendered}");
    }

    #[test]
    fn missing_named_file_is_a_load_error() {
        let fs = MemoryFs::new().with("a.idl", "");
        let mut sources = SourceMap::new();
        let error = load(&mut sources, &inputs(&["a.idl", "nope.idl"]), &fs).unwrap_err();
        assert_eq!(error.path, PathBuf::from("nope.idl"));
        assert_eq!(error.error.kind(), io::ErrorKind::NotFound);
        assert!(error.to_string().starts_with("cannot read `nope.idl`: "));

        let missing_encoding = Inputs {
            encodings: vec!["x.enc".into()],
            ..inputs(&["a.idl"])
        };
        let error = load(&mut SourceMap::new(), &missing_encoding, &fs).unwrap_err();
        assert_eq!(error.path, PathBuf::from("x.enc"));
    }

    #[test]
    fn non_utf8_file_is_a_diagnostic() {
        let fs = MemoryFs::new()
            .with("a.idl", "IMPORT \"b.idl\";\n")
            .with("b.idl", b"STRUCT B {\n  UINT8 \xFF\xFEx;\n}\n".to_vec());
        let (sources, parsed, diagnostics) = load_mem(&fs, &inputs(&["a.idl"]));
        assert_eq!(idl_paths(&sources, &parsed), ["a.idl"]);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code.as_deref(), Some(codes::NOT_UTF8));
        assert!(has_errors(&diagnostics));
        let rendered = sources.render_plain(&diagnostics);
        assert!(rendered.contains("b.idl:2:9"), "{rendered}");
        assert!(rendered.contains("0xFF"), "{rendered}");
        assert!(rendered.contains("imported here"), "{rendered}");
    }

    #[test]
    fn byte_order_mark_is_dropped() {
        let fs = MemoryFs::new().with("a.idl", b"\xEF\xBB\xBFSTRUCT A { UINT8 x; }".to_vec());
        let (sources, parsed, diagnostics) = load_mem(&fs, &inputs(&["a.idl"]));
        assert!(
            diagnostics.is_empty(),
            "{}",
            sources.render_plain(&diagnostics)
        );
        assert_eq!(parsed.idl[0].1.items.len(), 1);
    }

    #[test]
    fn encodings_and_mappings_are_parsed_in_order_once() {
        let fs = MemoryFs::new()
            .with("a.idl", "STRUCT A { BOOL b; }")
            .with("x.enc", "ENCODING(X) BITSTREAM;")
            .with("y.enc", "ENCODING(Y) BYTESTREAM;")
            .with("c.map", r#"MAPPING("Rust", "Client") DERIVE(Hash);"#);
        let inputs = Inputs {
            encodings: vec!["y.enc".into(), "x.enc".into(), "./y.enc".into()],
            mappings: vec!["c.map".into()],
            ..inputs(&["a.idl"])
        };
        let (sources, parsed, diagnostics) = load_mem(&fs, &inputs);
        assert!(
            diagnostics.is_empty(),
            "{}",
            sources.render_plain(&diagnostics)
        );
        let encodings: Vec<String> = parsed
            .encodings
            .iter()
            .map(|(file, _)| display(sources.path(*file)))
            .collect();
        assert_eq!(encodings, ["y.enc", "x.enc"]);
        assert_eq!(parsed.mappings.len(), 1);
    }

    #[test]
    fn real_fs_reads_and_canonicalizes() {
        let dir = std::env::temp_dir().join(format!("idlc-load-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/a.idl"), r#"IMPORT "../b.idl";"#).unwrap();
        std::fs::write(dir.join("b.idl"), r#"IMPORT "sub/a.idl";"#).unwrap();
        let inputs = Inputs {
            idl: vec![dir.join("sub/a.idl"), dir.join("b.idl")],
            ..Inputs::default()
        };
        let mut sources = SourceMap::new();
        let (parsed, diagnostics) = load(&mut sources, &inputs, &RealFs).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        assert!(diagnostics.is_empty());
        assert_eq!(parsed.idl.len(), 2);
    }
}

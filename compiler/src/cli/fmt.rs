//! `idlc fmt`: rewrite IDL, Encoding and Mapping files in their canonical layout; `--check` for
//! CI.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use super::{Status, print_error, report, stderr, usage_error};
use crate::diagnostics::SourceMap;
use crate::diagnostics::text_diff::unified_diff;
use crate::fmt::{format, language_of};

/// Arguments of `idlc fmt`.
#[derive(Debug, Clone, Args)]
pub struct FmtArgs {
    /// Files (`.idl`, `.enc`, `.map`) or directories (every such file below them). Default: the
    /// current directory.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Write nothing; print a unified diff and exit 1 when a file is not formatted.
    #[arg(long)]
    pub check: bool,
}

impl FmtArgs {
    /// Formats (or, with `--check`, compares) every file; returns the worst exit status.
    pub fn run(&self) -> Status {
        let roots = if self.files.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            self.files.clone()
        };
        let mut files = Vec::new();
        for root in &roots {
            if root.is_dir() {
                collect(root, &mut files);
            } else if language_of(root).is_some() {
                files.push(root.clone());
            } else if root.exists() {
                return usage_error(
                    "fmt",
                    format!(
                        "`{}` is not an IDL (.idl), Encoding (.enc) or Mapping (.map) file",
                        root.display()
                    ),
                );
            } else {
                print_error(
                    &mut stderr(),
                    format!("cannot read `{}`: no such file", root.display()),
                );
                return Status::Usage;
            }
        }
        let mut status = Status::Success;
        for file in &files {
            let outcome = self.one(file);
            if outcome.code() > status.code() {
                status = outcome;
            }
        }
        status
    }

    fn one(&self, path: &Path) -> Status {
        let Some(language) = language_of(path) else {
            return Status::Success;
        };
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) => {
                print_error(
                    &mut stderr(),
                    format!("cannot read `{}`: {error}", path.display()),
                );
                return Status::Usage;
            }
        };
        let Ok(source) = String::from_utf8(bytes) else {
            print_error(
                &mut stderr(),
                format!("`{}` is not UTF-8 text: left as it is", path.display()),
            );
            return Status::InputErrors;
        };
        let mut sources = SourceMap::new();
        let file = sources.add(path, source.as_str());
        let formatted = match format(file, &source, language) {
            Ok(formatted) => formatted,
            Err(diagnostics) => {
                let _ = report(&mut stderr(), &sources, &diagnostics, "format");
                return Status::InputErrors;
            }
        };
        if formatted == source {
            return Status::Success;
        }
        let shown = path.display().to_string();
        if self.check {
            let diff = unified_diff(&source, &formatted, &shown, &format!("{shown} (formatted)"));
            let _ = std::io::stdout().lock().write_all(diff.as_bytes());
            print_error(
                &mut stderr(),
                format!("`{shown}` is not formatted: run `idlc fmt {shown}`"),
            );
            return Status::InputErrors;
        }
        match std::fs::write(path, formatted) {
            Ok(()) => {
                let _ = writeln!(stderr(), "formatted {shown}");
                Status::Success
            }
            Err(error) => {
                print_error(&mut stderr(), format!("cannot write `{shown}`: {error}"));
                Status::Usage
            }
        }
    }
}

/// Every `.idl`, `.enc` and `.map` file below `dir`, in name order; `target` and hidden
/// directories are skipped.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                collect(&path, files);
            }
        } else if language_of(&path).is_some() {
            files.push(path);
        }
    }
}

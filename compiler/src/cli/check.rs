//! `idlc check`: parse and validate, print diagnostics, generate nothing.

use std::io::Write as _;

use clap::Args;
use codespan_reporting::diagnostic::Severity;

use super::inputs::{InputArgs, with_every_side};
use super::{Status, stderr};
use crate::Compilation;

/// Arguments of `idlc check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The input files and side.
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Print no summary line on success.
    #[arg(short, long)]
    pub quiet: bool,
}

impl CheckArgs {
    /// Runs the check: renders every diagnostic to stderr, then (unless `--quiet`) one summary
    /// line, and returns the exit status.
    pub fn run(&self) -> Status {
        with_every_side(&self.inputs, "check", |compilation| {
            if !self.quiet {
                let _ = writeln!(stderr(), "{}", summary(compilation));
            }
            Status::Success
        })
    }
}

/// `checked 3 files: 12 types, 2 encodings, 0 errors, 1 warning`.
pub fn summary(compilation: &Compilation) -> String {
    let plural = |n: usize, what: &str| {
        if n == 1 {
            format!("{n} {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    let count = |severity: Severity| {
        compilation
            .diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let schema = &compilation.ir.schema;
    format!(
        "checked {}: {}, {}, {}, {}",
        plural(compilation.sources.len(), "file"),
        plural(schema.structs.len() + schema.enums.len(), "type"),
        plural(compilation.ir.encodings.len(), "encoding"),
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
    )
}

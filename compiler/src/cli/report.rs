//! `idlc report`: the bits every field of every struct costs, per encoding.

use std::io::Write as _;

use clap::Args;

use super::Status;
use super::inputs::{InputArgs, with_compilation};

/// Arguments of `idlc report`.
#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// The input files and side.
    #[command(flatten)]
    pub inputs: InputArgs,
}

impl ReportArgs {
    /// Compiles and prints one table per struct and encoding (see [`crate::report`]).
    pub fn run(&self) -> Status {
        with_compilation(&self.inputs, "report", "report", |compilation| {
            let text = crate::report::render(&crate::report::report(&compilation.ir));
            // A closed stdout (`idlc report | head`) is not an error of ours.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            Status::Success
        })
    }
}

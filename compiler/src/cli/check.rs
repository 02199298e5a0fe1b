//! `idlc check`: parse and validate, print diagnostics, generate nothing.

use clap::Args;

use super::Status;
use super::inputs::{InputArgs, with_compilation};

/// Arguments of `idlc check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The input files and side.
    #[command(flatten)]
    pub inputs: InputArgs,
}

impl CheckArgs {
    /// Runs the check: renders every diagnostic to stderr and returns the exit status.
    pub fn run(&self) -> Status {
        with_compilation(&self.inputs, "check", "check", |_| Status::Success)
    }
}

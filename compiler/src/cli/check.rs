//! `idlc check`: parse and validate, print diagnostics, generate nothing.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Status, print_error, report, stderr, usage_error};
use crate::Inputs;

/// Arguments of `idlc check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// IDL files (their IMPORTs are followed). Without any, idlc.toml is read (not yet
    /// supported).
    #[arg(value_name = "IDL")]
    pub idl: Vec<PathBuf>,
    /// An Encoding file (repeatable).
    #[arg(short, long = "encoding", value_name = "FILE")]
    pub encoding: Vec<PathBuf>,
    /// A Mapping file (repeatable).
    #[arg(short, long = "mapping", value_name = "FILE")]
    pub mapping: Vec<PathBuf>,
    /// The side whose mappings apply (`Client`, `Server`, ...).
    #[arg(long, value_name = "SIDE")]
    pub side: Option<String>,
}

impl CheckArgs {
    /// The compilation's inputs, as named on the command line.
    pub fn inputs(&self) -> Inputs {
        Inputs {
            idl: self.idl.clone(),
            encodings: self.encoding.clone(),
            mappings: self.mapping.clone(),
            side: self.side.clone(),
        }
    }

    /// Runs the check: renders every diagnostic to stderr and returns the exit status.
    pub fn run(&self) -> Status {
        if self.idl.is_empty() {
            let message = if Path::new("idlc.toml").exists() {
                "reading IDL files from idlc.toml is not supported yet; name the IDL files on \
                 the command line"
            } else {
                "no IDL files given, and there is no idlc.toml in the current directory"
            };
            return usage_error("check", message);
        }
        let mut err = stderr();
        let compilation = match crate::compile(&self.inputs()) {
            Ok(compilation) => compilation,
            Err(error) => {
                print_error(&mut err, error);
                return Status::Usage;
            }
        };
        // A failed write to stderr changes nothing about the verdict.
        let _ = report(
            &mut err,
            &compilation.sources,
            &compilation.diagnostics,
            "check",
        );
        if compilation.has_errors() {
            Status::InputErrors
        } else {
            Status::Success
        }
    }
}

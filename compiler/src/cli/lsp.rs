//! `idlc lsp`: the language server on stdin / stdout ([`crate::lsp`]).

use clap::Args;

use super::{Status, print_error, stderr};

/// Arguments of `idlc lsp` (none: the client says everything in `initialize`).
#[derive(Debug, Clone, Args)]
pub struct LspArgs {
    /// Accepted for editors that pass it; stdio is the only transport.
    #[arg(long)]
    pub stdio: bool,
}

impl LspArgs {
    /// Serves one client until it exits.
    pub fn run(&self) -> Status {
        match crate::lsp::run() {
            Ok(()) => Status::Success,
            Err(error) => {
                print_error(&mut stderr(), format!("idlc lsp: {error}"));
                Status::Usage
            }
        }
    }
}

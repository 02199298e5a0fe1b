//! The `idlc` command: parses the arguments and runs the subcommand (see `idlc::cli`, the
//! library's `cli` feature).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = idlc::cli::Cli::parse();
    idlc::cli::run(&cli).into()
}

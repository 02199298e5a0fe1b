//! The `idlc` command: parses the arguments and runs the subcommand (see [`idlc::cli`]).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = idlc::cli::Cli::parse();
    idlc::cli::run(&cli).into()
}

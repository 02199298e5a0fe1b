//! `idlc dissector`: a Wireshark Lua dissector of one PROTOCOL in one encoding
//! (docs/DISSECTOR.md).

use std::path::PathBuf;

use clap::Args;

use super::inputs::{InputArgs, with_compilation};
use super::{Status, print_error, report, stderr, usage_error};
use crate::builder::write_if_changed;
use crate::dissector::{self, Error, Options};

/// Arguments of `idlc dissector`.
#[derive(Debug, Clone, Args)]
pub struct DissectorArgs {
    /// The input files (`-e` the encodings).
    #[command(flatten)]
    pub inputs: InputArgs,
    /// The PROTOCOL whose packets the script decodes.
    #[arg(long, value_name = "P")]
    pub protocol: String,
    /// The protocol whose requests the packets' responses answer (the one the packets'
    /// receiver sends), whose RPC ids they carry. Default: `--protocol`'s.
    #[arg(long, value_name = "Q")]
    pub answers: Option<String>,
    /// Register the dissector on this UDP port; without it, it is offered in "Decode As".
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// The encoding, when the files define several (default: the first).
    #[arg(long = "encoding-name", value_name = "N")]
    pub encoding_name: Option<String>,
    /// The Lua script to write (`-`: stdout).
    #[arg(short, long = "out", value_name = "P.lua")]
    pub out: PathBuf,
}

impl DissectorArgs {
    /// Compiles the inputs and writes the script; exit 1 when the schema has errors or uses a
    /// rule the dissector cannot decode (E0701), 2 for an unknown protocol or encoding.
    pub fn run(&self) -> Status {
        with_compilation(
            &self.inputs,
            "dissector",
            "write a dissector",
            |compilation| {
                let options = Options {
                    protocol: self.protocol.clone(),
                    answers: self.answers.clone(),
                    encoding: self.encoding_name.clone(),
                    port: self.port,
                };
                let script = match dissector::generate(&compilation.ir, &options) {
                    Ok(script) => script,
                    Err(Error::Usage(message)) => return usage_error("dissector", message),
                    Err(Error::Refused(diagnostics)) => {
                        // A failed write to stderr changes nothing about the verdict.
                        let _ = report(
                            &mut stderr(),
                            &compilation.sources,
                            &diagnostics,
                            "write a dissector",
                        );
                        return Status::InputErrors;
                    }
                };
                if self.out.as_os_str() == "-" {
                    use std::io::Write as _;
                    let _ = std::io::stdout().lock().write_all(script.as_bytes());
                    return Status::Success;
                }
                match write_if_changed(&self.out, &script) {
                    Ok(_) => Status::Success,
                    Err(error) => {
                        print_error(
                            &mut stderr(),
                            format!("cannot write {}: {error}", self.out.display()),
                        );
                        Status::Usage
                    }
                }
            },
        )
    }
}

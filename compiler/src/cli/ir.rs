//! `idlc ir`: the IR, or with `--plan` the wire plan, as pretty JSON on stdout.

use std::io::Write as _;

use clap::Args;

use super::inputs::{InputArgs, with_compilation};
use super::{Status, print_error, stderr};

/// Arguments of `idlc ir`.
#[derive(Debug, Clone, Args)]
pub struct IrArgs {
    /// The input files and side.
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Print the wire plan of every encoding (the steps every reader and writer takes, with
    /// packed runs, extensions and the delta form) instead of the IR.
    #[arg(long)]
    pub plan: bool,
}

impl IrArgs {
    /// Compiles and prints the IR (`schema`, `encodings`, `mapping`, and `links` when the side
    /// has links), or the wire plan by encoding name, as JSON; diagnostics go to stderr, and
    /// with errors nothing is printed.
    pub fn run(&self) -> Status {
        with_compilation(&self.inputs, "ir", "build the IR", |compilation| {
            let ir = &compilation.ir;
            let json = if self.plan {
                serde_json::to_string_pretty(ir.plans())
            } else {
                with_links(ir).and_then(|ir| serde_json::to_string_pretty(&ir))
            };
            match json {
                Ok(json) => {
                    // A closed stdout (`idlc ir | head`) is not an error of ours.
                    let _ = writeln!(std::io::stdout().lock(), "{json}");
                    Status::Success
                }
                Err(error) => {
                    print_error(&mut stderr(), format!("cannot serialize the IR: {error}"));
                    Status::InputErrors
                }
            }
        })
    }
}

/// The IR as JSON, with the side's links (`crate::ir::protocol::link_summaries`) under `links`
/// when it has any.
fn with_links(ir: &crate::ir::Ir) -> serde_json::Result<serde_json::Value> {
    let mut json = serde_json::to_value(ir)?;
    let links = crate::ir::protocol::link_summaries(ir);
    if let (serde_json::Value::Object(fields), false) = (&mut json, links.is_empty()) {
        fields.insert("links".to_string(), serde_json::to_value(links)?);
    }
    Ok(json)
}

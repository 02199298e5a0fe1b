//! `idlc encode`: a JSON value to bytes through the IR interpreter, no codegen.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::data::{
    Baseline, InterpretInputs, check_baseline, parse_json, read_baseline, read_data,
};
use super::inputs::with_compilation;
use super::{Status, print_error, stderr, usage_error};
use crate::Compilation;
use crate::interpret::{self, Value};

/// Arguments of `idlc encode`.
#[derive(Debug, Clone, Args)]
pub struct EncodeArgs {
    /// The inputs, encoding and type; the data file is the JSON value (`-` for stdin).
    #[command(flatten)]
    pub inputs: InterpretInputs,
    /// Write the raw bytes to stdout instead of hex.
    #[arg(long, conflicts_with = "output")]
    pub binary: bool,
    /// Write the raw bytes to this file instead of hex to stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Encode the value as a delta (DELTA, DEAD_RECKONING) of a PUBLISHABLE_STRUCT against
    /// this baseline: a JSON file holding the state the receiver holds.
    #[arg(long, value_name = "BASE.json")]
    pub baseline: Option<PathBuf>,
    /// With `--baseline`: the seconds since the baseline, which dead reckoning extrapolates
    /// over (default 0).
    #[arg(long, value_name = "S", requires = "baseline")]
    pub elapsed: Option<f64>,
}

impl EncodeArgs {
    /// Parses the JSON value, encodes it and writes the bytes; exit 1 when the value does not
    /// fit the type (the error names the field path).
    pub fn run(&self) -> Status {
        let data_files = self.inputs.data_files();
        let path = match data_files.as_slice() {
            [one] => *one,
            [] => return usage_error("encode", "no VALUE.json given (`-` reads stdin)"),
            _ => return usage_error("encode", "more than one VALUE.json"),
        };
        let text = match read_data(path) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let value = match parse_json(path, &text) {
            Ok(value) => value,
            Err(status) => return status,
        };
        let baseline = match read_baseline(self.baseline.as_deref(), self.elapsed) {
            Ok(baseline) => baseline,
            Err(status) => return status,
        };
        with_compilation(
            &self.inputs.input_args(),
            "encode",
            "encode",
            |compilation| self.encode(compilation, &value, baseline.as_ref()),
        )
    }

    fn encode(
        &self,
        compilation: &Compilation,
        value: &Value,
        baseline: Option<&Baseline>,
    ) -> Status {
        let Some(encoding) = self.inputs.encoding(compilation) else {
            return usage_error("encode", "the inputs define no encoding");
        };
        let type_name = &self.inputs.type_name;
        let ir = &compilation.ir;
        let encoded = match baseline {
            Some(base) => match check_baseline(compilation, encoding, type_name, base) {
                Ok(()) => interpret::encode_delta(
                    ir,
                    encoding,
                    type_name,
                    value,
                    &base.value,
                    base.elapsed,
                )
                .map(|(bytes, _)| bytes),
                Err(status) => return status,
            },
            None => interpret::encode(ir, encoding, type_name, value),
        };
        let bytes = match encoded {
            Ok(bytes) => bytes,
            Err(error) => {
                print_error(
                    &mut stderr(),
                    format!("cannot encode `{type_name}` in `{encoding}`: {error}"),
                );
                return match error.kind {
                    interpret::EncodeErrorKind::Schema(_) => Status::Usage,
                    _ => Status::InputErrors,
                };
            }
        };
        if let Some(path) = &self.output {
            return match std::fs::write(path, &bytes) {
                Ok(()) => Status::Success,
                Err(error) => {
                    print_error(
                        &mut stderr(),
                        format!("cannot write {}: {error}", path.display()),
                    );
                    Status::Usage
                }
            };
        }
        let mut out = std::io::stdout().lock();
        // A closed stdout is not an error of ours.
        let _ = if self.binary {
            out.write_all(&bytes)
        } else {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            writeln!(out, "{hex}")
        };
        Status::Success
    }
}

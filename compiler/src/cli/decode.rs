//! `idlc decode`: bytes to JSON (or an annotated dump) through the IR interpreter, no codegen.
//! Also the inputs the interpreter's subcommands share (`decode`, `encode`, `measure`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::data::{Baseline, InterpretInputs, check_baseline, parse_hex, read_baseline, read_data};
use super::inputs::with_compilation;
use super::{Status, print_error, stderr, usage_error};
use crate::Compilation;
use crate::interpret;

/// How `idlc decode` prints the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum DecodeFormat {
    /// The value as pretty JSON.
    #[default]
    Json,
    /// One line per field read: bit offset, width, raw bits, value; and where it failed.
    Explain,
}

/// Arguments of `idlc decode`.
#[derive(Debug, Clone, Args)]
pub struct DecodeArgs {
    /// The inputs, encoding and type.
    #[command(flatten)]
    pub inputs: InterpretInputs,
    /// The bytes as hex on the command line, instead of a file or stdin.
    #[arg(long, value_name = "HEX")]
    pub hex: Option<String>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = DecodeFormat::Json)]
    pub format: DecodeFormat,
    /// Read the bytes as a delta (DELTA, DEAD_RECKONING) of a PUBLISHABLE_STRUCT against this
    /// baseline: a JSON file holding the state the receiver holds. With `--bytes-as`, the
    /// baseline of the value the BYTES field carries.
    #[arg(long, value_name = "BASE.json")]
    pub baseline: Option<PathBuf>,
    /// `--baseline` given as the hex of its full form (what `encode` prints, or a full
    /// snapshot a game sent).
    #[arg(long = "baseline-hex", value_name = "HEX", conflicts_with = "baseline")]
    pub baseline_hex: Option<String>,
    /// With a baseline: the seconds since it, which dead reckoning extrapolates over (default 0).
    #[arg(long, value_name = "S")]
    pub elapsed: Option<f64>,
    /// Read a BYTES field's bytes as a value of TYPE (in the same encoding): its full form, or
    /// its delta against the baseline. The value is printed in place of the bytes; explain
    /// shows its reads under the field. STRUCT (the message, struct or RPC holding the field)
    /// may be left out.
    #[arg(long = "bytes-as", value_name = "[STRUCT.]FIELD=TYPE")]
    pub bytes_as: Option<String>,
    /// With a PROTOCOL as `--type`: the protocol whose requests the packet's responses answer
    /// (the one the packet's receiver sends), whose RPC ids they carry. Default: `--type`'s.
    #[arg(long, value_name = "PROTOCOL")]
    pub answers: Option<String>,
}

impl DecodeArgs {
    /// Decodes the bytes (from `--hex`, the data file, or stdin) and prints the value; exit 1
    /// when the bytes are malformed (the error says where and why).
    pub fn run(&self) -> Status {
        if self.elapsed.is_some() && self.baseline.is_none() && self.baseline_hex.is_none() {
            return usage_error("decode", "--elapsed needs --baseline or --baseline-hex");
        }
        let carried = match self.bytes_as.as_deref().map(interpret::Carried::parse) {
            None => None,
            Some(Ok(carried)) => Some(carried),
            Some(Err(message)) => return usage_error("decode", format!("--bytes-as: {message}")),
        };
        let baseline = match read_baseline(self.baseline.as_deref(), self.elapsed) {
            Ok(baseline) => baseline,
            Err(status) => return status,
        };
        let data_files = self.inputs.data_files();
        let bytes = match (&self.hex, data_files.as_slice()) {
            (Some(_), [_, ..]) => {
                return usage_error("decode", "give the bytes with --hex or as a file, not both");
            }
            (_, [_, _, ..]) => return usage_error("decode", "more than one data file"),
            (Some(hex), []) => match parse_hex(hex) {
                Ok(bytes) => bytes,
                Err(message) => return usage_error("decode", format!("--hex: {message}")),
            },
            (None, [file]) => match read_data(file) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            },
            (None, []) => match read_data(Path::new("-")) {
                Ok(bytes) => bytes,
                Err(status) => return status,
            },
        };
        with_compilation(
            &self.inputs.input_args(),
            "decode",
            "decode",
            |compilation| self.decode(compilation, &bytes, baseline.as_ref(), carried.clone()),
        )
    }

    /// The baseline of a delta of `type_name`: `--baseline`'s JSON, or `--baseline-hex`
    /// decoded; checked to be a valid value of it.
    fn baseline(
        &self,
        compilation: &Compilation,
        encoding: &str,
        type_name: &str,
        json: Option<&Baseline>,
    ) -> Result<Option<Baseline>, Status> {
        let baseline = match (json, &self.baseline_hex) {
            (Some(json), _) => json.clone(),
            (None, Some(hex)) => {
                let bytes = parse_hex(hex).map_err(|message| {
                    usage_error("decode", format!("--baseline-hex: {message}"))
                })?;
                match interpret::decode(&compilation.ir, encoding, type_name, &bytes) {
                    Ok(value) => Baseline {
                        value,
                        elapsed: self.elapsed.unwrap_or(0.0),
                    },
                    Err(error) => {
                        print_error(
                            &mut stderr(),
                            format!("--baseline-hex: not the full form of `{type_name}`: {error}"),
                        );
                        return Err(match error.kind {
                            interpret::DecodeErrorKind::Schema(_) => Status::Usage,
                            interpret::DecodeErrorKind::Wire(_) => Status::InputErrors,
                        });
                    }
                }
            }
            (None, None) => return Ok(None),
        };
        check_baseline(compilation, encoding, type_name, &baseline)?;
        Ok(Some(baseline))
    }

    fn decode(
        &self,
        compilation: &Compilation,
        bytes: &[u8],
        json_baseline: Option<&Baseline>,
        carried: Option<interpret::Carried>,
    ) -> Status {
        let Some(encoding) = self.inputs.encoding(compilation) else {
            return usage_error("decode", "the inputs define no encoding");
        };
        let ir = &compilation.ir;
        let type_name = &self.inputs.type_name;
        // A PROTOCOL (or a link of the side) named as the type: the bytes are a framed packet
        // of it.
        let is_packet = crate::ir::protocol::names_packets(ir, type_name);
        // The baseline is the carried value's, else the decoded type's.
        let delta_type = carried
            .as_ref()
            .map_or(type_name.as_str(), |c| &c.type_name);
        if let Some(answers) = &self.answers {
            if !is_packet {
                return usage_error(
                    "decode",
                    "--answers reads a PROTOCOL's packet: give one as --type",
                );
            }
            if !ir.schema.protocols.contains_key(answers) {
                let known: Vec<&str> = ir.schema.protocols.keys().map(String::as_str).collect();
                return usage_error(
                    "decode",
                    format!(
                        "--answers: no PROTOCOL `{answers}` (the schema has: {})",
                        known.join(", ")
                    ),
                );
            }
        }
        if is_packet
            && carried.is_none()
            && (json_baseline.is_some() || self.baseline_hex.is_some())
        {
            return usage_error(
                "decode",
                "--baseline reads a PUBLISHABLE_STRUCT, not a packet (a delta a message carries \
                 in a BYTES field: --bytes-as)",
            );
        }
        let baseline = match self.baseline(compilation, encoding, delta_type, json_baseline) {
            Ok(baseline) => baseline,
            Err(status) => return status,
        };
        let (baseline, carried) = match carried {
            Some(carried) => {
                let (value, elapsed) = baseline.map_or((None, 0.0), |b| (Some(b.value), b.elapsed));
                let carried = interpret::Carried {
                    baseline: value,
                    elapsed,
                    ..carried
                };
                (None, Some(carried))
            }
            None => (baseline, None),
        };
        let baseline = baseline.as_ref();
        let mut trace = Vec::new();
        // A carried value's offsets are found from its field's line: always traced.
        let explain = self.format == DecodeFormat::Explain;
        let traced = (explain || carried.is_some()).then_some(&mut trace);
        let mut result = match (is_packet, baseline) {
            (true, _) => interpret::decode_packet_answering(
                ir,
                encoding,
                type_name,
                self.answers.as_deref().unwrap_or(type_name),
                bytes,
                traced,
            ),
            (false, Some(base)) => interpret::decode_delta_traced(
                ir,
                encoding,
                type_name,
                bytes,
                &base.value,
                base.elapsed,
                traced,
            ),
            (false, None) => interpret::decode_traced(ir, encoding, type_name, bytes, traced),
        };
        if let (Ok(value), Some(carried)) = (&mut result, &carried) {
            let read = interpret::decode_carried(
                ir,
                encoding,
                type_name,
                value,
                Some(&mut trace),
                carried,
            );
            if let Err(error) = read {
                result = Err(error);
            }
        }
        let mut out = std::io::stdout().lock();
        if explain {
            let style = ir
                .encodings
                .get(encoding)
                .map_or(crate::ir::Style::Bitstream, |e| e.style);
            // A closed stdout (`| head`) is not an error of ours.
            let _ = out.write_all(interpret::explain::render(&trace, bytes, style).as_bytes());
        }
        match result {
            Ok(value) => {
                if self.format == DecodeFormat::Json {
                    let value =
                        interpret::printable(ir, encoding, type_name, &value, carried.as_ref());
                    let text = serde_json::to_string_pretty(&value).unwrap_or_default();
                    let _ = writeln!(out, "{text}");
                }
                Status::Success
            }
            Err(error) => {
                let _ = out.flush();
                print_error(
                    &mut stderr(),
                    format!("cannot decode `{type_name}` in `{encoding}`: {error}"),
                );
                match error.kind {
                    interpret::DecodeErrorKind::Schema(_) => Status::Usage,
                    interpret::DecodeErrorKind::Wire(_) => Status::InputErrors,
                }
            }
        }
    }
}

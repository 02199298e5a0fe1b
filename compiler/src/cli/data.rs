//! What the interpreter's subcommands (`decode`, `encode`, `measure`) read: their inputs
//! (IDL files and a data file, an encoding, a type), data files and hex, JSON values and delta
//! baselines. Each problem is printed here and becomes the exit status.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use clap::Args;
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Config};

use super::inputs::InputArgs;
use super::{Status, print_error, stderr};
use crate::Compilation;
use crate::interpret::{self, Value};

/// The inputs of the interpreter's subcommands: IDL files and a data file, an encoding, a type.
#[derive(Debug, Clone, Args)]
pub struct InterpretInputs {
    /// IDL files (named `*.idl`; their IMPORTs are followed) and the data file (any other name,
    /// or `-` for stdin). Without IDL files, `idlc.toml` in the current directory names them.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// An Encoding file (repeatable). Without one, the built-in encoding `Default`.
    #[arg(short, long = "encoding", value_name = "FILE")]
    pub encoding: Vec<PathBuf>,
    /// A Mapping file (repeatable; names only matter to generated code).
    #[arg(short, long = "mapping", value_name = "FILE")]
    pub mapping: Vec<PathBuf>,
    /// The side whose mappings apply.
    #[arg(long, value_name = "SIDE")]
    pub side: Option<String>,
    /// The encoding to use by name, when the files define several (default: the first).
    #[arg(long = "encoding-name", value_name = "NAME")]
    pub encoding_name: Option<String>,
    /// The struct, message or RPC (parameter list) to read or write, by IDL name; `decode` also
    /// takes a PROTOCOL: the bytes are then a framed packet of it.
    #[arg(long = "type", value_name = "TYPE")]
    pub type_name: String,
}

impl InterpretInputs {
    /// The IDL files (the `*.idl` arguments) as the shared input arguments.
    pub fn input_args(&self) -> InputArgs {
        InputArgs {
            idl: self.files.iter().filter(|f| is_idl(f)).cloned().collect(),
            encoding: self.encoding.clone(),
            mapping: self.mapping.clone(),
            side: self.side.clone(),
        }
    }

    /// The arguments that are not IDL files: the data files.
    pub fn data_files(&self) -> Vec<&Path> {
        self.files
            .iter()
            .filter(|f| !is_idl(f))
            .map(PathBuf::as_path)
            .collect()
    }

    /// The encoding to use: `--encoding-name`, else the first of the compilation.
    pub fn encoding<'c>(&'c self, compilation: &'c Compilation) -> Option<&'c str> {
        match &self.encoding_name {
            Some(name) => Some(name),
            None => compilation.ir.encodings.keys().next().map(String::as_str),
        }
    }
}

fn is_idl(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("idl"))
}

/// Reads a data file named on the command line (`-` is stdin); prints what is wrong.
pub fn read_data(path: &Path) -> Result<Vec<u8>, Status> {
    let mut bytes = Vec::new();
    let result = if path == Path::new("-") {
        std::io::stdin().lock().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::read(path).map(|b| bytes = b)
    };
    result.map(|()| bytes).map_err(|error| {
        print_error(
            &mut stderr(),
            format!("cannot read {}: {error}", path.display()),
        );
        Status::Usage
    })
}

/// Parses hex digits (whitespace, `0x` and `:`/`,` separators allowed).
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    let text = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let digits: Vec<u8> = text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && !matches!(b, b':' | b',' | b'_'))
        .collect();
    if digits.len() % 2 != 0 {
        return Err("an odd number of hex digits".to_string());
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .ok_or_else(|| format!("`{}` is not a hex byte", String::from_utf8_lossy(pair)))
        })
        .collect()
}

/// A delta's baseline and elapsed time, from `--baseline BASE.json` and `--elapsed S`.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// The state the receiver holds.
    pub value: interpret::Value,
    /// Seconds since the baseline.
    pub elapsed: f64,
}

/// Reads and parses `--baseline` (exit 2 when unreadable, 1 when not JSON).
pub fn read_baseline(
    path: Option<&Path>,
    elapsed: Option<f64>,
) -> Result<Option<Baseline>, Status> {
    let Some(path) = path else {
        return Ok(None);
    };
    let text = read_data(path)?;
    let value = parse_json(path, &text)?;
    Ok(Some(Baseline {
        value,
        elapsed: elapsed.unwrap_or(0.0),
    }))
}

/// Checks that a baseline is a valid value of `type_name` in `encoding` (exit 1 when not).
pub fn check_baseline(
    compilation: &Compilation,
    encoding: &str,
    type_name: &str,
    baseline: &Baseline,
) -> Result<(), Status> {
    let ir = &compilation.ir;
    match ir.schema.structs.get(type_name).map(|s| s.kind) {
        Some(crate::ir::StructKind::Publishable) => {}
        Some(_) => {
            print_error(
                &mut stderr(),
                format!(
                    "--baseline: `{type_name}` is not a PUBLISHABLE_STRUCT: it has no delta form"
                ),
            );
            return Err(Status::Usage);
        }
        // An unknown type: reported by the call that follows, as without --baseline.
        None => return Ok(()),
    }
    match interpret::encode(ir, encoding, type_name, &baseline.value) {
        Err(error) if !matches!(error.kind, interpret::EncodeErrorKind::Schema(_)) => {
            print_error(
                &mut stderr(),
                format!("--baseline: not a valid `{type_name}`: {error}"),
            );
            Err(Status::InputErrors)
        }
        _ => Ok(()),
    }
}

/// Parses a JSON document, rendering a syntax error as a diagnostic pointing into the file
/// (exit 1: the input data is wrong).
pub fn parse_json(path: &Path, text: &[u8]) -> Result<Value, Status> {
    let name = path.display().to_string();
    let source = String::from_utf8_lossy(text);
    serde_json::from_slice(text).map_err(|error| {
        let offset = offset_of(&source, error.line(), error.column());
        let file = SimpleFile::new(name.as_str(), source.as_ref());
        let diagnostic = Diagnostic::error()
            .with_message("the value is not valid JSON")
            .with_labels(vec![
                Label::primary((), offset..offset).with_message(error.to_string()),
            ]);
        let mut err = stderr();
        if term::emit_to_write_style(&mut err, &Config::default(), &file, &diagnostic).is_err() {
            print_error(&mut err, format!("{name}: {error}"));
        }
        Status::InputErrors
    })
}

/// The byte offset of a 1-based line and column (serde_json's), clamped into the text.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let mut offset = (start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::{offset_of, parse_hex};

    #[test]
    fn hex_forms() {
        assert_eq!(parse_hex("0x91 AC:02"), Ok(vec![0x91, 0xAC, 0x02]));
        assert_eq!(parse_hex(""), Ok(vec![]));
        assert!(parse_hex("abc").is_err());
        assert!(parse_hex("zz").is_err());
    }

    #[test]
    fn offsets() {
        assert_eq!(offset_of("ab\ncd", 2, 2), 4);
        assert_eq!(offset_of("ab", 9, 9), 2);
        assert_eq!(offset_of("é", 1, 2), 0);
    }
}

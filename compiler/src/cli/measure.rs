//! `idlc measure`: every value of a recorded trace (JSON lines) encoded in every encoding given,
//! through the IR interpreter; a table ranks the encodings by size, with the bits each field
//! costs and the largest error of each lossy field.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;

use clap::Args;
use indexmap::IndexMap;

use super::decode::{InterpretInputs, read_data};
use super::inputs::with_compilation;
use super::{Status, print_error, stderr, usage_error};
use crate::Compilation;
use crate::interpret::{self, Value};

/// Arguments of `idlc measure`.
#[derive(Debug, Clone, Args)]
pub struct MeasureArgs {
    /// The inputs and type; the data file is the trace, one JSON value per line. Every
    /// encoding of the inputs is measured (or only `--encoding-name`).
    #[command(flatten)]
    pub inputs: InterpretInputs,
    /// Consecutive values as ticks of delta encoding (not measured yet).
    #[arg(long)]
    pub delta: bool,
}

/// What one encoding made of the trace.
#[derive(Debug, Default)]
struct Measured {
    sizes: Vec<usize>,
    /// Bits per top-level field, summed over the trace.
    bits: IndexMap<String, u64>,
    /// The largest |sent - received| per top-level field, over its numbers.
    errors: IndexMap<String, f64>,
}

impl MeasureArgs {
    /// Reads the trace, encodes it in each encoding and prints the table; exit 1 when a line is
    /// not JSON or a value does not encode.
    pub fn run(&self) -> Status {
        if self.delta {
            return usage_error(
                "measure",
                "--delta is not measured yet (see docs/INTERPRETER.md)",
            );
        }
        let files = self.inputs.data_files();
        let [path] = files.as_slice() else {
            return usage_error("measure", "give exactly one TRACE.jsonl (`-` reads stdin)");
        };
        let text = match read_data(path) {
            Ok(bytes) => bytes,
            Err(status) => return status,
        };
        let mut values = Vec::new();
        for (number, line) in text.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(line) {
                Ok(value) => values.push((number + 1, value)),
                Err(error) => {
                    print_error(
                        &mut stderr(),
                        format!(
                            "{}:{}: not a JSON value: {error}",
                            path.display(),
                            number + 1
                        ),
                    );
                    return Status::InputErrors;
                }
            }
        }
        with_compilation(
            &self.inputs.input_args(),
            "measure",
            "measure",
            |compilation| self.measure(compilation, &values, &path.display().to_string()),
        )
    }

    fn measure(&self, compilation: &Compilation, values: &[(usize, Value)], trace: &str) -> Status {
        let ir = &compilation.ir;
        let type_name = &self.inputs.type_name;
        let encodings: Vec<&str> = match &self.inputs.encoding_name {
            Some(name) => vec![name.as_str()],
            None => ir.encodings.keys().map(String::as_str).collect(),
        };
        let mut results = Vec::new();
        for encoding in encodings {
            let mut measured = Measured::default();
            for (line, value) in values {
                let bytes = match interpret::encode(ir, encoding, type_name, value) {
                    Ok(bytes) => bytes,
                    Err(error) => {
                        print_error(
                            &mut stderr(),
                            format!(
                                "{trace}:{line}: cannot encode `{type_name}` in `{encoding}`: {error}"
                            ),
                        );
                        return match error.kind {
                            interpret::EncodeErrorKind::Schema(_) => Status::Usage,
                            _ => Status::InputErrors,
                        };
                    }
                };
                let mut entries = Vec::new();
                let decoded =
                    interpret::decode_traced(ir, encoding, type_name, &bytes, Some(&mut entries));
                let Ok(decoded) = decoded else {
                    print_error(
                        &mut stderr(),
                        format!(
                            "{trace}:{line}: internal: the encoding of `{type_name}` in `{encoding}` does not decode"
                        ),
                    );
                    return Status::InputErrors;
                };
                measured.sizes.push(bytes.len());
                for entry in &entries {
                    let field = top_field(&entry.path, type_name);
                    *measured.bits.entry(field).or_default() +=
                        entry.end.saturating_sub(entry.start);
                }
                if let (Value::Struct(sent), Value::Struct(received)) = (value, &decoded) {
                    for (name, sent) in sent {
                        let error = received.get(name).map_or(0.0, |r| max_error(sent, r));
                        let slot = measured.errors.entry(name.clone()).or_insert(0.0);
                        *slot = slot.max(error);
                    }
                }
            }
            results.push((encoding, measured));
        }
        results.sort_by_key(|(_, m)| m.sizes.iter().sum::<usize>());
        let text = render(type_name, trace, values.len(), &results);
        // A closed stdout (`| head`) is not an error of ours.
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
        Status::Success
    }
}

/// The top-level field an explain entry belongs to (`Character.inventory[0].count` →
/// `inventory`); the struct's own entries (fence bits, CHECK) under `(framing)`.
fn top_field(path: &str, type_name: &str) -> String {
    let rest = path.strip_prefix(type_name).unwrap_or(path);
    match rest.strip_prefix('.') {
        Some(rest) => rest
            .split(['.', '[', ' '])
            .next()
            .unwrap_or(rest)
            .to_string(),
        None => "(framing)".to_string(),
    }
}

/// The largest absolute difference between the numbers of two values of the same type.
fn max_error(sent: &Value, received: &Value) -> f64 {
    let number = |v: &Value| match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        Value::Float32(f) => Some(f64::from(*f)),
        _ => None,
    };
    match (sent, received) {
        (Value::List(a), Value::List(b)) => a
            .iter()
            .zip(b)
            .map(|(a, b)| max_error(a, b))
            .fold(0.0, f64::max),
        (Value::Struct(a), Value::Struct(b)) => a
            .iter()
            .filter_map(|(k, a)| Some(max_error(a, b.get(k)?)))
            .fold(0.0, f64::max),
        _ => match (number(sent), number(received)) {
            (Some(a), Some(b)) if (a - b).is_finite() => (a - b).abs(),
            _ => 0.0,
        },
    }
}

fn percentile(sorted: &[usize], p: usize) -> usize {
    if sorted.is_empty() {
        return 0;
    }
    let index = (sorted.len() * p).div_ceil(100).saturating_sub(1);
    sorted
        .get(index.min(sorted.len() - 1))
        .copied()
        .unwrap_or(0)
}

fn render(type_name: &str, trace: &str, count: usize, results: &[(&str, Measured)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "`{type_name}`: {count} values from {trace}\n");
    let name_width = results
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(8);
    let _ = writeln!(
        out,
        "rank  {:<name_width$}  total bytes  mean bytes  p50  p99  max",
        "encoding"
    );
    for (rank, (name, m)) in results.iter().enumerate() {
        let mut sorted = m.sizes.clone();
        sorted.sort_unstable();
        let total: usize = sorted.iter().sum();
        let mean = if sorted.is_empty() {
            0.0
        } else {
            total as f64 / sorted.len() as f64
        };
        let _ = writeln!(
            out,
            "{:>4}  {name:<name_width$}  {total:>11}  {mean:>10.2}  {:>3}  {:>3}  {:>3}",
            rank + 1,
            percentile(&sorted, 50),
            percentile(&sorted, 99),
            sorted.last().copied().unwrap_or(0),
        );
    }
    // Bits per field, one column per encoding (in rank order).
    let mut fields: Vec<&str> = Vec::new();
    for (_, m) in results {
        for field in m.bits.keys().chain(m.errors.keys()) {
            if !fields.contains(&field.as_str()) {
                fields.push(field);
            }
        }
    }
    let field_width = fields.iter().map(|f| f.len()).max().unwrap_or(0).max(5);
    let _ = write!(out, "\nmean bits per value\n{:<field_width$}", "field");
    for (name, _) in results {
        let _ = write!(out, "  {name:>w$}", w = name.len().max(8));
    }
    let _ = writeln!(out);
    for field in &fields {
        let _ = write!(out, "{field:<field_width$}");
        for (name, m) in results {
            let bits = m.bits.get(*field).copied().unwrap_or(0) as f64;
            let mean = bits / m.sizes.len().max(1) as f64;
            let _ = write!(out, "  {mean:>w$.1}", w = name.len().max(8));
        }
        let _ = writeln!(out);
    }
    let lossy: BTreeMap<&str, Vec<(&str, f64)>> = results
        .iter()
        .map(|(name, m)| {
            let errors = m
                .errors
                .iter()
                .filter(|(_, e)| **e > 0.0)
                .map(|(f, e)| (f.as_str(), *e))
                .collect();
            (*name, errors)
        })
        .collect();
    if lossy.values().any(|e| !e.is_empty()) {
        let _ = write!(
            out,
            "\nmax error per field (lossy fields only)\n{:<field_width$}",
            "field"
        );
        for (name, _) in results {
            let _ = write!(out, "  {name:>w$}", w = name.len().max(10));
        }
        let _ = writeln!(out);
        for field in &fields {
            if !lossy.values().flatten().any(|(f, _)| f == field) {
                continue;
            }
            let _ = write!(out, "{field:<field_width$}");
            for (name, _) in results {
                let error = lossy
                    .get(name)
                    .and_then(|e| e.iter().find(|(f, _)| f == field))
                    .map_or(0.0, |(_, e)| *e);
                let _ = write!(out, "  {error:>w$.6}", w = name.len().max(10));
            }
            let _ = writeln!(out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_percentiles() {
        assert_eq!(top_field("C.inventory[0].count", "C"), "inventory");
        assert_eq!(top_field("C.x", "C"), "x");
        assert_eq!(top_field("C (segment 1)", "C"), "(framing)");
        assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
        assert_eq!(percentile(&[1, 2, 3, 4], 99), 4);
        assert_eq!(percentile(&[], 99), 0);
    }
}

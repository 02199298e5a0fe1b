//! `idlc measure`: every value of a recorded trace (JSON lines) encoded in every encoding given,
//! through the IR interpreter; a table ranks the encodings by size, with the bits each field
//! costs and the largest error of each lossy field. With `--delta`, consecutive values are
//! ticks of a PUBLISHABLE_STRUCT: the first sent in full, each next one as a delta against the
//! previous one's mirror (the state the receiver holds).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::io::Write as _;

use clap::Args;
use indexmap::IndexMap;

use super::data::{InterpretInputs, read_data};
use super::inputs::with_compilation;
use super::{Status, print_error, stderr, usage_error};
use crate::Compilation;
use crate::interpret::{self, Value, explain::Entry};
use crate::ir::{Ir, StructKind};

/// Arguments of `idlc measure`.
#[derive(Debug, Clone, Args)]
pub struct MeasureArgs {
    /// The inputs and type; the data file is the trace, one JSON value per line. Every
    /// encoding of the inputs is measured (or only `--encoding-name`).
    #[command(flatten)]
    pub inputs: InterpretInputs,
    /// Consecutive values as ticks of a PUBLISHABLE_STRUCT: the first sent in full, each next
    /// one as a delta (DELTA, DEAD_RECKONING) against the previous one's mirror.
    #[arg(long)]
    pub delta: bool,
    /// With `--delta`: ticks per second (default 60); each delta is sent 1/HZ seconds after its
    /// baseline (what dead reckoning extrapolates over).
    #[arg(long = "tick-rate", value_name = "HZ", requires = "delta")]
    pub tick_rate: Option<f64>,
    /// With `--delta`: a top-level field that names the entity a value is of, for a trace of
    /// several entities interleaved: each entity's values are its own ticks.
    #[arg(long, value_name = "FIELD", requires = "delta")]
    pub key: Option<String>,
}

/// The tick rate of `--delta` without `--tick-rate`.
pub const DEFAULT_TICK_RATE: f64 = 60.0;

/// What one encoding made of the trace.
#[derive(Debug, Default)]
struct Measured {
    sizes: Vec<usize>,
    /// Bits per top-level field, summed over the trace.
    bits: IndexMap<String, u64>,
    /// The largest |sent - received| per top-level field, over its numbers.
    errors: IndexMap<String, f64>,
}

impl Measured {
    /// Records one value sent in `size` bytes, read as `received` (the reads in `entries`).
    fn record(
        &mut self,
        type_name: &str,
        size: usize,
        entries: &[Entry],
        sent: &Value,
        received: &Value,
    ) {
        self.sizes.push(size);
        for entry in entries {
            let field = top_field(&entry.path, type_name);
            *self.bits.entry(field).or_default() += entry.end.saturating_sub(entry.start);
        }
        if let (Value::Struct(sent), Value::Struct(received)) = (sent, received) {
            for (name, sent) in sent {
                let error = received.get(name).map_or(0.0, |r| max_error(sent, r));
                let slot = self.errors.entry(name.clone()).or_insert(0.0);
                *slot = slot.max(error);
            }
        }
    }
}

/// One value of the trace, with its line number.
type Line = (usize, Value);

impl MeasureArgs {
    /// Reads the trace, encodes it in each encoding and prints the table; exit 1 when a line is
    /// not JSON or a value does not encode.
    pub fn run(&self) -> Status {
        let rate = self.tick_rate();
        if self.delta && !(rate.is_finite() && rate > 0.0) {
            return usage_error(
                "measure",
                "--tick-rate must be a positive number of ticks per second",
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

    fn tick_rate(&self) -> f64 {
        self.tick_rate.unwrap_or(DEFAULT_TICK_RATE)
    }

    fn measure(&self, compilation: &Compilation, values: &[Line], trace: &str) -> Status {
        let ir = &compilation.ir;
        let type_name = &self.inputs.type_name;
        if self.delta {
            let kind = ir.schema.structs.get(type_name).map(|s| s.kind);
            if kind.is_some_and(|k| k != StructKind::Publishable) {
                return usage_error(
                    "measure",
                    format!(
                        "--delta: `{type_name}` is not a PUBLISHABLE_STRUCT: it has no delta form"
                    ),
                );
            }
        }
        let encodings: Vec<&str> = match &self.inputs.encoding_name {
            Some(name) => vec![name.as_str()],
            None => ir.encodings.keys().map(String::as_str).collect(),
        };
        let mut results = Vec::new();
        for encoding in encodings {
            let run = Run {
                ir,
                type_name,
                encoding,
                trace,
            };
            let measured = if self.delta {
                run.ticks(values, 1.0 / self.tick_rate(), self.key.as_deref())
            } else {
                run.values(values)
            };
            match measured {
                Ok(measured) => results.push((encoding, measured)),
                Err(status) => return status,
            }
        }
        results.sort_by_key(|(_, m)| m.sizes.iter().sum::<usize>());
        let mut text = format!("`{type_name}`: {} values from {trace}", values.len());
        if self.delta {
            let _ = write!(text, " as ticks at {} Hz", self.tick_rate());
            if let Some(key) = &self.key {
                let _ = write!(text, " per `{key}`");
            }
            text.push_str(": the first in full, then deltas (bytes per tick)");
        }
        text.push_str("\n\n");
        text.push_str(&render(&results));
        // A closed stdout (`| head`) is not an error of ours.
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
        Status::Success
    }
}

/// One encoding's pass over the trace.
struct Run<'r> {
    ir: &'r Ir,
    type_name: &'r str,
    encoding: &'r str,
    trace: &'r str,
}

impl Run<'_> {
    /// Every value in full.
    fn values(&self, values: &[Line]) -> Result<Measured, Status> {
        let mut measured = Measured::default();
        for (line, value) in values {
            let (size, entries, received) = self.full(*line, value)?;
            measured.record(self.type_name, size, &entries, value, &received);
        }
        Ok(measured)
    }

    /// Every value as a tick: the first of each entity (`key`) in full, each next one as a
    /// delta against the state the receiver holds, `elapsed` seconds later.
    fn ticks(&self, values: &[Line], elapsed: f64, key: Option<&str>) -> Result<Measured, Status> {
        let mut measured = Measured::default();
        let mut states: HashMap<String, Value> = HashMap::new();
        for (line, value) in values {
            let entity = self.entity(*line, value, key)?;
            let (size, entries, received) = match states.get(&entity) {
                None => self.full(*line, value)?,
                Some(baseline) => self.delta(*line, value, baseline, elapsed)?,
            };
            measured.record(self.type_name, size, &entries, value, &received);
            states.insert(entity, received);
        }
        Ok(measured)
    }

    /// The entity a value is of: its `key` field's JSON (all one without a key).
    fn entity(&self, line: usize, value: &Value, key: Option<&str>) -> Result<String, Status> {
        let Some(key) = key else {
            return Ok(String::new());
        };
        match value {
            Value::Struct(fields) if fields.contains_key(key) => Ok(fields[key].to_string()),
            _ => Err(self.fail(line, format!("the value has no field `{key}` (--key)"))),
        }
    }

    fn fail(&self, line: usize, message: String) -> Status {
        print_error(&mut stderr(), format!("{}:{line}: {message}", self.trace));
        Status::InputErrors
    }

    /// A value in full: its size, its reads, what the receiver gets.
    fn full(&self, line: usize, value: &Value) -> Result<(usize, Vec<Entry>, Value), Status> {
        let (ir, name, encoding) = (self.ir, self.type_name, self.encoding);
        let bytes = interpret::encode(ir, encoding, name, value).map_err(|error| {
            let status = self.fail(
                line,
                format!("cannot encode `{name}` in `{encoding}`: {error}"),
            );
            match error.kind {
                interpret::EncodeErrorKind::Schema(_) => Status::Usage,
                _ => status,
            }
        })?;
        let mut entries = Vec::new();
        let received = interpret::decode_traced(ir, encoding, name, &bytes, Some(&mut entries))
            .map_err(|error| {
                self.fail(
                    line,
                    format!("internal: the encoding of `{name}` in `{encoding}` does not decode: {error}"),
                )
            })?;
        Ok((bytes.len(), entries, received))
    }

    /// A value as a delta against `baseline`: its size, its reads, what the receiver gets
    /// (which is the sender's mirror).
    fn delta(
        &self,
        line: usize,
        value: &Value,
        baseline: &Value,
        elapsed: f64,
    ) -> Result<(usize, Vec<Entry>, Value), Status> {
        let (ir, name, encoding) = (self.ir, self.type_name, self.encoding);
        let (bytes, mirror) = interpret::encode_delta(ir, encoding, name, value, baseline, elapsed)
            .map_err(|error| {
                let status = self.fail(
                    line,
                    format!("cannot encode `{name}` in `{encoding}` as a delta: {error}"),
                );
                match error.kind {
                    interpret::EncodeErrorKind::Schema(_) => Status::Usage,
                    _ => status,
                }
            })?;
        let mut entries = Vec::new();
        let received = interpret::decode_delta_traced(
            ir,
            encoding,
            name,
            &bytes,
            baseline,
            elapsed,
            Some(&mut entries),
        );
        match received {
            Ok(received) if received == mirror => Ok((bytes.len(), entries, received)),
            _ => Err(self.fail(
                line,
                format!(
                    "internal: the delta of `{name}` in `{encoding}` does not decode to its mirror"
                ),
            )),
        }
    }
}

/// The top-level field an explain entry belongs to (`Character.inventory[0].count` →
/// `inventory`); the changed-bits of DELTA and DEAD_RECKONING blocks under `(block bits)`; the
/// struct's own entries (fence bits, CHECK) under `(framing)`.
fn top_field(path: &str, type_name: &str) -> String {
    let rest = path.strip_prefix(type_name).unwrap_or(path);
    if rest.starts_with(" (") && rest.ends_with(" block)") {
        return "(block bits)".to_string();
    }
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

fn render(results: &[(&str, Measured)]) -> String {
    let mut out = String::new();
    let name_width = results
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(8);
    // The size columns as wide as the largest value.
    let largest = results
        .iter()
        .filter_map(|(_, m)| m.sizes.iter().max())
        .max()
        .copied()
        .unwrap_or(0);
    let w = largest.to_string().len().max(3);
    let _ = writeln!(
        out,
        "rank  {:<name_width$}  total bytes  mean bytes  {:>w$}  {:>w$}  {:>w$}",
        "encoding", "p50", "p99", "max"
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
            "{:>4}  {name:<name_width$}  {total:>11}  {mean:>10.2}  {:>w$}  {:>w$}  {:>w$}",
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
        assert_eq!(top_field("C.x (changed-bit)", "C"), "x");
        assert_eq!(top_field("C (DELTA block)", "C"), "(block bits)");
        assert_eq!(top_field("C.s[2] (DEAD_RECKONING block)", "C"), "s");
        assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
        assert_eq!(percentile(&[1, 2, 3, 4], 99), 4);
        assert_eq!(percentile(&[], 99), 0);
    }
}

//! `idlc measure`: every value of a recorded trace (JSON lines) encoded in every encoding given,
//! through the IR interpreter; a table ranks the encodings by size, with the bits each field
//! costs and the largest error of each lossy field. With `--delta`, consecutive values are
//! ticks of a PUBLISHABLE_STRUCT: the first sent in full, each next one as a delta against the
//! state the receiver acknowledged (the previous one's mirror, unless `--loss` and
//! `--ack-delay` say otherwise). `--suggest` tunes DIFF's tiers for the trace (cli/suggest.rs).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;

use super::data::{InterpretInputs, read_data};
use super::inputs::with_compilation;
use super::suggest::Suggest;
use super::trace::{Line, Measured, Run};
use super::{Status, print_error, stderr, usage_error};
use crate::Compilation;
use crate::interpret::Value;
use crate::ir::StructKind;
use crate::tune::link::Link;

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
    /// With `--delta`: the probability that a packet is lost (0 to below 1; default 0). A
    /// lost tick is never a baseline.
    #[arg(long, value_name = "P", requires = "delta")]
    pub loss: Option<f64>,
    /// With `--delta`: ticks until a packet's acknowledgement reaches the sender (default 1):
    /// each tick is a delta against the newest acknowledged one, in full while there is none.
    #[arg(long = "ack-delay", value_name = "TICKS", requires = "delta")]
    pub ack_delay: Option<usize>,
    /// With `--loss`: the seed of the losses (every encoding sees the same ones).
    #[arg(long = "loss-seed", value_name = "SEED", requires = "loss")]
    pub loss_seed: Option<u64>,
    /// With `--delta`: tune the DIFF tiers of every field of the encoding (`--encoding-name`,
    /// else the first) that can take DIFF for this trace, and print what each saves.
    #[arg(long, requires = "delta")]
    pub suggest: bool,
    /// With `--suggest`: write the tuned encoding to FILE (the Encoding file it came from, with
    /// only DIFF changed), and measure it.
    #[arg(short, long, value_name = "FILE", requires = "suggest")]
    pub output: Option<PathBuf>,
}

/// The tick rate of `--delta` without `--tick-rate`.
pub const DEFAULT_TICK_RATE: f64 = 60.0;

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
        let link = self.link();
        if !(0.0..1.0).contains(&link.loss) {
            return usage_error("measure", "--loss must be a probability from 0 to below 1");
        }
        if link.ack_delay == 0 {
            return usage_error("measure", "--ack-delay must be at least 1 tick");
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

    /// The link of `--loss`, `--ack-delay` and `--loss-seed`.
    fn link(&self) -> Link {
        let default = Link::default();
        Link {
            loss: self.loss.unwrap_or(default.loss),
            ack_delay: self.ack_delay.unwrap_or(default.ack_delay),
            seed: self.loss_seed.unwrap_or(default.seed),
        }
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
        let link = self.link();
        if self.suggest {
            let Some(encoding) = self.inputs.encoding(compilation) else {
                return usage_error("measure", "--suggest: the inputs define no encoding");
            };
            let suggest = Suggest {
                inputs: self.inputs.input_args(),
                type_name,
                encoding,
                trace,
                values,
                tick: 1.0 / self.tick_rate(),
                key: self.key.as_deref(),
                link,
                output: self.output.clone(),
            };
            return suggest.run(compilation);
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
                sample: false,
            };
            let measured = if self.delta {
                run.ticks(values, 1.0 / self.tick_rate(), self.key.as_deref(), &link)
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
            if link != Link::default() {
                let _ = write!(
                    text,
                    ", acknowledged after {} tick(s), {}% lost",
                    link.ack_delay,
                    100.0 * link.loss
                );
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
    fn percentiles() {
        assert_eq!(percentile(&[1, 2, 3, 4], 50), 2);
        assert_eq!(percentile(&[1, 2, 3, 4], 99), 4);
        assert_eq!(percentile(&[], 99), 0);
    }
}

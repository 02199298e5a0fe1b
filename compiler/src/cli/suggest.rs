//! `idlc measure --delta --suggest`: the tuner ([`crate::tune`]) on a trace. Measures the
//! encoding as given, finds each DIFF-capable field's best tiers from the samples of a probe,
//! measures the tuned encoding, prints what each field saves, and with `--output` writes the
//! tuned Encoding file and measures that file again: the bytes printed are the file's.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use indexmap::IndexMap;

use super::inputs::{InputArgs, with_compilation};
use super::trace::{Line, Measured, Run};
use super::{Status, print_error, stderr};
use crate::Compilation;
use crate::tune::link::Link;
use crate::tune::rewrite::{Edit, diff_clause, rewrite};
use crate::tune::search::{Histogram, best};
use crate::tune::{Tunable, probe, tunable, tuned};

/// What the tuner runs on.
pub(super) struct Suggest<'a> {
    /// The inputs as given (to compile the written file with).
    pub inputs: InputArgs,
    /// The PUBLISHABLE_STRUCT the trace holds.
    pub type_name: &'a str,
    /// The encoding to tune.
    pub encoding: &'a str,
    /// The trace's name, and its values.
    pub trace: &'a str,
    /// The trace's values.
    pub values: &'a [Line],
    /// Seconds per tick.
    pub tick: f64,
    /// The field naming each value's entity.
    pub key: Option<&'a str>,
    /// The link the deltas go over.
    pub link: Link,
    /// Where to write the tuned Encoding file.
    pub output: Option<PathBuf>,
}

/// A field's tiers as given and as tuned, with their bits on the trace.
struct Choice {
    field: Tunable,
    before: u64,
    after: u64,
    tiers: Option<Vec<u32>>,
}

impl Suggest<'_> {
    /// Runs the tuner on `compilation`; prints the table, writes `--output`.
    pub(super) fn run(&self, compilation: &Compilation) -> Status {
        let ir = &compilation.ir;
        let Some(plan) = ir.plan(self.encoding) else {
            return self.fail(format!("no encoding `{}`", self.encoding));
        };
        let style = plan.style;
        let fields = tunable(ir, self.encoding);
        let given = match self.pass(ir, false) {
            Ok(m) => m,
            Err(status) => return status,
        };
        let mut text = self.header();
        if fields.is_empty() {
            let _ = writeln!(
                text,
                "No field of `{}` can take DIFF: DIFF needs a baseline (DELTA, a DELTA or DEAD_RECKONING block) and a rule with steps (FIXED_POINT, BIT(n), VLQ, a fixed width).",
                self.encoding
            );
            return print(&text);
        }
        let probed = probe(ir, self.encoding, &fields);
        let samples = match self.pass(&probed, true) {
            Ok(m) => m.samples,
            Err(status) => return status,
        };
        let choices: Vec<Choice> = fields
            .into_iter()
            .map(|field| {
                let histogram = Histogram::of(
                    samples
                        .iter()
                        .filter(|s| s.structure == field.structure && s.field == field.field),
                );
                let before = histogram.cost(style, field.tiers.as_deref());
                let (tiers, after) = best(style, field.width, &histogram);
                if after < before {
                    Choice {
                        field,
                        before,
                        after,
                        tiers,
                    }
                } else {
                    let tiers = field.tiers.clone();
                    Choice {
                        field,
                        before,
                        after: before,
                        tiers,
                    }
                }
            })
            .collect();
        let by_field: IndexMap<(String, String), Option<Vec<u32>>> = choices
            .iter()
            .map(|c| {
                let key = (c.field.structure.clone(), c.field.field.clone());
                (key, c.tiers.clone())
            })
            .collect();
        let tuned_ir = tuned(ir, self.encoding, &by_field);
        let tuned_bytes = match self.pass(&tuned_ir, false) {
            Ok(m) => total(&m),
            Err(status) => return status,
        };
        text.push_str(&table(&choices));
        let given_bytes = total(&given);
        let ticks = given.sizes.len().max(1) as f64;
        let changed = choices.iter().any(|c| c.tiers != c.field.tiers);
        if !changed || tuned_bytes >= given_bytes {
            let _ = writeln!(
                text,
                "\n`{}` as given: {given_bytes} bytes ({:.2} per tick); no tiers send this trace in fewer bytes.",
                self.encoding,
                given_bytes as f64 / ticks
            );
            return print(&text);
        }
        let saved = 100.0 * (given_bytes - tuned_bytes) as f64 / given_bytes as f64;
        let _ = writeln!(
            text,
            "\n`{}` as given: {given_bytes} bytes ({:.2} per tick)\ntuned: {tuned_bytes} bytes ({:.2} per tick), {saved:.1}% less",
            self.encoding,
            given_bytes as f64 / ticks,
            tuned_bytes as f64 / ticks,
        );
        text.push_str(
            "\nThe tuned encoding is a new wire: `idlc check-compat` reports each DIFF it changes against the encoding as given, and the ids of the protocols that use it change.\n",
        );
        if let Some(output) = &self.output {
            match self.write(compilation, &choices, output) {
                Ok(written) => {
                    let _ = writeln!(
                        text,
                        "Wrote {}: {written} bytes on this trace (`idlc measure --delta` of it).",
                        output.display()
                    );
                }
                Err(status) => return status,
            }
        }
        print(&text)
    }

    fn header(&self) -> String {
        let mut text = format!(
            "Tuning `{}` for `{}` on {}: {} values as ticks at {} Hz",
            self.encoding,
            self.type_name,
            self.trace,
            self.values.len(),
            1.0 / self.tick
        );
        if let Some(key) = self.key {
            let _ = write!(text, " per `{key}`");
        }
        let _ = writeln!(
            text,
            ", acknowledged after {} tick(s), {}% lost\n",
            self.link.ack_delay,
            100.0 * self.link.loss
        );
        text
    }

    /// One pass of the trace through `ir`'s encoding.
    fn pass(&self, ir: &crate::ir::Ir, sample: bool) -> Result<Measured, Status> {
        let run = Run {
            ir,
            type_name: self.type_name,
            encoding: self.encoding,
            trace: self.trace,
            sample,
        };
        run.ticks(self.values, self.tick, self.key, &self.link)
    }

    fn fail(&self, message: String) -> Status {
        print_error(&mut stderr(), format!("measure --suggest: {message}"));
        Status::InputErrors
    }

    /// Writes the tuned Encoding file to `output` and measures it: its total bytes.
    fn write(
        &self,
        compilation: &Compilation,
        choices: &[Choice],
        output: &Path,
    ) -> Result<usize, Status> {
        let changed: Vec<&Choice> = choices
            .iter()
            .filter(|c| c.tiers != c.field.tiers)
            .collect();
        let files: Vec<usize> = changed
            .iter()
            .filter_map(|c| c.field.loc.map(|l| l.file))
            .collect();
        let [file, rest @ ..] = files.as_slice() else {
            return Err(self.fail("the tuned fields are named in no Encoding file".into()));
        };
        if rest.iter().any(|f| f != file) || files.len() != changed.len() {
            return Err(self.fail(
                "the tuned fields are named in several Encoding files: tune one file's encoding at a time".into(),
            ));
        }
        let edits: Vec<Edit> = changed
            .iter()
            .filter_map(|c| {
                Some(Edit {
                    member: c.field.loc?.span,
                    tiers: c.tiers.clone(),
                })
            })
            .collect();
        let source = compilation.sources.source(*file);
        let text = rewrite(*file, source, &edits).map_err(|e| self.fail(e))?;
        if let Err(error) = std::fs::write(output, text) {
            print_error(
                &mut stderr(),
                format!("cannot write {}: {error}", output.display()),
            );
            return Err(Status::Usage);
        }
        // The written file in place of the one it was made from, compiled and measured.
        let original = compilation.sources.path(*file);
        let mut inputs = self.inputs.clone();
        let Some(slot) = inputs.encoding.iter_mut().find(|p| p.as_path() == original) else {
            return Err(self.fail(format!(
                "{} is not an `--encoding` of the command line: the written file is not measured",
                original.display()
            )));
        };
        *slot = output.to_path_buf();
        let mut measured = None;
        let status = with_compilation(&inputs, "measure", "measure", |written| {
            match self.pass(&written.ir, false) {
                Ok(m) => {
                    measured = Some(total(&m));
                    Status::Success
                }
                Err(status) => status,
            }
        });
        measured.ok_or(status)
    }
}

fn total(m: &Measured) -> usize {
    m.sizes.iter().sum()
}

/// The fields' tiers and bits, as given and tuned, and what all of them save.
fn table(choices: &[Choice]) -> String {
    let name_width = choices
        .iter()
        .map(|c| c.field.name().len())
        .max()
        .unwrap_or(0)
        .max(5);
    let describe = |tiers: &Option<Vec<u32>>| match tiers {
        Some(tiers) => diff_clause(tiers),
        None => "no DIFF".to_string(),
    };
    let rule_width = choices
        .iter()
        .flat_map(|c| [describe(&c.field.tiers), describe(&c.tiers)])
        .map(|d| d.len())
        .max()
        .unwrap_or(0)
        .max(8);
    let mut out = format!(
        "{:<name_width$}  {:<rule_width$}  {:>10}  {:<rule_width$}  {:>10}  {:>10}\n",
        "field", "given", "bits", "tuned", "bits", "saved"
    );
    for c in choices {
        let _ = writeln!(
            out,
            "{:<name_width$}  {:<rule_width$}  {:>10}  {:<rule_width$}  {:>10}  {:>10}",
            c.field.name(),
            describe(&c.field.tiers),
            c.before,
            describe(&c.tiers),
            c.after,
            c.before - c.after
        );
    }
    let (before, after): (u64, u64) = (
        choices.iter().map(|c| c.before).sum(),
        choices.iter().map(|c| c.after).sum(),
    );
    let _ = writeln!(
        out,
        "{:<name_width$}  {:<rule_width$}  {before:>10}  {:<rule_width$}  {after:>10}  {:>10}",
        "all",
        "",
        "",
        before - after
    );
    out
}

fn print(text: &str) -> Status {
    // A closed stdout (`| head`) is not an error of ours.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Status::Success
}

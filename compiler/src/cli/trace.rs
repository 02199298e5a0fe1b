//! One encoding's pass over a recorded trace, for `idlc measure` and its tuner: every value in
//! full, or as ticks (the first of each entity in full, each next one as a delta against the
//! state the receiver acknowledged, over the link of [`crate::tune::link`]); the bytes, the bits
//! per field and the largest errors; with DIFF, the samples the tuner searches.

use indexmap::IndexMap;
use std::collections::HashMap;

use super::{Status, print_error, stderr};
use crate::interpret::{self, DiffSample, Value, explain::Entry};
use crate::ir::Ir;
use crate::tune::link::{History, Link, Losses};

/// What one encoding made of the trace.
#[derive(Debug, Default)]
pub(super) struct Measured {
    /// Each value's bytes.
    pub(super) sizes: Vec<usize>,
    /// Bits per top-level field, summed over the trace.
    pub(super) bits: IndexMap<String, u64>,
    /// The largest |sent - received| per top-level field, over its numbers.
    pub(super) errors: IndexMap<String, f64>,
    /// What each field with DIFF sent, with [`Run::sample`].
    pub(super) samples: Vec<DiffSample>,
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
pub(super) type Line = (usize, Value);

/// One encoding's pass over the trace.
pub(super) struct Run<'r> {
    pub(super) ir: &'r Ir,
    pub(super) type_name: &'r str,
    pub(super) encoding: &'r str,
    pub(super) trace: &'r str,
    /// Whether deltas record what their DIFF fields sent ([`Measured::samples`]).
    pub(super) sample: bool,
}

impl Run<'_> {
    /// Every value in full.
    pub(super) fn values(&self, values: &[Line]) -> Result<Measured, Status> {
        let mut measured = Measured::default();
        for (line, value) in values {
            let (size, entries, received) = self.full(*line, value)?;
            measured.record(self.type_name, size, &entries, value, &received);
        }
        Ok(measured)
    }

    /// Every value as a tick of its entity (`key`) over `link`: in full when the sender holds no
    /// acknowledged state of it, else as a delta against that state, `tick` seconds per tick
    /// of its age later.
    pub(super) fn ticks(
        &self,
        values: &[Line],
        tick: f64,
        key: Option<&str>,
        link: &Link,
    ) -> Result<Measured, Status> {
        let mut measured = Measured::default();
        let mut entities: HashMap<String, (History, Vec<Value>)> = HashMap::new();
        let mut losses = Losses::new(*link);
        for (line, value) in values {
            let entity = self.entity(*line, value, key)?;
            let (history, states) = entities.entry(entity).or_default();
            let baseline = history
                .baseline(link)
                .and_then(|j| Some((history.len() - j, states.get(j)?)));
            let (size, entries, received) = match baseline {
                None => self.full(*line, value)?,
                Some((age, baseline)) => {
                    let elapsed = tick * age as f64;
                    self.delta(*line, value, baseline, elapsed, &mut measured.samples)?
                }
            };
            measured.record(self.type_name, size, &entries, value, &received);
            let arrived = history.is_empty() || losses.arrives();
            history.push(arrived);
            states.push(received);
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
        samples: &mut Vec<DiffSample>,
    ) -> Result<(usize, Vec<Entry>, Value), Status> {
        let (ir, name, encoding) = (self.ir, self.type_name, self.encoding);
        let encoded = if self.sample {
            interpret::encode_delta_sampled(ir, encoding, name, value, baseline, elapsed).map(
                |(bytes, mirror, sent)| {
                    samples.extend(sent);
                    (bytes, mirror)
                },
            )
        } else {
            interpret::encode_delta(ir, encoding, name, value, baseline, elapsed)
        };
        let (bytes, mirror) = encoded.map_err(|error| {
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
pub(super) fn top_field(path: &str, type_name: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_fields() {
        assert_eq!(top_field("C.inventory[0].count", "C"), "inventory");
        assert_eq!(top_field("C.x", "C"), "x");
        assert_eq!(top_field("C (segment 1)", "C"), "(framing)");
        assert_eq!(top_field("C.x (changed-bit)", "C"), "x");
        assert_eq!(top_field("C (DELTA block)", "C"), "(block bits)");
        assert_eq!(top_field("C.s[2] (DEAD_RECKONING block)", "C"), "s");
    }
}

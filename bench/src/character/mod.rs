//! The design source's Character (`idlc_tests::character_client::Character`, MYENCODING1): the
//! generated encoder and decoder against a hand-written bitpacker of the identical wire layout,
//! and against bitcode and prost on their own model types. Every Character is one message,
//! encoded into a writer reused from message to message and decoded from its own bytes.

pub mod bits;
pub mod check;
pub mod data;
pub mod formats;
pub mod handwritten;
pub mod model;

use idlc_tests::character_client::{Character, MYENCODING1};

use crate::BenchError;
use crate::format::{Encoded, Format, jobs, prepare};
use crate::measure::{Job, medians};
use check::Equivalence;
use formats::{Bitcode, Generated, HandWritten, Prost};

/// The Characters in every model.
pub struct Dataset {
    /// The generated type's values.
    pub values: Vec<Character>,
    /// What MYENCODING1 delivers of them.
    pub quantized: Vec<Character>,
    /// bitcode's model.
    pub model: Vec<model::Character>,
    /// prost's model.
    pub proto: Vec<model::proto::Character>,
}

impl Dataset {
    /// [`data::COUNT`] Characters from [`data::SEED`], converted.
    pub fn new() -> Result<Self, BenchError> {
        let values = data::characters(data::COUNT, data::SEED);
        let quantized = values
            .iter()
            .map(Character::quantized_with::<MYENCODING1>)
            .collect::<Result<Vec<_>, _>>()
            .map_err(BenchError::with("quantized_with"))?;
        Ok(Self {
            model: values.iter().map(model::Character::from).collect(),
            proto: values.iter().map(model::proto::Character::from).collect(),
            quantized,
            values,
        })
    }
}

/// One codec's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The codec.
    pub name: &'static str,
    /// Mean bytes of one Character's message.
    pub bytes: f64,
    /// Median nanoseconds to encode one Character.
    pub encode_ns: f64,
    /// Median nanoseconds to decode one Character.
    pub decode_ns: f64,
}

/// The comparison's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Hand-written, generated, bitcode, prost.
    pub rows: Vec<Row>,
    /// What the equivalence check saw.
    pub equivalence: Equivalence,
    /// Characters carrying Items.
    pub with_items: usize,
}

/// The codecs in the order of [`prepare_all`] and [`all_jobs`].
pub const NAMES: [&str; 4] = [
    HandWritten::NAME,
    Generated::NAME,
    Bitcode::NAME,
    Prost::NAME,
];

/// Checks the hand-written bitpacker against the generated code ([`check::check`]) and every
/// codec's round trip; returns what the check saw and every codec's messages.
pub fn prepare_all(data: &Dataset) -> Result<(Equivalence, [Encoded; 4]), BenchError> {
    let equivalence = check::check(&data.values)?;
    let encoded = [
        prepare::<HandWritten>(&data.values, &data.quantized)?,
        prepare::<Generated>(&data.values, &data.quantized)?,
        prepare::<Bitcode>(&data.model, &data.model)?,
        prepare::<Prost>(&data.proto, &data.proto)?,
    ];
    Ok((equivalence, encoded))
}

/// Per codec of [`NAMES`], its encode job and its decode job.
pub fn all_jobs<'a>(data: &'a Dataset, encoded: &'a [Encoded; 4]) -> Vec<Job<'a>> {
    let [hand, generated, bitcode, prost] = encoded;
    let mut all = Vec::new();
    all.extend(jobs::<HandWritten>(&data.values, hand));
    all.extend(jobs::<Generated>(&data.values, generated));
    all.extend(jobs::<Bitcode>(&data.model, bitcode));
    all.extend(jobs::<Prost>(&data.proto, prost));
    all
}

/// Checks ([`prepare_all`]), then times every codec: `reps` rounds, medians.
pub fn run(data: &Dataset, reps: usize) -> Result<Outcome, BenchError> {
    let (equivalence, encoded) = prepare_all(data)?;
    let times = medians(reps, &mut all_jobs(data, &encoded));
    let rows = NAMES
        .iter()
        .zip(&encoded)
        .zip(times.chunks(2))
        .map(|((name, e), t)| Row {
            name,
            bytes: e.bytes().len() as f64 / e.len().max(1) as f64,
            encode_ns: t.first().copied().unwrap_or(0.0),
            decode_ns: t.get(1).copied().unwrap_or(0.0),
        })
        .collect();
    Ok(Outcome {
        rows,
        equivalence,
        with_items: data
            .values
            .iter()
            .filter(|c| !c.inventory.is_empty())
            .count(),
    })
}

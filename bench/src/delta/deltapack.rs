//! delta-pack's side of the delta comparison, two ways: the whole tick as one message (a
//! `Snapshot` whose `Vec` diff lists the changed Characters), and every Character as its own
//! `encode_diff` message (the sizes then leave out the framing such messages would need in one
//! packet). The sender diffs against the previous true state (no mirror to keep: delta-pack
//! compares quantized floats by their steps, so the bytes are those against the receiver's
//! view); the receiver applies each diff to its previous state.

use delta_pack::DeltaPack;

use super::model::{Character, Snapshot};
use crate::BenchError;
use crate::format::Encoded;
use crate::measure::Job;

/// The true states per tick, in delta-pack's model, and the starting state.
pub struct States {
    /// Before tick 1.
    pub start: Snapshot,
    /// After each tick.
    pub ticks: Vec<Snapshot>,
}

impl States {
    /// The baselines and targets: (previous, current) per tick.
    fn pairs(&self) -> impl Iterator<Item = (&Snapshot, &Snapshot)> + '_ {
        std::iter::once(&self.start)
            .chain(&self.ticks)
            .zip(&self.ticks)
    }
}

fn check(tick: usize, held: &[Character], truth: &[Character]) -> Result<(), BenchError> {
    if held.len() != truth.len() || held.iter().zip(truth).any(|(h, t)| *h != t.quantized()) {
        return Err(BenchError::new(format!(
            "delta-pack: tick {tick}: the receiver does not hold the quantized state"
        )));
    }
    Ok(())
}

/// The whole-tick diffs, checked: the receiver ends every tick on the quantized truth.
pub fn prepare_snapshots(states: &States) -> Result<Encoded, BenchError> {
    let mut diffs = Encoded::default();
    let mut held = states.start.clone();
    for (tick, (prev, cur)) in states.pairs().enumerate() {
        let diff = Snapshot::encode_diff(prev, cur);
        held = Snapshot::decode_diff(&held, &diff);
        check(tick, &held.characters, &cur.characters)?;
        diffs.push(&diff);
    }
    Ok(diffs)
}

/// The per-Character diffs of every tick, one after another, checked likewise.
pub fn prepare_characters(states: &States) -> Result<Encoded, BenchError> {
    let mut diffs = Encoded::default();
    let mut held = states.start.characters.clone();
    for (tick, (prev, cur)) in states.pairs().enumerate() {
        let mut next = Vec::with_capacity(held.len());
        for ((p, c), h) in prev.characters.iter().zip(&cur.characters).zip(&held) {
            let diff = Character::encode_diff(p, c);
            next.push(Character::decode_diff(h, &diff));
            diffs.push(&diff);
        }
        check(tick, &next, &cur.characters)?;
        held = next;
    }
    Ok(diffs)
}

/// The timed jobs of the whole-tick messages, per tick.
pub fn snapshot_jobs<'a>(states: &'a States, diffs: &'a Encoded) -> [Job<'a>; 2] {
    let ticks = states.ticks.len();
    let encode = Job::new(ticks, move || {
        for (prev, cur) in states.pairs() {
            std::hint::black_box(Snapshot::encode_diff(prev, cur));
        }
    });
    let decode = Job::new(ticks, move || {
        let mut held = states.start.clone();
        for diff in diffs.messages() {
            held = std::hint::black_box(Snapshot::decode_diff(&held, diff));
        }
    });
    [encode, decode]
}

/// The timed jobs of the per-Character messages, per tick.
pub fn character_jobs<'a>(states: &'a States, diffs: &'a Encoded) -> [Job<'a>; 2] {
    let ticks = states.ticks.len();
    let encode = Job::new(ticks, move || {
        for (prev, cur) in states.pairs() {
            for (p, c) in prev.characters.iter().zip(&cur.characters) {
                std::hint::black_box(Character::encode_diff(p, c));
            }
        }
    });
    let decode = Job::new(ticks, move || {
        let mut held = states.start.characters.clone();
        let mut messages = diffs.messages();
        for _ in 0..ticks {
            let mut next = Vec::with_capacity(held.len());
            for (h, diff) in held.iter().zip(messages.by_ref()) {
                next.push(Character::decode_diff(h, diff));
            }
            held = std::hint::black_box(next);
        }
    });
    [encode, decode]
}

//! Delta encoding on the replication simulation of `idlc_tests::simulation` (its movement model,
//! through `trajectory`): 200 Characters for 600 ticks at 60 Hz, nothing lost, so every codec
//! sees the same baselines. Per tick every Character is encoded against the previous tick's
//! state: idlc's MYENCODING1 (`encode_delta` against the previous mirror), MYENCODING2 (delta
//! plus dead reckoning, `elapsed` one tick), each once per Character and once as one `World`
//! (schemas/world.idl: the Characters as a DELTA SEQUENCE) per tick; MYENCODING1_DIFF and
//! MYENCODING2_DIFF (the same with DIFF, schemas/myencoding{1,2}_diff.enc) once per Character;
//! and delta-pack 0.3 with its floats quantized at 0.01, once per tick and once per Character.

pub mod deltapack;
pub mod idlc;
pub mod model;

use idlc_tests::character_client::{
    Character, MYENCODING1, MYENCODING1_DIFF, MYENCODING2, MYENCODING2_DIFF, World,
};
use idlc_tests::simulation::{Population, trajectory};

use crate::BenchError;
use crate::format::Encoded;
use crate::measure::{Job, medians};
use deltapack::States;
use idlc::Expect;

/// Characters simulated.
pub const CHARACTERS: u16 = 200;

/// Ticks simulated.
pub const TICKS: u64 = 600;

/// The simulation's seed.
pub const SEED: u64 = 0x5eed;

/// MYENCODING2's dead-reckoning limit on x and y, plus half a resolution.
const DEAD_RECKONING_LIMIT: f64 = 0.02 + 0.005;

/// One codec's figures on one population.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The codec.
    pub name: &'static str,
    /// Mean bytes per Character per tick.
    pub bytes_per_character: f64,
    /// Median nanoseconds to encode one tick.
    pub encode_ns: f64,
    /// Median nanoseconds to decode one tick.
    pub decode_ns: f64,
}

/// The rows' names, in order.
pub const NAMES: [&str; 8] = [
    "idlc MYENCODING1 (delta, one message per Character)",
    "idlc MYENCODING2 (delta + dead reckoning, one message per Character)",
    "idlc MYENCODING1_DIFF (delta with DIFF, one message per Character)",
    "idlc MYENCODING2_DIFF (delta + dead reckoning with DIFF, one message per Character)",
    "idlc MYENCODING1 (delta, one World per tick)",
    "idlc MYENCODING2 (delta + dead reckoning, one World per tick)",
    "delta-pack (one message per tick)",
    "delta-pack (one message per Character)",
];

/// One population's states and every codec's checked packets.
pub struct Prepared {
    /// The true states after each tick.
    pub truth: Vec<Vec<Character>>,
    /// Before tick 1: every Character at its default with its id (both sides' baseline).
    pub start: Vec<Character>,
    /// The true states as Worlds.
    pub worlds: Vec<World>,
    /// `start` as a World.
    pub start_world: World,
    /// The same in delta-pack's model.
    pub states: States,
    /// Per codec of [`NAMES`], its packets (one per tick; per Character for the last).
    pub encoded: [Encoded; 8],
}

impl Prepared {
    /// Simulates `population` and checks every codec: the receiver ends each tick on the
    /// sender's mirror (idlc) or on the quantized state (delta-pack).
    pub fn new(population: Population) -> Result<Self, BenchError> {
        let truth = trajectory(CHARACTERS, TICKS, population, SEED);
        let start: Vec<Character> = (0..CHARACTERS)
            .map(|id| Character {
                character_id: id,
                ..Default::default()
            })
            .collect();
        let snapshot = |characters: &[Character]| model::Snapshot {
            characters: characters.iter().map(model::Character::from).collect(),
        };
        let states = States {
            start: snapshot(&start),
            ticks: truth.iter().map(|tick| snapshot(tick)).collect(),
        };
        let worlds: Vec<World> = truth
            .iter()
            .map(|tick| World {
                characters: tick.clone(),
            })
            .collect();
        let start_world = World {
            characters: start.clone(),
        };
        let dead_reckoning = Expect::Within(DEAD_RECKONING_LIMIT);
        let encoded = [
            idlc::prepare::<MYENCODING1>(&truth, &start, Expect::Quantized)?,
            idlc::prepare::<MYENCODING2>(&truth, &start, dead_reckoning)?,
            idlc::prepare::<MYENCODING1_DIFF>(&truth, &start, Expect::Quantized)?,
            idlc::prepare::<MYENCODING2_DIFF>(&truth, &start, dead_reckoning)?,
            idlc::prepare_world::<MYENCODING1>(&worlds, &start_world, Expect::Quantized)?,
            idlc::prepare_world::<MYENCODING2>(&worlds, &start_world, dead_reckoning)?,
            deltapack::prepare_snapshots(&states)?,
            deltapack::prepare_characters(&states)?,
        ];
        Ok(Self {
            truth,
            start,
            worlds,
            start_world,
            states,
            encoded,
        })
    }

    /// Per codec of [`NAMES`], its encode job and its decode job (units: ticks).
    pub fn jobs(&self) -> Vec<Job<'_>> {
        let [
            one,
            two,
            one_diff,
            two_diff,
            world_one,
            world_two,
            snapshots,
            characters,
        ] = &self.encoded;
        let (worlds, start_world) = (&self.worlds, &self.start_world);
        let mut all = Vec::new();
        all.extend(idlc::jobs::<MYENCODING1>(&self.truth, &self.start, one));
        all.extend(idlc::jobs::<MYENCODING2>(&self.truth, &self.start, two));
        all.extend(idlc::jobs::<MYENCODING1_DIFF>(
            &self.truth,
            &self.start,
            one_diff,
        ));
        all.extend(idlc::jobs::<MYENCODING2_DIFF>(
            &self.truth,
            &self.start,
            two_diff,
        ));
        all.extend(idlc::world_jobs::<MYENCODING1>(
            worlds,
            start_world,
            world_one,
        ));
        all.extend(idlc::world_jobs::<MYENCODING2>(
            worlds,
            start_world,
            world_two,
        ));
        all.extend(deltapack::snapshot_jobs(&self.states, snapshots));
        all.extend(deltapack::character_jobs(&self.states, characters));
        all
    }
}

/// Prepares `population` ([`Prepared::new`]) and times every codec: `reps` rounds, medians.
pub fn run(population: Population, reps: usize) -> Result<Vec<Row>, BenchError> {
    let prepared = Prepared::new(population)?;
    let times = medians(reps, &mut prepared.jobs());
    let samples = (u64::from(CHARACTERS) * TICKS) as f64;
    Ok(NAMES
        .iter()
        .zip(&prepared.encoded)
        .zip(times.chunks(2))
        .map(|((name, e), t)| Row {
            name,
            bytes_per_character: e.bytes().len() as f64 / samples,
            encode_ns: t.first().copied().unwrap_or(0.0),
            decode_ns: t.get(1).copied().unwrap_or(0.0),
        })
        .collect())
}

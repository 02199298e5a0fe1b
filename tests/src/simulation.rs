//! A replication simulation: N seed Characters moving for T ticks (walking, running, turning,
//! stopping, idling, picking items up), sent by a server to a client as one snapshot packet per
//! tick, every Character delta-encoded against the last state the client acknowledged. Packets
//! and acknowledgements are lost at random; the client answers every packet it gets.
//!
//! Each tick the client's state must equal the server's mirror exactly (checked here, an error
//! otherwise), and every position the client shows must lie within the dead-reckoning limit
//! plus half a resolution of the true one. `cargo run -p idlc-tests --example replication`
//! prints the bytes per Character per tick.

use std::collections::HashMap;

use idlc_runtime::{BitReader, BitWriter, DeltaCodec, DeltaContext, Encoding};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::character_client::{Animation, Character, Item, ItemKind};

/// Seconds per tick (60 Hz).
pub const TICK: f64 = 1.0 / 60.0;

/// Who is simulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Population {
    /// Everyone keeps moving (walking or running, turning now and then).
    Moving,
    /// Everyone stands still.
    Idle,
    /// A third moving, a third idle, a third switching between the two.
    Mixed,
}

/// What one run measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report {
    /// Snapshot bytes sent, over every tick and Character.
    pub bytes: u64,
    /// Characters times ticks.
    pub samples: u64,
    /// The largest distance between a shown position and the true one, in metres.
    pub max_position_error: f64,
}

impl Report {
    /// Mean snapshot bytes per Character per tick.
    pub fn bytes_per_character(&self) -> f64 {
        self.bytes as f64 / self.samples.max(1) as f64
    }
}

struct Mover {
    truth: Character,
    speed: f64,
    heading: f64,
    behaviour: Population,
}

fn initial(rng: &mut ChaCha8Rng, id: u16, population: Population) -> Mover {
    let behaviour = match population {
        Population::Mixed => {
            [Population::Moving, Population::Idle, Population::Mixed][id as usize % 3]
        }
        other => other,
    };
    let truth = Character {
        character_id: id,
        x: rng.random_range(-9000.0..9000.0),
        y: rng.random_range(-9000.0..9000.0),
        z: rng.random_range(-50.0..50.0),
        angle: rng.random_range(0.0..360.0),
        inventory: (0..rng.random_range(0..4))
            .map(|i| Item {
                item_id: rng.random_range(0..100_000),
                kind: ItemKind::from_index(i % ItemKind::COUNT).unwrap_or_default(),
                count: 1,
                durability: 1.0,
            })
            .collect(),
        ..Default::default()
    };
    Mover {
        truth,
        speed: 0.0,
        heading: rng.random_range(0.0..std::f64::consts::TAU),
        behaviour,
    }
}

/// One tick of a Character's life: its behaviour picks a speed and a heading, the position
/// integrates the velocity, the animation follows.
fn step(mover: &mut Mover, rng: &mut ChaCha8Rng) {
    let moving = match mover.behaviour {
        Population::Moving => true,
        Population::Idle => false,
        Population::Mixed => (mover.speed > 0.0) != rng.random_bool(1.0 / 180.0),
    };
    if moving {
        if mover.speed == 0.0 || rng.random_bool(1.0 / 120.0) {
            mover.speed = if rng.random_bool(0.5) { 1.5 } else { 5.0 };
        }
        if rng.random_bool(1.0 / 90.0) {
            mover.heading += rng.random_range(-1.5..1.5);
        }
    } else {
        mover.speed = 0.0;
    }
    let c = &mut mover.truth;
    c.vx = mover.speed * mover.heading.cos();
    c.vy = mover.speed * mover.heading.sin();
    c.x = (c.x + c.vx * TICK).clamp(-10000.0, 10000.0);
    c.y = (c.y + c.vy * TICK).clamp(-10000.0, 10000.0);
    if moving {
        c.angle = mover.heading.to_degrees().rem_euclid(360.0) as f32;
        c.anim = if mover.speed > 2.0 {
            Animation::Running
        } else {
            Animation::Walking
        };
        c.animation_frame = (c.animation_frame + 1) % 120;
    } else {
        c.anim = Animation::Standing;
        c.animation_frame = 0;
    }
    if rng.random_bool(1.0 / 600.0) && c.inventory.len() < 8 {
        c.inventory.push(Item {
            item_id: rng.random_range(0..100_000),
            kind: ItemKind::Medkit,
            count: rng.random_range(1..=99),
            durability: rng.random_range(0.0..=1.0),
        });
    }
}

/// The true states of `characters` Characters over `ticks` ticks of the movement model that
/// [`run`] uses (the same starting states and the same per-tick behaviour), drawn from `seed`,
/// with nothing sent: element `t` holds every Character after tick `t + 1`. Before tick 1 both
/// sides of [`run`] hold every Character at its default with its `character_id`; a benchmark
/// that replays these states starts from the same baseline.
///
/// The random stream is the movement model's alone (no packet loss is drawn), so the states are
/// not those of a [`run`] with the same seed, but they follow the same model.
pub fn trajectory(
    characters: u16,
    ticks: u64,
    population: Population,
    seed: u64,
) -> Vec<Vec<Character>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut movers: Vec<Mover> = (0..characters)
        .map(|id| initial(&mut rng, id, population))
        .collect();
    (0..ticks)
        .map(|_| {
            for mover in &mut movers {
                step(mover, &mut rng);
            }
            movers.iter().map(|m| m.truth.clone()).collect()
        })
        .collect()
}

/// Runs `ticks` ticks of `characters` Characters in encoding `E`, losing each packet and each
/// acknowledgement with probability `loss`. `dead_reckoning` is the limit the encoding gives its
/// positions (0 when it has none), for the position check.
pub fn run<E: Encoding<Style = idlc_runtime::BitStream>>(
    characters: u16,
    ticks: u64,
    population: Population,
    loss: f64,
    dead_reckoning: f64,
    seed: u64,
) -> Result<Report, String>
where
    Character: DeltaCodec<E>,
{
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut movers: Vec<Mover> = (0..characters)
        .map(|id| initial(&mut rng, id, population))
        .collect();
    // Both sides start from the same baseline (tick 0: every Character at its default), then
    // keep what each tick's snapshot made of it.
    let start: Vec<Character> = movers
        .iter()
        .map(|m| Character {
            character_id: m.truth.character_id,
            ..Default::default()
        })
        .collect();
    let mut server_sent: HashMap<u64, Vec<Character>> = HashMap::from([(0, start.clone())]);
    let mut client_has: HashMap<u64, Vec<Character>> = HashMap::from([(0, start)]);
    let mut acked = 0u64;
    let mut report = Report {
        bytes: 0,
        samples: 0,
        max_position_error: 0.0,
    };
    let mut w = BitWriter::new();
    for tick in 1..=ticks {
        for mover in &mut movers {
            step(mover, &mut rng);
        }
        let baseline = &server_sent[&acked];
        let ctx = DeltaContext::new((tick - acked) as f64 * TICK);
        w.clear();
        let mut mirrors = Vec::with_capacity(movers.len());
        for (mover, base) in movers.iter().zip(baseline) {
            mirrors.push(
                mover
                    .truth
                    .encode_delta_to(base, &ctx, &mut w)
                    .map_err(|e| format!("tick {tick}: {e}"))?,
            );
        }
        let packet = w.finish().to_vec();
        report.bytes += packet.len() as u64;
        report.samples += u64::from(characters);
        server_sent.insert(tick, mirrors);
        if rng.random_bool(loss) {
            continue;
        }
        // The client decodes against the same baseline (the packet names its tick).
        let base = &client_has[&acked];
        let mut r = BitReader::new(&packet);
        let mut state = Vec::with_capacity(base.len());
        for b in base {
            state.push(
                <Character as DeltaCodec<E>>::decode_delta_from(b, &ctx, &mut r)
                    .map_err(|e| format!("tick {tick}: {e}"))?,
            );
        }
        if state != server_sent[&tick] {
            return Err(format!(
                "tick {tick}: the client's state differs from the mirror"
            ));
        }
        for (got, mover) in state.iter().zip(&movers) {
            let error = (got.x - mover.truth.x).hypot(got.y - mover.truth.y);
            report.max_position_error = report.max_position_error.max(error);
            let limit = dead_reckoning.max(0.0) + 0.005;
            let off = (got.x - mover.truth.x)
                .abs()
                .max((got.y - mover.truth.y).abs());
            if off > limit + 1e-9 {
                return Err(format!(
                    "tick {tick}: a position is {off} m off, more than {limit}"
                ));
            }
        }
        client_has.insert(tick, state);
        if !rng.random_bool(loss) {
            acked = tick;
            server_sent.retain(|&t, _| t >= acked);
            client_has.retain(|&t, _| t >= acked);
        }
    }
    Ok(report)
}

/// Bytes of one Character's full form in encoding `E` (no baseline), averaged over the
/// simulation's starting Characters.
pub fn full_bytes<E: Encoding>(characters: u16, seed: u64) -> f64
where
    Character: idlc_runtime::Codec<E>,
{
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let total: usize = (0..characters)
        .map(|id| {
            let mut mover = initial(&mut rng, id, Population::Moving);
            step(&mut mover, &mut rng);
            idlc_runtime::to_bytes::<E, Character>(&mover.truth).map_or(0, |b| b.len())
        })
        .sum();
    total as f64 / f64::from(characters.max(1))
}

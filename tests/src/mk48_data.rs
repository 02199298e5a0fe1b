//! The mk48 data set (../shared/bench/MK48.md): 1,000 world updates of mk48.io drawn from a fixed
//! seed, exactly as that file describes, in the types generated from schemas/mk48.idl. Every
//! serializer of the benchmarks encodes these values (converted to its own types, outside the
//! timed loops).

use crate::mk48::{Contact, EntityType, Guidance, TerrainUpdate, Transform, Update};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// The number of updates in the data set.
pub const UPDATES: usize = 1_000;

/// The seed the benchmarks use.
pub const SEED: u64 = 0x6d6b_3438;

/// Per entity type: the type, its relative frequency, its turret count and its weapon count.
const ENTITY_TYPES: [(EntityType, f64, usize, usize); 10] = [
    (EntityType::ArleighBurke, 2.14, 1, 20),
    (EntityType::Bismarck, 0.52, 4, 10),
    (EntityType::Clemenceau, 0.97, 4, 16),
    (EntityType::Fletcher, 1.46, 4, 18),
    (EntityType::G5, 13.16, 0, 2),
    (EntityType::Iowa, 1.55, 3, 28),
    (EntityType::Kolkata, 0.83, 1, 15),
    (EntityType::Osa, 7.25, 2, 6),
    (EntityType::Yasen, 4.06, 0, 14),
    (EntityType::Zubr, 12.92, 3, 11),
];

/// The data set: [`UPDATES`] updates from [`SEED`].
#[must_use]
pub fn updates() -> Vec<Update> {
    updates_from(SEED, UPDATES)
}

/// `count` updates drawn from `seed`.
#[must_use]
pub fn updates_from(seed: u64, count: usize) -> Vec<Update> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    (0..count).map(|_| update(&mut rng)).collect()
}

fn update(rng: &mut impl Rng) -> Update {
    let players: u32 = rng.random_range(200..400);
    let world_radius = (f64::from(players) * 15000.0).sqrt() as f32 + rng.random_range(-50.0..50.0);
    let terrain_radius = (world_radius / 1600.0).ceil() as i8;
    let u: f64 = rng.random();
    let score = (u.powi(4) * 5000.0).floor() as u32 + rng.random_range(0..50);
    let contacts = (0..rng.random_range(20..40))
        .map(|_| contact(rng, players))
        .collect();
    let terrain_updates = (0..rng.random_range(3..10))
        .map(|_| terrain_update(rng, terrain_radius))
        .collect();
    Update {
        contacts,
        score,
        world_radius,
        terrain_updates,
    }
}

fn entity_type(rng: &mut impl Rng) -> (EntityType, usize, usize) {
    let total: f64 = ENTITY_TYPES.iter().map(|t| t.1).sum();
    let mut pick = rng.random_range(0.0..total);
    for (kind, frequency, turrets, weapons) in ENTITY_TYPES {
        if pick < frequency {
            return (kind, turrets, weapons);
        }
        pick -= frequency;
    }
    let (kind, _, turrets, weapons) = ENTITY_TYPES[ENTITY_TYPES.len() - 1];
    (kind, turrets, weapons)
}

fn velocity(rng: &mut impl Rng) -> i16 {
    let class: f64 = rng.random();
    if class < 0.8 {
        rng.random_range(140..900)
    } else if class < 0.9 {
        0
    } else {
        rng.random_range(-225..-35)
    }
}

fn contact(rng: &mut impl Rng, players: u32) -> Contact {
    let (kind, turrets, weapons) = entity_type(rng);
    let visible = rng.random_bool(0.7);
    let damage = if visible && rng.random_bool(0.6) {
        0
    } else {
        rng.random_range(0..200)
    };
    let entity_id = rng.random_range(0..players * 20);
    let player_id = visible.then(|| rng.random_range(0..players) as u16);
    let guidance = Guidance {
        angle: rng.random(),
        submerge: kind == EntityType::Yasen && rng.random_bool(0.9),
        velocity: velocity(rng),
    };
    let submerged = kind == EntityType::Yasen && rng.random_bool(0.9);
    let transform = Transform {
        altitude: if submerged {
            rng.random_range(-120..-35)
        } else {
            0
        },
        angle: rng.random(),
        x: rng.random_range(-750.0..750.0),
        y: rng.random_range(-750.0..750.0),
        velocity: velocity(rng),
    };
    let (reloads, turret_angles) = if visible {
        let p: f64 = rng.random();
        let reloads = (0..weapons).map(|_| rng.random_bool(p)).collect();
        let base: u16 = rng.random();
        let turret_angles = (0..turrets)
            .map(|_| {
                if rng.random_bool(0.75) {
                    base.wrapping_add_signed(rng.random_range(-200..200))
                } else {
                    rng.random()
                }
            })
            .collect();
        (reloads, turret_angles)
    } else {
        (Vec::new(), Vec::new())
    };
    Contact {
        damage,
        entity_id,
        entity_type: visible.then_some(kind),
        guidance,
        player_id,
        reloads,
        transform,
        turret_angles,
    }
}

fn terrain_update(rng: &mut impl Rng, radius: i8) -> TerrainUpdate {
    let len = if rng.random_bool(0.02) {
        rng.random_range(900..1100)
    } else {
        rng.random_range(3..9)
    };
    TerrainUpdate {
        chunk_x: rng.random_range(-radius..radius),
        chunk_y: rng.random_range(-radius..radius),
        data: (0..len).map(|_| rng.random()).collect(),
    }
}

//! The Characters of the comparison: drawn as tests/benches/codec.rs draws them (the same value
//! ranges and seed), and a quarter of them carry 1 to 3 inventory Items.

use idlc_tests::character_client::{Animation, Character, Item, ItemKind};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How many Characters.
pub const COUNT: usize = 10_000;

/// The seed (codec.rs's).
pub const SEED: u64 = 7;

/// `count` Characters drawn from `seed`.
pub fn characters(count: usize, seed: u64) -> Vec<Character> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(|_| character(&mut rng)).collect()
}

fn character(rng: &mut ChaCha8Rng) -> Character {
    let mut c = Character {
        character_id: rng.random_range(0..2000),
        x: rng.random_range(-10000.0..10000.0),
        y: rng.random_range(-10000.0..10000.0),
        z: rng.random_range(-100.0..100.0),
        vx: rng.random_range(-10.0..10.0),
        vy: rng.random_range(-10.0..10.0),
        vz: rng.random_range(-10.0..10.0),
        angle: rng.random_range(0.0..360.0),
        anim: Animation::from_index(rng.random_range(0..3)).unwrap_or_default(),
        animation_frame: rng.random_range(0..120),
        inventory: Vec::new(),
    };
    if rng.random_bool(0.25) {
        c.inventory = (0..rng.random_range(1..=3))
            .map(|_| Item {
                item_id: rng.random(),
                kind: ItemKind::from_index(rng.random_range(0..ItemKind::COUNT))
                    .unwrap_or_default(),
                count: rng.random_range(1..=99),
                durability: rng.random_range(0.0..=1.0),
            })
            .collect();
    }
    c
}

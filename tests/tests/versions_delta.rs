//! Delta replication across versions: a `DELTA SEQUENCE` of an open PUBLISHABLE_STRUCT that
//! grows (compiler/tests/compat/pass/23_delta_sequence_of_open_struct_grows: a dead-reckoned
//! position and a DELTA field widened, a field added). check-compat accepts the pair, so a
//! newer sender's deltas must reach an older receiver, and an older sender's a newer one, tick
//! after tick, with every element after a grown one still in place: changed elements travel in
//! the nested delta form, whose extensions an older reader skips.

use idlc_runtime::{BitReader, BitWriter, DeltaContext, WireWrite};
use idlc_tests::compat_pairs::p23_delta_sequence_of_open_struct_grows::{new, old};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const TICKS: usize = 400;
const CTX_ELAPSED: f64 = 0.1;

/// The next tick's world of a newer sender: units come and go, move (sometimes past the old
/// range of x), take damage, change `k` past 255 and `armor`.
fn step_new(rng: &mut ChaCha8Rng, world: &new::World, tick: usize) -> new::World {
    let kept: Vec<&new::Unit> = world
        .units
        .iter()
        .filter(|_| rng.random_bool(0.95))
        .collect();
    let mut units: Vec<new::Unit> = kept
        .into_iter()
        .map(|u| {
            let mut u = u.clone();
            if rng.random_bool(0.3) {
                u.hp = rng.random();
            }
            if rng.random_bool(0.5) {
                u.vx = rng.random_range(-10.0..10.0);
            }
            let wide = if rng.random_bool(0.1) { 1000.0 } else { 100.0 };
            u.x = (u.x + u.vx * CTX_ELAPSED + rng.random_range(-0.2..0.2)).clamp(-wide, wide);
            if rng.random_bool(0.2) {
                u.k = rng.random();
            }
            if rng.random_bool(0.1) {
                u.armor = rng.random();
            }
            u
        })
        .collect();
    while units.len() < 8 && rng.random_bool(0.2) {
        units.push(new::Unit {
            hp: rng.random(),
            x: rng.random_range(-100.0..100.0),
            vx: rng.random_range(-10.0..10.0),
            k: rng.random(),
            armor: rng.random(),
        });
    }
    new::World {
        units,
        tick: tick as u8,
    }
}

/// The next tick's world of an older sender.
fn step_old(rng: &mut ChaCha8Rng, world: &old::World, tick: usize) -> old::World {
    let as_new = new::World {
        units: world
            .units
            .iter()
            .map(|u| new::Unit {
                hp: u.hp,
                x: u.x,
                vx: u.vx,
                k: u16::from(u.k),
                armor: 0,
            })
            .collect(),
        tick: world.tick,
    };
    let next = step_new(rng, &as_new, tick);
    old::World {
        units: next
            .units
            .iter()
            .map(|u| old::Unit {
                hp: u.hp,
                x: u.x.clamp(-100.0, 100.0),
                vx: u.vx,
                k: u.k as u8,
            })
            .collect(),
        tick: next.tick,
    }
}

#[test]
fn a_newer_senders_deltas_reach_an_older_receiver() {
    let ctx = DeltaContext::new(CTX_ELAPSED);
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let (mut world, mut mirror) = (new::World::default(), new::World::default());
    let mut receiver = old::World::default();
    for tick in 0..TICKS {
        world = step_new(&mut rng, &world, tick);
        let mut w = BitWriter::new();
        mirror = world
            .encode_delta(&mirror, &ctx, &mut w)
            .expect("every value is in range");
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        receiver = old::World::decode_delta(&receiver, &ctx, &mut r)
            .unwrap_or_else(|e| panic!("tick {tick}: the older receiver rejects: {e}"));
        assert_eq!(receiver.tick, mirror.tick, "tick {tick}");
        assert_eq!(receiver.units.len(), mirror.units.len(), "tick {tick}");
        for (i, (got, sent)) in receiver.units.iter().zip(&mirror.units).enumerate() {
            let at = format!("tick {tick}, unit {i}: {got:?} from {sent:?}");
            assert_eq!(got.hp, sent.hp, "{at}");
            assert_eq!(got.vx, sent.vx, "{at}");
            assert_eq!(got.k, sent.k as u8, "{at}: the old slot holds the low byte");
            // The old slot holds the position saturated into the old range, to its step.
            assert!(
                (got.x - sent.x.clamp(-100.0, 100.0)).abs() <= 0.005 + 1e-9,
                "{at}"
            );
        }
    }
}

#[test]
fn an_older_senders_deltas_reach_a_newer_receiver() {
    let ctx = DeltaContext::new(CTX_ELAPSED);
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    let (mut world, mut mirror) = (old::World::default(), old::World::default());
    let mut receiver = new::World::default();
    for tick in 0..TICKS {
        world = step_old(&mut rng, &world, tick);
        let mut w = BitWriter::new();
        mirror = world
            .encode_delta(&mirror, &ctx, &mut w)
            .expect("every value is in range");
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        receiver = new::World::decode_delta(&receiver, &ctx, &mut r)
            .unwrap_or_else(|e| panic!("tick {tick}: the newer receiver rejects: {e}"));
        let expected = new::World {
            units: mirror
                .units
                .iter()
                .map(|u| new::Unit {
                    hp: u.hp,
                    x: u.x,
                    vx: u.vx,
                    k: u16::from(u.k),
                    armor: 3,
                })
                .collect(),
            tick: mirror.tick,
        };
        assert_eq!(receiver, expected, "tick {tick}: the DEFAULT fills armor");
    }
}

/// The newer nested delta form of an element, which an older reader must skip to find the
/// element after it: an element whose only change is in the newer segment.
#[test]
fn an_older_receiver_skips_a_change_only_a_newer_segment_carries() {
    let ctx = DeltaContext::new(CTX_ELAPSED);
    let unit = |armor| new::Unit {
        hp: 7,
        x: 1.0,
        vx: 0.0,
        k: 300,
        armor,
    };
    let baseline = new::World {
        units: vec![unit(3), unit(3)],
        tick: 1,
    };
    let next = new::World {
        units: vec![unit(9), unit(9)],
        tick: 2,
    };
    let mut w = BitWriter::new();
    next.encode_delta(&baseline, &ctx, &mut w).unwrap();
    w.write_bits(0b1011, 4).unwrap();
    let bytes = w.into_bytes();
    let old_baseline = old::World {
        units: vec![
            old::Unit {
                hp: 7,
                x: 1.0,
                vx: 0.0,
                k: 44,
            };
            2
        ],
        tick: 1,
    };
    let mut r = BitReader::new(&bytes);
    let got = old::World::decode_delta(&old_baseline, &ctx, &mut r).unwrap();
    assert_eq!(got.units, old_baseline.units);
    assert_eq!(got.tick, 2);
    assert_eq!(
        idlc_runtime::WireRead::read_bits(&mut r, 4).unwrap(),
        0b1011
    );
}

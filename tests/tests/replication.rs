//! Delta replication of generated PUBLISHABLE_STRUCTs (DELTA fields and blocks, DELTA SEQUENCE,
//! DEAD_RECKONING), through the generated API: the sender's mirror equals the receiver's state
//! after any sequence of states, elapsed times and lost packets; positions stay within the
//! dead-reckoning limit plus half a resolution; idle costs what the changed-bits cost; and every
//! delta decoder survives hostile packets and keeps the decode-encode property.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use idlc_runtime::{
    BitWriter, Codec, DeltaCodec, DeltaContext, Encoding, WireRead, WireWrite, from_delta_bytes,
    to_delta_bytes,
};
use idlc_tests::character_client as cc;
use idlc_tests::edge as e;
use idlc_tests::naval as n;
use idlc_tests::simulation::{Population, run};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Sends `states` one after another (each against the last baseline the receiver
/// acknowledged; `dropped[i]` loses packet i and its ack), checking the mirror against the
/// receiver's state, and returns the receiver's states next to the true ones. Every state is
/// also encoded with `encode_delta_into` into a spare mirror holding an older one (as a sender
/// that swaps two mirrors does), which must give the same bytes and the same mirror, and decoded
/// with `decode_delta_into` into a spare state likewise.
fn replicate<E: Encoding, T: DeltaCodec<E> + Clone + PartialEq + std::fmt::Debug + Default>(
    states: &[T],
    elapsed: &[f64],
    dropped: &[bool],
) -> Vec<(T, T)> {
    let mut sender_base = T::default();
    let mut receiver_base = T::default();
    let mut since = 0.0;
    let mut shown = Vec::new();
    let mut spare = states.last().cloned().unwrap_or_default();
    let mut spare_state = spare.clone();
    for ((state, dt), lost) in states.iter().zip(elapsed).zip(dropped) {
        since += dt;
        let ctx = DeltaContext::new(since);
        let mut w = <E::Style as idlc_runtime::Style>::Writer::default();
        let mirror = state.encode_delta_to(&sender_base, &ctx, &mut w).unwrap();
        let bytes = w.into_bytes();
        let mut r = <E::Style as idlc_runtime::Style>::Reader::from_bytes(&bytes);
        T::decode_delta_into(&receiver_base, &ctx, &mut r, &mut spare_state).unwrap();
        assert_eq!(spare_state, mirror, "decode_delta_into built another state");
        let mut w = <E::Style as idlc_runtime::Style>::Writer::default();
        state
            .encode_delta_into(&sender_base, &ctx, &mut w, &mut spare)
            .unwrap();
        assert_eq!(w.into_bytes(), bytes, "encode_delta_into wrote other bytes");
        assert_eq!(spare, mirror, "encode_delta_into built another mirror");
        if *lost {
            continue;
        }
        let got = from_delta_bytes::<E, T>(&receiver_base, &ctx, &bytes).unwrap();
        assert_eq!(
            got, mirror,
            "the receiver's state differs from the sender's mirror"
        );
        assert_eq!(
            to_delta_bytes::<E, T>(state, &sender_base, &ctx).unwrap(),
            bytes
        );
        shown.push((state.clone(), got.clone()));
        spare = std::mem::replace(&mut sender_base, mirror);
        receiver_base = got;
        since = 0.0;
    }
    shown
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// MYENCODING1: no dead reckoning; every quantized field within r / 2 (0.005) of the truth.
    #[test]
    fn myencoding1_mirror_equals_receiver(
        states in proptest::collection::vec(common::character(), 1..12),
        elapsed in proptest::collection::vec(0.0f64..0.5, 12),
        dropped in proptest::collection::vec(proptest::bool::weighted(0.2), 12),
    ) {
        for (truth, got) in replicate::<cc::MYENCODING1, cc::Character>(&states, &elapsed, &dropped) {
            for (t, g) in [(truth.x, got.x), (truth.y, got.y), (truth.z, got.z), (truth.vx, got.vx)] {
                prop_assert!((t - g).abs() <= 0.005 + 1e-9, "{t} shown as {g}");
            }
            prop_assert!((f64::from(truth.angle) - f64::from(got.angle)).abs() <= 0.005 + 1e-4);
            prop_assert_eq!(truth.character_id, got.character_id);
            prop_assert_eq!(truth.anim, got.anim);
            prop_assert_eq!(truth.animation_frame, got.animation_frame);
            prop_assert_eq!(truth.inventory.len(), got.inventory.len());
        }
    }

    /// MYENCODING2: x and y within 0.02 + 0.005 of the truth, z within 0.01 + 0.005.
    #[test]
    fn myencoding2_dead_reckoning_stays_within_its_limit(
        states in proptest::collection::vec(common::character(), 1..12),
        elapsed in proptest::collection::vec(0.0f64..0.5, 12),
        dropped in proptest::collection::vec(proptest::bool::weighted(0.2), 12),
    ) {
        for (truth, got) in replicate::<cc::MYENCODING2, cc::Character>(&states, &elapsed, &dropped) {
            prop_assert!((truth.x - got.x).abs() <= 0.025 + 1e-9);
            prop_assert!((truth.y - got.y).abs() <= 0.025 + 1e-9);
            prop_assert!((truth.z - got.z).abs() <= 0.015 + 1e-9);
            prop_assert_eq!(truth.character_id, got.character_id);
        }
    }
}

/// `sent_equals` answers what `sent` and `==` answer, error included, for values that compare
/// equal as sent, that differ, and that cannot be sent; the other value off the steps (a value
/// as the game holds it) equals one that is sent as it is.
fn sent_equals_agrees<E: Encoding>(a: &cc::Character, b: &cc::Character)
where
    cc::Character: DeltaCodec<E>,
{
    let mut broken = a.clone();
    broken.y = f64::NAN;
    broken.inventory.push(cc::Item::default());
    for (x, y) in [
        (a, b),
        (b, a),
        (a, a),
        (&broken, a),
        (&broken, b),
        (a, &broken),
    ] {
        let sent = Codec::<E>::sent(x);
        for other in [y.clone(), sent.clone().unwrap_or_default()] {
            let as_sent = Codec::<E>::sent(&other).ok();
            assert_eq!(
                Codec::<E>::sent_equals(x, &other),
                sent.clone()
                    .map(|s| s == other || as_sent.as_ref() == Some(&s)),
                "{}",
                E::NAME
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sent_equals_is_sent_then_eq(a in common::character(), b in common::character()) {
        sent_equals_agrees::<cc::MYENCODING1>(&a, &b);
        sent_equals_agrees::<cc::MYENCODING2>(&a, &b);
    }
}

/// A moving, an idle and a mixed population over 300 ticks with 10% loss, in both seed
/// encodings: the client's state equals the mirror every tick (checked inside `run`), and
/// delta beats the full form.
#[test]
fn simulation_keeps_sender_and_receiver_in_step() {
    for population in [Population::Moving, Population::Idle, Population::Mixed] {
        let one = run::<cc::MYENCODING1>(40, 300, population, 0.1, 0.0, 3).unwrap();
        let two = run::<cc::MYENCODING2>(40, 300, population, 0.1, 0.02, 3).unwrap();
        assert!(one.max_position_error <= 0.005 * std::f64::consts::SQRT_2 + 1e-9);
        if population == Population::Moving {
            assert!(two.bytes_per_character() < one.bytes_per_character());
        }
        assert!(one.bytes_per_character() < 20.0, "{population:?}: {one:?}");
    }
}

/// An idle Character (nothing changed) with an id below 16,384 costs at most 21 bits under
/// MYENCODING1 (VLQ id, 16 bits, and five changed-bits), measured inside a snapshot that packs
/// 100 of them.
#[test]
fn idle_character_costs_21_bits() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let ctx = DeltaContext::new(1.0 / 60.0);
    let mut w = BitWriter::new();
    for id in 16_284..16_384u16 {
        let mut c = common::random_character(&mut rng);
        c.character_id = id;
        let mirror = idlc_runtime::Codec::<cc::MYENCODING1>::sent(&c).unwrap();
        let again = mirror.encode_delta(&mirror, &ctx, &mut w);
        assert_eq!(again.unwrap(), mirror);
    }
    assert_eq!(w.bits_written(), 100 * 21);
}

/// A Character against itself as the baseline costs only its changed-bits (WIRE.md: a
/// changed-bit compares the values as they would be sent), though its reals lie off the steps
/// as a game's own values and `Default`s do (2.34 is no f64 of the 0.01 grid). A move within half
/// a step is no change either, a move by a step is; an unchanged DELTA field's mirror is the
/// baseline's value, which the receiver keeps.
#[test]
fn a_baseline_off_the_steps_is_unchanged_by_its_own_value() {
    fn check<E: Encoding>()
    where
        cc::Character: DeltaCodec<E>,
    {
        let game = cc::Character {
            character_id: 7,
            x: 2.34,
            y: -1.07,
            z: 0.07,
            vx: 0.1,
            vy: 0.7,
            vz: -0.3,
            angle: 12.34,
            ..Default::default()
        };
        let on_steps = Codec::<E>::sent(&game).unwrap();
        assert_ne!(on_steps, game, "the test's reals lie off the steps");
        let ctx = DeltaContext::default();
        let idle = delta_bits::<E, _>(&on_steps, &on_steps, &ctx);
        assert_eq!(delta_bits::<E, _>(&game, &game, &ctx), idle, "{}", E::NAME);
        let mut w = <E::Style as idlc_runtime::Style>::Writer::default();
        let mirror = game.encode_delta_to(&game, &ctx, &mut w).unwrap();
        // (A dead-reckoned position unsent is extrapolated instead.)
        assert_eq!(mirror.angle, game.angle, "{}", E::NAME);
        let mut nudged = game.clone();
        (nudged.x, nudged.vy, nudged.angle) = (2.3449, 0.6951, 12.344);
        assert_eq!(
            delta_bits::<E, _>(&nudged, &game, &ctx),
            idle,
            "{}",
            E::NAME
        );
        let mut moved = game.clone();
        moved.angle += 0.01;
        assert!(
            delta_bits::<E, _>(&moved, &game, &ctx) > idle,
            "{}",
            E::NAME
        );
    }
    check::<cc::MYENCODING1>();
    check::<cc::MYENCODING2>();
    check::<cc::MYENCODING1_DIFF>();
    check::<cc::MYENCODING2_DIFF>();
}

/// A struct behind a changed-bit, an OPTIONAL of one and a SEQUENCE of them compare part by
/// part as sent: against a baseline off the steps (2.34 is no f64 of the 0.01 grid) the same
/// value costs its three changed-bits, and the interpreter writes the same bytes.
#[test]
fn held_structs_compare_their_parts_as_sent() {
    use idlc_tests::held_delta::{HeldDelta, Marker, Vec2};
    let at = Vec2 { x: 2.34, y: -1.07 };
    let game = Marker {
        at: at.clone(),
        target: Some(at.clone()),
        path: vec![at, Vec2 { x: 0.07, y: 9.99 }],
    };
    let ctx = DeltaContext::default();
    assert_eq!(delta_bits::<HeldDelta, _>(&game, &game, &ctx), 3);
    let mut moved = game.clone();
    moved.path[1].x = 0.08;
    let bytes = to_delta_bytes::<HeldDelta, _>(&moved, &game, &ctx).unwrap();
    assert!(bytes.len() > 1);
    let ir = common::ir(
        &[common::schema("held_delta.idl")],
        &[common::schema("held_delta.enc")],
        None,
    );
    let value = |m: &Marker| {
        use idlc::interpret::Value;
        let point = |v: &Vec2| {
            Value::Struct(
                [("x", v.x), ("y", v.y)]
                    .into_iter()
                    .map(|(name, real)| (name.to_string(), Value::Float(real)))
                    .collect(),
            )
        };
        let fields = [
            ("at", point(&m.at)),
            ("target", m.target.as_ref().map_or(Value::Null, point)),
            ("path", Value::List(m.path.iter().map(point).collect())),
        ];
        Value::Struct(
            fields
                .into_iter()
                .map(|(name, v)| (name.to_string(), v))
                .collect(),
        )
    };
    for now in [&game, &moved] {
        let (interpreted, _) = idlc::interpret::encode_delta(
            &ir,
            "HeldDelta",
            "Marker",
            &value(now),
            &value(&game),
            0.0,
        )
        .unwrap();
        assert_eq!(
            interpreted,
            to_delta_bytes::<HeldDelta, _>(now, &game, &ctx).unwrap()
        );
    }
}

/// A random naval Fleet.
fn fleet(rng: &mut ChaCha8Rng) -> n::Fleet {
    let ships = (0..rng.random_range(0..6))
        .map(|i| n::Ship {
            id: i,
            class: n::ShipClass::from_index(rng.random_range(0..n::ShipClass::COUNT))
                .unwrap_or_default(),
            x: rng.random_range(-5000.0..=5000.0),
            y: rng.random_range(-5000.0..=5000.0),
            vx: rng.random_range(-20.0..=20.0),
            vy: rng.random_range(-20.0..=20.0),
            heading: rng.random_range(0.0..360.0),
            hull: rng.random_range(0.001..=1.0),
            ammo: rng.random_range(0..=100),
            turrets: (0..rng.random_range(0..4))
                .map(|_| n::Turret {
                    bearing: rng.random_range(0.0..360.0),
                    elevation: rng.random_range(-5.0..=60.0),
                    loaded: rng.random_bool(0.5),
                })
                .collect(),
        })
        .collect();
    n::Fleet {
        tick: rng.random(),
        time_left_s: rng.random_range(0..3600),
        ships,
    }
}

/// The next state of a fleet: most ships move a little, some turrets turn, ships come and go.
fn evolve(rng: &mut ChaCha8Rng, previous: &n::Fleet) -> n::Fleet {
    let mut next = previous.clone();
    next.tick = next.tick.wrapping_add(1);
    for ship in &mut next.ships {
        if rng.random_bool(0.7) {
            ship.x = (ship.x + ship.vx / 60.0).clamp(-5000.0, 5000.0);
            ship.y = (ship.y + ship.vy / 60.0).clamp(-5000.0, 5000.0);
        }
        if rng.random_bool(0.1) {
            ship.heading = rng.random_range(0.0..360.0);
        }
        if let Some(turret) = ship.turrets.first_mut() {
            turret.bearing = (turret.bearing + 0.7) % 360.0;
        }
    }
    if rng.random_bool(0.2) {
        let mut extra = fleet(rng);
        next.ships.append(&mut extra.ships);
        next.ships.truncate(64);
    }
    if rng.random_bool(0.2) && !next.ships.is_empty() {
        next.ships.pop();
    }
    next
}

fn naval_replication<E: Encoding>()
where
    n::Fleet: DeltaCodec<E>,
{
    let mut rng = ChaCha8Rng::seed_from_u64(0xF1EE7);
    for _ in 0..20 {
        let mut states = vec![fleet(&mut rng)];
        for _ in 0..30 {
            let next = evolve(&mut rng, states.last().unwrap());
            states.push(next);
        }
        let elapsed: Vec<f64> = (0..states.len()).map(|_| 1.0 / 60.0).collect();
        let dropped: Vec<bool> = (0..states.len()).map(|_| rng.random_bool(0.15)).collect();
        for (truth, got) in replicate::<E, n::Fleet>(&states, &elapsed, &dropped) {
            assert_eq!(truth.ships.len(), got.ships.len());
            for (t, g) in truth.ships.iter().zip(&got.ships) {
                assert!(
                    (t.x - g.x).abs() <= 0.5 + 0.05 + 1e-9,
                    "{} shown as {}",
                    t.x,
                    g.x
                );
                assert!(g.heading < 360.0 && g.hull > 0.0);
            }
        }
    }
}

#[test]
fn naval_fleets_replicate_in_both_streams() {
    naval_replication::<n::NAVAL>();
    naval_replication::<n::NAVAL_S2S>();
}

/// Random and mutated delta packets against random baselines: no panic; what decodes
/// re-encodes against the same baseline to bytes that decode and re-encode identically; and
/// `decode_delta_into`, into one state kept from packet to packet, gives the same error or the
/// same state as `decode_delta_from`.
fn hostile<E: Encoding, T: DeltaCodec<E> + Clone + PartialEq + std::fmt::Debug>(
    baselines: &[T],
    states: &[T],
    iterations: usize,
    seed: u64,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let ctx = DeltaContext::new(0.25);
    let seeds: Vec<Vec<u8>> = states
        .iter()
        .zip(baselines)
        .map(|(s, b)| to_delta_bytes::<E, T>(s, b, &ctx).unwrap())
        .collect();
    let mut accepted = 0;
    let mut held = states[0].clone();
    for _ in 0..iterations {
        let baseline = &baselines[rng.random_range(0..baselines.len())];
        let input = if rng.random_bool(0.25) {
            common::random_buffer(&mut rng)
        } else {
            let pick = rng.random_range(0..seeds.len());
            common::mutate(&mut rng, &seeds[pick])
        };
        let decoded = catch_unwind(AssertUnwindSafe(|| {
            from_delta_bytes::<E, T>(baseline, &ctx, &input)
        }))
        .unwrap_or_else(|_| panic!("{}: panicked on {}", E::NAME, common::hex(&input)));
        let mut r = <E::Style as idlc_runtime::Style>::Reader::from_bytes(&input);
        let into = catch_unwind(AssertUnwindSafe(|| {
            T::decode_delta_into(baseline, &ctx, &mut r, &mut held)
        }))
        .unwrap_or_else(|_| panic!("{}: into panicked on {}", E::NAME, common::hex(&input)));
        assert_eq!(
            into.map(|()| held.clone()),
            decoded,
            "{}: decode_delta_into differs on {}",
            E::NAME,
            common::hex(&input)
        );
        let Ok(value) = decoded else { continue };
        accepted += 1;
        let b1 = to_delta_bytes::<E, T>(&value, baseline, &ctx).unwrap_or_else(|e| {
            panic!(
                "{}: {} decoded but does not re-encode: {e}",
                E::NAME,
                common::hex(&input)
            )
        });
        let v2 = from_delta_bytes::<E, T>(baseline, &ctx, &b1).unwrap();
        assert_eq!(
            to_delta_bytes::<E, T>(&v2, baseline, &ctx).unwrap(),
            b1,
            "{}",
            common::hex(&input)
        );
    }
    assert!(accepted > iterations / 200, "only {accepted} accepted");
}

#[test]
fn hostile_delta_packets() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xBAD);
    let characters: Vec<cc::Character> = (0..16)
        .map(|_| common::random_character(&mut rng))
        .collect();
    let (baselines, states) = characters.split_at(8);
    hostile::<cc::MYENCODING1, _>(baselines, states, 30_000, 1);
    hostile::<cc::MYENCODING2, _>(baselines, states, 30_000, 2);
    hostile::<cc::MYENCODINGA, _>(baselines, states, 10_000, 3);
    let fleets: Vec<n::Fleet> = (0..8).map(|_| fleet(&mut rng)).collect();
    let moved: Vec<n::Fleet> = fleets.iter().map(|f| evolve(&mut rng, f)).collect();
    hostile::<n::NAVAL, _>(&fleets, &moved, 30_000, 4);
    hostile::<n::NAVAL_S2S, _>(&fleets, &moved, 30_000, 5);
}

/// A random Roster: `boxes` (a `Vec`) and `queued` (a `VecDeque`) of plain STRUCTs.
fn roster(rng: &mut ChaCha8Rng) -> e::Roster {
    let mut boxes = || -> Vec<e::Box> {
        (0..rng.random_range(0..=8))
            .map(|_| e::Box {
                v: rng.random_range(0..4),
            })
            .collect()
    };
    let (boxes, queued) = (boxes(), boxes().into());
    e::Roster {
        boxes,
        queued,
        round: rng.random(),
    }
}

/// DELTA SEQUENCEs of a plain STRUCT (edge.idl's Roster): elements that changed or are new go in
/// full, in a `Vec` (decoded in place) and a `VecDeque` (rebuilt); the mirror equals the
/// receiver's state through lost packets, and hostile packets keep the decode-encode property.
#[test]
fn plain_struct_sequences_replicate() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5057);
    let states: Vec<e::Roster> = (0..40).map(|_| roster(&mut rng)).collect();
    let elapsed = vec![0.1; states.len()];
    let dropped: Vec<bool> = (0..states.len()).map(|i| i % 7 == 3).collect();
    for (truth, got) in replicate::<e::Odd, _>(&states, &elapsed, &dropped) {
        assert_eq!(got, truth, "Odd: lossless fields arrive as sent");
    }
    for (truth, got) in replicate::<e::Bytes, _>(&states, &elapsed, &dropped) {
        assert_eq!(got, truth, "Bytes: lossless fields arrive as sent");
    }
    let (baselines, moved) = states.split_at(20);
    hostile::<e::Odd, _>(baselines, moved, 5_000, 6);
    hostile::<e::Bytes, _>(baselines, moved, 5_000, 7);
}

/// The delta costs `idlc report` prints for `encoding`, by struct name.
fn delta_report(
    idl: &[&str],
    encodings: &[&str],
    encoding: &str,
    name: &str,
) -> idlc::report::DeltaCost {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let inputs = idlc::Inputs {
        idl: idl.iter().map(|p| root.join(p)).collect(),
        encodings: encodings.iter().map(|p| root.join(p)).collect(),
        ..idlc::Inputs::default()
    };
    let compilation = idlc::compile(&inputs).expect("the schemas are readable");
    assert!(!compilation.has_errors());
    idlc::report::report(&compilation.ir)
        .into_iter()
        .find(|r| r.encoding == encoding && r.name == name)
        .and_then(|r| r.delta)
        .unwrap_or_else(|| panic!("no delta report of {name} in {encoding}"))
}

/// The bits of `value`'s delta against `baseline`.
fn delta_bits<E: Encoding, T: DeltaCodec<E>>(value: &T, baseline: &T, ctx: &DeltaContext) -> u64 {
    let mut w = <E::Style as idlc_runtime::Style>::Writer::default();
    value.encode_delta_to(baseline, ctx, &mut w).unwrap();
    w.bits_written()
}

/// Any delta: at least the idle cost, at most the worst case.
fn between(report: &idlc::report::DeltaCost) -> idlc::report::Cost {
    idlc::report::Cost {
        min: report.unchanged.min,
        max: report.worst.max,
    }
}

fn assert_within(cost: idlc::report::Cost, bits: u64, what: &str) {
    assert!(
        bits >= cost.min && cost.max.is_none_or(|max| bits <= max),
        "{what}: {bits} bits, reported {cost}"
    );
}

/// Measured delta sizes of the seed Character lie within what `idlc report` prints: nothing
/// changed, only the angle changed, anything changed.
fn character_delta_sizes<E: Encoding>(encoding: &str)
where
    cc::Character: DeltaCodec<E>,
{
    let seeds = [
        "../shared/seed-examples/myencoding1.enc",
        "../shared/seed-examples/myencoding2.enc",
    ];
    let idl = ["../shared/seed-examples/character.idl", "schemas/item.idl"];
    let report = delta_report(&idl, &seeds, encoding, "Character");
    let angle = report
        .units
        .iter()
        .find(|u| u.fields == ["angle"])
        .expect("angle has its own changed-bit");
    let any = between(&report);
    let mut rng = ChaCha8Rng::seed_from_u64(0xC05);
    // No time has passed: dead reckoning predicts the baseline itself.
    let ctx = DeltaContext::default();
    for _ in 0..300 {
        let baseline = idlc_runtime::Codec::<E>::sent(&common::random_character(&mut rng)).unwrap();
        let idle = delta_bits::<E, _>(&baseline, &baseline, &ctx);
        assert_within(report.unchanged, idle, &format!("idle in {encoding}"));
        let mut turned = baseline.clone();
        turned.angle = (turned.angle + 90.0) % 360.0;
        assert_within(
            angle.cost,
            delta_bits::<E, _>(&turned, &baseline, &ctx),
            "angle",
        );
        let other = common::random_character(&mut rng);
        assert_within(any, delta_bits::<E, _>(&other, &baseline, &ctx), "any");
    }
}

/// Measured delta sizes of naval fleets lie between the reported idle cost and the worst case.
fn naval_delta_sizes<E: Encoding>(encoding: &str)
where
    n::Fleet: DeltaCodec<E>,
{
    let report = delta_report(
        &["schemas/naval.idl"],
        &["schemas/naval.enc"],
        encoding,
        "Fleet",
    );
    let any = between(&report);
    let mut rng = ChaCha8Rng::seed_from_u64(0x5EA);
    let ctx = DeltaContext::new(1.0 / 60.0);
    for _ in 0..200 {
        let baseline = idlc_runtime::Codec::<E>::sent(&fleet(&mut rng)).unwrap();
        let idle = delta_bits::<E, _>(&baseline, &baseline, &ctx);
        assert_within(report.unchanged, idle, "idle fleet");
        let next = evolve(&mut rng, &baseline);
        assert_within(any, delta_bits::<E, _>(&next, &baseline, &ctx), "fleet");
    }
}

#[test]
fn delta_sizes_lie_within_the_report() {
    character_delta_sizes::<cc::MYENCODING1>("MYENCODING1");
    character_delta_sizes::<cc::MYENCODING2>("MYENCODING2");
    naval_delta_sizes::<n::NAVAL>("NAVAL");
    naval_delta_sizes::<n::NAVAL_S2S>("NAVAL_S2S");
}

/// DIFF (schemas/myencoding1_diff.enc, myencoding2_diff.enc: the seed encodings with only DIFF
/// added) keeps the client's state equal to the mirror every tick under 10% loss, in every
/// population; on the moving one it costs at most half of MYENCODING1's bytes, and at most
/// 0.85 of MYENCODING2's.
#[test]
fn diff_keeps_sender_and_receiver_in_step_in_fewer_bytes() {
    for population in [Population::Moving, Population::Idle, Population::Mixed] {
        let one = run::<cc::MYENCODING1>(40, 300, population, 0.1, 0.0, 4).unwrap();
        let one_diff = run::<cc::MYENCODING1_DIFF>(40, 300, population, 0.1, 0.0, 4).unwrap();
        let two = run::<cc::MYENCODING2>(40, 300, population, 0.1, 0.02, 4).unwrap();
        let two_diff = run::<cc::MYENCODING2_DIFF>(40, 300, population, 0.1, 0.02, 4).unwrap();
        eprintln!(
            "{population:?}: MYENCODING1 {:.2}, _DIFF {:.2}; MYENCODING2 {:.2}, _DIFF {:.2} bytes per Character",
            one.bytes_per_character(),
            one_diff.bytes_per_character(),
            two.bytes_per_character(),
            two_diff.bytes_per_character()
        );
        assert!(one_diff.max_position_error <= 0.005 * std::f64::consts::SQRT_2 + 1e-9);
        if population == Population::Moving {
            assert!(one_diff.bytes_per_character() <= 0.5 * one.bytes_per_character());
            assert!(two_diff.bytes_per_character() <= 0.85 * two.bytes_per_character());
        }
    }
}

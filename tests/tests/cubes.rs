//! QUATERNION in generated code (schemas/cubes.idl, cubes.enc): the tumbling cubes replicated
//! tick after tick in every encoding, with lost packets and lost acknowledgements: the
//! receiver's state is the sender's mirror, bit for bit (the orientations' SMALLEST_THREE(9)
//! and its DIFF form included); what the receiver holds is within the rule's angle of the
//! truth; four raw FLOAT32s keep every bit. And the data set's bytes per cube per tick
//! (docs/PERFORMANCE.md): `cargo test -p idlc-tests --release --test cubes -- --nocapture
//! bytes_per_cube`.

use idlc_runtime::{
    Codec, DeltaCodec, DeltaContext, Encoding, Quaternion, ReaderOf, SmallestThree, WireRead,
    WireWrite, WriterOf, from_bytes, to_bytes,
};
use idlc_tests::cubes::{Cube, Cubes, CubesBits, CubesBytes, CubesDiff, CubesDiffBytes, CubesDr};
use idlc_tests::{cubes_builtin, cubes_data, cubes_glam, cubes_glam_builtin, cubes_twin};
use proptest::prelude::*;

/// Replicates `ticks` in encoding `E`; `lost[t]`: tick t's packet is lost; `ack_lost[t]`: its
/// acknowledgement is. Returns the bytes sent.
fn replicate<E: Encoding>(
    ticks: &[Cubes],
    lost: &[bool],
    ack_lost: &[bool],
) -> Result<usize, TestCaseError>
where
    Cubes: DeltaCodec<E>,
{
    let Some(first) = ticks.first() else {
        return Ok(0);
    };
    let full = to_bytes::<E, Cubes>(first).unwrap();
    let start = from_bytes::<E, Cubes>(&full).unwrap();
    let mut acked = (0u32, start);
    let mut received = Vec::new();
    let mut sent = full.len();
    let rule = SmallestThree::new(9);
    for (i, truth) in ticks.iter().enumerate().skip(1) {
        let tick = truth.tick;
        let ctx = DeltaContext::new(f64::from(tick - acked.0) / cubes_data::HZ);
        let mut w = WriterOf::<E>::default();
        let mirror = truth.encode_delta_to(&acked.1, &ctx, &mut w).unwrap();
        let bytes = w.into_bytes();
        sent += bytes.len();
        if lost.get(i).copied().unwrap_or(false) {
            continue;
        }
        let mut r = ReaderOf::<E>::from_bytes(&bytes);
        let state = Cubes::decode_delta_from(&acked.1, &ctx, &mut r).unwrap();
        r.finish().unwrap();
        prop_assert_eq!(
            &state,
            &mirror,
            "tick {}: the receiver's state is not the mirror",
            tick
        );
        for (held, true_cube) in state.cubes.iter().zip(&truth.cubes) {
            let angle = held.orientation.angle_to(&true_cube.orientation);
            prop_assert!(angle <= rule.max_angle(), "cube {}: {angle} rad", held.id);
        }
        received.push((tick, state));
        if !ack_lost.get(i).copied().unwrap_or(false) {
            acked = received.pop().unwrap();
            received.clear();
        }
    }
    Ok(sent)
}

fn run_all(seed: u64, lost: &[bool], ack_lost: &[bool]) -> Result<(), TestCaseError> {
    let ticks = cubes_data::ticks_from(seed, 40, lost.len());
    replicate::<CubesBits>(&ticks, lost, ack_lost)?;
    replicate::<CubesBytes>(&ticks, lost, ack_lost)?;
    replicate::<CubesDiff>(&ticks, lost, ack_lost)?;
    replicate::<CubesDiffBytes>(&ticks, lost, ack_lost)?;
    replicate::<CubesDr>(&ticks, lost, ack_lost)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn mirror_equals_receiver_in_every_encoding(
        seed in any::<u64>(),
        lost in prop::collection::vec(prop::bool::weighted(0.1), 60..120),
        ack_lost in prop::collection::vec(prop::bool::weighted(0.2), 120),
    ) {
        run_all(seed, &lost, &ack_lost)?;
    }
}

#[test]
fn the_data_set_is_fixed_and_tumbles() {
    let ticks = cubes_data::ticks_from(cubes_data::SEED, cubes_data::CUBES, 120);
    assert_eq!(
        ticks,
        cubes_data::ticks_from(cubes_data::SEED, cubes_data::CUBES, 120)
    );
    let last = ticks.last().unwrap();
    let moving = last.cubes.iter().filter(|c| !c.resting).count();
    assert!(
        moving > 0 && moving < last.cubes.len() / 4,
        "{moving} moving"
    );
}

#[test]
fn raw_quaternions_keep_every_bit() {
    let odd = Quaternion::new(f32::from_bits(0x7fc0_0001), -0.0, 3.5, f32::INFINITY);
    let cube = cubes_builtin::Cube {
        orientation: odd,
        ..cubes_builtin::Cube::default()
    };
    let bytes = to_bytes::<cubes_builtin::BuiltinEncoding, _>(&cube).unwrap();
    let back: cubes_builtin::Cube =
        from_bytes::<cubes_builtin::BuiltinEncoding, _>(&bytes).unwrap();
    assert!(back.orientation.same_bits(&odd));
    // SMALLEST_THREE refuses what is no unit quaternion, naming the field.
    let bad = Cube {
        orientation: odd,
        ..Cube::default()
    };
    let e = to_bytes::<CubesBits, _>(&bad).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("Cube.orientation"));
}

/// The bits of `value`'s delta against `baseline` in `E`.
fn delta_bits<E: Encoding, T: DeltaCodec<E>>(value: &T, baseline: &T) -> u64 {
    let mut w = WriterOf::<E>::default();
    value
        .encode_delta_to(baseline, &DeltaContext::default(), &mut w)
        .unwrap();
    w.bits_written()
}

/// A rotation as the game holds it (a `Default`'s identity, a unit quaternion of its own) is no
/// rotation SMALLEST_THREE sends, yet a cube's delta against itself is unchanged: a changed-bit
/// compares both as they would be sent (WIRE.md). So is a world's against itself (its DELTA
/// SEQUENCE compares the cubes as sent); an unchanged rotation's mirror is the baseline's own;
/// a turn by a few degrees is a change.
#[test]
fn a_rotation_as_the_game_holds_it_is_unchanged_by_itself() {
    fn check<E: Encoding>()
    where
        Cube: DeltaCodec<E>,
        Cubes: DeltaCodec<E>,
    {
        let tilted = Quaternion::new(0.0, 0.382_683_43, 0.0, 0.923_879_5);
        let turned = Quaternion::new(0.0, 0.422_618_26, 0.0, 0.906_307_8);
        for orientation in [Quaternion::IDENTITY, tilted] {
            let game = Cube {
                id: 7,
                x: 1.0,
                y: 2.0,
                z: 0.5,
                orientation,
                resting: true,
                ..Cube::default()
            };
            let sent = Codec::<E>::sent(&game).unwrap();
            assert!(!sent.orientation.same_bits(&orientation), "not as sent");
            let idle = delta_bits::<E, _>(&sent, &sent);
            assert_eq!(delta_bits::<E, _>(&game, &game), idle, "{}", E::NAME);
            let mut w = WriterOf::<E>::default();
            let mirror = game
                .encode_delta_to(&game, &DeltaContext::default(), &mut w)
                .unwrap();
            assert!(mirror.orientation.same_bits(&orientation), "{}", E::NAME);
            let world = Cubes {
                tick: 1,
                cubes: vec![game.clone(), game.clone()],
            };
            let sent_world = Codec::<E>::sent(&world).unwrap();
            assert_eq!(
                delta_bits::<E, _>(&world, &world),
                delta_bits::<E, _>(&sent_world, &sent_world),
                "{}",
                E::NAME
            );
            let mut moved = game.clone();
            moved.orientation = turned;
            assert!(delta_bits::<E, _>(&moved, &game) > idle, "{}", E::NAME);
        }
    }
    check::<CubesBits>();
    check::<CubesBytes>();
    check::<CubesDiff>();
    check::<CubesDiffBytes>();
    check::<CubesDr>();
}

/// Bytes per cube per tick of the data set, each encoding's deltas against the last tick's
/// mirror (every packet arrives and is acknowledged at once).
#[test]
fn bytes_per_cube() {
    let ticks = cubes_data::ticks();
    let none = vec![false; ticks.len()];
    let per = |sent: usize| sent as f64 / (cubes_data::CUBES * (ticks.len() - 1)) as f64;
    let full: usize = ticks[1..]
        .iter()
        .map(|t| to_bytes::<CubesBits, Cubes>(t).unwrap().len())
        .sum();
    let first = to_bytes::<CubesBits, Cubes>(&ticks[0]).unwrap().len();
    let bits = replicate::<CubesBits>(&ticks, &none, &none).unwrap() - first;
    let diff = replicate::<CubesDiff>(&ticks, &none, &none).unwrap()
        - to_bytes::<CubesDiff, Cubes>(&ticks[0]).unwrap().len();
    let dr = replicate::<CubesDr>(&ticks, &none, &none).unwrap()
        - to_bytes::<CubesDr, Cubes>(&ticks[0]).unwrap().len();
    let moving: usize = ticks[1..]
        .iter()
        .map(|t| t.cubes.iter().filter(|c| !c.resting).count())
        .sum();
    println!(
        "{} cubes, {} ticks at {} Hz, {:.1}% of cube-ticks moving",
        cubes_data::CUBES,
        ticks.len() - 1,
        cubes_data::HZ,
        100.0 * moving as f64 / (cubes_data::CUBES * (ticks.len() - 1)) as f64
    );
    println!(
        "full snapshots (CubesBits): {:.3} bytes per cube per tick",
        per(full)
    );
    println!("changed-bits only (CubesBits): {:.3}", per(bits));
    println!("DIFF (CubesDiff): {:.3}", per(diff));
    println!("DEAD_RECKONING + DIFF (CubesDr): {:.3}", per(dr));
    assert!(per(diff) < per(bits) && per(bits) < per(full));
}

/// A cube held with the game's `glam::Quat` (cubes_glam.map).
fn glam_cube(c: &Cube) -> cubes_glam::Cube {
    cubes_glam::Cube {
        id: c.id,
        x: c.x,
        y: c.y,
        z: c.z,
        vx: c.vx,
        vy: c.vy,
        vz: c.vz,
        orientation: c.orientation.into(),
        resting: c.resting,
    }
}

/// The cubes of a tick held with `glam::Quat`.
fn glam_cubes(t: &Cubes) -> cubes_glam::Cubes {
    cubes_glam::Cubes {
        tick: t.tick,
        cubes: t.cubes.iter().map(glam_cube).collect(),
    }
}

/// `ticks` in encoding `E` (cubes.rs) and `G`, its twin of cubes_glam.rs: the same bytes in
/// full and delta form (each tick against the last one's mirror), the same values decoded.
fn glam_sends_the_same<E: Encoding, G: Encoding>(ticks: &[Cubes])
where
    Cubes: DeltaCodec<E>,
    cubes_glam::Cubes: DeltaCodec<G>,
{
    let ctx = DeltaContext::new(1.0 / cubes_data::HZ);
    let (mut baseline, mut glam_baseline) = (Cubes::default(), cubes_glam::Cubes::default());
    for truth in ticks {
        let glam = glam_cubes(truth);
        let full = to_bytes::<E, Cubes>(truth).unwrap();
        assert_eq!(to_bytes::<G, cubes_glam::Cubes>(&glam).unwrap(), full);
        let decoded = from_bytes::<E, Cubes>(&full).unwrap();
        let glam_decoded = from_bytes::<G, cubes_glam::Cubes>(&full).unwrap();
        assert_eq!(glam_decoded, glam_cubes(&decoded));
        let (mut w, mut gw) = (WriterOf::<E>::default(), WriterOf::<G>::default());
        let mirror = truth.encode_delta_to(&baseline, &ctx, &mut w).unwrap();
        let glam_mirror = glam.encode_delta_to(&glam_baseline, &ctx, &mut gw).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(gw.into_bytes(), bytes, "tick {}", truth.tick);
        assert_eq!(glam_mirror, glam_cubes(&mirror));
        let mut r = ReaderOf::<G>::from_bytes(&bytes);
        let state = cubes_glam::Cubes::decode_delta_from(&glam_baseline, &ctx, &mut r).unwrap();
        assert_eq!(state, glam_mirror);
        (baseline, glam_baseline) = (mirror, glam_mirror);
    }
}

/// A QUATERNION mapped to the game's `glam::Quat` (cubes_glam.map) sends the bytes of the
/// unmapped module in every encoding, full and delta form, SMALLEST_THREE(9), its DIFF form and
/// four raw FLOAT32s (every bit kept), and defaults to the identity.
#[test]
fn glam_orientations_send_the_same_bytes() {
    use cubes_glam as g;
    let ticks = cubes_data::ticks_from(cubes_data::SEED, 24, 12);
    glam_sends_the_same::<CubesBits, g::CubesBits>(&ticks);
    glam_sends_the_same::<CubesBytes, g::CubesBytes>(&ticks);
    glam_sends_the_same::<CubesDiff, g::CubesDiff>(&ticks);
    glam_sends_the_same::<CubesDiffBytes, g::CubesDiffBytes>(&ticks);
    glam_sends_the_same::<CubesDr, g::CubesDr>(&ticks);
    assert_eq!(g::Cube::default().orientation, glam::Quat::IDENTITY);
    // Four raw FLOAT32s: the bits of the game's value, -0.0 against +0.0 a change.
    let odd = Quaternion::new(f32::from_bits(0x7fc0_0001), -0.0, 3.5, f32::INFINITY);
    let raw = cubes_builtin::Cube {
        orientation: odd,
        ..cubes_builtin::Cube::default()
    };
    let glam_raw = cubes_glam_builtin::Cube {
        orientation: odd.into(),
        ..cubes_glam_builtin::Cube::default()
    };
    let bytes = to_bytes::<cubes_builtin::BuiltinEncoding, _>(&raw).unwrap();
    assert_eq!(
        to_bytes::<cubes_glam_builtin::BuiltinEncoding, _>(&glam_raw).unwrap(),
        bytes
    );
    let back: cubes_glam_builtin::Cube =
        from_bytes::<cubes_glam_builtin::BuiltinEncoding, _>(&bytes).unwrap();
    assert!(Quaternion::from(back.orientation).same_bits(&odd));
    // In the delta form too, against a baseline of +0.0: the unmapped module's bytes, and the
    // receiver gets -0.0.
    let ctx = DeltaContext::new(0.0);
    let negative = Quaternion::new(-0.0, 0.0, 0.0, 1.0);
    let mut w = WriterOf::<cubes_builtin::BuiltinEncoding>::default();
    let raw = cubes_builtin::Cube {
        orientation: negative,
        ..cubes_builtin::Cube::default()
    };
    raw.encode_delta_to(&cubes_builtin::Cube::default(), &ctx, &mut w)
        .unwrap();
    let bytes = w.into_bytes();
    let mut w = WriterOf::<cubes_glam_builtin::BuiltinEncoding>::default();
    let glam_raw = cubes_glam_builtin::Cube {
        orientation: negative.into(),
        ..cubes_glam_builtin::Cube::default()
    };
    let baseline = cubes_glam_builtin::Cube::default();
    glam_raw.encode_delta_to(&baseline, &ctx, &mut w).unwrap();
    assert_eq!(w.into_bytes(), bytes);
    let mut r = ReaderOf::<cubes_glam_builtin::BuiltinEncoding>::from_bytes(&bytes);
    let state = cubes_glam_builtin::Cube::decode_delta_from(&baseline, &ctx, &mut r).unwrap();
    assert!(Quaternion::from(state.orientation).same_bits(&negative));
}

/// The cubes of a tick in the module of cubes.enc + cubes_twin.enc, as CubesBits sends them.
fn twin_cubes(t: &Cubes) -> cubes_twin::Cubes {
    let bytes = to_bytes::<CubesBits, Cubes>(t).unwrap();
    from_bytes::<cubes_twin::CubesBits, cubes_twin::Cubes>(&bytes).unwrap()
}

/// CubesTwin (cubes_twin.enc) has CubesBits' wire under another name: its `Cubes` forwards to
/// CubesBits' codecs (`idlc::same_codec!` and `idlc::same_delta_codec!`), full and delta form,
/// and sends CubesBits' bytes, which a CubesBits reader reads.
#[test]
fn a_twin_encoding_sends_the_bytes_of_the_encoding_it_forwards_to() {
    use cubes_twin as t;
    let ticks = cubes_data::ticks_from(cubes_data::SEED, 24, 12);
    let ctx = DeltaContext::new(1.0 / cubes_data::HZ);
    let mut baseline = t::Cubes::default();
    for truth in ticks.iter().map(twin_cubes) {
        let full = to_bytes::<t::CubesTwin, t::Cubes>(&truth).unwrap();
        assert_eq!(to_bytes::<t::CubesBits, t::Cubes>(&truth).unwrap(), full);
        assert_eq!(
            from_bytes::<t::CubesTwin, t::Cubes>(&full).unwrap(),
            from_bytes::<t::CubesBits, t::Cubes>(&full).unwrap()
        );
        let mut w = WriterOf::<t::CubesTwin>::default();
        let mirror =
            DeltaCodec::<t::CubesTwin>::encode_delta_to(&truth, &baseline, &ctx, &mut w).unwrap();
        let bytes = w.into_bytes();
        let mut bits = WriterOf::<t::CubesBits>::default();
        let bits_mirror =
            DeltaCodec::<t::CubesBits>::encode_delta_to(&truth, &baseline, &ctx, &mut bits)
                .unwrap();
        assert_eq!(bits.into_bytes(), bytes, "tick {}", truth.tick);
        assert_eq!(bits_mirror, mirror);
        let mut r = ReaderOf::<t::CubesBits>::from_bytes(&bytes);
        let state =
            <t::Cubes as DeltaCodec<t::CubesBits>>::decode_delta_from(&baseline, &ctx, &mut r)
                .unwrap();
        assert_eq!(state, mirror);
        baseline = mirror;
    }
}

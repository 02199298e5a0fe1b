//! DIFF(b1, ..., bk) in generated code (schemas/rover.idl, rover.enc): the receiver's state
//! equals the sender's mirror bit for bit after any sequence of ticks, elapsed times and
//! losses, in a bit stream and a byte stream (proptest); differences take the shortest way
//! around a range that wraps; small moves cost their tier, large ones the escape.

use idlc_runtime::{
    BitWriter, DeltaCodec, DeltaContext, Encoding, ReaderOf, WireRead, WireWrite, WriterOf,
    to_bytes,
};
use idlc_tests::rover::{Fleet, Gear, Rover, RoverBits, RoverBytes};
use proptest::prelude::*;

/// One tick's change to a rover: small moves (a tier's), jumps (the escape), or nothing.
#[derive(Debug, Clone)]
struct Move {
    rover: usize,
    dx: f64,
    dy: f64,
    dv: f64,
    turn: f64,
    charge: i16,
    jump: bool,
    gear: u8,
}

fn moves() -> impl Strategy<Value = Move> {
    (
        0..4usize,
        -0.5..0.5f64,
        -0.5..0.5f64,
        -1.0..1.0f64,
        -30.0..30.0f64,
        -20..20i16,
        prop::bool::weighted(0.1),
        0..5u8,
    )
        .prop_map(|(rover, dx, dy, dv, turn, charge, jump, gear)| Move {
            rover,
            dx,
            dy,
            dv,
            turn,
            charge,
            jump,
            gear,
        })
}

/// One tick: the moves, whether the packet is lost, whether its acknowledgement is.
fn ticks() -> impl Strategy<Value = Vec<(Vec<Move>, bool, bool)>> {
    prop::collection::vec(
        (
            prop::collection::vec(moves(), 0..4),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.2),
        ),
        1..40,
    )
}

fn apply(rover: &mut Rover, m: &Move) {
    let clamp = |v: f64, r: f64| v.clamp(-r, r);
    if m.jump {
        rover.x = clamp(rover.x * -0.5 + m.dx * 900.0, 500.0);
        rover.odometer = rover.odometer.wrapping_add(4000) % 50_001;
        rover.score = rover.score.wrapping_mul(-7).wrapping_add(1 << 40);
        rover.ammo = rover.ammo.wrapping_add(30_000);
    }
    rover.x = clamp(rover.x + m.dx + rover.vx / 30.0, 500.0);
    rover.y = clamp(rover.y + m.dy + rover.vy / 30.0, 500.0);
    rover.vx = clamp(rover.vx + m.dv, 20.0);
    rover.vy = clamp(rover.vy - m.dv, 20.0);
    rover.heading = (rover.heading + m.turn).rem_euclid(360.0);
    if rover.heading >= 359.95 {
        rover.heading = 0.0;
    }
    rover.charge = (rover.charge + m.charge).clamp(-1000, 1000);
    rover.odometer = (rover.odometer + 1).min(50_000);
    rover.ammo = rover.ammo.wrapping_sub(1);
    rover.score += i64::from(m.charge);
    rover.gear = Gear::from_index(u64::from(m.gear)).unwrap_or_default();
    rover.lights = m.gear.is_multiple_of(2);
}

/// Runs `ticks` of a fleet of four rovers in encoding `E`: every tick the sender delta-codes
/// the fleet against the last state the receiver acknowledged; a packet that arrives is decoded
/// against the same baseline and must give the mirror, bit for bit.
fn replicate<E: Encoding>(ticks: &[(Vec<Move>, bool, bool)]) -> Result<(), TestCaseError>
where
    Fleet: DeltaCodec<E>,
{
    let mut truth = Fleet {
        tick: 0,
        rovers: (0..4)
            .map(|id| Rover {
                id,
                heading: 359.0,
                ..Rover::default()
            })
            .collect(),
    };
    let mut acked = (0u32, truth.clone()); // (tick, the state both sides hold)
    let mut received = vec![acked.clone()];
    for (tick, (moves, lost, ack_lost)) in (1u32..).zip(ticks) {
        truth.tick = tick;
        for m in moves {
            apply(&mut truth.rovers[m.rover], m);
        }
        let ctx = DeltaContext::new(f64::from(tick - acked.0) / 30.0);
        let mut w = WriterOf::<E>::default();
        let mirror = truth.encode_delta_to(&acked.1, &ctx, &mut w).unwrap();
        let bytes = w.into_bytes();
        if *lost {
            continue;
        }
        let mut r = ReaderOf::<E>::from_bytes(&bytes);
        let state = Fleet::decode_delta_from(&acked.1, &ctx, &mut r).unwrap();
        prop_assert_eq!(
            to_bytes::<E, Fleet>(&state).unwrap(),
            to_bytes::<E, Fleet>(&mirror).unwrap(),
            "tick {}: the receiver's state is not the mirror",
            tick
        );
        prop_assert_eq!(&state, &mirror);
        received.push((tick, state));
        if !ack_lost {
            acked = received.pop().unwrap();
            received.clear();
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn mirror_equals_receiver_in_a_bit_stream(ticks in ticks()) {
        replicate::<RoverBits>(&ticks)?;
    }

    #[test]
    fn mirror_equals_receiver_in_a_byte_stream(ticks in ticks()) {
        replicate::<RoverBytes>(&ticks)?;
    }
}

/// The bits a delta of `now` against `baseline` takes in RoverBits, both as the receiver
/// holds them (quantized: a baseline is what a receiver decoded).
fn delta_bits(now: &Rover, baseline: &Rover) -> u64 {
    let sent = |r: &Rover| {
        idlc_runtime::from_bytes::<RoverBits, Rover>(&to_bytes::<RoverBits, Rover>(r).unwrap())
            .unwrap()
    };
    let mut w = BitWriter::new();
    DeltaCodec::<RoverBits>::encode_delta_to(
        &sent(now),
        &sent(baseline),
        &DeltaContext::new(0.0),
        &mut w,
    )
    .unwrap();
    w.bits_written()
}

#[test]
fn a_heading_across_360_is_a_small_difference() {
    let before = Rover {
        id: 9,
        heading: 359.9,
        ..Rover::default()
    };
    let unchanged = delta_bits(&before, &before);
    // DIFF(3, 6) FIXED_POINT(0.1): 359.9 -> 0.1 is +2 steps: "0" and 3 bits.
    let across = Rover {
        heading: 0.1,
        ..before.clone()
    };
    assert_eq!(delta_bits(&across, &before), unchanged + 1 + 3);
    // Backwards too: -2 steps.
    assert_eq!(delta_bits(&before, &across), unchanged + 1 + 3);
    // Half way round is the escape: "11" and the 12-bit step.
    let opposite = Rover {
        heading: 179.9,
        ..before.clone()
    };
    assert_eq!(delta_bits(&opposite, &before), unchanged + 2 + 12);
}

#[test]
fn integers_and_enums_take_their_tiers() {
    let before = Rover {
        id: 9,
        charge: -1000,
        odometer: 100,
        ammo: 7,
        score: -5,
        gear: Gear::Park,
        ..Rover::default()
    };
    let unchanged = delta_bits(&before, &before);
    // DIFF(4) UINT16 ammo: +7 is zigzag 14, tier 1: "0" and 4 bits.
    let ammo = Rover {
        ammo: 14,
        ..before.clone()
    };
    assert_eq!(delta_bits(&ammo, &before), unchanged + 1 + 4);
    // +8 is zigzag 16: the escape ("1") and the 16-bit value.
    let far = Rover {
        ammo: 15,
        ..before.clone()
    };
    assert_eq!(delta_bits(&far, &before), unchanged + 1 + 16);
    // DIFF(1) BIT(3) gear: Park -> Reverse is +1, zigzag 2, which 1 bit cannot hold: the
    // escape and 3 bits; back is -1, zigzag 1: "0" and 1 bit.
    let reverse = Rover {
        gear: Gear::Reverse,
        ..before.clone()
    };
    assert_eq!(delta_bits(&reverse, &before), unchanged + 1 + 3);
    assert_eq!(
        delta_bits(&before, &reverse),
        delta_bits(&reverse, &reverse) + 1 + 1
    );
    // DIFF(8, 20) VLQ score: -5 -> 1_000_000 needs zigzag 2_000_010, 21 bits: the escape.
    let rich = Rover {
        score: 1_000_000,
        ..before.clone()
    };
    let mut w = BitWriter::new();
    idlc_runtime::write_vlq_int(
        &mut w,
        1_000_000i64,
        idlc_runtime::VlqMode::ZigZag,
        i128::from(i64::MIN),
        i128::from(i64::MAX),
        7,
    )
    .unwrap();
    assert_eq!(delta_bits(&rich, &before), unchanged + 2 + w.bits_written());
}

/// A byte stream's decoder refuses a difference in a later tier that an earlier one holds,
/// as it refuses every input that would not re-encode to the same bytes.
#[test]
fn a_byte_stream_refuses_a_non_canonical_tier() {
    let before = Rover::default();
    let after = Rover {
        odometer: 3,
        ..before.clone()
    };
    let ctx = DeltaContext::new(0.0);
    let mut w = WriterOf::<RoverBytes>::default();
    DeltaCodec::<RoverBytes>::encode_delta_to(&after, &before, &ctx, &mut w).unwrap();
    let bytes = w.into_bytes();
    let mut r = ReaderOf::<RoverBytes>::from_bytes(&bytes);
    assert_eq!(
        <Rover as DeltaCodec<RoverBytes>>::decode_delta_from(&before, &ctx, &mut r).unwrap(),
        after
    );
    // The odometer's +3 went in tier 1 (selector 0, one byte 6); say tier 2 instead (selector
    // 1, two bytes 6, 0).
    let at = bytes
        .windows(2)
        .position(|w| w == [0, 6])
        .expect("the odometer's tier and difference");
    let mut forged = bytes[..at].to_vec();
    forged.extend([1, 6, 0]);
    forged.extend(&bytes[at + 2..]);
    let mut r = ReaderOf::<RoverBytes>::from_bytes(&forged);
    let error =
        <Rover as DeltaCodec<RoverBytes>>::decode_delta_from(&before, &ctx, &mut r).unwrap_err();
    assert_eq!(error.kind, idlc_runtime::DecodeErrorKind::ValueOutOfRange);
    assert_eq!(error.bit_offset, at as u64 * 8);
}

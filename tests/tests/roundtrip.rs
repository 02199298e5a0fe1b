//! Round trips of the generated code.
//!
//! (a) Random valid seed Characters (with Items) survive every encoding on both sides: integer
//!     and enum fields exactly, FIXED_POINT(0.01) fields within half a resolution, raw FLOAT64
//!     fields exactly.
//! (b) For every struct of every generated module in every encoding of that module: whatever a
//!     decoder accepts re-encodes, and that encoding is a fixed point (decode + encode gives the
//!     same bytes). Seeded with the valid encodings of `Default` values.

mod common;

use std::fmt::Debug;

use common::{Reencode, Refused};
use idlc_runtime::{BitReader, BitWriter, Codec, EncodeError, Encoding, from_bytes, to_bytes};
use idlc_tests::{
    arena_builtin, arena_client, arena_server, character_builtin, character_client as cc,
    character_server as cs, character_v2_client,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

// ---------------------------------------------------------------------------------------------
// (a) valid Characters
// ---------------------------------------------------------------------------------------------

/// Half of FIXED_POINT(0.01), plus room for f64 arithmetic.
const HALF_CM: f64 = 0.005 + 1e-9;
/// Half of FIXED_POINT(0.01) for the f32 `angle`: the f32 rounding of a value below 360 is
/// below 360 * 2^-24 ~ 2.2e-5.
const HALF_CM_F32: f64 = 0.005 + 5e-5;

/// How an encoding sends `angle` (the positions and velocities are FIXED_POINT(0.01) in all
/// three seed encodings, Item's durability is raw FLOAT64 in all three).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Angle {
    FixedPoint,
    RawFloat64,
}

/// `back` is what `sent` becomes after a round trip in an encoding that sends `angle` as
/// `angle_rule`.
fn check_character(
    sent: &cc::Character,
    back: &cc::Character,
    angle_rule: Angle,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(back.character_id, sent.character_id);
    for (name, s, b) in [
        ("x", sent.x, back.x),
        ("y", sent.y, back.y),
        ("z", sent.z, back.z),
        ("vx", sent.vx, back.vx),
        ("vy", sent.vy, back.vy),
        ("vz", sent.vz, back.vz),
    ] {
        prop_assert!(
            (s - b).abs() <= HALF_CM,
            "{name}: sent {s}, got {b}, error {}",
            (s - b).abs()
        );
    }
    match angle_rule {
        Angle::FixedPoint => {
            let (s, b) = (f64::from(sent.angle), f64::from(back.angle));
            prop_assert!(
                (s - b).abs() <= HALF_CM_F32,
                "angle: sent {s}, got {b}, error {}",
                (s - b).abs()
            );
        }
        Angle::RawFloat64 => prop_assert_eq!(back.angle.to_bits(), sent.angle.to_bits()),
    }
    prop_assert_eq!(back.anim, sent.anim);
    prop_assert_eq!(back.animation_frame, sent.animation_frame);
    prop_assert_eq!(back.inventory.len(), sent.inventory.len());
    for (s, b) in sent.inventory.iter().zip(&back.inventory) {
        prop_assert_eq!(b.item_id, s.item_id);
        prop_assert_eq!(b.kind, s.kind);
        prop_assert_eq!(b.count, s.count);
        // Item has no rule in the seed encodings: NUMERIC is raw FLOAT64, lossless.
        prop_assert_eq!(b.durability.to_bits(), s.durability.to_bits());
    }
    Ok(())
}

/// Client side: encode in `E`, decode, compare; then once more from the decoded value, which
/// must be a fixed point of the round trip (quantized values re-quantize to themselves).
fn client_round_trip<E: Encoding>(c: &cc::Character, angle: Angle) -> Result<(), TestCaseError>
where
    cc::Character: Codec<E>,
{
    let bytes = c
        .to_bytes_with::<E>()
        .map_err(|e| TestCaseError::fail(format!("{}: encode failed: {e}", E::NAME)))?;
    let back = cc::Character::from_bytes_with::<E>(&bytes)
        .map_err(|e| TestCaseError::fail(format!("{}: decode failed: {e}", E::NAME)))?;
    check_character(c, &back, angle)?;
    let again = back.to_bytes_with::<E>().expect("a decoded value encodes");
    prop_assert_eq!(
        &again,
        &bytes,
        "{}: the decoded value re-encodes differently",
        E::NAME
    );
    prop_assert_eq!(&cc::Character::from_bytes_with::<E>(&again).unwrap(), &back);
    Ok(())
}

/// Server side (`MyInventory`), the same checks.
fn server_round_trip<E: Encoding>(c: &cc::Character, angle: Angle) -> Result<(), TestCaseError>
where
    cs::Character: Codec<E>,
{
    let server = common::to_server(c);
    let bytes = server
        .to_bytes_with::<E>()
        .map_err(|e| TestCaseError::fail(format!("{}: encode failed: {e}", E::NAME)))?;
    let back = cs::Character::from_bytes_with::<E>(&bytes)
        .map_err(|e| TestCaseError::fail(format!("{}: decode failed: {e}", E::NAME)))?;
    check_character(c, &common::to_client(&back), angle)?;
    let again = back.to_bytes_with::<E>().expect("a decoded value encodes");
    prop_assert_eq!(
        &again,
        &bytes,
        "{}: the decoded value re-encodes differently",
        E::NAME
    );
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn character_client_myencoding1(c in common::character()) {
        client_round_trip::<cc::MYENCODING1>(&c, Angle::FixedPoint)?;
    }

    #[test]
    fn character_client_myencoding2(c in common::character()) {
        client_round_trip::<cc::MYENCODING2>(&c, Angle::FixedPoint)?;
    }

    #[test]
    fn character_client_myencodinga(c in common::character()) {
        client_round_trip::<cc::MYENCODINGA>(&c, Angle::RawFloat64)?;
    }

    #[test]
    fn character_server_myencoding1(c in common::character()) {
        server_round_trip::<cs::MYENCODING1>(&c, Angle::FixedPoint)?;
    }

    #[test]
    fn character_server_myencoding2(c in common::character()) {
        server_round_trip::<cs::MYENCODING2>(&c, Angle::FixedPoint)?;
    }

    #[test]
    fn character_server_myencodinga(c in common::character()) {
        server_round_trip::<cs::MYENCODINGA>(&c, Angle::RawFloat64)?;
    }

    /// The streaming API (`encode` into a reused BitWriter, `decode` from a BitReader) speaks
    /// `DefaultEncoding` (MYENCODING1), byte for byte what `to_bytes` writes.
    #[test]
    fn character_streaming_api(c in common::character(), d in common::character()) {
        let mut w = BitWriter::new();
        c.encode(&mut w).unwrap();
        prop_assert_eq!(w.into_bytes(), c.to_bytes().unwrap());
        prop_assert_eq!(
            c.to_bytes().unwrap(),
            c.to_bytes_with::<cc::MYENCODING1>().unwrap()
        );
        // Two values back to back in one writer decode one after the other from one reader.
        let mut w = BitWriter::new();
        c.encode(&mut w).unwrap();
        d.encode(&mut w).unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        let c2 = cc::Character::decode(&mut r).unwrap();
        let d2 = cc::Character::decode(&mut r).unwrap();
        check_character(&c, &c2, Angle::FixedPoint)?;
        check_character(&d, &d2, Angle::FixedPoint)?;
    }

    /// Items alone, in every encoding, both sides: lossless (all raw rules).
    #[test]
    fn item_every_encoding(i in common::item()) {
        let s = common::item_to_server(&i);
        for bytes in [
            i.to_bytes_with::<cc::MYENCODING1>().unwrap(),
            i.to_bytes_with::<cc::MYENCODING2>().unwrap(),
            i.to_bytes_with::<cc::MYENCODINGA>().unwrap(),
        ] {
            prop_assert_eq!(&cc::Item::from_bytes_with::<cc::MYENCODING1>(&bytes).unwrap(), &i);
            prop_assert_eq!(&cs::Item::from_bytes_with::<cs::MYENCODINGA>(&bytes).unwrap(), &s);
        }
    }
}

/// Every enumerator of PlayerState's HUFFMAN-coded `stance` (S2C) comes back as itself.
#[test]
fn arena_stance_huffman_round_trip() {
    for index in 0..arena_client::Stance::COUNT {
        let sent = arena_client::PlayerState {
            stance: arena_client::Stance::from_index(index).unwrap(),
            firing: true,
            kills: 0x55,
            ..Default::default()
        };
        let bytes = sent.to_bytes_with::<arena_client::S2C>().unwrap();
        let back = arena_client::PlayerState::from_bytes_with::<arena_client::S2C>(&bytes);
        assert_eq!(back.as_ref(), Ok(&sent), "{:?}", sent.stance);
    }
}

// ---------------------------------------------------------------------------------------------
// (b) decode, encode, decode, encode: a fixed point, for every struct in every encoding
// ---------------------------------------------------------------------------------------------

/// What a decoder accepts must re-encode; the re-encoding must decode, and encode to itself.
/// `reencode` is [`common::reencode`] of the type and encoding under test.
fn fixed_point(reencode: Reencode, bytes: &[u8]) -> Result<bool, String> {
    let bytes2 = match reencode(bytes) {
        Ok(bytes2) => bytes2,
        Err(Refused::Decode(_)) => return Ok(false),
        Err(Refused::Encode(e)) => return Err(format!("accepted input does not re-encode: {e}")),
    };
    let bytes3 = match reencode(&bytes2) {
        Ok(bytes3) => bytes3,
        Err(Refused::Decode(e)) => {
            return Err(format!(
                "re-encoding {} does not decode: {e}",
                common::hex(&bytes2)
            ));
        }
        Err(Refused::Encode(e)) => return Err(format!("second re-encoding failed: {e}")),
    };
    if bytes3 != bytes2 {
        return Err(format!(
            "not a fixed point: {} then {}",
            common::hex(&bytes2),
            common::hex(&bytes3)
        ));
    }
    Ok(true)
}

/// `T` in `E`, its generics erased: what [`check_byte_fixed_point`] needs of it.
struct Subject {
    /// `type in ENCODING`, for messages.
    name: String,
    /// The encoding of `T::default()`.
    default: Result<Vec<u8>, EncodeError>,
    /// [`common::reencode`] of `T` in `E`.
    reencode: Reencode,
    /// The `Debug` of what valid bytes decode to (for messages).
    describe: fn(&[u8]) -> String,
}

/// The `Debug` of what `bytes` decode to as a `T` in `E`.
fn describe<E: Encoding, T: Codec<E> + Debug>(bytes: &[u8]) -> String {
    match from_bytes::<E, T>(bytes) {
        Ok(value) => format!("{value:?}"),
        Err(e) => format!("(does not decode: {e})"),
    }
}

/// The property for `T` in `E`: the `Default` value (and any `extra` valid encodings) must
/// encode and round-trip; random and mutated inputs must satisfy [`fixed_point`].
fn byte_fixed_point<E: Encoding, T: Codec<E> + Default + Debug>(extra: Vec<Vec<u8>>) {
    check_byte_fixed_point(
        Subject {
            name: format!("{} in {}", std::any::type_name::<T>(), E::NAME),
            default: to_bytes::<E, T>(&T::default()),
            reencode: common::reencode::<E, T>,
            describe: describe::<E, T>,
        },
        extra,
    );
}

/// [`byte_fixed_point`], compiled once for every type and encoding.
fn check_byte_fixed_point(subject: Subject, extra: Vec<Vec<u8>>) {
    let Subject {
        name,
        default,
        reencode,
        describe,
    } = subject;
    let default =
        default.unwrap_or_else(|e| panic!("{name}: the Default value does not encode: {e}"));
    let mut seeds = vec![default];
    seeds.extend(extra);
    for seed in &seeds {
        // What the encoder wrote decodes, and the decoded value encodes to the same bytes
        // (quantized values re-quantize to themselves): a mis-decode that stays in range shows
        // here.
        let again = match reencode(seed) {
            Ok(again) => again,
            Err(Refused::Decode(e)) => panic!(
                "{name}: a valid encoding {} does not decode: {e}",
                common::hex(seed)
            ),
            Err(Refused::Encode(e)) => panic!(
                "{name}: {}, decoded from {}, does not encode: {e}",
                describe(seed),
                common::hex(seed)
            ),
        };
        assert_eq!(
            common::hex(&again),
            common::hex(seed),
            "{name}: a valid encoding decodes to {}, which encodes differently",
            describe(seed)
        );
    }
    let mut runner = TestRunner::new(Config {
        cases: 384,
        failure_persistence: None,
        ..Config::default()
    });
    let accepted = std::cell::Cell::new(0usize);
    runner
        .run(&common::mutated_inputs(seeds), |bytes| {
            let ok = fixed_point(reencode, &bytes).map_err(TestCaseError::fail)?;
            accepted.set(accepted.get() + usize::from(ok));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    // Unmutated seeds alone make a quarter of the mutated inputs: the property was exercised.
    assert!(accepted.get() > 0, "{name}: no input decoded");
}

/// `byte_fixed_point` for every listed type of a module in one encoding.
macro_rules! fixed_points {
    ($m:ident, $enc:ident: $($ty:ty),+ $(,)?) => {
        $( byte_fixed_point::<$m::$enc, $ty>(Vec::new()); )+
    };
}

/// The same for arena types, seeded with the client's hand-built samples too (their bytes are
/// the same on every side).
macro_rules! arena_fixed_points {
    ($m:ident, $enc:ident: $($ty:ident),+ $(,)?) => {
        $(
            byte_fixed_point::<$m::$enc, $m::$ty>(
                common::sample_bytes::<arena_client::$enc, arena_client::$ty>(),
            );
        )+
    };
}

#[test]
fn character_client_fixed_points() {
    fixed_points!(cc, MYENCODING1: cc::Character, cc::Item);
    fixed_points!(cc, MYENCODING2: cc::Character, cc::Item);
    fixed_points!(cc, MYENCODINGA: cc::Character, cc::Item);
}

#[test]
fn character_server_fixed_points() {
    fixed_points!(cs, MYENCODING1: cs::Character, cs::Item);
    fixed_points!(cs, MYENCODING2: cs::Character, cs::Item);
    fixed_points!(cs, MYENCODINGA: cs::Character, cs::Item);
}

#[test]
fn character_v2_and_builtin_fixed_points() {
    use character_builtin as cb;
    use character_v2_client as v2;
    fixed_points!(v2, MYENCODINGA: v2::Character, v2::Item);
    fixed_points!(cb, BuiltinEncoding: cb::Character, cb::Item);
}

/// `byte_fixed_point` for arena types without samples (the built-in encoding).
macro_rules! arena_fixed_points_unseeded {
    ($m:ident, $enc:ident: $($ty:ident),+ $(,)?) => {
        $( byte_fixed_point::<$m::$enc, $m::$ty>(Vec::new()); )+
    };
}

/// Every struct of the arena schema (including the nested ones, the RPC parameter structs and
/// the existing type glam::Vec3 on the client), except the two that hold a HUFFMAN-coded field
/// in S2C (PlayerState, and ArenaState through its players).
macro_rules! arena_types_without_huffman {
    ($mac:ident, $m:ident, $enc:ident, $vec3:ty) => {
        $mac!($m, $enc: Projectile, JoinResult, PlayerResult, Welcome, ChatBroadcast, KillFeed,
            LootDrop, VoiceFrame, MatchEnded, Join, Input, Fire, Say, Buy, ReportPlayer, Ping,
            MatchReport, KillCredit, Squad, Item);
        fixed_points!($m, $enc: $vec3);
    };
}

/// Every struct of the arena schema.
macro_rules! all_arena_types {
    ($mac:ident, $m:ident, $enc:ident, $vec3:ty) => {
        arena_types_without_huffman!($mac, $m, $enc, $vec3);
        $mac!($m, $enc: PlayerState, ArenaState);
    };
}

#[test]
fn arena_client_s2c_fixed_points() {
    arena_types_without_huffman!(arena_fixed_points, arena_client, S2C, glam::Vec3);
}

#[test]
fn arena_server_s2c_fixed_points() {
    arena_types_without_huffman!(arena_fixed_points, arena_server, S2C, arena_server::Vec3);
}

/// PlayerState's `stance` is `HUFFMAN(Idle = 50, Sprinting = 30, Crouching = 10, Airborne = 8,
/// Dead = 2)` in S2C.
#[test]
fn arena_s2c_huffman_fixed_points() {
    arena_fixed_points!(arena_client, S2C: PlayerState, ArenaState);
    arena_fixed_points!(arena_server, S2C: PlayerState, ArenaState);
}

#[test]
fn arena_client_s2c_debug_fixed_points() {
    all_arena_types!(arena_fixed_points, arena_client, S2CDebug, glam::Vec3);
}

#[test]
fn arena_client_s2s_fixed_points() {
    all_arena_types!(arena_fixed_points, arena_client, S2S, glam::Vec3);
}

#[test]
fn arena_server_s2c_debug_fixed_points() {
    all_arena_types!(
        arena_fixed_points,
        arena_server,
        S2CDebug,
        arena_server::Vec3
    );
}

#[test]
fn arena_server_s2s_fixed_points() {
    all_arena_types!(arena_fixed_points, arena_server, S2S, arena_server::Vec3);
}

#[test]
fn arena_builtin_fixed_points() {
    all_arena_types!(
        arena_fixed_points_unseeded,
        arena_builtin,
        BuiltinEncoding,
        arena_builtin::Vec3
    );
}

#[test]
fn edge_fixed_points() {
    use idlc_tests::edge as e;
    fixed_points!(e, Odd: e::Empty, e::Keywords, e::Extremes, e::FloatEnds, e::F32Ends, e::Nesting, e::Node,
        e::Versioned, e::Nothing, e::Everything, e::Result, e::Box, e::Roster, e::F32Arrays,
        e::BigArrays);
    fixed_points!(e, Bytes: e::Empty, e::Keywords, e::Extremes, e::FloatEnds, e::F32Ends, e::Nesting, e::Node,
        e::Versioned, e::Nothing, e::Everything, e::Result, e::Box, e::Roster, e::F32Arrays,
        e::BigArrays);
    fixed_points!(e, SomeEncoding: e::Result, e::Box, e::F32Ends, e::F64Held, e::F32Arrays);
}

/// A real sent as FLOAT32 at an end no f32 equals arrives inside its range, in both streams,
/// packed or not: the f32 nearest to a closed end stands for the end (0.1 in `[0,0.1]` arrives as
/// 0.1), a value that rounds onto an open end (1 - 1e-12 in `[-1,1)`) goes as the f32 below; the
/// reader takes what the writer wrote, and `quantized_with` predicts it. A value outside the range
/// (the open end itself) is still an encode error.
#[test]
fn float32_at_range_ends_arrives_inside() {
    use idlc_tests::edge as e;
    fn inside(v: &e::FloatEnds) -> bool {
        (0.0..=0.1).contains(&v.tenth)
            && (-1.0..1.0).contains(&v.open)
            && v.both > -0.3
            && v.both <= 0.3
    }
    fn check<E: idlc_runtime::Encoding>(value: &e::FloatEnds)
    where
        e::FloatEnds: idlc_runtime::Codec<E>,
    {
        let bytes = value.to_bytes_with::<E>().expect("in range");
        let back = e::FloatEnds::from_bytes_with::<E>(&bytes).expect("the reader takes it");
        assert!(inside(&back), "{back:?}");
        assert_eq!(value.quantized_with::<E>().expect("in range"), back);
        for (sent, got) in [
            (value.tenth, back.tenth),
            (value.open, back.open),
            (value.both, back.both),
        ] {
            // The nearest f32, or the one next to it towards the inside.
            assert!(
                (sent - got).abs() <= 2.0 * f64::from(f32::EPSILON),
                "{sent} as {got}"
            );
        }
    }
    let values = [
        e::FloatEnds {
            tenth: 0.1,
            open: 1.0 - 1e-12,
            both: 0.3,
        },
        e::FloatEnds {
            tenth: 0.0,
            open: -1.0,
            both: -0.3 + 1e-12,
        },
        e::FloatEnds {
            tenth: 0.1 - 1e-12,
            open: f64::from(1.0f32.next_down()),
            both: -0.299_999_999,
        },
    ];
    for value in &values {
        check::<e::Odd>(value);
        check::<e::Bytes>(value);
    }
    // A closed end arrives as itself: the f32 nearest to it stands for it.
    let ends = values[0].quantized_with::<e::Odd>().expect("in range");
    assert_eq!((ends.tenth, ends.both), (0.1, 0.3));
    assert_eq!(ends.open, f64::from(1.0f32.next_down()));
    for outside in [
        e::FloatEnds {
            open: 1.0,
            ..values[0]
        },
        e::FloatEnds {
            both: -0.3,
            ..values[0]
        },
        e::FloatEnds {
            tenth: 0.1 + 1e-12,
            ..values[0]
        },
    ] {
        assert!(outside.to_bytes_with::<e::Odd>().is_err(), "{outside:?}");
        assert!(outside.to_bytes_with::<e::Bytes>().is_err(), "{outside:?}");
    }
}

/// An `f32` field under FIXED_POINT holds both ends of a range no `f32` equals (the `f32` nearest
/// to 0.1 lies above `NUMERIC[0,0.1]`): it encodes, decodes to the same `f32` and re-encodes to the
/// same bytes, in every encoding; past an end, or at an open end, it is an encode error.
/// `value` encodes in `E`, decodes to itself, re-encodes to the same bytes, and is the value
/// the receiver holds (`Codec::sent`, what `quantized_with` gives).
fn arrives_exactly<E: Encoding, T: Codec<E> + PartialEq + Debug>(value: &T) {
    let bytes = to_bytes::<E, T>(value).expect("in range");
    let back = from_bytes::<E, T>(&bytes).expect("valid");
    assert_eq!(&back, value, "{}", E::NAME);
    assert_eq!(to_bytes::<E, T>(&back).expect("re-encodes"), bytes);
    assert_eq!(Codec::<E>::sent(value).expect("in range"), back);
}

#[test]
fn f32_fields_hold_the_ends_of_their_ranges() {
    use idlc_tests::edge as e;
    let check = |value: &e::F32Ends| {
        arrives_exactly::<e::Odd, _>(value);
        arrives_exactly::<e::Bytes, _>(value);
        arrives_exactly::<e::SomeEncoding, _>(value);
    };
    // `late` (FLOAT32) defaults to the f32 nearest to 0.1, which stands for 0.1.
    assert_eq!(e::F32Ends::default().late, 0.1f32);
    let values = [
        e::F32Ends {
            tenth: 0.1,
            open: -0.3,
            both: 0.3,
            late: 0.05,
        },
        e::F32Ends {
            tenth: 0.0,
            open: 0.69,
            both: -0.29,
            late: 0.0,
        },
        e::F32Ends::default(),
    ];
    for value in &values {
        check(value);
    }
    for outside in [
        e::F32Ends {
            tenth: 0.11,
            ..values[0]
        },
        e::F32Ends {
            open: 0.7,
            ..values[0]
        },
        e::F32Ends {
            both: -0.3,
            ..values[0]
        },
    ] {
        assert!(outside.to_bytes_with::<e::Odd>().is_err(), "{outside:?}");
        assert!(outside.to_bytes_with::<e::Bytes>().is_err(), "{outside:?}");
    }
}

/// ARRAYs mapped to `[f32; n]` (edge.map): every element holds the ends of its range under
/// FIXED_POINT and FLOAT32, a decoded array re-encodes to the same bytes, and an element
/// outside the range is refused.
#[test]
fn f32_arrays_hold_the_ends_of_their_ranges() {
    use idlc_tests::edge as e;
    let values = [
        e::F32Arrays {
            pair: [0.1, 0.0],
            maybe: Some([1.0, -0.99, 0.5]),
        },
        e::F32Arrays {
            pair: [0.05, 0.1],
            maybe: None,
        },
        e::F32Arrays::default(),
    ];
    for value in &values {
        arrives_exactly::<e::Odd, _>(value);
        arrives_exactly::<e::Bytes, _>(value);
        arrives_exactly::<e::SomeEncoding, _>(value);
    }
    for outside in [
        e::F32Arrays {
            pair: [0.11, 0.0],
            maybe: None,
        },
        e::F32Arrays {
            pair: [0.0, 0.0],
            maybe: Some([0.0, -1.0, 0.0]),
        },
    ] {
        assert!(outside.to_bytes_with::<e::Odd>().is_err(), "{outside:?}");
        assert!(outside.to_bytes_with::<e::Bytes>().is_err(), "{outside:?}");
        assert!(
            outside.to_bytes_with::<e::SomeEncoding>().is_err(),
            "{outside:?}"
        );
    }
}

/// A FLOAT64 held as an `f32` (W0402) at an end no `f32` equals: `0.1f32` is written as 0.1,
/// which reads back as `0.1f32`, in every encoding.
#[test]
fn an_f32_under_float64_holds_its_ends() {
    use idlc_tests::edge as e;
    fn check<E: idlc_runtime::Encoding>(value: &e::F64Held)
    where
        e::F64Held: idlc_runtime::Codec<E>,
    {
        let bytes = value.to_bytes_with::<E>().expect("in range");
        let back = e::F64Held::from_bytes_with::<E>(&bytes).expect("valid");
        assert_eq!(&back, value);
        assert_eq!(back.to_bytes_with::<E>().expect("re-encodes"), bytes);
    }
    for level in [0.1f32, 0.0, 0.05] {
        let value = e::F64Held { level };
        check::<e::Odd>(&value);
        check::<e::Bytes>(&value);
        check::<e::SomeEncoding>(&value);
    }
    let bytes = e::F64Held { level: 0.1 }.to_bytes().expect("in range");
    assert!(
        bytes.windows(8).any(|w| w == 0.1f64.to_le_bytes()),
        "{bytes:02x?}"
    );
}

/// Values at the ends of every range of the corner-case schema round-trip in both streams.
#[test]
fn edge_extremes_round_trip() {
    use idlc_tests::edge as e;
    let values = [
        e::Extremes {
            smallest: i64::MIN,
            largest: u64::MAX,
            full_signed: i64::MIN,
            full_unsigned: u64::MAX,
            constant: 5,
            fixed_one: 1.0,
            wide: -1000.0,
            single: f32::MIN_POSITIVE,
            sparse: e::Sparse::Low,
        },
        e::Extremes {
            smallest: i64::MAX,
            largest: 0,
            full_signed: i64::MAX,
            full_unsigned: 0,
            constant: 5,
            fixed_one: 1.0,
            wide: 1000.0,
            single: -0.0,
            sparse: e::Sparse::High,
        },
    ];
    for value in values {
        let odd = value.to_bytes_with::<e::Odd>().expect("in range");
        assert_eq!(
            e::Extremes::from_bytes_with::<e::Odd>(&odd).expect("valid"),
            value
        );
        let bytes = value.to_bytes_with::<e::Bytes>().expect("in range");
        assert_eq!(
            e::Extremes::from_bytes_with::<e::Bytes>(&bytes).expect("valid"),
            value
        );
    }
    let keywords = e::Keywords {
        r#type: 255,
        r#match: true,
        self_: 3,
        r#fn: e::Only::Alone,
    };
    let bytes = keywords.to_bytes().expect("in range");
    assert_eq!(e::Keywords::from_bytes(&bytes).expect("valid"), keywords);
    let deep = e::Node {
        value: 1,
        children: vec![e::Node {
            value: 2,
            children: vec![e::Node::default(); 4],
        }],
    };
    let nesting = e::Nesting {
        grid: vec![vec![1, 2], vec![], vec![3, 4, 5, 6]],
        maybe_maybe: Some(None),
        nothings: vec![e::Empty {}; 3],
        tree: Some(deep),
        ..e::Nesting::default()
    };
    for bytes in [
        nesting.to_bytes_with::<e::Odd>(),
        nesting.to_bytes_with::<e::Bytes>(),
    ] {
        let bytes = bytes.expect("in range");
        let back = e::Nesting::from_bytes_with::<e::Odd>(&bytes)
            .or_else(|_| e::Nesting::from_bytes_with::<e::Bytes>(&bytes));
        assert_eq!(back.expect("valid"), nesting);
    }
    // Versions: a later reader of an empty tail gets the DEFAULTs.
    let mut first = vec![9];
    first.extend(0.5f64.to_le_bytes());
    let versioned = e::Versioned::from_bytes(&first).expect("version 1 data");
    assert_eq!(
        (versioned.a, versioned.level, versioned.b, versioned.s),
        (9, 0.5, 7, e::Sparse::High)
    );
    assert_eq!(versioned.tag, "none");
}

/// A user DERIVE of traits the generated enums derive already compiles, and the derived traits
/// work: the struct is Copy and hashable.
#[test]
fn derives_the_enums_have_already_compile() {
    use idlc_tests::derives::{Buff, Kind, Tick};
    let tick = Tick {
        frame: 7,
        buffs: [
            Buff {
                kind: Kind::Harm,
                seconds: 3,
            },
            Buff::default(),
        ],
        last: Some(Kind::Heal),
    };
    let copy = tick;
    let mut set = std::collections::HashSet::new();
    set.insert(copy);
    assert!(set.contains(&tick));
    assert_eq!(Tick::from_bytes(&tick.to_bytes().unwrap()).unwrap(), tick);
}

/// Encoding markers renamed past the names the module has taken (schemas/markers.idl): each
/// encoding is reachable by its marker, the default one through `DefaultEncoding`.
#[test]
fn encoding_markers_step_around_taken_names() {
    use idlc_tests::markers::{
        DefaultEncoding, IdlcEncoding, LobbyEncoding, TypeEncoding, Wire, WireEncoding,
        WireEncoding2,
    };
    let wire = Wire { a: 200 };
    let other = WireEncoding { b: 9 };
    assert_eq!(wire.to_bytes_with::<WireEncoding2>().unwrap(), vec![200]);
    assert_eq!(wire.to_bytes_with::<DefaultEncoding>().unwrap(), vec![200]);
    let bytes = wire.to_bytes_with::<LobbyEncoding>().unwrap();
    assert_eq!(
        Wire::from_bytes_with::<LobbyEncoding>(&bytes).unwrap(),
        wire
    );
    assert_eq!(
        WireEncoding::from_bytes(&other.to_bytes().unwrap()).unwrap(),
        other
    );
    let _unit: idlc_tests::markers::Lobby = idlc_tests::markers::Lobby;
    // `ENCODING(idlc)`: not `idlc`, which names the runtime in the module.
    assert_eq!(wire.to_bytes_with::<IdlcEncoding>().unwrap(), vec![200]);
    // `ENCODING(type)`: not the keyword.
    let bytes = wire.to_bytes_with::<TypeEncoding>().unwrap();
    assert_eq!(Wire::from_bytes_with::<TypeEncoding>(&bytes).unwrap(), wire);
}

/// `quantized_with::<E>()` is the value the receiver gets: what decoding the encoded bytes
/// gives, in each encoding (1 cm positions in MYENCODING1, raw in the built-in encoding).
#[test]
fn quantized_is_what_the_receiver_gets() {
    use idlc_tests::character_client as cc;
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0x0C);
    for _ in 0..200 {
        let c = common::random_character(&mut rng);
        for quantized in [
            (
                c.quantized_with::<cc::MYENCODING1>().unwrap(),
                cc::Character::from_bytes_with::<cc::MYENCODING1>(
                    &c.to_bytes_with::<cc::MYENCODING1>().unwrap(),
                )
                .unwrap(),
            ),
            (
                c.quantized_with::<cc::MYENCODING2>().unwrap(),
                cc::Character::from_bytes_with::<cc::MYENCODING2>(
                    &c.to_bytes_with::<cc::MYENCODING2>().unwrap(),
                )
                .unwrap(),
            ),
        ] {
            assert_eq!(quantized.0, quantized.1);
        }
    }
}

/// A struct mapped onto the game's own type that is neither `Clone` nor `Copy`
/// (schemas/waypoint.map) is written, read and taken as sent (`Codec::sent`, what a delta and
/// `quantized` compare) field by field, the same as a generated struct.
#[test]
fn an_existing_type_need_not_be_clone() {
    use idlc_runtime::Codec;
    use idlc_tests::waypoint::{DefaultEncoding, GameWaypoint};
    let waypoint = GameWaypoint {
        x: -1000,
        y: 999,
        visited: true,
    };
    let bytes = idlc_runtime::to_bytes::<DefaultEncoding, _>(&waypoint).unwrap();
    assert_eq!(bytes.len(), 3, "11 + 11 + 1 bits");
    let read: GameWaypoint = idlc_runtime::from_bytes::<DefaultEncoding, _>(&bytes).unwrap();
    assert_eq!(read, waypoint);
    assert_eq!(Codec::<DefaultEncoding>::sent(&waypoint).unwrap(), waypoint);
    assert_eq!(
        idlc_runtime::quantized::<DefaultEncoding, _>(&waypoint).unwrap(),
        waypoint
    );
    let outside = GameWaypoint {
        x: 1001,
        ..waypoint
    };
    assert!(idlc_runtime::quantized::<DefaultEncoding, _>(&outside).is_err());
}

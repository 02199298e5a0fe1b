//! Raw floats under changed-bits (issue 30, item 9): a changed-bit compares the bits that would
//! be sent, not the values with `==`. -0.0 against a baseline of +0.0 is a change (the delta
//! carries it, and the receiver gets -0.0), and a NaN against the NaN of the same bits is none
//! (it is not resent every tick). schemas/edge.idl's Drift holds raw floats in every place a
//! delta compares: DELTA fields (FLOAT32, FLOAT64, a FLOAT32 held in an f64), a DELTA block (with
//! a struct and an OPTIONAL), DELTA SEQUENCEs of FLOAT32s and of a struct, in a bit stream (Odd)
//! and a byte stream (Bytes, where the FLOAT32 DELTA SEQUENCE sits in the block). The IR
//! interpreter (`idlc::interpret::encode_delta` / `decode_delta`) agrees bit for bit.

mod common;

use common::schema;
use idlc::interpret::{self, Value};
use idlc::ir::Ir;
use idlc_runtime::{
    DeltaCodec, DeltaContext, Encoding, WriterOf, from_delta_bytes, to_bytes, to_delta_bytes,
};
use idlc_tests::edge::{Bytes, Drift, Gust, Odd, Spin};

/// A quiet NaN with a payload, and another.
const NAN32: f32 = f32::from_bits(0x7fc0_1234);
const OTHER_NAN32: f32 = f32::from_bits(0x7fc0_4321);
const NAN64: f64 = f64::from_bits(0x7ff8_0000_0000_5678);

fn edge_ir() -> Ir {
    common::ir(
        &[schema("edge.idl")],
        &[schema("edge.enc")],
        Some(("Edge", schema("edge.map"))),
    )
}

/// Every raw float of a Drift set to `f32` / `f64` (`trim`, a NUMERIC, to `trim`), with one
/// element in each sequence and the OPTIONALs present.
fn drift(f32_value: f32, f64_value: f64, trim: f64) -> Drift {
    Drift {
        drag: f32_value,
        spin: f64_value,
        trim,
        roll: f32_value,
        yaw: f64_value,
        gust: Gust {
            dx: f32_value,
            dy: f64_value,
        },
        heat: Some(f32_value),
        samples: vec![f32_value],
        spins: vec![Spin {
            rate: f32_value,
            bias: Some(f64_value),
        }],
    }
}

/// `base` with one of its raw floats replaced: each way a delta compares one.
fn variations(base: &Drift, f32_value: f32, f64_value: f64) -> Vec<(&'static str, Drift)> {
    let with = |name: &'static str, change: &dyn Fn(&mut Drift)| {
        let mut d = base.clone();
        change(&mut d);
        (name, d)
    };
    vec![
        with("drag (DELTA FLOAT32)", &|d| d.drag = f32_value),
        with("spin (DELTA FLOAT64)", &|d| d.spin = f64_value),
        with("roll (FLOAT32 in a DELTA block)", &|d| d.roll = f32_value),
        with("yaw (FLOAT64 in a DELTA block)", &|d| d.yaw = f64_value),
        with("gust.dx (a struct in a DELTA block)", &|d| {
            d.gust.dx = f32_value
        }),
        with("gust.dy", &|d| d.gust.dy = f64_value),
        with("heat (an OPTIONAL in a DELTA block)", &|d| {
            d.heat = Some(f32_value)
        }),
        with("samples[0] (DELTA SEQUENCE of FLOAT32)", &|d| {
            d.samples[0] = f32_value
        }),
        with("spins[0].rate (DELTA SEQUENCE of a struct)", &|d| {
            d.spins[0].rate = f32_value
        }),
        with("spins[0].bias (an OPTIONAL in an element)", &|d| {
            d.spins[0].bias = Some(f64_value)
        }),
    ]
}

fn full<E: Encoding>(d: &Drift) -> Vec<u8>
where
    Drift: DeltaCodec<E>,
{
    to_bytes::<E, Drift>(d).expect("a Drift encodes")
}

/// `value` sent as a delta against `base`, which must carry a change (not be the `idle` delta):
/// the sender's mirror and the receiver's state hold `value` bit for bit (its full form).
fn sends_the_change<E: Encoding>(value: &Drift, base: &Drift, idle: &[u8], at: &str)
where
    Drift: DeltaCodec<E>,
{
    let ctx = DeltaContext::default();
    let at = format!("{at} in {}", E::NAME);
    let bytes = to_delta_bytes::<E, Drift>(value, base, &ctx).expect("a delta");
    assert_ne!(bytes, idle, "{at}: the change was not sent");
    let mirror = value
        .encode_delta_to(base, &ctx, &mut WriterOf::<E>::default())
        .expect("a delta");
    let got = from_delta_bytes::<E, Drift>(base, &ctx, &bytes).expect("decodes");
    assert_eq!(
        full::<E>(&got),
        full::<E>(value),
        "{at}: the receiver lost it"
    );
    assert_eq!(full::<E>(&mirror), full::<E>(value), "{at}: the mirror");
}

/// The delta of a state against itself: nothing changed.
fn idle<E: Encoding>(state: &Drift) -> Vec<u8>
where
    Drift: DeltaCodec<E>,
{
    to_delta_bytes::<E, Drift>(state, state, &DeltaContext::default()).expect("a delta")
}

/// Against a baseline of +0.0 everywhere, each -0.0 is a change: the delta carries it, the
/// mirror and the receiver hold -0.0, bit for bit; and +0.0 against -0.0 likewise.
fn negative_zero_is_a_change<E: Encoding>()
where
    Drift: DeltaCodec<E>,
{
    let base = drift(0.0, 0.0, 0.0);
    let mut cases = variations(&base, -0.0, -0.0);
    let mut trim = base.clone();
    trim.trim = -0.0;
    cases.push(("trim (DELTA FLOAT32 of an f64)", trim));
    for (what, value) in cases {
        sends_the_change::<E>(&value, &base, &idle::<E>(&base), &format!("-0.0 {what}"));
    }
    let negative = drift(-0.0, -0.0, -0.0);
    for (what, value) in variations(&negative, 0.0, 0.0) {
        sends_the_change::<E>(
            &value,
            &negative,
            &idle::<E>(&negative),
            &format!("+0.0 {what}"),
        );
    }
}

/// Against a baseline holding NaNs, the very same NaNs are no change (the delta is the one of
/// a state without NaNs against itself); a NaN of other bits is a change, and arrives with its
/// bits.
fn the_same_nan_is_no_change<E: Encoding>()
where
    Drift: DeltaCodec<E>,
{
    let base = drift(NAN32, NAN64, 0.0);
    let nothing = idle::<E>(&drift(0.0, 0.0, 0.0));
    assert_eq!(
        idle::<E>(&base),
        nothing,
        "{}: the same NaNs were resent",
        E::NAME
    );
    for (what, value) in variations(&base, OTHER_NAN32, -NAN64) {
        sends_the_change::<E>(&value, &base, &nothing, &format!("another NaN {what}"));
    }
}

#[test]
fn negative_zero_against_positive_zero_is_sent() {
    negative_zero_is_a_change::<Odd>();
    negative_zero_is_a_change::<Bytes>();
}

#[test]
fn a_nan_against_the_same_nan_is_not_resent() {
    the_same_nan_is_no_change::<Odd>();
    the_same_nan_is_no_change::<Bytes>();
}

/// The interpreter, given the values generated code holds (read from their full form, every
/// bit pattern kept), writes the same delta bytes and reads them to the same state.
fn interpreter_agrees<E: Encoding>(ir: &Ir, encoding: &str, base: &Drift, value: &Drift, at: &str)
where
    Drift: DeltaCodec<E>,
{
    let ctx = DeltaContext::default();
    let as_value = |d: &Drift| -> Value {
        interpret::decode(ir, encoding, "Drift", &full::<E>(d)).expect("the interpreter reads it")
    };
    let (base_v, value_v) = (as_value(base), as_value(value));
    let generated = to_delta_bytes::<E, Drift>(value, base, &ctx).expect("a delta");
    let (bytes, mirror) = interpret::encode_delta(ir, encoding, "Drift", &value_v, &base_v, 0.0)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    assert_eq!(bytes, generated, "{at}: the interpreter's delta differs");
    let read = interpret::decode_delta(ir, encoding, "Drift", &generated, &base_v, 0.0)
        .unwrap_or_else(|e| panic!("{at}: {e}"));
    for state in [&read, &mirror] {
        assert_eq!(
            interpret::encode(ir, encoding, "Drift", state).expect("a state encodes"),
            full::<E>(value),
            "{at}: the interpreter's state"
        );
    }
}

#[test]
fn the_interpreter_compares_the_bits_sent_too() {
    let ir = edge_ir();
    for (encoding, byte_stream) in [("Odd", false), ("Bytes", true)] {
        let check = |base: &Drift, value: &Drift, at: &str| {
            if byte_stream {
                interpreter_agrees::<Bytes>(&ir, encoding, base, value, at);
            } else {
                interpreter_agrees::<Odd>(&ir, encoding, base, value, at);
            }
        };
        let zeros = drift(0.0, 0.0, 0.0);
        for (what, value) in variations(&zeros, -0.0, -0.0) {
            check(&zeros, &value, &format!("-0.0 {what} in {encoding}"));
        }
        let nans = drift(NAN32, NAN64, -0.0);
        check(&nans, &nans, &format!("the same NaNs in {encoding}"));
        for (what, value) in variations(&nans, OTHER_NAN32, -NAN64) {
            check(&nans, &value, &format!("another NaN {what} in {encoding}"));
        }
    }
}

/// A baseline the interpreter is given in JSON's forms (`0` for a FLOAT32, `0.0` for a FLOAT64)
/// is compared by the bits it would be sent as: -0.0 against it is a change.
#[test]
fn the_interpreter_compares_a_json_baseline_by_its_bits() {
    let ir = edge_ir();
    let json = |drag: &str| -> Value {
        let text = format!(
            r#"{{"drag": {drag}, "spin": 0.0, "trim": 0, "roll": 0, "yaw": 0, "gust": {{"dx": 0, "dy": 0}},
                "heat": null, "samples": [], "spins": []}}"#
        );
        serde_json::from_str(&text).expect("a Drift in JSON")
    };
    let (base, value) = (json("0"), json("-0.0"));
    let (bytes, mirror) =
        interpret::encode_delta(&ir, "Odd", "Drift", &value, &base, 0.0).expect("a delta");
    let (idle, _) =
        interpret::encode_delta(&ir, "Odd", "Drift", &base, &base, 0.0).expect("a delta");
    assert_ne!(bytes, idle, "-0.0 against 0 sent nothing");
    let read = interpret::decode_delta(&ir, "Odd", "Drift", &bytes, &base, 0.0).expect("reads");
    let generated =
        from_delta_bytes::<Odd, Drift>(&Drift::default(), &DeltaContext::default(), &bytes)
            .expect("generated code reads it");
    assert!(generated.drag.is_sign_negative());
    for state in [&read, &mirror] {
        assert_eq!(
            interpret::encode(&ir, "Odd", "Drift", state).expect("encodes"),
            full::<Odd>(&generated)
        );
    }
}

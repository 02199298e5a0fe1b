//! Property tests: any sequence of writes reads back identically (both streams); fixed-point
//! error stays within half a resolution; delta sequences and dead reckoning keep the sender's
//! mirror equal to the receiver's state bit for bit.

mod support;

use idlc_runtime::{
    BitReader, BitWriter, ByteReader, ByteWriter, DeadReckoningAxis, DeltaContext, FixedPoint,
    WireRead, WireWrite, read_delta_sequence, write_delta_sequence,
};
use proptest::prelude::*;
use support::ops::{Op, within_half_step};

fn edge_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1u64),
        Just(u64::MAX),
        Just(u64::MAX - 1),
        Just(1u64 << 63),
        0..300u64,
        (0..64u32).prop_map(|b| 1u64 << b),
        (any::<u64>(), 0..64u32).prop_map(|(v, s)| v >> s),
    ]
}

fn edge_i64() -> impl Strategy<Value = i64> {
    prop_oneof![
        Just(i64::MIN),
        Just(i64::MAX),
        Just(0i64),
        Just(-1i64),
        -300..300i64,
        edge_u64().prop_map(|v| v as i64),
    ]
}

fn width_value(max_bits: u32) -> impl Strategy<Value = (u64, u32)> {
    (0..=max_bits, edge_u64())
        .prop_map(|(n, v)| (if n == 64 { v } else { v & ((1u64 << n) - 1) }, n))
}

fn floats32() -> impl Strategy<Value = u32> {
    prop_oneof![
        any::<u32>(),
        Just((-0.0f32).to_bits()),
        Just(f32::NAN.to_bits()),
        Just(1u32), // smallest subnormal
        Just(f32::INFINITY.to_bits()),
        Just(f32::MIN_POSITIVE.to_bits()),
    ]
}

fn floats64() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        Just((-0.0f64).to_bits()),
        Just(f64::NAN.to_bits()),
        Just(1u64),
        Just(f64::NEG_INFINITY.to_bits()),
        Just(f64::MAX.to_bits()),
    ]
}

/// (min, max, resolution, value in [min, max]).
fn fixed_params() -> impl Strategy<Value = (f64, f64, f64, f64)> {
    (-1e6..1e6f64, 0.0..2e6f64, -6..3i32, 0.0..=1.0f64).prop_filter_map(
        "too many steps",
        |(min, span, exp, t)| {
            let res = 10f64.powi(exp) * 0.7;
            let max = min + span;
            FixedPoint::new(min, max, res)?;
            let v = (min + t * span).clamp(min, max);
            Some((min, max, res, v))
        },
    )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        width_value(64).prop_map(|(v, n)| Op::Bits(v, n)),
        any::<bool>().prop_map(Op::Bool),
        (edge_u64(), edge_u64(), any::<bool>()).prop_map(|(a, b, hi)| {
            let (lo, top) = (a.min(b), a.max(b));
            Op::UintRanged(if hi { top } else { lo }, lo, top)
        }),
        (edge_i64(), edge_i64(), 0.0..=1.0f64).prop_map(|(a, b, t)| {
            let (lo, hi) = (a.min(b), a.max(b));
            let span = hi.abs_diff(lo);
            let v = lo
                .wrapping_add((span as f64 * t) as u64 as i64)
                .clamp(lo, hi);
            Op::IntRanged(v, lo, hi)
        }),
        (edge_u64(), 1..=32u32).prop_map(|(v, n)| Op::Vlq(v, n)),
        (edge_i64(), 1..=32u32).prop_map(|(v, n)| Op::VlqSigned(v, n)),
        (width_value(64), 1..=32u32).prop_map(|((v, t), n)| Op::VlqWidth(v, n, t.max(1))),
        (-1000..1000i64, 1..=16u32).prop_map(|(v, n)| Op::VlqRanged(v, -1000, 999, n)),
        floats32().prop_map(Op::F32),
        floats64().prop_map(Op::F64),
        fixed_params().prop_map(|(a, b, r, v)| Op::Fixed(v, a, b, r)),
        (1..=1000u64, 0.0..1.0f64).prop_map(|(c, t)| Op::Enum(((c as f64) * t) as u64, c)),
        any::<bool>().prop_map(Op::Presence),
        Just(Op::Align),
        (proptest::collection::vec(any::<u8>(), 0..40), any::<bool>())
            .prop_map(|(b, bounded)| Op::Bytes(b, bounded.then_some(40))),
        ("\\PC{0,12}", any::<bool>()).prop_map(|(s, bounded)| {
            let max = bounded.then_some(s.len() as u64 + 3);
            Op::Str(s, max)
        }),
        Just(Op::Check),
        proptest::option::of(width_value(64)).prop_map(Op::Extension),
    ]
}

fn round_trip<W: WireWrite>(
    ops: &[Op],
    read: impl Fn(&[u8]) -> Result<(), String>,
) -> Result<Vec<u8>, TestCaseError> {
    let mut w = W::default();
    for op in ops {
        op.write(&mut w)
            .map_err(|e| TestCaseError::fail(format!("{op:?}: {e}")))?;
    }
    let bytes = w.into_bytes();
    read(&bytes).map_err(TestCaseError::fail)?;
    Ok(bytes)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn any_writes_read_back_bitstream(ops in proptest::collection::vec(op(), 0..40)) {
        let bytes = round_trip::<BitWriter>(&ops, |bytes| {
            let mut r = BitReader::new(bytes);
            for op in &ops {
                op.read_check(&mut r)?;
            }
            r.expect_end().map_err(|e| e.to_string())
        })?;
        // Sizes: where an op's size is simple, the total is exact (no hidden bits).
        if ops.iter().all(|op| op.bit_size().is_some()) {
            let bits: u64 = ops.iter().filter_map(Op::bit_size).sum();
            prop_assert_eq!(bytes.len() as u64, bits.div_ceil(8));
        }
    }

    #[test]
    fn any_writes_read_back_bytestream(ops in proptest::collection::vec(op(), 0..40)) {
        round_trip::<ByteWriter>(&ops, |bytes| {
            let mut r = ByteReader::new(bytes);
            for op in &ops {
                op.read_check(&mut r)?;
            }
            r.expect_end().map_err(|e| e.to_string())
        })?;
    }

    /// Truncating a valid message anywhere makes some read fail cleanly (never a panic, never
    /// a wrong value reported as success for the last, cut field).
    #[test]
    fn truncation_is_an_error(ops in proptest::collection::vec(op(), 1..20), cut in 0.0..1.0f64) {
        let mut w = BitWriter::new();
        for op in &ops {
            op.write(&mut w).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        let bits = w.bits_written();
        let bytes = w.into_bytes();
        let keep = ((bytes.len() as f64) * cut) as usize;
        prop_assume!((keep as u64) * 8 < bits);
        let mut r = BitReader::new(&bytes[..keep]);
        let all_ok = ops.iter().all(|op| op.read_check(&mut r).is_ok());
        prop_assert!(!all_ok);
    }

    #[test]
    fn quantization_error_is_at_most_half_a_step((min, max, res, v) in fixed_params()) {
        let fp = FixedPoint::new(min, max, res).unwrap();
        let q = fp.quantize(v).unwrap();
        prop_assert!(q <= fp.steps());
        let back = fp.dequantize(q);
        prop_assert!(within_half_step(v, back, min, max, res), "v={} back={} r={}", v, back, res);
        // What the receiver holds quantizes to the same step: re-sending it changes nothing.
        if back <= max && back >= min {
            prop_assert_eq!(fp.quantize(back).unwrap(), q);
        }
        let mut w = BitWriter::new();
        w.write_fixed_point(v, min, max, res).unwrap();
        prop_assert_eq!(w.bits_written(), u64::from(fp.bits()));
        let bytes = w.into_bytes();
        let decoded = BitReader::new(&bytes).read_fixed_point(min, max, res).unwrap();
        prop_assert_eq!(decoded.to_bits(), back.to_bits());
    }

    #[test]
    fn delta_sequences_rebuild_the_current_state(
        base in proptest::collection::vec(0..8u64, 0..30),
        edits in proptest::collection::vec((0..40usize, 0..8u64), 0..10),
        new_len in 0..40usize,
    ) {
        let mut cur = base.clone();
        cur.resize(new_len, 3);
        for (i, v) in edits {
            if let Some(slot) = cur.get_mut(i) {
                *slot = v;
            }
        }
        for byte_stream in [false, true] {
            let got: Option<Vec<u64>> = if byte_stream {
                let mut w = ByteWriter::new();
                write_delta_sequence(&mut w, &base, &cur, |w, n| w.write_count(n, Some(64)), |x, base| Ok(x == base), |w, &x, _| w.write_bits(x, 3).map(|()| x)).unwrap();
                let bytes = w.into_bytes();
                let mut r = ByteReader::new(&bytes);
                let got = read_delta_sequence(&mut r, &base, |r| r.read_length(Some(64)), 8, |r, _| r.read_bits(3)).unwrap();
                r.expect_end().unwrap();
                got
            } else {
                let mut w = BitWriter::new();
                write_delta_sequence(&mut w, &base, &cur, |w, n| w.write_count(n, Some(64)), |x, base| Ok(x == base), |w, &x, _| w.write_bits(x, 3).map(|()| x)).unwrap();
                let bytes = w.into_bytes();
                let mut r = BitReader::new(&bytes);
                let got = read_delta_sequence(&mut r, &base, |r| r.read_length(Some(64)), 3, |r, _| r.read_bits(3)).unwrap();
                r.expect_end().unwrap();
                got
            };
            prop_assert_eq!(got.unwrap_or_else(|| base.clone()), cur.clone());
        }
    }

    /// A dead-reckoned, delta-encoded position over many ticks: the sender's mirror equals the
    /// receiver's state bit for bit, and the receiver is never further than dev + r/2 from the
    /// truth.
    #[test]
    fn dead_reckoning_mirror_equals_receiver(
        start in -50.0..50.0f64,
        accel in proptest::collection::vec(-3.0..3.0f64, 1..200),
        dev in 0.005..0.5f64,
    ) {
        let axis = DeadReckoningAxis::new(
            FixedPoint::new(-100.0, 100.0, 0.01).unwrap(),
            FixedPoint::new(-10.0, 10.0, 0.01).unwrap(),
        );
        let r_half = axis.position.resolution() / 2.0;
        const TICK: f64 = 1.0 / 30.0;
        // Sender: truth and mirror (baseline steps + ticks since). Receiver: the same, decoded.
        let (mut x, mut v) = (start, 0.0f64);
        let mut mirror: Option<(u64, u64, u64)> = None; // (pos step, vel step, ticks since)
        let mut receiver: Option<(u64, u64, u64)> = None;
        for a in accel {
            v = (v + a * TICK).clamp(-10.0, 10.0);
            x = (x + v * TICK).clamp(-100.0, 100.0);
            // Encode one tick.
            let mut w = BitWriter::new();
            let send = match mirror {
                None => true,
                Some((p, q, t)) => axis.needs_update(x, p, q, &DeltaContext::from_ticks(t + 1, TICK), dev),
            };
            w.write_bool(send).unwrap();
            if send {
                w.write_quantized(&axis.position, x).unwrap();
                w.write_quantized(&axis.velocity, v).unwrap();
                // The next baseline is what the receiver will hold, not x and v.
                mirror = Some((axis.position.quantize(x).unwrap(), axis.velocity.quantize(v).unwrap(), 0));
            } else if let Some(m) = mirror.as_mut() {
                m.2 += 1;
            }
            let bytes = w.into_bytes();
            // Decode it.
            let mut r = BitReader::new(&bytes);
            if r.read_bool().unwrap() {
                let p = r.read_quantized(&axis.position).unwrap();
                let q = r.read_quantized(&axis.velocity).unwrap();
                receiver = Some((p, q, 0));
            } else if let Some(s) = receiver.as_mut() {
                s.2 += 1;
            }
            prop_assert_eq!(mirror, receiver);
            let (p, q, t) = receiver.unwrap();
            let shown = axis.predict(p, q, &DeltaContext::from_ticks(t, TICK));
            let mirror_shown = {
                let (mp, mq, mt) = mirror.unwrap();
                axis.predict(mp, mq, &DeltaContext::from_ticks(mt, TICK))
            };
            prop_assert_eq!(shown.to_bits(), mirror_shown.to_bits());
            prop_assert!((shown - x).abs() <= dev + r_half + 1e-9, "shown {} true {}", shown, x);
        }
    }
}

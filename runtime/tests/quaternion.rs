//! QUATERNION and `SMALLEST_THREE(n)` (WIRE.md): every unit quaternion comes back within the
//! angle the rule promises, as a unit quaternion that re-encodes to the same bits; `q` and
//! `-q` encode alike; NaN and quaternions far from unit length are refused; a decoder accepts
//! only what re-encodes to the same bits, on any input; the delta form keeps mirror ==
//! receiver.

use idlc_runtime::{
    BitReader, BitWriter, ByteReader, ByteWriter, DecodeErrorKind, EncodeErrorKind, Quaternion,
    SmallestThree, UNIT_TOLERANCE,
};
use proptest::prelude::*;

/// A unit quaternion from four components of any direction (not all near zero).
fn unit() -> impl Strategy<Value = Quaternion> {
    prop::array::uniform4(-1.0f64..1.0)
        .prop_filter("not near zero", |c| {
            c.iter().map(|v| v * v).sum::<f64>() > 1e-6
        })
        .prop_map(|c| {
            let len = c.iter().map(|v| v * v).sum::<f64>().sqrt();
            let [x, y, z, w] = c.map(|v| (v / len) as f32);
            Quaternion::new(x, y, z, w)
        })
}

/// A unit quaternion with two components of nearly equal size (the case where the rebuilt
/// largest may no longer be the largest), or exactly equal.
fn near_tie() -> impl Strategy<Value = Quaternion> {
    (
        0usize..4,
        1usize..4,
        0.3f64..0.7072,
        -1e-3f64..1e-3,
        prop::bool::ANY,
        prop::array::uniform2(-1.0f64..1.0),
        prop::bool::ANY,
    )
        .prop_map(|(i, shift, big, eps, exact, rest, negate)| {
            let j = (i + shift) % 4;
            let mut c = [0.0f64; 4];
            c[i] = big;
            c[j] = if exact { big } else { big + eps } * if negate { -1.0 } else { 1.0 };
            let left = (1.0 - c[i] * c[i] - c[j] * c[j]).max(0.0).sqrt();
            let others: Vec<usize> = (0..4).filter(|k| *k != i && *k != j).collect();
            let r = (rest[0] * rest[0] + rest[1] * rest[1]).sqrt().max(1e-9);
            c[others[0]] = left * rest[0] / r;
            c[others[1]] = left * rest[1] / r;
            let len = c.iter().map(|v| v * v).sum::<f64>().sqrt();
            let [x, y, z, w] = c.map(|v| (v / len) as f32);
            Quaternion::new(x, y, z, w)
        })
}

fn length(q: &Quaternion) -> f64 {
    q.to_array()
        .iter()
        .map(|&v| f64::from(v) * f64::from(v))
        .sum::<f64>()
        .sqrt()
}

fn negated(q: &Quaternion) -> Quaternion {
    Quaternion::from_array(q.to_array().map(|v| -v))
}

/// Encodes, decodes and re-encodes `q` in both streams; checks the angle, the unit length,
/// the same bits and `-q`.
fn round_trip(rule: SmallestThree, q: &Quaternion) -> Result<f64, TestCaseError> {
    let code = rule
        .encode(q)
        .map_err(|k| TestCaseError::fail(format!("{k}")))?;
    prop_assert_eq!(rule.encode(&negated(q)), Ok(code), "q and -q");
    let mut w = BitWriter::new();
    rule.write(&mut w, q).unwrap();
    prop_assert_eq!(w.bits_written(), u64::from(rule.code_bits()));
    let bytes = w.into_bytes();
    let mut r = BitReader::new(&bytes);
    let back = rule.read(&mut r).unwrap();
    r.expect_end().unwrap();
    prop_assert!((length(&back) - 1.0).abs() < 1e-6, "unit: {back:?}");
    let angle = back.angle_to(q);
    prop_assert!(
        angle <= rule.max_angle(),
        "{angle} > {} for {q:?}",
        rule.max_angle()
    );
    prop_assert_eq!(rule.encode(&back), Ok(code), "re-encodes to the same bits");
    let mut w = ByteWriter::new();
    rule.write(&mut w, q).unwrap();
    let bytes = w.into_bytes();
    let mut r = ByteReader::new(&bytes);
    prop_assert_eq!(rule.read(&mut r).unwrap(), back);
    r.expect_end().unwrap();
    Ok(angle)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// SMALLEST_THREE(9), Fiedler's: within 1.10 degrees (`max_angle`), and within 0.55
    /// degrees (half of it) unless two components are nearly equal.
    #[test]
    fn nine_bits_within_the_bound(q in unit()) {
        let rule = SmallestThree::new(9);
        prop_assert!((rule.max_angle().to_degrees() - 1.0993).abs() < 1e-3);
        let angle = round_trip(rule, &q)?;
        prop_assert!(angle <= rule.max_angle() / 2.0 || ties(&q), "{angle} for {q:?}");
    }

    #[test]
    fn every_width_within_its_bound(q in unit(), bits in 2u32..=24) {
        round_trip(SmallestThree::new(bits), &q)?;
    }

    #[test]
    fn nearly_equal_components(q in near_tie(), bits in 2u32..=24) {
        round_trip(SmallestThree::new(bits), &q)?;
    }

    /// Any bits: an error, or a unit quaternion that re-encodes to the same bits.
    #[test]
    fn decoder_accepts_only_its_encoders_bits(bytes in prop::collection::vec(any::<u8>(), 0..12), bits in 2u32..=24) {
        let rule = SmallestThree::new(bits);
        let mut r = BitReader::new(&bytes);
        if let Ok(q) = rule.read(&mut r) {
            prop_assert!((length(&q) - 1.0).abs() < 1e-6);
            let mut w = BitWriter::new();
            rule.write(&mut w, &q).unwrap();
            let used = usize::try_from(r.bits_read()).unwrap();
            let again = w.into_bytes();
            for bit in 0..used {
                prop_assert_eq!(again[bit / 8] >> (bit % 8) & 1, bytes[bit / 8] >> (bit % 8) & 1);
            }
        }
        let mut r = ByteReader::new(&bytes);
        if let Ok(q) = rule.read(&mut r) {
            let mut w = ByteWriter::new();
            rule.write(&mut w, &q).unwrap();
            let used = usize::try_from(r.bits_read() / 8).unwrap();
            prop_assert_eq!(&w.into_bytes()[..], &bytes[..used]);
        }
    }

    /// Delta form: the receiver decodes what the sender's mirror holds, tick after tick.
    #[test]
    fn diff_mirror_is_receiver(
        start in unit(),
        moves in prop::collection::vec((unit(), 0.0f64..1.0), 1..12),
        bits in 2u32..=24,
    ) {
        let rule = SmallestThree::new(bits);
        let tiers = [3, 7];
        let mut mirror = rule.sent(&start).unwrap();
        let mut receiver = mirror;
        for (target, t) in moves {
            // Somewhere between the last state and a random one: small and large moves.
            let c: Vec<f64> = mirror.to_array().iter().zip(target.to_array())
                .map(|(&a, b)| f64::from(a) * (1.0 - t * t * t) + f64::from(b) * t * t * t)
                .collect();
            let len = c.iter().map(|v| v * v).sum::<f64>().sqrt();
            if len < 1e-3 { continue; }
            let now = Quaternion::new((c[0] / len) as f32, (c[1] / len) as f32, (c[2] / len) as f32, (c[3] / len) as f32);
            let reference = rule.reference(&mirror);
            let mut w = BitWriter::new();
            rule.write_diff(&mut w, &tiers, &now, reference.as_ref()).unwrap();
            let bytes = w.into_bytes();
            let mut r = BitReader::new(&bytes);
            receiver = rule.read_diff(&mut r, &tiers, rule.reference(&receiver).as_ref()).unwrap();
            r.expect_end().unwrap();
            mirror = rule.sent(&now).unwrap();
            prop_assert_eq!(mirror, receiver);
            let mut w = ByteWriter::new();
            rule.write_diff(&mut w, &tiers, &now, reference.as_ref()).unwrap();
            let bytes = w.into_bytes();
            let mut r = ByteReader::new(&bytes);
            prop_assert_eq!(rule.read_diff(&mut r, &tiers, reference.as_ref()).unwrap(), mirror);
        }
    }

    /// A baseline is sent as a value's sent quaternion exactly when both send the same code:
    /// itself always (held as the game holds it, off the codes, or as sent), a neighbour a
    /// fraction of a step away sometimes, a far rotation never; `sends_code` (which answers a
    /// far baseline from its nearest code) says the same.
    #[test]
    fn sends_as_is_the_same_code(
        q in unit(),
        nudge in prop::array::uniform4(-1.0f64..1.0),
        scale in prop::sample::select(vec![0.0, 1e-4, 1e-3, 1e-2, 1.0]),
        bits in 2u32..=24,
    ) {
        let rule = SmallestThree::new(bits);
        let sent = rule.sent(&q).unwrap();
        prop_assert!(rule.sends_as(&q, &sent));
        prop_assert!(rule.sends_as(&sent, &sent));
        prop_assert!(rule.sends_as(&negated(&q), &sent));
        let c: Vec<f64> = q.to_array().iter().zip(nudge)
            .map(|(&a, d)| f64::from(a) + d * scale)
            .collect();
        let len = c.iter().map(|v| v * v).sum::<f64>().sqrt();
        prop_assume!(len > 1e-3);
        let baseline = Quaternion::new((c[0] / len) as f32, (c[1] / len) as f32, (c[2] / len) as f32, (c[3] / len) as f32);
        let same_code = rule.encode(&baseline).ok() == rule.encode(&q).ok();
        prop_assert_eq!(rule.sends_as(&baseline, &sent), same_code);
        let (code, also_sent) = rule.sent_code(&q).unwrap();
        prop_assert!(also_sent.same_bits(&sent));
        prop_assert_eq!(rule.sends_code(&baseline, &code), same_code);
        prop_assert!(rule.sends_code(&q, &code));
    }

    /// Hostile delta bytes: an error, or a quaternion whose delta against the same reference
    /// is those bits.
    #[test]
    fn diff_decoder_accepts_only_its_encoders_bits(
        base in unit(),
        bytes in prop::collection::vec(any::<u8>(), 0..12),
        bits in 2u32..=24,
    ) {
        let rule = SmallestThree::new(bits);
        let tiers = [2, 5];
        let reference = rule.reference(&base);
        let mut r = BitReader::new(&bytes);
        if let Ok(q) = rule.read_diff(&mut r, &tiers, reference.as_ref()) {
            let mut w = BitWriter::new();
            rule.write_diff(&mut w, &tiers, &q, reference.as_ref()).unwrap();
            prop_assert_eq!(w.bits_written(), r.bits_read());
            let again = w.into_bytes();
            let used = usize::try_from(r.bits_read()).unwrap();
            for bit in 0..used {
                prop_assert_eq!(again[bit / 8] >> (bit % 8) & 1, bytes[bit / 8] >> (bit % 8) & 1);
            }
        }
    }
}

/// Whether two components of `q` are within one 9-bit step of each other in size.
fn ties(q: &Quaternion) -> bool {
    let mut a = q.to_array().map(|v| f64::from(v.abs()));
    a.sort_by(f64::total_cmp);
    a[3] - a[2] < 2.0 * std::f64::consts::SQRT_2 / 511.0
}

#[test]
fn refuses_nan_and_far_from_unit() {
    let rule = SmallestThree::new(9);
    let nan = Quaternion::new(f32::NAN, 0.0, 0.0, 1.0);
    assert_eq!(rule.encode(&nan), Err(EncodeErrorKind::NotANumber));
    let inf = Quaternion::new(f32::INFINITY, 0.0, 0.0, 1.0);
    assert_eq!(rule.encode(&inf), Err(EncodeErrorKind::NotANumber));
    let zero = Quaternion::new(0.0, 0.0, 0.0, 0.0);
    assert_eq!(rule.encode(&zero), Err(EncodeErrorKind::ValueOutOfRange));
    let long = Quaternion::new(0.0, 0.0, 0.0, 1.01);
    assert_eq!(rule.encode(&long), Err(EncodeErrorKind::ValueOutOfRange));
    // Within the tolerance: taken, normalized.
    let w = (1.0 + UNIT_TOLERANCE * 0.9).sqrt() as f32;
    let near = Quaternion::new(0.0, 0.0, 0.0, w);
    assert_eq!(rule.sent(&near), rule.sent(&Quaternion::IDENTITY));
    let mut out = BitWriter::new();
    let e = rule.write(&mut out, &nan).unwrap_err();
    assert_eq!(e.kind, EncodeErrorKind::NotANumber);
    assert!(
        SmallestThree::new(25)
            .encode(&Quaternion::IDENTITY)
            .is_err()
    );
    assert!(SmallestThree::new(1).encode(&Quaternion::IDENTITY).is_err());
}

#[test]
fn bytes_of_the_identity_and_a_non_canonical_code() {
    // n = 9: index 3 (w), steps of 0.0 = 255.5 rounded to 256 each: 29 bits, 4 bytes.
    let rule = SmallestThree::new(9);
    let mut w = BitWriter::new();
    rule.write(&mut w, &Quaternion::IDENTITY).unwrap();
    let packed = 3u64 | (256 << 2) | (256 << 11) | (256 << 20);
    assert_eq!(w.into_bytes(), packed.to_le_bytes()[..4].to_vec());
    let mut w = ByteWriter::new();
    rule.write(&mut w, &Quaternion::IDENTITY).unwrap();
    assert_eq!(w.into_bytes(), packed.to_le_bytes()[..4].to_vec());
    // Index 3 with w rebuilt smaller than x (x at its largest step): not what an encoder
    // sends.
    let bad = 3u64 | (511 << 2) | (256 << 11) | (256 << 20);
    let bytes = bad.to_le_bytes();
    let e = rule.read(&mut BitReader::new(&bytes[..4])).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::ValueOutOfRange);
    // Three components longer than 1.
    let bad = 3u64 | (511 << 2) | (511 << 11) | (511 << 20);
    let bytes = bad.to_le_bytes();
    let e = rule.read(&mut BitReader::new(&bytes[..4])).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::ValueOutOfRange);
    // n = 24: 74 bits, in two words; a BYTESTREAM takes 4 + 8 bytes.
    let rule = SmallestThree::new(24);
    let mut w = ByteWriter::new();
    rule.write(&mut w, &Quaternion::IDENTITY).unwrap();
    assert_eq!(w.into_bytes().len(), 12);
    let mut w = BitWriter::new();
    rule.write(&mut w, &Quaternion::IDENTITY).unwrap();
    assert_eq!(w.bits_written(), 74);
}

#[test]
fn equal_components_pick_one_code() {
    // Four equal components, and two at exactly 1/sqrt(2): each encodes, decodes to a
    // quaternion that re-encodes alike.
    let h = std::f32::consts::FRAC_1_SQRT_2;
    for q in [
        Quaternion::new(0.5, 0.5, 0.5, 0.5),
        Quaternion::new(-0.5, 0.5, -0.5, 0.5),
        Quaternion::new(h, h, 0.0, 0.0),
        Quaternion::new(0.0, -h, 0.0, h),
    ] {
        for bits in 2..=24 {
            let rule = SmallestThree::new(bits);
            let code = rule.encode(&q).unwrap();
            let back = rule.decode(&code).unwrap();
            assert_eq!(rule.encode(&back), Ok(code), "{q:?} at {bits}");
            assert!(back.angle_to(&q) <= rule.max_angle());
        }
    }
}

//! Every compatible pair of check-compat's corpus (compiler/tests/compat/pass/), generated from
//! OLD and from NEW, crossed both ways in every encoding both have (tests/src/compat_cross.rs):
//! what check-compat accepts really reads both ways.

use idlc_tests::compat_pairs::PAIRS;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn compatible_pairs_cross_both_ways(seed in any::<u64>()) {
        for (name, cross) in PAIRS {
            cross(seed, 12).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
        }
    }
}

#[test]
fn the_corpus_has_fifteen_pairs_or_more() {
    assert!(PAIRS.len() >= 15, "{} pairs", PAIRS.len());
}

/// NEW's values that OLD's slot cannot hold exactly are saturated into it, never refused: in
/// pair 09 (`EXTEND ratio TO NUMERIC[0,1]` from `NUMERIC[0,1)`), NEW sends ratio = 1.0 and OLD
/// reads the largest f64 below its open end; NEW reads 1.0 back from the extension.
#[test]
fn a_closed_end_reaches_the_old_open_slot_as_the_value_inside() {
    use idlc_tests::compat_pairs::p09_numeric_range_widened::{new, old};
    let sent = new::Body {
        vx: 100.0,
        ratio: 1.0,
        mass: 1e300,
    };
    let bytes = sent.to_bytes().expect("every field in NEW's range");
    assert_eq!(new::Body::from_bytes(&bytes).expect("NEW reads NEW"), sent);
    let seen = old::Body::from_bytes(&bytes).expect("OLD reads NEW");
    assert_eq!(seen.ratio, 1.0f64.next_down());
    assert_eq!(seen.vx, 10.0);
    let low = new::Body {
        ratio: 0.0,
        vx: -100.0,
        ..sent
    };
    let seen = old::Body::from_bytes(&low.to_bytes().expect("in range")).expect("OLD reads NEW");
    assert_eq!((seen.ratio, seen.vx), (0.0, -10.0));
}

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

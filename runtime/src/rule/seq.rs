//! `SEQUENCE` and `ARRAY` bodies and lengths: elements read under the allocation bounds of
//! WIRE_FORMAT.md section 8, runs of BOOLs, and lengths bounded by a declared maximum.

use crate::codec::{Codec, Encoding};
use crate::collection::Collection;
use crate::collection::reservation;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, WithField};
use crate::int::fitting_count;
use crate::prefetching::iter_prefetching;
use crate::wire::{Style, WireRead, WireWrite};

/// Reads `count` elements (a count already read and checked against `max`, its declared bound)
/// into a new collection, after checking `count * min_element_bits <= bits left`
/// ([`DecodeErrorKind::LengthOverBound`]) so that the reservation is bounded by the input. As in
/// [`WireRead::read_count`], zero-size elements of an unbounded sequence count as one bit each,
/// so that no count makes the reader loop past the input.
///
/// ```
/// use idlc_runtime::{read_elements, BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[1, 2, 3]);
/// let v: Vec<u64> = read_elements(&mut r, 3, None, 8, |r| r.read_bits(8)).unwrap();
/// assert_eq!(v, [1, 2, 3]);
/// let e = read_elements::<_, Vec<u64>, _>(&mut BitReader::new(&[1]), 1 << 40, None, 8, |r| r.read_bits(8));
/// assert_eq!(e.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// // An unbounded sequence of zero-size elements: 2^60 of them do not fit in one byte.
/// let e = read_elements::<_, Vec<()>, _>(&mut BitReader::new(&[0]), 1 << 60, None, 0, |_| Ok(()));
/// assert_eq!(e.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// ```
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn read_elements<'a, R, C, F>(
    r: &mut R,
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
    read_item: F,
) -> Result<C, DecodeError>
where
    R: WireRead<'a>,
    C: Collection + Default,
    F: FnMut(&mut R) -> Result<C::Item, DecodeError>,
{
    let count = checked_count(r, count, max, min_element_bits)?;
    crate::collection::collect(r, count, min_element_bits, read_item)
}

/// `count` as a `usize` when that many elements of at least `min_element_bits` each fit in the
/// bits left ([`fitting_count`]); [`DecodeErrorKind::LengthOverBound`] where they do not.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn checked_count<'a, R: WireRead<'a>>(
    r: &R,
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
) -> Result<usize, DecodeError> {
    match fitting_count(count, max, min_element_bits, r.bits_remaining()) {
        Some(count) => Ok(count),
        None => Err(r.error(DecodeErrorKind::LengthOverBound)),
    }
}

/// [`read_elements`] of struct values in encoding `E`: each element is
/// `T::decode_from` (`T::decode_nested_from` when `NESTED`), its index named on an error
/// (`at_index`). What generated code calls for a `SEQUENCE` of structs: one function per element
/// type instead of a closure per call site, which a user's build compiles once each.
///
/// ```
/// use idlc_runtime::{read_struct_elements, BitStream, BitReader, BitWriter, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// #[derive(Debug, PartialEq)]
/// struct Level(u64);
/// impl Codec<E> for Level {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bits(self.0, 8) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bits(8).map(Level) }
/// }
/// let levels: Vec<Level> = read_struct_elements::<E, _, false>(&mut BitReader::new(&[3, 9]), 2, None, 8).unwrap();
/// assert_eq!(levels, [Level(3), Level(9)]);
/// // Two elements of at least one bit fit in a byte; the second one's read fails.
/// let e = read_struct_elements::<E, Vec<Level>, false>(&mut BitReader::new(&[3]), 2, None, 1).unwrap_err();
/// assert_eq!(e.field.as_deref(), Some("[1]"));
/// ```
// Inlined into every decoder, as `read_elements` is.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn read_struct_elements<'a, E, C, const NESTED: bool>(
    r: &mut <E::Style as Style>::Reader<'a>,
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
) -> Result<C, DecodeError>
where
    E: Encoding,
    C: Collection + Default,
    C::Item: Codec<E>,
{
    let count = checked_count(r, count, max, min_element_bits)?;
    let mut out = C::with_capacity(reservation(count, min_element_bits, r.bits_remaining()));
    for index in 0..count {
        let item = if NESTED {
            C::Item::decode_nested_from(r)
        } else {
            C::Item::decode_from(r)
        };
        out.push(item.at_index(index)?);
    }
    Ok(out)
}

/// Writes the elements of a `SEQUENCE` of structs in encoding `E` (the count written before):
/// each `encode_to` (`encode_nested_to` when `NESTED`), its index named on an error; with
/// `PREFETCH` (structs that own memory) through [`iter_prefetching`]. What generated encoders
/// call instead of a loop per call site.
///
/// ```
/// use idlc_runtime::{write_struct_elements, BitStream, BitReader, BitWriter, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// struct Flag(bool);
/// impl Codec<E> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bool(self.0) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bool().map(Flag) }
/// }
/// let mut w = BitWriter::new();
/// write_struct_elements::<E, _, false, false>(&mut w, &vec![Flag(false), Flag(true)]).unwrap();
/// assert_eq!(w.finish(), &[0b10]);
/// ```
// Inlined into every encoder, as the loop it replaces was.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn write_struct_elements<E, C, const NESTED: bool, const PREFETCH: bool>(
    w: &mut <E::Style as Style>::Writer,
    items: &C,
) -> Result<(), EncodeError>
where
    E: Encoding,
    C: Collection,
    C::Item: Codec<E>,
{
    let write = |w: &mut <E::Style as Style>::Writer, item: &C::Item| {
        if NESTED {
            item.encode_nested_to(w)
        } else {
            item.encode_to(w)
        }
    };
    if PREFETCH {
        for (index, item) in iter_prefetching::<E, C>(items).enumerate() {
            write(w, item).at_index(index)?;
        }
    } else {
        for (index, item) in items.iter().enumerate() {
            write(w, item).at_index(index)?;
        }
    }
    Ok(())
}

/// Reads `count` BOOLs (a count already read and checked against its bound) into a new
/// collection, as [`read_elements`] with [`WireRead::read_bool`] would, up to 64 at a time:
/// `count * min_element_bits` must fit in the bits left ([`DecodeErrorKind::LengthOverBound`]).
///
/// ```
/// use idlc_runtime::{read_bool_elements, BitReader, DecodeErrorKind};
/// let v: Vec<bool> = read_bool_elements(&mut BitReader::new(&[0b110]), 3, 1).unwrap();
/// assert_eq!(v, [false, true, true]);
/// let e = read_bool_elements::<_, Vec<bool>>(&mut BitReader::new(&[0]), 9, 1);
/// assert_eq!(e.unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// ```
// Inlined into every decoder: out of line, mk48's new-value decode was 2.5% slower (criterion,
// docs/PERFORMANCE.md "Session 11").
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn read_bool_elements<'a, R, C>(
    r: &mut R,
    count: u64,
    min_element_bits: u64,
) -> Result<C, DecodeError>
where
    R: WireRead<'a>,
    C: Collection<Item = bool> + Default,
{
    let count = checked_count(r, count, None, min_element_bits)?;
    let mut out = C::with_capacity(count);
    push_checked_bools(r, &mut out, count)?;
    Ok(out)
}

/// Appends `count` BOOLs to `out` after the check of [`read_bool_elements`].
#[inline]
pub(crate) fn push_bools<'a, R, C>(
    r: &mut R,
    out: &mut C,
    count: u64,
    min_element_bits: u64,
) -> Result<(), DecodeError>
where
    R: WireRead<'a>,
    C: Collection<Item = bool>,
{
    let count = checked_count(r, count, None, min_element_bits)?;
    out.reserve(count);
    push_checked_bools(r, out, count)
}

/// Appends `count` BOOLs (already checked against the bits left), up to 64 from one read.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn push_checked_bools<'a, R, C>(r: &mut R, out: &mut C, count: usize) -> Result<(), DecodeError>
where
    R: WireRead<'a>,
    C: Collection<Item = bool>,
{
    let mut left = count;
    while left > 0 {
        let run = left.min(64);
        let word = r.read_bool_bits(run as u32)?;
        out.extend_from((0..run).map(|i| word >> i & 1 != 0));
        left -= run;
    }
    Ok(())
}

/// Writes a bounded length or count in `bits` bits; one over `max` is
/// [`EncodeErrorKind::LengthOverBound`].
///
/// ```
/// use idlc_runtime::{BitWriter, EncodeErrorKind, write_bounded_length};
/// let mut w = BitWriter::new();
/// write_bounded_length(&mut w, 4, 4, 8).unwrap();
/// assert_eq!(write_bounded_length(&mut w, 5, 4, 8).unwrap_err().kind, EncodeErrorKind::LengthOverBound);
/// ```
#[inline]
pub fn write_bounded_length<W: WireWrite>(
    w: &mut W,
    len: u64,
    max: u64,
    bits: u32,
) -> Result<(), EncodeError> {
    if len > max {
        return Err(w.error(EncodeErrorKind::LengthOverBound));
    }
    w.write_bits(len, bits)
}

/// Reads a length or count written by [`write_bounded_length`]; one over `max` is
/// [`DecodeErrorKind::LengthOverBound`].
///
/// ```
/// use idlc_runtime::{BitReader, DecodeErrorKind, read_bounded_length};
/// let mut r = BitReader::new(&[5]);
/// assert_eq!(read_bounded_length(&mut r, 4, 8).unwrap_err().kind, DecodeErrorKind::LengthOverBound);
/// ```
#[inline]
pub fn read_bounded_length<'a, R: WireRead<'a>>(
    r: &mut R,
    max: u64,
    bits: u32,
) -> Result<u64, DecodeError> {
    let start = r.bits_read();
    let len = r.read_bits(bits)?;
    if len > max {
        return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
    }
    Ok(len)
}

#[cfg(test)]
mod bool_run_tests {
    use crate::{BitReader, BitWriter, WireRead, WireWrite, read_bool_elements};

    #[test]
    fn bool_runs_read_as_single_bools() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..140u64 {
            let mut w = BitWriter::new();
            w.write_bits(0, 5).unwrap();
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                w.write_bool(state & 1 == 1).unwrap();
            }
            let bytes = w.finish().to_vec();
            let mut one = BitReader::new(&bytes);
            one.read_bits(5).unwrap();
            let single: Vec<bool> = (0..len).map(|_| one.read_bool().unwrap()).collect();
            let mut run = BitReader::new(&bytes);
            run.read_bits(5).unwrap();
            let read: Vec<bool> = read_bool_elements(&mut run, len, 1).unwrap();
            assert_eq!(read, single, "len {len}");
        }
    }
}

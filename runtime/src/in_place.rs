//! Decoding into an existing value: the helpers behind [`Codec::decode_in_place_from`], which
//! reuse the memory a value's `Vec`s and `String`s already own, so that a receiver decoding
//! every packet into one value allocates only when a collection grows.

use crate::codec::{Codec, Encoding};
use crate::error::{DecodeError, WithField};
use crate::wire::{Style, WireRead};

/// Decodes a value of encoding `E` from `bytes` into `value`, reusing the memory it owns. On an
/// error `value` holds a mix of its old fields and the ones read (each a valid value).
///
/// ```
/// use idlc_runtime::{from_bytes_in_place, BitStream, BitReader, BitWriter, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// struct Flag(bool);
/// impl Codec<E> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bool(self.0) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bool().map(Flag) }
/// }
/// let mut flag = Flag(false);
/// from_bytes_in_place::<E, _>(&[1], &mut flag).unwrap();
/// assert!(flag.0);
/// ```
pub fn from_bytes_in_place<E: Encoding, T: Codec<E>>(
    bytes: &[u8],
    value: &mut T,
) -> Result<(), DecodeError> {
    let mut r = <E::Style as Style>::Reader::from_bytes(bytes);
    value.decode_in_place_from(&mut r)
}

/// Reads `count` elements (a count already read and checked against `max`, its declared bound)
/// into `out`, with the checks of [`read_elements`](crate::read_elements): the elements `out`
/// already has are read in place by `read_in_place` (index, slot), the others are appended as
/// `read_new` (index) returns them, and those beyond `count` are dropped.
///
/// ```
/// use idlc_runtime::{read_elements_in_place, BitReader, WireRead};
/// let mut v = vec![9u64; 5];
/// let capacity = v.capacity();
/// let mut r = BitReader::new(&[1, 2, 3]);
/// read_elements_in_place(&mut r, &mut v, 3, None, 8, |r, _, slot| {
///     *slot = r.read_bits(8)?;
///     Ok(())
/// }, |r, _| r.read_bits(8)).unwrap();
/// assert_eq!((v, capacity), (vec![1, 2, 3], 5));
/// ```
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn read_elements_in_place<'a, R, T, F, G>(
    r: &mut R,
    out: &mut Vec<T>,
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
    mut read_in_place: F,
    mut read_new: G,
) -> Result<(), DecodeError>
where
    R: WireRead<'a>,
    F: FnMut(&mut R, usize, &mut T) -> Result<(), DecodeError>,
    G: FnMut(&mut R, usize) -> Result<T, DecodeError>,
{
    let count = crate::rule::seq::checked_count(r, count, max, min_element_bits)?;
    out.truncate(count);
    for (index, slot) in out.iter_mut().enumerate() {
        read_in_place(r, index, slot)?;
    }
    let kept = out.len();
    // As in `read_elements`: zero-size elements reserve no more than the bits left.
    let hint = if min_element_bits == 0 {
        (count - kept).min(usize::try_from(r.bits_remaining()).unwrap_or(usize::MAX))
    } else {
        count - kept
    };
    out.reserve(hint);
    for index in kept..count {
        out.push(read_new(r, index)?);
    }
    Ok(())
}

/// [`read_elements_in_place`] of struct values in encoding `E`: the elements kept are
/// `T::decode_in_place_from` (`T::decode_nested_in_place_from` when `NESTED`), the ones added
/// `T::decode_from` (`decode_nested_from`), each index named on an error. What generated code
/// calls for a `SEQUENCE` of structs, instead of two closures per call site.
///
/// ```
/// use idlc_runtime::{read_struct_elements_in_place, BitStream, BitReader, BitWriter, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// #[derive(Debug, PartialEq)]
/// struct Flag(bool);
/// impl Codec<E> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bool(self.0) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bool().map(Flag) }
/// }
/// let mut flags = vec![Flag(true)];
/// read_struct_elements_in_place::<E, _, false>(&mut BitReader::new(&[0b10]), &mut flags, 2, None, 1).unwrap();
/// assert_eq!(flags, [Flag(false), Flag(true)]);
/// ```
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn read_struct_elements_in_place<'a, E, T, const NESTED: bool>(
    r: &mut <E::Style as Style>::Reader<'a>,
    out: &mut Vec<T>,
    count: u64,
    max: Option<u64>,
    min_element_bits: u64,
) -> Result<(), DecodeError>
where
    E: Encoding,
    T: Codec<E>,
{
    read_elements_in_place(
        r,
        out,
        count,
        max,
        min_element_bits,
        |r, index, slot| {
            if NESTED {
                slot.decode_nested_in_place_from(r)
            } else {
                slot.decode_in_place_from(r)
            }
            .at_index(index)
        },
        |r, index| {
            if NESTED {
                T::decode_nested_from(r)
            } else {
                T::decode_from(r)
            }
            .at_index(index)
        },
    )
}

/// Reads `count` BOOLs into `out` (cleared first, its memory kept), as
/// [`read_bool_elements`](crate::read_bool_elements) does into a new collection.
///
/// ```
/// use idlc_runtime::{read_bool_elements_in_place, BitReader};
/// let mut v = vec![true; 8];
/// read_bool_elements_in_place(&mut BitReader::new(&[0b110]), &mut v, 3, 1).unwrap();
/// assert_eq!(v, [false, true, true]);
/// ```
#[inline]
pub fn read_bool_elements_in_place<'a, R: WireRead<'a>>(
    r: &mut R,
    out: &mut Vec<bool>,
    count: u64,
    min_element_bits: u64,
) -> Result<(), DecodeError> {
    out.clear();
    crate::rule::seq::push_bools(r, out, count, min_element_bits)
}

/// Replaces the bytes of `out` by `bytes`, keeping its memory.
///
/// ```
/// let mut v = vec![0u8; 16];
/// idlc_runtime::assign_bytes(&mut v, b"abc");
/// assert_eq!((v.as_slice(), v.capacity()), (&b"abc"[..], 16));
/// ```
#[inline]
pub fn assign_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.clear();
    out.extend_from_slice(bytes);
}

/// Replaces the text of `out` by `text`, keeping its memory.
///
/// ```
/// let mut s = String::with_capacity(16);
/// idlc_runtime::assign_text(&mut s, "abc");
/// assert_eq!((s.as_str(), s.capacity()), ("abc", 16));
/// ```
#[inline]
pub fn assign_text(out: &mut String, text: &str) {
    out.clear();
    out.push_str(text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BitReader, ByteReader, DecodeErrorKind};

    fn read_bytes_into<'a, R: WireRead<'a>>(
        r: &mut R,
        out: &mut Vec<u64>,
        count: u64,
    ) -> Result<(), DecodeError> {
        read_elements_in_place(
            r,
            out,
            count,
            Some(8),
            8,
            |r, _, slot| {
                *slot = r.read_bits(8)?;
                Ok(())
            },
            |r, _| r.read_bits(8),
        )
    }

    #[test]
    fn grows_shrinks_and_keeps_memory() {
        let mut v = Vec::new();
        read_bytes_into(&mut BitReader::new(&[1, 2, 3, 4]), &mut v, 4).unwrap();
        assert_eq!(v, [1, 2, 3, 4]);
        let memory = v.as_ptr();
        read_bytes_into(&mut BitReader::new(&[5, 6]), &mut v, 2).unwrap();
        assert_eq!((v.as_slice(), v.as_ptr()), (&[5, 6][..], memory));
        read_bytes_into(&mut ByteReader::new(&[7, 8, 9]), &mut v, 3).unwrap();
        assert_eq!(v, [7, 8, 9]);
    }

    #[test]
    fn counts_beyond_the_input_are_refused_before_reserving() {
        let mut v = vec![1, 2];
        let e = read_bytes_into(&mut BitReader::new(&[1]), &mut v, 1 << 40).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::LengthOverBound);
        let e = read_bytes_into(&mut BitReader::new(&[1]), &mut v, 2).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::LengthOverBound);
        // Zero-size elements of an unbounded sequence count one bit each.
        let mut units = vec![(); 3];
        let e = read_elements_in_place(
            &mut BitReader::new(&[0]),
            &mut units,
            1 << 60,
            None,
            0,
            |_, _, _| Ok(()),
            |_, _| Ok(()),
        )
        .unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::LengthOverBound);
    }

    #[test]
    fn indices_run_on_from_the_kept_elements() {
        let mut v = vec![0usize; 2];
        let mut seen = Vec::new();
        read_elements_in_place(
            &mut BitReader::new(&[0; 4]),
            &mut v,
            4,
            None,
            8,
            |r, index, slot| {
                r.read_bits(8)?;
                *slot = index;
                Ok(())
            },
            |r, index| {
                r.read_bits(8)?;
                seen.push(index);
                Ok(index)
            },
        )
        .unwrap();
        assert_eq!((v, seen), (vec![0, 1, 2, 3], vec![2, 3]));
    }
}

//! Consecutive fixed-width fields written as one word: the code generator packs runs of ranged
//! integers, enum indices, fixed-point steps and bools of a BITSTREAM into a single
//! `write_bits` / `read_bits` (LSB-first, so the bits on the wire are the same as field by
//! field). These functions check one field's value and give its bits, or the reverse.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::extend::WireInt;
use crate::fixed::FixedPoint;
use crate::wire::{WireRead, WireWrite};

/// The bits of a ranged integer in a packed word: `value - min`, after checking the range.
///
/// ```
/// use idlc_runtime::{BitWriter, ranged_offset};
/// let w = BitWriter::new();
/// assert_eq!(ranged_offset(&w, 17u8, 10, 20), Ok(7));
/// assert!(ranged_offset(&w, 21u8, 10, 20).is_err());
/// ```
#[inline]
pub fn ranged_offset<W: WireWrite, T: WireInt>(
    w: &W,
    value: T,
    min: i128,
    max: i128,
) -> Result<u64, EncodeError> {
    let v = value.to_i128();
    if v < min || v > max {
        return Err(w.error(EncodeErrorKind::ValueOutOfRange));
    }
    u64::try_from(v - min).map_err(|_| w.error(EncodeErrorKind::ValueOutOfRange))
}

/// The integer whose bits `offset` a packed word carried, checked against `min..=max`.
///
/// ```
/// use idlc_runtime::{BitReader, ranged_from_offset};
/// let r = BitReader::new(&[]);
/// assert_eq!(ranged_from_offset::<_, u8>(&r, 7, 10, 20), Ok(17));
/// assert!(ranged_from_offset::<_, u8>(&r, 11, 10, 20).is_err());
/// ```
#[inline]
pub fn ranged_from_offset<'a, R: WireRead<'a>, T: WireInt>(
    r: &R,
    offset: u64,
    min: i128,
    max: i128,
) -> Result<T, DecodeError> {
    let value = min.saturating_add(i128::from(offset));
    if value > max {
        return Err(r.error(DecodeErrorKind::ValueOutOfRange));
    }
    T::from_i128(value).ok_or_else(|| r.error(DecodeErrorKind::ValueOutOfRange))
}

/// The bits of an enumerator index in a packed word, after checking it is below `count`.
///
/// ```
/// use idlc_runtime::{BitWriter, enum_offset};
/// let w = BitWriter::new();
/// assert_eq!(enum_offset(&w, 2, 3), Ok(2));
/// assert!(enum_offset(&w, 3, 3).is_err());
/// ```
#[inline]
pub fn enum_offset<W: WireWrite>(w: &W, index: u64, count: u64) -> Result<u64, EncodeError> {
    if index < count {
        Ok(index)
    } else {
        Err(w.error(EncodeErrorKind::ValueOutOfRange))
    }
}

/// The bits of a FIXED_POINT value in a packed word: its step index, after checking NaN and the
/// range.
///
/// ```
/// use idlc_runtime::{BitWriter, FixedPoint, fixed_point_offset};
/// let w = BitWriter::new();
/// let fp = FixedPoint::new(0.0, 1.0, 0.25).unwrap();
/// assert_eq!(fixed_point_offset(&w, 0.5, &fp), Ok(2));
/// assert!(fixed_point_offset(&w, f64::NAN, &fp).is_err());
/// ```
#[inline]
pub fn fixed_point_offset<W: WireWrite>(
    w: &W,
    value: f64,
    fp: &FixedPoint,
) -> Result<u64, EncodeError> {
    fp.quantize(value).map_err(|kind| w.error(kind))
}

/// The FIXED_POINT value of step `q` that a packed word carried, checked against the steps.
///
/// ```
/// use idlc_runtime::{BitReader, FixedPoint, fixed_point_from_offset};
/// let r = BitReader::new(&[]);
/// let fp = FixedPoint::new(0.0, 1.0, 0.25).unwrap();
/// assert_eq!(fixed_point_from_offset(&r, 2, &fp), Ok(0.5));
/// assert!(fixed_point_from_offset(&r, 5, &fp).is_err());
/// ```
#[inline]
pub fn fixed_point_from_offset<'a, R: WireRead<'a>>(
    r: &R,
    q: u64,
    fp: &FixedPoint,
) -> Result<f64, DecodeError> {
    if fp.is_step(q) {
        Ok(fp.dequantize(q))
    } else {
        Err(r.error(DecodeErrorKind::ValueOutOfRange))
    }
}

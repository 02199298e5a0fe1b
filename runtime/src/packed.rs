//! Consecutive fixed-width fields written as one word: the code generator packs runs of ranged
//! and fixed-width integers, enum indices, fixed-point steps, FLOAT32s and bools of a BITSTREAM
//! into a single `write_bits` / `read_bits` (LSB-first, so the bits on the wire are the same as
//! field by field). These functions check one field's value and give its bits, or the reverse.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::fixed::FixedPoint;
use crate::int::WireInt;
use crate::rule::float::{check_f32_in_range, check_numeric_f32, float32_real};
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

/// The bits of a FLOAT32 of a `NUMERIC` range in a packed word: the IEEE-754 pattern of
/// [`check_numeric_f32`]'s `f32` (NaN and out-of-range values are errors).
///
/// ```
/// use idlc_runtime::{BitWriter, float32_bits};
/// let w = BitWriter::new();
/// assert_eq!(float32_bits(&w, 1.5, -10.0, 10.0, true, true), Ok(u64::from(1.5f32.to_bits())));
/// assert!(float32_bits(&w, 11.0, -10.0, 10.0, true, true).is_err());
/// ```
#[inline]
pub fn float32_bits<W: WireWrite>(
    w: &W,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<u64, EncodeError> {
    let single = check_numeric_f32(w, value, min, max, min_inclusive, max_inclusive)?;
    Ok(u64::from(single.to_bits()))
}

/// [`float32_bits`] of an `f32` field: the IEEE-754 pattern of [`check_f32_in_range`]'s `f32`.
///
/// ```
/// use idlc_runtime::{BitWriter, f32_in_range_bits};
/// let w = BitWriter::new();
/// assert_eq!(f32_in_range_bits(&w, 1.5, -10.0, 10.0, true, true), Ok(u64::from(1.5f32.to_bits())));
/// assert!(f32_in_range_bits(&w, 11.0, -10.0, 10.0, true, true).is_err());
/// ```
#[inline]
pub fn f32_in_range_bits<W: WireWrite>(
    w: &W,
    value: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<u64, EncodeError> {
    let single = check_f32_in_range(w, value, min, max, min_inclusive, max_inclusive)?;
    Ok(u64::from(single.to_bits()))
}

/// The FLOAT32 whose IEEE-754 bits a packed word carried, as the real of its `NUMERIC` range it
/// stands for ([`float32_real`]; NaN is out of range).
///
/// ```
/// use idlc_runtime::{BitReader, float32_from_bits};
/// let r = BitReader::new(&[]);
/// assert_eq!(float32_from_bits(&r, u64::from(1.5f32.to_bits()), -10.0, 10.0, true, true), Ok(1.5));
/// assert!(float32_from_bits(&r, u64::from(f32::NAN.to_bits()), -10.0, 10.0, true, true).is_err());
/// ```
#[inline]
pub fn float32_from_bits<'a, R: WireRead<'a>>(
    r: &R,
    raw: u64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    // The word's low 32 bits are the pattern (the extraction masked the rest).
    float32_real(
        r,
        f32::from_bits(raw as u32),
        min,
        max,
        min_inclusive,
        max_inclusive,
    )
}

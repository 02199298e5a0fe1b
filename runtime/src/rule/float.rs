//! `NUMERIC` and `FLOAT32`/`FLOAT64`: the range checks of a real sent raw, and the `f32` that
//! stands for a real of a range (its ends included).

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::fixed::real_of_f32;
use crate::wire::{WireRead, WireWrite};

#[inline]
fn in_numeric_range(v: f64, min: f64, max: f64, min_inclusive: bool, max_inclusive: bool) -> bool {
    let above = if min_inclusive { v >= min } else { v > min };
    let below = if max_inclusive { v <= max } else { v < max };
    above && below
}

/// Checks a real before it is sent raw: NaN is [`EncodeErrorKind::NotANumber`], a value outside
/// the range (each end inclusive or not) [`EncodeErrorKind::ValueOutOfRange`].
///
/// ```
/// use idlc_runtime::{check_numeric, BitWriter};
/// let w = BitWriter::new();
/// assert_eq!(check_numeric(&w, 1.0, 0.0, 1.0, true, true), Ok(1.0));
/// assert!(check_numeric(&w, 1.0, 0.0, 1.0, true, false).is_err());
/// assert!(check_numeric(&w, f64::NAN, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn check_numeric<W: WireWrite>(
    w: &W,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, EncodeError> {
    numeric_kind(value, min, max, min_inclusive, max_inclusive).map_err(|kind| w.error(kind))
}

/// [`check_numeric`] without a writer: the value, or the kind of error.
#[inline]
fn numeric_kind(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, EncodeErrorKind> {
    if value.is_nan() {
        return Err(EncodeErrorKind::NotANumber);
    }
    if !in_numeric_range(value, min, max, min_inclusive, max_inclusive) {
        return Err(EncodeErrorKind::ValueOutOfRange);
    }
    Ok(value)
}

/// The FLOAT32 a real of a `NUMERIC` range is sent as: [`check_numeric`], then the nearest
/// `f32`. The `f32` nearest to an end stands for the end ([`float32_real`]: `0.1` in
/// `NUMERIC[0,0.1]` is sent as the `f32` 0.100000001, which a reader takes as 0.1), so it is sent
/// for a closed end; the `f32` of an open end is not a value of the range (`1 - 1e-12` in
/// `NUMERIC[0,1)` rounds to 1), and the value goes as its neighbour towards the inside.
/// [`EncodeErrorKind::ValueOutOfRange`] when no `f32` stands for a value of the range there.
///
/// ```
/// use idlc_runtime::{check_numeric_f32, BitWriter};
/// let w = BitWriter::new();
/// assert_eq!(check_numeric_f32(&w, 0.5, 0.0, 1.0, true, false), Ok(0.5));
/// assert_eq!(check_numeric_f32(&w, 0.1, 0.0, 0.1, true, true), Ok(0.1f32));
/// assert_eq!(check_numeric_f32(&w, 1.0 - 1e-12, 0.0, 1.0, true, false), Ok(1.0f32.next_down()));
/// assert_eq!(check_numeric_f32(&w, 0.7 - 1e-9, 0.0, 0.7, true, false), Ok(0.7f32.next_down()));
/// assert!(check_numeric_f32(&w, 1.0, 0.0, 1.0, true, false).is_err());
/// assert_eq!(check_numeric_f32(&w, 1e300, 0.0, 1e300, true, true), Ok(f32::MAX));
/// ```
#[inline]
pub fn check_numeric_f32<W: WireWrite>(
    w: &W,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, EncodeError> {
    numeric_as_f32(value, min, max, min_inclusive, max_inclusive).map_err(|kind| w.error(kind))
}

/// The `f32` a real of a `NUMERIC` range (inside it) is held as: [`check_numeric_f32`]'s, the
/// nearest `f32` (that of a closed end stands for the end), or the nearest `f32` when no `f32`
/// stands for a value of the range there. For a FLOAT64 read into an `f32` field, and an `f32`
/// DEFAULT: the value re-encodes.
///
/// ```
/// use idlc_runtime::nearest_f32_inside;
/// assert_eq!(nearest_f32_inside(0.1, 0.0, 0.1, true, true), 0.1f32);
/// assert_eq!(nearest_f32_inside(1.0 - 1e-12, 0.0, 1.0, true, false), 1.0f32.next_down());
/// assert_eq!(nearest_f32_inside(0.25, 0.0, 1.0, true, true), 0.25);
/// ```
#[inline]
#[must_use]
pub fn nearest_f32_inside(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> f32 {
    numeric_as_f32(value, min, max, min_inclusive, max_inclusive).unwrap_or(value as f32)
}

/// [`check_numeric_f32`] of a real an `f32` field holds: the `f32` itself, if it stands for a
/// value of the range ([`float32_real`]; NaN is [`EncodeErrorKind::NotANumber`]). The same as
/// `check_numeric_f32(w, real_of_f32(value, min, max), ..)`, without the round trip through `f64`.
///
/// ```
/// use idlc_runtime::{check_f32_in_range, BitWriter};
/// let w = BitWriter::new();
/// assert_eq!(check_f32_in_range(&w, 0.1, 0.0, 0.1, true, true), Ok(0.1));
/// assert!(check_f32_in_range(&w, 1.0, 0.0, 1.0, true, false).is_err());
/// assert!(check_f32_in_range(&w, f32::NAN, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn check_f32_in_range<W: WireWrite>(
    w: &W,
    value: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, EncodeError> {
    if value.is_nan() {
        return Err(w.error(EncodeErrorKind::NotANumber));
    }
    match f32_stands_for(value, min, max, min_inclusive, max_inclusive) {
        Some(_) => Ok(value),
        None => Err(w.error(EncodeErrorKind::ValueOutOfRange)),
    }
}

/// [`check_numeric_f32`] without a writer: the `f32`, or the kind of error.
#[inline]
pub(crate) fn numeric_as_f32(
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, EncodeErrorKind> {
    let single = numeric_kind(value, min, max, min_inclusive, max_inclusive)? as f32;
    if f32_stands_for(single, min, max, min_inclusive, max_inclusive).is_some() {
        return Ok(single);
    }
    // `single` is the f32 of an open end (or past an end, beyond f32::MAX): the f32 next to
    // it towards the inside is the nearest f32 that stands for a value of the range, if any.
    let inward = if single == max as f32 || f64::from(single) > max {
        single.next_down()
    } else {
        single.next_up()
    };
    if f32_stands_for(inward, min, max, min_inclusive, max_inclusive).is_some() {
        Ok(inward)
    } else {
        Err(EncodeErrorKind::ValueOutOfRange)
    }
}

/// The real of a `NUMERIC` range an `f32` stands for ([`real_of_f32`]: the `f32` nearest to an
/// end stands for the end), if that real lies in the range (an open end is not).
#[inline]
fn f32_stands_for(
    single: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Option<f64> {
    let real = real_of_f32(single, min, max);
    in_numeric_range(real, min, max, min_inclusive, max_inclusive).then_some(real)
}

/// The real a FLOAT32 of a `NUMERIC` range stands for, once read: the `f32` nearest to an end
/// stands for the end ([`real_of_f32`]: `0.1` in `NUMERIC[0,0.1]` is sent as the `f32`
/// 0.100000001 and read as 0.1), any other `f32` for itself. [`DecodeErrorKind::ValueOutOfRange`]
/// for NaN, a value outside the range, or the `f32` of an open end.
///
/// ```
/// use idlc_runtime::{float32_real, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(float32_real(&r, 0.1, 0.0, 0.1, true, true), Ok(0.1));
/// assert_eq!(float32_real(&r, 0.5, 0.0, 1.0, true, false), Ok(0.5));
/// assert!(float32_real(&r, 1.0, 0.0, 1.0, true, false).is_err());
/// assert!(float32_real(&r, 0.2, 0.0, 0.1, true, true).is_err());
/// ```
#[inline]
pub fn float32_real<'a, R: WireRead<'a>>(
    r: &R,
    single: f32,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    f32_stands_for(single, min, max, min_inclusive, max_inclusive)
        .ok_or_else(|| r.error(DecodeErrorKind::ValueOutOfRange))
}

/// Checks a real just read raw against its IDL range ([`DecodeErrorKind::ValueOutOfRange`],
/// also for NaN).
///
/// ```
/// use idlc_runtime::{numeric_in_range, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(numeric_in_range(&r, 0.5, 0.0, 1.0, true, true), Ok(0.5));
/// assert!(numeric_in_range(&r, f64::NAN, 0.0, 1.0, true, true).is_err());
/// ```
#[inline]
pub fn numeric_in_range<'a, R: WireRead<'a>>(
    r: &R,
    value: f64,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    if in_numeric_range(value, min, max, min_inclusive, max_inclusive) {
        Ok(value)
    } else {
        Err(r.error(DecodeErrorKind::ValueOutOfRange))
    }
}

/// Reads a FLOAT32 of a `NUMERIC` range: the `f32`, checked against the range
/// ([`float32_real`]: NaN, values outside and the `f32` of an open end are
/// [`DecodeErrorKind::ValueOutOfRange`]), for an `f32` field.
///
/// ```
/// use idlc_runtime::{read_f32_in_range, BitReader};
/// let bytes = 0.5f32.to_le_bytes();
/// assert_eq!(read_f32_in_range(&mut BitReader::new(&bytes), 0.0, 1.0, true, true), Ok(0.5));
/// assert!(read_f32_in_range(&mut BitReader::new(&bytes), 0.0, 0.4, true, true).is_err());
/// ```
#[inline]
pub fn read_f32_in_range<'a, R: WireRead<'a>>(
    r: &mut R,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f32, DecodeError> {
    let raw = r.read_f32()?;
    float32_real(r, raw, min, max, min_inclusive, max_inclusive)?;
    Ok(raw)
}

/// Reads a FLOAT32 of a `NUMERIC` range as the real it stands for ([`float32_real`]), for an
/// `f64` field.
///
/// ```
/// use idlc_runtime::{read_f32_real_in_range, BitReader};
/// let bytes = 0.1f32.to_le_bytes();
/// assert_eq!(read_f32_real_in_range(&mut BitReader::new(&bytes), 0.0, 0.1, true, true), Ok(0.1));
/// ```
#[inline]
pub fn read_f32_real_in_range<'a, R: WireRead<'a>>(
    r: &mut R,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    let raw = r.read_f32()?;
    float32_real(r, raw, min, max, min_inclusive, max_inclusive)
}

/// Reads a FLOAT64 of a `NUMERIC` range: the `f64`, checked against the range
/// ([`numeric_in_range`]).
///
/// ```
/// use idlc_runtime::{read_f64_in_range, BitReader};
/// let bytes = 0.5f64.to_le_bytes();
/// assert_eq!(read_f64_in_range(&mut BitReader::new(&bytes), 0.0, 1.0, true, true), Ok(0.5));
/// assert!(read_f64_in_range(&mut BitReader::new(&bytes), 0.0, 0.5, true, false).is_err());
/// ```
#[inline]
pub fn read_f64_in_range<'a, R: WireRead<'a>>(
    r: &mut R,
    min: f64,
    max: f64,
    min_inclusive: bool,
    max_inclusive: bool,
) -> Result<f64, DecodeError> {
    let raw = r.read_f64()?;
    numeric_in_range(r, raw, min, max, min_inclusive, max_inclusive)
}

#[cfg(test)]
mod tests {
    use crate::*;

    #[test]
    fn numeric_ranges() {
        let w = BitWriter::new();
        assert!(check_numeric(&w, 0.0, 0.0, 1.0, false, true).is_err());
        assert_eq!(check_numeric(&w, -0.0, 0.0, 1.0, true, true), Ok(-0.0));
        assert!(check_numeric(&w, f64::INFINITY, 0.0, f64::INFINITY, true, false).is_err());
        let r = BitReader::new(&[]);
        assert!(numeric_in_range(&r, 1.0, 0.0, 1.0, true, false).is_err());
    }
}

//! A BOOL under `BIT(n)`: 0 or 1 in `n` bits, anything else rejected.

use super::ranged::{read_ranged, write_ranged};
use crate::error::{DecodeError, EncodeError};
use crate::wire::{WireRead, WireWrite};

/// Writes a BOOL in `bits` bits (`BIT(n)` of a width the stream does not use for BOOLs), as
/// 0 or 1.
///
/// ```
/// use idlc_runtime::{write_wide_bool, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_wide_bool(&mut w, true, 3).unwrap();
/// assert_eq!((w.bits_written(), w.finish()), (3, &[1][..]));
/// ```
#[inline]
pub fn write_wide_bool<W: WireWrite>(w: &mut W, value: bool, bits: u32) -> Result<(), EncodeError> {
    write_ranged(w, u8::from(value), 0, 1, bits)
}

/// Reads a BOOL written by [`write_wide_bool`]; any value but 0 and 1 is
/// [`ValueOutOfRange`](crate::DecodeErrorKind::ValueOutOfRange).
///
/// ```
/// use idlc_runtime::{read_wide_bool, BitReader};
/// assert_eq!(read_wide_bool(&mut BitReader::new(&[1]), 3), Ok(true));
/// assert!(read_wide_bool(&mut BitReader::new(&[2]), 3).is_err());
/// ```
#[inline]
pub fn read_wide_bool<'a, R: WireRead<'a>>(r: &mut R, bits: u32) -> Result<bool, DecodeError> {
    Ok(read_ranged::<R, u8>(r, 0, 1, bits)? == 1)
}

//! `STRING` and `BYTES` bodies: aligned runs of bytes, borrowed from the input, and UTF-8.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::wire::{WireRead, WireWrite};

/// ALIGN, then the bytes (no length): for a STRING / BYTES whose length has its own rule.
///
/// ```
/// use idlc_runtime::{write_aligned_bytes, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// w.write_bool(true).unwrap();
/// write_aligned_bytes(&mut w, b"ab").unwrap();
/// assert_eq!(w.finish(), &[1, b'a', b'b']);
/// ```
#[inline]
pub fn write_aligned_bytes<W: WireWrite>(w: &mut W, bytes: &[u8]) -> Result<(), EncodeError> {
    w.write_raw_bytes(bytes)
}

/// ALIGN (verifying the padding), then borrows `len` bytes; `len` beyond the bytes left is
/// [`DecodeErrorKind::UnexpectedEnd`].
///
/// ```
/// use idlc_runtime::{read_aligned_bytes, BitReader};
/// let mut r = BitReader::new(&[b'a', b'b']);
/// assert_eq!(read_aligned_bytes(&mut r, 2).unwrap(), b"ab");
/// assert!(read_aligned_bytes(&mut r, 1).is_err());
/// ```
#[inline]
pub fn read_aligned_bytes<'a, R: WireRead<'a>>(
    r: &mut R,
    len: u64,
) -> Result<&'a [u8], DecodeError> {
    r.read_raw_bytes(len)
}

/// [`read_aligned_bytes`] as UTF-8 ([`DecodeErrorKind::BadUtf8`]): a STRING whose length has
/// its own rule.
///
/// ```
/// use idlc_runtime::{read_aligned_str, BitReader};
/// let mut r = BitReader::new(&[b'h', b'i', 0xff]);
/// assert_eq!(read_aligned_str(&mut r, 2).unwrap(), "hi");
/// assert!(read_aligned_str(&mut r, 1).is_err());
/// ```
#[inline]
pub fn read_aligned_str<'a, R: WireRead<'a>>(r: &mut R, len: u64) -> Result<&'a str, DecodeError> {
    let start = r.bits_read();
    let bytes = r.read_raw_bytes(len)?;
    core::str::from_utf8(bytes).map_err(|_| DecodeError::new(DecodeErrorKind::BadUtf8, start))
}

/// `bytes` as UTF-8, or [`DecodeErrorKind::BadUtf8`] at `r`'s position. (Read the bytes into a
/// local first: `r` cannot be borrowed here and by the read in the same call; or use
/// [`read_aligned_str`] / [`WireRead::read_str`].)
///
/// ```
/// use idlc_runtime::{utf8, BitReader};
/// let r = BitReader::new(&[]);
/// assert_eq!(utf8(&r, b"ok"), Ok("ok"));
/// assert!(utf8(&r, &[0xff]).is_err());
/// ```
#[inline]
pub fn utf8<'a, 'b, R: WireRead<'a>>(r: &R, bytes: &'b [u8]) -> Result<&'b str, DecodeError> {
    core::str::from_utf8(bytes).map_err(|_| r.error(DecodeErrorKind::BadUtf8))
}

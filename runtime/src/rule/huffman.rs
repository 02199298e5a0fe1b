//! `HUFFMAN`: an enumerator or small integer as a prefix code from the Encoding file.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::WireInt;
use crate::int::{bits_required, mask};
use crate::wire::{WireRead, WireWrite, as_bad_enumerator};

/// Writes an enumerator with a static prefix code, `codes[index] = (code, len)`: the `len` bits
/// of `code`, most significant first (BITSTREAM). A BYTESTREAM sends the index as
/// [`write_enum`](crate::write_enum) does, in `byte_width(bits_required(0, count - 1))` bytes.
///
/// ```
/// use idlc_runtime::{read_huffman, write_huffman, BitReader, BitWriter, WireWrite};
/// // Bit 0 of a code is sent first: enumerator 1 is the stream bits 1, 0.
/// let codes = [(0b0, 1), (0b01, 2), (0b11, 2)];
/// let mut w = BitWriter::new();
/// for i in [0u8, 2, 1, 0] {
///     write_huffman(&mut w, i, &codes).unwrap();
/// }
/// assert_eq!(w.bits_written(), 6);
/// let bytes = w.into_bytes();
/// let mut r = BitReader::new(&bytes);
/// let got: Vec<u64> = (0..4).map(|_| read_huffman(&mut r, &codes).unwrap()).collect();
/// assert_eq!(got, [0, 2, 1, 0]);
/// ```
pub fn write_huffman<W: WireWrite, T: WireInt>(
    w: &mut W,
    index: T,
    codes: &[(u64, u32)],
) -> Result<(), EncodeError> {
    let count = codes.len() as u64;
    let Ok(i) = u64::try_from(index.to_i128()) else {
        return Err(w.error(EncodeErrorKind::BadEnumerator));
    };
    let Some(&(code, len)) = usize::try_from(i).ok().and_then(|i| codes.get(i)) else {
        return Err(w.error(EncodeErrorKind::BadEnumerator));
    };
    if W::BYTE_STREAM {
        return w.write_bits(i, bits_required(0, count.saturating_sub(1)));
    }
    if len > 64 || code & !mask(len) != 0 {
        return Err(w.error(EncodeErrorKind::InvalidArgument));
    }
    w.write_bits(code, len)
}

/// Reads an enumerator written by [`write_huffman`] with the same table; a bit string that is
/// no code is [`DecodeErrorKind::BadEnumerator`].
///
/// ```
/// use idlc_runtime::{read_huffman, BitReader, DecodeErrorKind};
/// let codes = [(0b0, 1), (0b01, 2)]; // the stream bits 1, 1 are no code
/// let e = read_huffman(&mut BitReader::new(&[0b11]), &codes).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::BadEnumerator);
/// ```
#[inline]
pub fn read_huffman<'a, R: WireRead<'a>>(
    r: &mut R,
    codes: &[(u64, u32)],
) -> Result<u64, DecodeError> {
    let start = r.bits_read();
    let count = codes.len() as u64;
    if R::BYTE_STREAM {
        let index = r
            .read_bits(bits_required(0, count.saturating_sub(1)))
            .map_err(as_bad_enumerator)?;
        if index >= count {
            return Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start));
        }
        return Ok(index);
    }
    let longest = codes.iter().map(|&(_, len)| len).max().unwrap_or(0).min(64);
    if longest <= 56 {
        // A prefix code: at most one code is a prefix of what follows, and one look-ahead holds
        // the longest.
        let ahead = r.peek_bits(longest);
        let left = r.bits_remaining();
        for (i, &(code, len)) in codes.iter().enumerate() {
            if u64::from(len) <= left && ahead & mask(len) == code {
                r.skip_bits(u64::from(len))?;
                return Ok(i as u64);
            }
        }
        let kind = if u64::from(longest) > left {
            DecodeErrorKind::UnexpectedEnd
        } else {
            DecodeErrorKind::BadEnumerator
        };
        return Err(DecodeError::new(kind, start));
    }
    let mut acc = 0u64;
    for len in 0..=longest {
        if len > 0 {
            acc |= u64::from(r.read_bool()?) << (len - 1);
        }
        if let Some(i) = codes.iter().position(|&(c, l)| l == len && c == acc) {
            return Ok(i as u64);
        }
    }
    Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start))
}

//! Enumerators: an index in `bits_required(count)` bits (or `BIT(n)`), checked against the count.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::WireInt;
use crate::wire::{WireRead, WireWrite, as_bad_enumerator};

/// Writes an enumerator index among `count` in `bits` bits (`bits_required(0, count - 1)`, or
/// the width of a `BIT(n)` rule). `index >= count` is [`EncodeErrorKind::BadEnumerator`].
///
/// ```
/// use idlc_runtime::{read_enum, write_enum, BitReader, BitWriter, WireWrite};
/// let mut w = BitWriter::new();
/// write_enum(&mut w, 2u32, 3, 2).unwrap();
/// let bytes = w.into_bytes();
/// assert_eq!(read_enum(&mut BitReader::new(&bytes), 3, 2), Ok(2));
/// ```
#[inline]
pub fn write_enum<W: WireWrite, T: WireInt>(
    w: &mut W,
    index: T,
    count: u64,
    bits: u32,
) -> Result<(), EncodeError> {
    match u64::try_from(index.to_i128()) {
        Ok(i) if i < count => w.write_bits(i, bits),
        _ => Err(w.error(EncodeErrorKind::BadEnumerator)),
    }
}

/// Reads an enumerator index written by [`write_enum`]; `>= count` is
/// [`DecodeErrorKind::BadEnumerator`].
///
/// ```
/// use idlc_runtime::{read_enum, BitReader, DecodeErrorKind};
/// let e = read_enum(&mut BitReader::new(&[3]), 3, 2).unwrap_err();
/// assert_eq!(e.kind, DecodeErrorKind::BadEnumerator);
/// ```
#[inline]
pub fn read_enum<'a, R: WireRead<'a>>(
    r: &mut R,
    count: u64,
    bits: u32,
) -> Result<u64, DecodeError> {
    let start = r.bits_read();
    let index = r.read_bits(bits).map_err(as_bad_enumerator)?;
    if index >= count {
        return Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start));
    }
    Ok(index)
}

/// Turns the result of a generated `from_index` into the enumerator, or
/// [`DecodeErrorKind::BadEnumerator`] at `r`'s position. (Read the index into a local first:
/// `r` cannot be borrowed here and by the read in the same call.)
///
/// ```
/// use idlc_runtime::{enumerator, read_enum, BitReader};
/// let mut r = BitReader::new(&[1]);
/// let index = read_enum(&mut r, 2, 1).unwrap();
/// let mood = enumerator(&r, ["calm", "angry"].get(index as usize).copied()).unwrap();
/// assert_eq!(mood, "angry");
/// assert!(enumerator::<_, u8>(&r, None).is_err());
/// ```
#[inline]
pub fn enumerator<'a, R: WireRead<'a>, E>(r: &R, value: Option<E>) -> Result<E, DecodeError> {
    value.ok_or_else(|| r.error(DecodeErrorKind::BadEnumerator))
}

#[cfg(test)]
mod tests {
    use crate::*;

    #[test]
    fn enums_and_huffman() {
        let mut w = BitWriter::new();
        assert_eq!(
            write_enum(&mut w, 3u8, 3, 2).unwrap_err().kind,
            EncodeErrorKind::BadEnumerator
        );
        assert_eq!(
            write_enum(&mut w, -1i8, 3, 2).unwrap_err().kind,
            EncodeErrorKind::BadEnumerator
        );
        let codes = [(0b0, 1), (0b01, 2), (0b011, 3), (0b111, 3)];
        assert_eq!(
            write_huffman(&mut w, 4u8, &codes).unwrap_err().kind,
            EncodeErrorKind::BadEnumerator
        );
        assert_eq!(
            write_huffman(&mut w, 0u8, &[(2, 1)]).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        for i in 0..4u8 {
            write_huffman(&mut w, i, &codes).unwrap();
        }
        assert_eq!(w.bits_written(), 1 + 2 + 3 + 3);
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        for i in 0..4 {
            assert_eq!(read_huffman(&mut r, &codes), Ok(i));
        }
        // Single-enumerator code of length 0: nothing sent.
        let mut w = BitWriter::new();
        write_huffman(&mut w, 0u8, &[(0, 0)]).unwrap();
        assert_eq!(w.bits_written(), 0);
        assert_eq!(read_huffman(&mut BitReader::new(&[]), &[(0, 0)]), Ok(0));
        // Byte stream: the index.
        let mut w = ByteWriter::new();
        write_huffman(&mut w, 3u8, &codes).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(bytes, [3]);
        assert_eq!(read_huffman(&mut ByteReader::new(&bytes), &codes), Ok(3));
        assert_eq!(
            read_huffman(&mut ByteReader::new(&[4]), &codes)
                .unwrap_err()
                .kind,
            DecodeErrorKind::BadEnumerator
        );
        assert_eq!(
            read_huffman(&mut BitReader::new(&[]), &codes)
                .unwrap_err()
                .kind,
            DecodeErrorKind::UnexpectedEnd
        );
    }
}

//! The two traits generated code is generic over: [`WireWrite`] and [`WireRead`].
//!
//! Each trait has a few *required* primitives that the bit stream and the byte stream implement
//! differently (bits, bools, VLQs, alignment, raw bytes, extensions) and many *provided*
//! methods built on them (ranged integers, fixed point, floats, enums, lengths, strings, CHECK).
//! A custom stream only needs the primitives.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::fixed::FixedPoint;
use crate::int::{bits_required, byte_width, range_span, zigzag_decode, zigzag_encode};
use crate::vlq::DEFAULT_VLQ_GROUP_BITS;

/// The 32-bit value a `CHECK` marker writes and the reader verifies.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, CHECK_VALUE, WireRead, WireWrite};
/// let mut w = BitWriter::new();
/// w.write_check().unwrap();
/// let mut r = BitReader::new(w.finish());
/// assert_eq!(r.read_bits(32).unwrap(), u64::from(CHECK_VALUE));
/// ```
pub const CHECK_VALUE: u32 = 0x1D1C_C0DE;

/// How deeply structs that contain themselves may nest in one message (see
/// [`WireRead::enter`]).
pub const MAX_DECODE_DEPTH: u32 = 128;

/// Writing side of a wire encoding, implemented by [`BitWriter`](crate::BitWriter) (BITSTREAM)
/// and [`ByteWriter`](crate::ByteWriter) (BYTESTREAM).
///
/// Every method returns `Result<_, EncodeError>` so generated code can use `?` uniformly; the
/// error's `bit_offset` is [`WireWrite::bits_written`] before the failed value. Nothing is
/// written by a call that fails, except that [`WireWrite::write_bytes`] may have written the
/// length when the data cannot follow (it never can fail after checking the length).
///
/// ```
/// use idlc_runtime::{BitWriter, ByteWriter, EncodeError, WireWrite};
/// fn encode<W: WireWrite>(w: &mut W, hp: i64, name: &str) -> Result<(), EncodeError> {
///     w.write_int_ranged(hp, -100, 100)?;
///     w.write_str(name, Some(16))
/// }
/// let mut bits = BitWriter::new();
/// encode(&mut bits, 42, "ann").unwrap();
/// let mut bytes = ByteWriter::new();
/// encode(&mut bytes, 42, "ann").unwrap();
/// assert_eq!(bits.finish().len(), 5);   // 8 bits + 5 bits + pad + 3 bytes
/// assert_eq!(bytes.finish().len(), 5);  // 1 byte + 1 byte + 3 bytes
/// ```
pub trait WireWrite: Default {
    /// `true` for a BYTESTREAM, where every field is rounded up to whole bytes.
    const BYTE_STREAM: bool;

    /// Bits a field of `bits` bits takes in this stream: `bits` in a BITSTREAM,
    /// `8 * byte_width(bits)` in a BYTESTREAM.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, ByteWriter, WireWrite};
    /// assert_eq!(BitWriter::width_bits(3), 3);
    /// assert_eq!(ByteWriter::width_bits(3), 8);
    /// assert_eq!(ByteWriter::width_bits(24), 32);
    /// ```
    #[inline]
    fn width_bits(bits: u32) -> u64 {
        if Self::BYTE_STREAM {
            byte_width(bits) as u64 * 8
        } else {
            u64::from(bits)
        }
    }

    /// Bits written so far (a BYTESTREAM counts 8 per byte).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bits(1, 3).unwrap();
    /// assert_eq!(w.bits_written(), 3);
    /// ```
    fn bits_written(&self) -> u64;

    /// Writes the low `bits` bits of `value` (`bits` in 0..=64; 0 writes nothing). A value with
    /// bits set above `bits` is [`EncodeErrorKind::ValueOutOfRange`]; `bits > 64` is
    /// [`EncodeErrorKind::InvalidArgument`]. A BYTESTREAM writes `byte_width(bits)` bytes.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bits(0b101, 3).unwrap();
    /// w.write_bits(u64::MAX, 64).unwrap();
    /// assert!(w.write_bits(8, 3).is_err());
    /// ```
    fn write_bits(&mut self, value: u64, bits: u32) -> Result<(), EncodeError>;

    /// Writes a BOOL: 1 bit (a byte 0 or 1 in a BYTESTREAM).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bool(true).unwrap();
    /// assert_eq!(w.finish(), &[1]);
    /// ```
    fn write_bool(&mut self, value: bool) -> Result<(), EncodeError>;

    /// Writes a run of BOOLs, each as [`WireWrite::write_bool`] writes it (a BITSTREAM packs
    /// them a word at a time).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bools([true, false, true]).unwrap();
    /// assert_eq!(w.finish(), &[0b101]);
    /// ```
    #[inline]
    fn write_bools<I: IntoIterator<Item = bool>>(&mut self, bools: I) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        for value in bools {
            self.write_bool(value)?;
        }
        Ok(())
    }

    /// [`WireWrite::write_bools`] of a slice (a BITSTREAM packs eight at a time).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bool_slice(&[true, false, true, true, false, false, false, false, true]).unwrap();
    /// assert_eq!(w.finish(), &[0b1101, 1]);
    /// ```
    #[inline]
    fn write_bool_slice(&mut self, bools: &[bool]) -> Result<(), EncodeError>
    where
        Self: Sized,
    {
        self.write_bools(bools.iter().copied())
    }

    /// Writes `value` as `VLQ(group_bits)` (`group_bits` in 1..=32; LEB128 in a BYTESTREAM).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_vlq(300, 7).unwrap();
    /// assert_eq!(w.finish(), &[0xAC, 0x02]);
    /// ```
    fn write_vlq(&mut self, value: u64, group_bits: u32) -> Result<(), EncodeError>;

    /// ALIGN: zero bits up to the next byte boundary (nothing in a BYTESTREAM).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bool(true).unwrap();
    /// w.align().unwrap();
    /// assert_eq!(w.bits_written(), 8);
    /// ```
    fn align(&mut self) -> Result<(), EncodeError>;

    /// Aligns, then copies `bytes` in bulk (no length is written).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bool(true).unwrap();
    /// w.write_raw_bytes(b"hi").unwrap();
    /// assert_eq!(w.finish(), &[1, b'h', b'i']);
    /// ```
    fn write_raw_bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError>;

    /// Writes an open extension (a fenced tail of a nested struct): a present bit 1, the
    /// extension's length as `VLQ(7)` (in bits for a BITSTREAM, in bytes for a BYTESTREAM), then
    /// what `f` writes. An old reader skips it by its length. (An absent extension is a single
    /// `write_bool(false)`.)
    ///
    /// ```
    /// use idlc_runtime::{BitReader, BitWriter, WireRead, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_extension(|w| w.write_bits(5, 3)).unwrap();
    /// w.write_bool(true).unwrap();
    /// let bytes = w.into_bytes();
    /// let mut r = BitReader::new(&bytes);
    /// assert_eq!(r.read_extension(|r| r.read_bits(3)).unwrap(), Some(5));
    /// assert!(r.read_bool().unwrap());
    /// ```
    fn write_extension<F>(&mut self, f: F) -> Result<(), EncodeError>
    where
        F: FnOnce(&mut Self) -> Result<(), EncodeError>;

    /// Pads the message with zero bits to a whole byte and returns everything written. Writing
    /// may go on afterwards (from the byte boundary).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bits(0x3, 2).unwrap();
    /// assert_eq!(w.finish(), &[0x03]);
    /// ```
    fn finish(&mut self) -> &[u8];

    /// [`WireWrite::finish`], then hands over the buffer.
    ///
    /// ```
    /// use idlc_runtime::{ByteWriter, WireWrite};
    /// let mut w = ByteWriter::new();
    /// w.write_bool(true).unwrap();
    /// assert_eq!(w.into_bytes(), vec![1]);
    /// ```
    fn into_bytes(self) -> Vec<u8>;

    /// Empties the writer for reuse, keeping its allocation.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::with_capacity(64);
    /// w.write_bits(7, 3).unwrap();
    /// w.clear();
    /// assert_eq!(w.bits_written(), 0);
    /// ```
    fn clear(&mut self);

    /// Forgets everything written after the first `bits` bits (nothing happens when fewer were
    /// written), keeping the allocation: a packet writer takes back a message that did not fit.
    /// In a BYTESTREAM, `bits` is rounded up to a whole byte.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bits(0b101, 3).unwrap();
    /// w.write_bits(0xffff, 16).unwrap();
    /// w.truncate(3);
    /// assert_eq!(w.bits_written(), 3);
    /// assert_eq!(w.finish(), &[0b101]);
    /// ```
    fn truncate(&mut self, bits: u64);

    /// An error of `kind` at the current position.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, EncodeErrorKind, WireWrite};
    /// let w = BitWriter::new();
    /// assert_eq!(w.error(EncodeErrorKind::NotANumber).bit_offset, 0);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn error(&self, kind: EncodeErrorKind) -> EncodeError {
        EncodeError::new(kind, self.bits_written())
    }

    /// Writes an unsigned ranged integer `INT[min,max]` as `value - min` in
    /// `bits_required(min, max)` bits. Out of range is [`EncodeErrorKind::ValueOutOfRange`].
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_uint_ranged(10, 10, 10).unwrap(); // min == max: nothing sent
    /// w.write_uint_ranged(12, 10, 13).unwrap(); // 2 in 2 bits
    /// assert_eq!(w.bits_written(), 2);
    /// ```
    #[inline]
    fn write_uint_ranged(&mut self, value: u64, min: u64, max: u64) -> Result<(), EncodeError> {
        if value < min || value > max {
            return Err(self.error(EncodeErrorKind::ValueOutOfRange));
        }
        self.write_bits(value - min, bits_required(min, max))
    }

    /// Writes a signed ranged integer `INT[min,max]` as `value - min` in
    /// `bits_required_signed(min, max)` bits.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_int_ranged(-1, -10, 10).unwrap();
    /// assert_eq!(w.bits_written(), 5);
    /// assert!(w.write_int_ranged(11, -10, 10).is_err());
    /// ```
    #[inline]
    fn write_int_ranged(&mut self, value: i64, min: i64, max: i64) -> Result<(), EncodeError> {
        if value < min || value > max {
            return Err(self.error(EncodeErrorKind::ValueOutOfRange));
        }
        self.write_bits(
            range_span(min, value),
            bits_required(0, range_span(min, max)),
        )
    }

    /// Writes a signed value as a zigzag-mapped `VLQ(group_bits)`.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_vlq_signed(-1, 7).unwrap();
    /// assert_eq!(w.finish(), &[0x01]);
    /// ```
    #[inline]
    fn write_vlq_signed(&mut self, value: i64, group_bits: u32) -> Result<(), EncodeError> {
        self.write_vlq(zigzag_encode(value), group_bits)
    }

    /// Writes a ranged integer `INT[min,max]` with a `VLQ` rule: `value - min` as an unsigned
    /// `VLQ(group_bits)`.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_vlq_ranged(105, 100, 1000, 7).unwrap();
    /// assert_eq!(w.finish(), &[5]);
    /// ```
    #[inline]
    fn write_vlq_ranged(
        &mut self,
        value: i64,
        min: i64,
        max: i64,
        group_bits: u32,
    ) -> Result<(), EncodeError> {
        if value < min || value > max {
            return Err(self.error(EncodeErrorKind::ValueOutOfRange));
        }
        self.write_vlq(range_span(min, value), group_bits)
    }

    /// Writes a FLOAT32, raw IEEE-754 bits (every bit pattern kept, -0.0 and NaNs included).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_f32(1.0).unwrap();
    /// assert_eq!(w.finish(), &1.0f32.to_le_bytes());
    /// ```
    #[inline]
    fn write_f32(&mut self, value: f32) -> Result<(), EncodeError> {
        self.write_bits(u64::from(value.to_bits()), 32)
    }

    /// Writes a FLOAT64, raw IEEE-754 bits.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_f64(-0.0).unwrap();
    /// assert_eq!(w.finish(), &(-0.0f64).to_le_bytes());
    /// ```
    #[inline]
    fn write_f64(&mut self, value: f64) -> Result<(), EncodeError> {
        self.write_bits(value.to_bits(), 64)
    }

    /// Writes `FIXED_POINT(resolution)` of `NUMERIC[min,max]`: the step index
    /// `round((value - min) / resolution)` in `bits_required(0, steps)` bits. NaN is
    /// [`EncodeErrorKind::NotANumber`], a value outside `[min, max]`
    /// [`EncodeErrorKind::ValueOutOfRange`], unusable parameters
    /// [`EncodeErrorKind::InvalidArgument`].
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_fixed_point(0.5, 0.0, 1.0, 0.25).unwrap(); // step 2 of 4, in 3 bits
    /// assert_eq!(w.bits_written(), 3);
    /// assert!(w.write_fixed_point(f64::NAN, 0.0, 1.0, 0.25).is_err());
    /// ```
    #[inline]
    fn write_fixed_point(
        &mut self,
        value: f64,
        min: f64,
        max: f64,
        resolution: f64,
    ) -> Result<(), EncodeError> {
        match FixedPoint::new(min, max, resolution) {
            Some(fp) => self.write_quantized(&fp, value),
            None => Err(self.error(EncodeErrorKind::InvalidArgument)),
        }
    }

    /// [`WireWrite::write_fixed_point`] with a prepared [`FixedPoint`].
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, FixedPoint, WireWrite};
    /// let fp = FixedPoint::new(0.0, 360.0, 0.1).unwrap();
    /// let mut w = BitWriter::new();
    /// w.write_quantized(&fp, 90.0).unwrap();
    /// assert_eq!(w.bits_written(), 12);
    /// ```
    #[inline]
    fn write_quantized(&mut self, fp: &FixedPoint, value: f64) -> Result<(), EncodeError> {
        match fp.quantize(value) {
            Ok(q) => self.write_bits(q, fp.bits()),
            Err(kind) => Err(self.error(kind)),
        }
    }

    /// Writes an enumerator's index among `count` declared enumerators in
    /// `bits_required(0, count - 1)` bits. `index >= count` is [`EncodeErrorKind::BadEnumerator`].
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_enum_index(2, 3).unwrap();
    /// assert_eq!(w.bits_written(), 2);
    /// assert!(w.write_enum_index(3, 3).is_err());
    /// ```
    #[inline]
    fn write_enum_index(&mut self, index: u64, count: u64) -> Result<(), EncodeError> {
        if index >= count {
            return Err(self.error(EncodeErrorKind::BadEnumerator));
        }
        self.write_bits(index, bits_required(0, count - 1))
    }

    /// Writes the presence bit of an OPTIONAL (or a delta changed-bit, or a fence's present bit).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// let value: Option<u8> = Some(3);
    /// w.write_presence(value.is_some()).unwrap();
    /// if let Some(v) = value { w.write_bits(v.into(), 8).unwrap(); }
    /// assert_eq!(w.bits_written(), 9);
    /// ```
    #[inline]
    fn write_presence(&mut self, present: bool) -> Result<(), EncodeError> {
        self.write_bool(present)
    }

    /// Writes a length or element count: in `bits_required(0, max)` bits when bounded (over the
    /// bound is [`EncodeErrorKind::LengthOverBound`]), else as `VLQ(7)`.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_count(3, Some(10)).unwrap(); // 4 bits
    /// w.write_count(3, None).unwrap();     // 8 bits
    /// assert_eq!(w.bits_written(), 12);
    /// assert!(w.write_count(11, Some(10)).is_err());
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn write_count(&mut self, count: u64, max: Option<u64>) -> Result<(), EncodeError> {
        match max {
            Some(max) if count > max => Err(self.error(EncodeErrorKind::LengthOverBound)),
            Some(max) => self.write_bits(count, bits_required(0, max)),
            None => self.write_vlq(count, DEFAULT_VLQ_GROUP_BITS),
        }
    }

    /// Writes BYTES: the length (see [`WireWrite::write_count`]), ALIGN, then the bytes in bulk.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_bytes(&[9, 8, 7], Some(255)).unwrap();
    /// assert_eq!(w.finish(), &[3, 9, 8, 7]);
    /// ```
    #[inline]
    fn write_bytes(&mut self, bytes: &[u8], max: Option<u64>) -> Result<(), EncodeError> {
        self.write_count(bytes.len() as u64, max)?;
        self.write_raw_bytes(bytes)
    }

    /// Writes a STRING: its UTF-8 bytes as [`WireWrite::write_bytes`] (`max` counts bytes).
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_str("hé", None).unwrap();
    /// assert_eq!(w.finish(), &[3, b'h', 0xC3, 0xA9]);
    /// ```
    #[inline]
    fn write_str(&mut self, value: &str, max: Option<u64>) -> Result<(), EncodeError> {
        self.write_bytes(value.as_bytes(), max)
    }

    /// Writes a CHECK marker: [`CHECK_VALUE`] in 32 bits.
    ///
    /// ```
    /// use idlc_runtime::{ByteWriter, CHECK_VALUE, WireWrite};
    /// let mut w = ByteWriter::new();
    /// w.write_check().unwrap();
    /// assert_eq!(w.finish(), &CHECK_VALUE.to_le_bytes());
    /// ```
    #[inline]
    fn write_check(&mut self) -> Result<(), EncodeError> {
        self.write_bits(u64::from(CHECK_VALUE), 32)
    }
}

/// Reading side of a wire encoding, implemented by [`BitReader`](crate::BitReader) (BITSTREAM)
/// and [`ByteReader`](crate::ByteReader) (BYTESTREAM).
///
/// Every read is bounds-checked and returns `Err(DecodeError)` on malformed input; none panics,
/// loops without consuming input, or allocates. Byte slices and strings are borrowed from the
/// input (`'a`). After an error the reader's position is unspecified: drop it.
///
/// ```
/// use idlc_runtime::{BitReader, BitWriter, DecodeError, WireRead, WireWrite};
/// fn decode<'a, R: WireRead<'a>>(r: &mut R) -> Result<(i64, &'a str), DecodeError> {
///     Ok((r.read_int_ranged(-100, 100)?, r.read_str(Some(16))?))
/// }
/// let mut w = BitWriter::new();
/// w.write_int_ranged(42, -100, 100).unwrap();
/// w.write_str("ann", Some(16)).unwrap();
/// let bytes = w.into_bytes();
/// assert_eq!(decode(&mut BitReader::new(&bytes)).unwrap(), (42, "ann"));
/// ```
pub trait WireRead<'a>: Sized {
    /// `true` for a BYTESTREAM, where every field is rounded up to whole bytes.
    const BYTE_STREAM: bool;

    /// Bits a field of `bits` bits takes in this stream (see [`WireWrite::width_bits`]); use it
    /// to compute the `min_element_bits` of [`WireRead::read_count`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, ByteReader, WireRead};
    /// assert_eq!(BitReader::width_bits(1), 1);
    /// assert_eq!(ByteReader::width_bits(1), 8);
    /// ```
    #[inline]
    fn width_bits(bits: u32) -> u64 {
        if Self::BYTE_STREAM {
            byte_width(bits) as u64 * 8
        } else {
            u64::from(bits)
        }
    }

    /// A reader at the start of `data`.
    ///
    /// ```
    /// use idlc_runtime::{ByteReader, WireRead};
    /// let r = ByteReader::from_bytes(&[1, 2]);
    /// assert_eq!(r.bits_remaining(), 16);
    /// ```
    fn from_bytes(data: &'a [u8]) -> Self;

    /// Bits consumed so far (the bit offset of the next read).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0xff]);
    /// r.read_bits(5).unwrap();
    /// assert_eq!(r.bits_read(), 5);
    /// ```
    fn bits_read(&self) -> u64;

    /// Bits left to read (including any final padding).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0xff]);
    /// r.read_bits(5).unwrap();
    /// assert_eq!(r.bits_remaining(), 3);
    /// ```
    fn bits_remaining(&self) -> u64;

    /// Reads `bits` bits (0..=64) as an unsigned value. Past the end is
    /// [`DecodeErrorKind::UnexpectedEnd`]. A BYTESTREAM reads `byte_width(bits)` bytes and rejects
    /// bits set above `bits` ([`DecodeErrorKind::ValueOutOfRange`]).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b1010_1101]);
    /// assert_eq!(r.read_bits(3).unwrap(), 0b101);
    /// assert_eq!(r.read_bits(0).unwrap(), 0);
    /// assert_eq!(r.read_bits(5).unwrap(), 0b10101);
    /// assert!(r.read_bits(1).is_err());
    /// ```
    fn read_bits(&mut self, bits: u32) -> Result<u64, DecodeError>;

    /// The next `min(bits, 56)` bits of the input without consuming them, in the order
    /// [`WireRead::read_bits`] would return them; bits past the input's end read as 0. A
    /// look-ahead for codes of variable length (HUFFMAN).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b1010_1101]);
    /// assert_eq!(r.peek_bits(3), 0b101);
    /// assert_eq!(r.peek_bits(12), 0b1010_1101);
    /// assert_eq!(r.read_bits(3).unwrap(), 0b101);
    /// ```
    fn peek_bits(&self, bits: u32) -> u64;

    /// Reads a BOOL.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b10]);
    /// assert!(!r.read_bool().unwrap());
    /// assert!(r.read_bool().unwrap());
    /// ```
    fn read_bool(&mut self) -> Result<bool, DecodeError>;

    /// Reads `count` BOOLs (`count <= 64`) into the low bits of a word, the first in bit 0, with
    /// the checks of [`WireRead::read_bool`] (a BITSTREAM reads them at once).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b101]);
    /// assert_eq!(r.read_bool_bits(3).unwrap(), 0b101);
    /// assert!(r.read_bool_bits(65).is_err());
    /// ```
    #[inline]
    fn read_bool_bits(&mut self, count: u32) -> Result<u64, DecodeError> {
        if count > 64 {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        let mut word = 0;
        for i in 0..count {
            word |= u64::from(self.read_bool()?) << i;
        }
        Ok(word)
    }

    /// Reads a `VLQ(group_bits)` of a type `type_bits` wide (1..=64): rejects more groups than
    /// `ceil(type_bits / group_bits)`, a value of `type_bits` or more bits, and a non-minimal
    /// encoding, all as [`DecodeErrorKind::OverlongVlq`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// let mut r = BitReader::new(&[0xff, 0xff, 0x03]);
    /// assert_eq!(r.read_vlq_width(7, 16).unwrap(), 0xffff);
    /// let mut r = BitReader::new(&[0xff, 0xff, 0x07]);
    /// assert_eq!(r.read_vlq_width(7, 16).unwrap_err().kind, DecodeErrorKind::OverlongVlq);
    /// ```
    fn read_vlq_width(&mut self, group_bits: u32, type_bits: u32) -> Result<u64, DecodeError>;

    /// ALIGN: skips to the next byte boundary; the skipped bits must be zero
    /// ([`DecodeErrorKind::BadPadding`]). Nothing in a BYTESTREAM.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// let mut r = BitReader::new(&[0b0000_0001, 7]);
    /// r.read_bool().unwrap();
    /// r.align().unwrap();
    /// assert_eq!(r.read_bits(8).unwrap(), 7);
    /// let mut r = BitReader::new(&[0b0000_0011]);
    /// r.read_bool().unwrap();
    /// assert_eq!(r.align().unwrap_err().kind, DecodeErrorKind::BadPadding);
    /// ```
    fn align(&mut self) -> Result<(), DecodeError>;

    /// Aligns (verifying the padding), then borrows the next `len` bytes.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0, b'h', b'i']);
    /// r.read_bool().unwrap();
    /// assert_eq!(r.read_raw_bytes(2).unwrap(), b"hi");
    /// ```
    fn read_raw_bytes(&mut self, len: u64) -> Result<&'a [u8], DecodeError>;

    /// Skips `bits` bits without looking at them (a BYTESTREAM needs a multiple of 8).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0xf0]);
    /// r.skip_bits(4).unwrap();
    /// assert_eq!(r.read_bits(4).unwrap(), 0xf);
    /// assert!(r.skip_bits(1).is_err());
    /// ```
    fn skip_bits(&mut self, bits: u64) -> Result<(), DecodeError>;

    /// Reads an open extension written by [`WireWrite::write_extension`]: `None` if its present
    /// bit is 0; else `f` runs on a reader limited to the extension's declared length, and the
    /// whole extension is skipped afterwards, whatever `f` read (a newer writer's unknown tail is
    /// ignored). Inside `f`, [`WireRead::read_fence_present`] sees the extension's end as the
    /// message's end.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, BitWriter, WireRead, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_extension(|w| { w.write_bits(1, 4)?; w.write_bits(2, 4) }).unwrap();
    /// w.write_bits(3, 4).unwrap();
    /// let bytes = w.into_bytes();
    /// let mut r = BitReader::new(&bytes);
    /// // An old reader knows only the first 4 bits of the extension.
    /// assert_eq!(r.read_extension(|r| r.read_bits(4)).unwrap(), Some(1));
    /// assert_eq!(r.read_bits(4).unwrap(), 3);
    /// ```
    fn read_extension<T, F>(&mut self, f: F) -> Result<Option<T>, DecodeError>
    where
        F: FnOnce(&mut Self) -> Result<T, DecodeError>;

    /// Reads an open extension's present bit and length, as [`WireRead::read_extension`] does,
    /// and limits this reader to the extension: reaching its end reads as the message's end.
    /// Returns the outer end to give back to [`WireRead::leave_extension`], or `None` when the
    /// extension is absent (a 0 bit, or nothing left to read). Generated decoders of nested
    /// structs with FENCEs use the pair to read the segments they know inside a newer writer's
    /// extensions.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, BitWriter, WireRead, WireWrite};
    /// let mut w = BitWriter::new();
    /// w.write_extension(|w| { w.write_bits(1, 4)?; w.write_bits(2, 4) }).unwrap();
    /// w.write_bits(3, 4).unwrap();
    /// let bytes = w.into_bytes();
    /// let mut r = BitReader::new(&bytes);
    /// let outer = r.enter_extension().unwrap().expect("present");
    /// assert_eq!(r.read_bits(4).unwrap(), 1);
    /// r.leave_extension(outer);
    /// assert_eq!(r.read_bits(4).unwrap(), 3);
    /// ```
    fn enter_extension(&mut self) -> Result<Option<u64>, DecodeError>;

    /// Skips what is left of the extension entered with [`WireRead::enter_extension`] and
    /// restores the outer end it returned.
    fn leave_extension(&mut self, outer_end: u64);

    /// Enters the decoding of a struct that can contain itself (through OPTIONAL or SEQUENCE):
    /// fails with [`DecodeErrorKind::TooDeep`] past [`MAX_DECODE_DEPTH`] levels, so that a
    /// hostile packet cannot exhaust the stack. Generated code pairs it with [`WireRead::leave`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, MAX_DECODE_DEPTH, WireRead};
    /// let mut r = BitReader::new(&[]);
    /// for _ in 0..MAX_DECODE_DEPTH {
    ///     r.enter().unwrap();
    /// }
    /// assert_eq!(r.enter().unwrap_err().kind, DecodeErrorKind::TooDeep);
    /// r.leave();
    /// assert!(r.enter().is_ok());
    /// ```
    #[inline]
    fn enter(&mut self) -> Result<(), DecodeError> {
        if *self.depth_mut() >= MAX_DECODE_DEPTH {
            return Err(self.error(DecodeErrorKind::TooDeep));
        }
        *self.depth_mut() += 1;
        Ok(())
    }

    /// Leaves what [`WireRead::enter`] entered.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[]);
    /// r.enter().unwrap();
    /// r.leave();
    /// ```
    #[inline]
    fn leave(&mut self) {
        let depth = self.depth_mut();
        *depth = depth.saturating_sub(1);
    }

    /// The nesting counter behind [`WireRead::enter`] / [`WireRead::leave`] (an implementation
    /// detail of the readers).
    #[doc(hidden)]
    fn depth_mut(&mut self) -> &mut u32;

    /// Ends a message: verifies that the bits up to the next byte boundary are zero padding
    /// ([`DecodeErrorKind::BadPadding`]) and skips them. Whole bytes after that are allowed (a
    /// newer writer's tail); see [`WireRead::expect_end`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b0000_0001, 0xff]);
    /// r.read_bool().unwrap();
    /// r.finish().unwrap();
    /// assert_eq!(r.bits_remaining(), 8);
    /// ```
    fn finish(&mut self) -> Result<(), DecodeError>;

    /// [`WireRead::finish`], then requires the input to be exhausted
    /// ([`DecodeErrorKind::TrailingBytes`]).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// let mut r = BitReader::new(&[1, 0]);
    /// r.read_bool().unwrap();
    /// assert_eq!(r.expect_end().unwrap_err().kind, DecodeErrorKind::TrailingBytes);
    /// ```
    fn expect_end(&mut self) -> Result<(), DecodeError> {
        self.finish()?;
        if self.bits_remaining() != 0 {
            return Err(self.error(DecodeErrorKind::TrailingBytes));
        }
        Ok(())
    }

    /// An error of `kind` at the current position.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// let r = BitReader::new(&[]);
    /// assert_eq!(r.error(DecodeErrorKind::BadEnumerator).bit_offset, 0);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError::new(kind, self.bits_read())
    }

    /// Reads an unsigned ranged integer `INT[min,max]` (see [`WireWrite::write_uint_ranged`]);
    /// an offset above `max - min` is [`DecodeErrorKind::ValueOutOfRange`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b10]);
    /// assert_eq!(r.read_uint_ranged(10, 13).unwrap(), 12);
    /// assert_eq!(r.read_uint_ranged(7, 7).unwrap(), 7); // reads nothing
    /// ```
    #[inline]
    fn read_uint_ranged(&mut self, min: u64, max: u64) -> Result<u64, DecodeError> {
        if min > max {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        let start = self.bits_read();
        let offset = self.read_bits(bits_required(min, max))?;
        if offset > max - min {
            return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
        }
        Ok(min + offset)
    }

    /// Reads a signed ranged integer `INT[min,max]`.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[9]);
    /// assert_eq!(r.read_int_ranged(-10, 10).unwrap(), -1);
    /// ```
    #[inline]
    fn read_int_ranged(&mut self, min: i64, max: i64) -> Result<i64, DecodeError> {
        if min > max {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        let start = self.bits_read();
        let span = range_span(min, max);
        let offset = self.read_bits(bits_required(0, span))?;
        if offset > span {
            return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
        }
        Ok(min.wrapping_add(offset as i64))
    }

    /// Reads a `VLQ(group_bits)` of a 64-bit unsigned value.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0xAC, 0x02]);
    /// assert_eq!(r.read_vlq(7).unwrap(), 300);
    /// ```
    #[inline]
    fn read_vlq(&mut self, group_bits: u32) -> Result<u64, DecodeError> {
        self.read_vlq_width(group_bits, 64)
    }

    /// Reads a `VLQ(7)` of a 64-bit length or count (a SEQUENCE count, a string's length, an
    /// extension's size, a packet header): the bytes and errors of `read_vlq(7)`, but a reader
    /// may check the short forms first, as such values are mostly small. [`WireRead::read_vlq`]
    /// is tuned for values of any magnitude.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0x05, 0xAC, 0x02]);
    /// assert_eq!(r.read_vlq_length().unwrap(), 5);
    /// assert_eq!(r.read_vlq_length().unwrap(), 300);
    /// ```
    #[inline]
    fn read_vlq_length(&mut self) -> Result<u64, DecodeError> {
        self.read_vlq(DEFAULT_VLQ_GROUP_BITS)
    }

    /// Reads a zigzag `VLQ(group_bits)` of a 64-bit signed value.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0x03]);
    /// assert_eq!(r.read_vlq_signed(7).unwrap(), -2);
    /// ```
    #[inline]
    fn read_vlq_signed(&mut self, group_bits: u32) -> Result<i64, DecodeError> {
        self.read_vlq_width(group_bits, 64).map(zigzag_decode)
    }

    /// Reads a zigzag `VLQ(group_bits)` of a signed type `type_bits` wide: the result always fits
    /// that type (e.g. `i16` for 16).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0xff, 0xff, 0x03]);
    /// assert_eq!(r.read_vlq_signed_width(7, 16).unwrap(), i64::from(i16::MIN));
    /// ```
    #[inline]
    fn read_vlq_signed_width(
        &mut self,
        group_bits: u32,
        type_bits: u32,
    ) -> Result<i64, DecodeError> {
        self.read_vlq_width(group_bits, type_bits)
            .map(zigzag_decode)
    }

    /// Reads a ranged integer `INT[min,max]` sent with a `VLQ` rule (see
    /// [`WireWrite::write_vlq_ranged`]): more groups than `bits_required(min, max)` needs is
    /// [`DecodeErrorKind::OverlongVlq`], an offset above `max - min`
    /// [`DecodeErrorKind::ValueOutOfRange`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[5]);
    /// assert_eq!(r.read_vlq_ranged(100, 1000, 7).unwrap(), 105);
    /// ```
    #[inline]
    fn read_vlq_ranged(&mut self, min: i64, max: i64, group_bits: u32) -> Result<i64, DecodeError> {
        if min > max {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        let start = self.bits_read();
        let span = range_span(min, max);
        let offset = self.read_vlq_width(group_bits, bits_required(0, span).max(1))?;
        if offset > span {
            return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
        }
        Ok(min.wrapping_add(offset as i64))
    }

    /// Reads a FLOAT32 (raw bits).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let bytes = 1.5f32.to_le_bytes();
    /// let mut r = BitReader::new(&bytes);
    /// assert_eq!(r.read_f32().unwrap(), 1.5);
    /// ```
    #[inline]
    fn read_f32(&mut self) -> Result<f32, DecodeError> {
        // 32 bits read always fit u32.
        self.read_bits(32).map(|b| f32::from_bits(b as u32))
    }

    /// Reads a FLOAT64 (raw bits).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let bytes = 2.5f64.to_le_bytes();
    /// let mut r = BitReader::new(&bytes);
    /// assert_eq!(r.read_f64().unwrap(), 2.5);
    /// ```
    #[inline]
    fn read_f64(&mut self) -> Result<f64, DecodeError> {
        self.read_bits(64).map(f64::from_bits)
    }

    /// Reads `FIXED_POINT(resolution)` of `NUMERIC[min,max]`: `min + q * resolution`. A step
    /// above the maximum is [`DecodeErrorKind::ValueOutOfRange`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b010]);
    /// assert_eq!(r.read_fixed_point(0.0, 1.0, 0.25).unwrap(), 0.5);
    /// ```
    #[inline]
    fn read_fixed_point(
        &mut self,
        min: f64,
        max: f64,
        resolution: f64,
    ) -> Result<f64, DecodeError> {
        match FixedPoint::new(min, max, resolution) {
            Some(fp) => self.read_quantized(&fp).map(|q| fp.dequantize(q)),
            None => Err(self.error(DecodeErrorKind::InvalidArgument)),
        }
    }

    /// Reads the step index of a [`FixedPoint`] field (dequantize it with
    /// [`FixedPoint::dequantize`]).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, FixedPoint, WireRead};
    /// let fp = FixedPoint::new(0.0, 1.0, 0.25).unwrap();
    /// let mut r = BitReader::new(&[0b111]);
    /// assert!(r.read_quantized(&fp).is_err()); // 7 > 4 steps
    /// ```
    #[inline]
    fn read_quantized(&mut self, fp: &FixedPoint) -> Result<u64, DecodeError> {
        let start = self.bits_read();
        let q = self.read_uint_ranged(0, fp.steps())?;
        if fp.is_step(q) {
            Ok(q)
        } else {
            Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start))
        }
    }

    /// Reads a [`FixedPoint`] field: its step index, checked, then dequantized. The value lies
    /// inside the field's range, open ends excluded.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, FixedPoint, WireRead};
    /// let heading = FixedPoint::with_ends(0.0, 360.0, 0.5, true, false).unwrap();
    /// assert_eq!(BitReader::new(&[0xCF, 0x02]).read_dequantized(&heading).unwrap(), 359.5);
    /// assert!(BitReader::new(&[0xD0, 0x02]).read_dequantized(&heading).is_err()); // 720: 360.0
    /// ```
    #[inline]
    fn read_dequantized(&mut self, fp: &FixedPoint) -> Result<f64, DecodeError> {
        self.read_quantized(fp).map(|q| fp.dequantize(q))
    }

    /// Reads an enumerator index among `count` enumerators; `>= count` is
    /// [`DecodeErrorKind::BadEnumerator`] (also for `count == 0`).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// let mut r = BitReader::new(&[0b11_10]);
    /// assert_eq!(r.read_enum_index(3).unwrap(), 2);
    /// assert_eq!(r.read_enum_index(3).unwrap_err().kind, DecodeErrorKind::BadEnumerator);
    /// ```
    #[inline]
    fn read_enum_index(&mut self, count: u64) -> Result<u64, DecodeError> {
        if count == 0 {
            return Err(self.error(DecodeErrorKind::BadEnumerator));
        }
        let start = self.bits_read();
        let index = self
            .read_bits(bits_required(0, count - 1))
            .map_err(as_bad_enumerator)?;
        if index >= count {
            return Err(DecodeError::new(DecodeErrorKind::BadEnumerator, start));
        }
        Ok(index)
    }

    /// Reads the presence bit of an OPTIONAL (or a delta changed-bit).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0b1]);
    /// assert!(r.read_presence().unwrap());
    /// ```
    #[inline]
    fn read_presence(&mut self) -> Result<bool, DecodeError> {
        self.read_bool()
    }

    /// Reads the present bit of the next segment after a FENCE: `false` at the end of the
    /// message (or of an extension), so an old writer's message gives the later fields their
    /// DEFAULT.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[]);
    /// assert!(!r.read_fence_present().unwrap());
    /// ```
    #[inline]
    fn read_fence_present(&mut self) -> Result<bool, DecodeError> {
        if self.bits_remaining() == 0 {
            Ok(false)
        } else {
            self.read_bool()
        }
    }

    /// Reads a length or count written by [`WireWrite::write_count`], checking only the bound
    /// ([`DecodeErrorKind::LengthOverBound`]). Prefer [`WireRead::read_count`] before allocating.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[0x0b]);
    /// assert!(r.read_length(Some(10)).is_err());
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_length(&mut self, max: Option<u64>) -> Result<u64, DecodeError> {
        let start = self.bits_read();
        let len = match max {
            Some(max) => {
                let len = self.read_bits(bits_required(0, max))?;
                if len > max {
                    return Err(DecodeError::new(DecodeErrorKind::LengthOverBound, start));
                }
                len
            }
            None => self.read_vlq_length()?,
        };
        Ok(len)
    }

    /// Reads a SEQUENCE count and returns it only after checking it against the bound and against
    /// the bits left: `count * min_element_bits <= bits_remaining`
    /// ([`DecodeErrorKind::LengthOverBound`] otherwise), so that reserving `count` elements is
    /// safe. `min_element_bits` is the least number of bits one element takes *in this stream*
    /// (see [`WireRead::width_bits`]). When it is 0 and there is no bound, 1 is used, so that an
    /// unbounded count never exceeds the bits left.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// // A 5-byte packet claiming 2^34 elements of 8 bits: rejected before any allocation.
    /// let mut r = BitReader::new(&[0x80, 0x80, 0x80, 0x80, 0x40]);
    /// assert_eq!(r.read_count(None, 8).unwrap_err().kind, DecodeErrorKind::LengthOverBound);
    /// let mut r = BitReader::new(&[2, 7, 9]);
    /// assert_eq!(r.read_count(None, 8).unwrap(), 2);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_count(
        &mut self,
        max: Option<u64>,
        min_element_bits: u64,
    ) -> Result<usize, DecodeError> {
        let start = self.bits_read();
        let count = self.read_length(max)?;
        crate::int::fitting_count(count, max, min_element_bits, self.bits_remaining())
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::LengthOverBound, start))
    }

    /// Reads BYTES (length, ALIGN, raw bytes), borrowing them from the input. A length over
    /// `max` is [`DecodeErrorKind::LengthOverBound`], beyond the bytes left
    /// [`DecodeErrorKind::UnexpectedEnd`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// let mut r = BitReader::new(&[3, 9, 8, 7]);
    /// assert_eq!(r.read_bytes(Some(255)).unwrap(), &[9, 8, 7]);
    /// ```
    #[inline]
    fn read_bytes(&mut self, max: Option<u64>) -> Result<&'a [u8], DecodeError> {
        let start = self.bits_read();
        let len = self.read_length(max)?;
        if len > self.bits_remaining() / 8 {
            return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start));
        }
        self.read_raw_bytes(len)
    }

    /// Reads a STRING, borrowing it from the input; invalid UTF-8 is
    /// [`DecodeErrorKind::BadUtf8`].
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
    /// let mut r = BitReader::new(&[2, b'o', b'k']);
    /// assert_eq!(r.read_str(None).unwrap(), "ok");
    /// let mut r = BitReader::new(&[1, 0xff]);
    /// assert_eq!(r.read_str(None).unwrap_err().kind, DecodeErrorKind::BadUtf8);
    /// ```
    #[inline]
    fn read_str(&mut self, max: Option<u64>) -> Result<&'a str, DecodeError> {
        let start = self.bits_read();
        let bytes = self.read_bytes(max)?;
        core::str::from_utf8(bytes).map_err(|_| DecodeError::new(DecodeErrorKind::BadUtf8, start))
    }

    /// Reads and verifies a CHECK marker ([`DecodeErrorKind::CheckMismatch`]).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, CHECK_VALUE, DecodeErrorKind, WireRead};
    /// assert!(BitReader::new(&CHECK_VALUE.to_le_bytes()).read_check().is_ok());
    /// let e = BitReader::new(&[0; 4]).read_check().unwrap_err();
    /// assert_eq!(e.kind, DecodeErrorKind::CheckMismatch);
    /// ```
    #[inline]
    fn read_check(&mut self) -> Result<(), DecodeError> {
        let start = self.bits_read();
        if self.read_bits(32)? != u64::from(CHECK_VALUE) {
            return Err(DecodeError::new(DecodeErrorKind::CheckMismatch, start));
        }
        Ok(())
    }
}

/// A wire style: which writer and reader an encoding uses. Generated encoding marker types can
/// name `<BitStream as Style>::Writer` instead of a concrete type.
///
/// ```
/// use idlc_runtime::{BitStream, ByteStream, Style, WireRead, WireWrite};
/// fn roundtrip<S: Style>(v: u64) -> u64 {
///     let mut w = S::Writer::default();
///     w.write_vlq(v, 7).unwrap();
///     let bytes = w.into_bytes();
///     S::Reader::from_bytes(&bytes).read_vlq(7).unwrap()
/// }
/// assert_eq!(roundtrip::<BitStream>(1234), 1234);
/// assert_eq!(roundtrip::<ByteStream>(1234), 1234);
/// ```
pub trait Style {
    /// The style's name in an Encoding file.
    const NAME: &'static str;
    /// The writer.
    type Writer: WireWrite;
    /// The reader.
    type Reader<'a>: WireRead<'a>;
}

/// The BITSTREAM style: [`BitWriter`](crate::BitWriter) / [`BitReader`](crate::BitReader).
///
/// ```
/// use idlc_runtime::{BitStream, Style};
/// assert_eq!(BitStream::NAME, "BITSTREAM");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BitStream;

/// The BYTESTREAM style: [`ByteWriter`](crate::ByteWriter) / [`ByteReader`](crate::ByteReader).
///
/// ```
/// use idlc_runtime::{ByteStream, Style};
/// assert_eq!(ByteStream::NAME, "BYTESTREAM");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ByteStream;

impl Style for BitStream {
    const NAME: &'static str = "BITSTREAM";
    type Writer = crate::BitWriter;
    type Reader<'a> = crate::BitReader<'a>;
}

impl Style for ByteStream {
    const NAME: &'static str = "BYTESTREAM";
    type Writer = crate::ByteWriter;
    type Reader<'a> = crate::ByteReader<'a>;
}

/// A BYTESTREAM index with bits set above its width is an unknown enumerator too.
#[inline]
pub(crate) fn as_bad_enumerator(mut e: DecodeError) -> DecodeError {
    if e.kind == DecodeErrorKind::ValueOutOfRange {
        e.kind = DecodeErrorKind::BadEnumerator;
    }
    e
}

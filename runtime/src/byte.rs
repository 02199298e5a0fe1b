//! BYTESTREAM: [`ByteWriter`] and [`ByteReader`].
//!
//! Same interface as the bit stream, but every field is rounded up to whole bytes, so reads and
//! writes are plain little-endian loads and stores: an integer of `bits` bits takes the smallest
//! of 1, 2, 4, 8 bytes that holds it, a BOOL a byte (0 or 1), a VLQ is LEB128, ALIGN is a no-op.
//! `docs/WIRE_FORMAT.md` lists the rule of every primitive.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::{byte_width, mask};
use crate::vlq::{DEFAULT_VLQ_GROUP_BITS, check_vlq_args, decode_vlq, valid_vlq_group_bits};
use crate::wire::{WireRead, WireWrite};

/// Writes a BYTESTREAM. As with [`BitWriter`](crate::BitWriter), the methods a game calls on a
/// writer it holds ([`ByteWriter::clear`], [`ByteWriter::finish`], [`ByteWriter::into_bytes`],
/// [`ByteWriter::bits_written`], [`ByteWriter::truncate`]) are inherent; the `write_*`
/// primitives are [`WireWrite`]'s.
///
/// ```
/// use idlc_runtime::{ByteWriter, WireWrite};
/// let mut w = ByteWriter::new();
/// w.write_uint_ranged(300, 0, 1000).unwrap(); // 10 bits: 2 bytes
/// w.write_bool(true).unwrap();                // 1 byte
/// w.write_vlq(300, 7).unwrap();               // LEB128
/// assert_eq!(w.finish(), &[0x2C, 0x01, 0x01, 0xAC, 0x02]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ByteWriter {
    buf: Vec<u8>,
}

impl ByteWriter {
    /// An empty writer.
    ///
    /// ```
    /// use idlc_runtime::{ByteWriter, WireWrite};
    /// assert_eq!(ByteWriter::new().bits_written(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `bytes` bytes.
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// assert!(ByteWriter::with_capacity(64).capacity() >= 64);
    /// ```
    #[must_use]
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            buf: Vec::with_capacity(bytes),
        }
    }

    /// Bytes the buffer can hold without reallocating.
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// assert_eq!(ByteWriter::new().capacity(), 0);
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Bits written so far, 8 per byte ([`WireWrite::bits_written`]).
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// assert_eq!(ByteWriter::new().bits_written(), 0);
    /// ```
    #[inline]
    #[must_use]
    pub fn bits_written(&self) -> u64 {
        self.buf.len() as u64 * 8
    }

    /// Everything written ([`WireWrite::finish`]: a byte stream needs no padding).
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// assert_eq!(ByteWriter::new().finish(), &[] as &[u8]);
    /// ```
    #[inline]
    pub fn finish(&mut self) -> &[u8] {
        &self.buf
    }

    /// Hands over the buffer ([`WireWrite::into_bytes`]).
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// assert_eq!(ByteWriter::new().into_bytes(), Vec::<u8>::new());
    /// ```
    #[inline]
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Empties the writer for reuse, keeping its allocation ([`WireWrite::clear`]).
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// let mut w = ByteWriter::with_capacity(64);
    /// w.clear();
    /// assert_eq!(w.bits_written(), 0);
    /// assert!(w.capacity() >= 64);
    /// ```
    #[inline]
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    /// Forgets everything written after the first `bits` bits, rounded up to a whole byte
    /// ([`WireWrite::truncate`]).
    ///
    /// ```
    /// use idlc_runtime::ByteWriter;
    /// let mut w = ByteWriter::new();
    /// w.truncate(8); // fewer were written: nothing happens
    /// assert_eq!(w.bits_written(), 0);
    /// ```
    pub fn truncate(&mut self, bits: u64) {
        let bytes = usize::try_from(bits.div_ceil(8)).unwrap_or(usize::MAX);
        self.buf.truncate(bytes);
    }

    #[inline]
    fn put_leb128(&mut self, value: u64) {
        let mut rest = value;
        loop {
            let byte = (rest & 0x7f) as u8;
            rest >>= 7;
            if rest == 0 {
                self.buf.push(byte);
                return;
            }
            self.buf.push(byte | 0x80);
        }
    }
}

impl WireWrite for ByteWriter {
    const BYTE_STREAM: bool = true;

    #[inline]
    fn bits_written(&self) -> u64 {
        ByteWriter::bits_written(self)
    }

    #[inline]
    fn write_bits(&mut self, value: u64, bits: u32) -> Result<(), EncodeError> {
        if bits > 64 {
            return Err(self.error(EncodeErrorKind::InvalidArgument));
        }
        if value & !mask(bits) != 0 {
            return Err(self.error(EncodeErrorKind::ValueOutOfRange));
        }
        if let Some(bytes) = value.to_le_bytes().get(..byte_width(bits)) {
            self.buf.extend_from_slice(bytes);
        }
        Ok(())
    }

    #[inline]
    fn write_bool(&mut self, value: bool) -> Result<(), EncodeError> {
        self.buf.push(u8::from(value));
        Ok(())
    }

    #[inline]
    fn write_vlq(&mut self, value: u64, group_bits: u32) -> Result<(), EncodeError> {
        if !valid_vlq_group_bits(group_bits) {
            return Err(self.error(EncodeErrorKind::InvalidArgument));
        }
        self.put_leb128(value);
        Ok(())
    }

    #[inline]
    fn align(&mut self) -> Result<(), EncodeError> {
        Ok(())
    }

    #[inline]
    fn write_raw_bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn write_extension<F>(&mut self, f: F) -> Result<(), EncodeError>
    where
        F: FnOnce(&mut Self) -> Result<(), EncodeError>,
    {
        let mut ext = ByteWriter::new();
        let at = self.bits_written();
        f(&mut ext).map_err(|mut e| {
            e.bit_offset = e.bit_offset.saturating_add(at);
            e
        })?;
        self.buf.push(1);
        self.put_leb128(ext.buf.len() as u64);
        self.buf.extend_from_slice(&ext.buf);
        Ok(())
    }

    #[inline]
    fn finish(&mut self) -> &[u8] {
        ByteWriter::finish(self)
    }

    #[inline]
    fn into_bytes(self) -> Vec<u8> {
        ByteWriter::into_bytes(self)
    }

    #[inline]
    fn clear(&mut self) {
        ByteWriter::clear(self);
    }

    #[inline]
    fn truncate(&mut self, bits: u64) {
        ByteWriter::truncate(self, bits);
    }
}

/// Reads a BYTESTREAM from a byte slice, bounds-checking every read.
///
/// ```
/// use idlc_runtime::{ByteReader, DecodeErrorKind, WireRead};
/// let mut r = ByteReader::new(&[0x2C, 0x01, 0x02]);
/// assert_eq!(r.read_uint_ranged(0, 1000).unwrap(), 300);
/// assert_eq!(r.read_bool().unwrap_err().kind, DecodeErrorKind::ValueOutOfRange); // 2
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    /// Byte position of the next read. Invariant: `pos <= end <= data.len()`.
    pos: usize,
    /// Where this reader's input ends.
    end: usize,
    /// How many nested struct decodes are under way (see [`WireRead::enter`]).
    depth: u32,
}

impl<'a> ByteReader<'a> {
    /// A reader at the first byte of `data`.
    ///
    /// ```
    /// use idlc_runtime::{ByteReader, WireRead};
    /// assert_eq!(ByteReader::new(&[1, 2]).bits_remaining(), 16);
    /// ```
    #[must_use]
    pub const fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            end: data.len(),
            depth: 0,
        }
    }

    /// The bytes this reader reads from.
    ///
    /// ```
    /// use idlc_runtime::ByteReader;
    /// assert_eq!(ByteReader::new(&[4]).data(), &[4]);
    /// ```
    #[must_use]
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Bits consumed so far, 8 per byte ([`WireRead::bits_read`]). Like
    /// [`ByteReader::bits_remaining`], [`ByteReader::finish`] and [`ByteReader::expect_end`],
    /// inherent: no import needed.
    ///
    /// ```
    /// use idlc_runtime::ByteReader;
    /// assert_eq!(ByteReader::new(&[1]).bits_read(), 0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn bits_read(&self) -> u64 {
        self.pos as u64 * 8
    }

    /// Bits left to read, 8 per byte ([`WireRead::bits_remaining`]).
    ///
    /// ```
    /// use idlc_runtime::ByteReader;
    /// assert_eq!(ByteReader::new(&[1, 2]).bits_remaining(), 16);
    /// ```
    #[inline]
    #[must_use]
    pub const fn bits_remaining(&self) -> u64 {
        (self.end - self.pos) as u64 * 8
    }

    /// Ends a message ([`WireRead::finish`]: a byte stream has no padding to check).
    ///
    /// ```
    /// use idlc_runtime::ByteReader;
    /// assert!(ByteReader::new(&[1]).finish().is_ok());
    /// ```
    #[inline]
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        Ok(())
    }

    /// Requires the input to be exhausted ([`WireRead::expect_end`]).
    ///
    /// ```
    /// use idlc_runtime::{ByteReader, DecodeErrorKind};
    /// assert!(ByteReader::new(&[]).expect_end().is_ok());
    /// let e = ByteReader::new(&[0]).expect_end().unwrap_err();
    /// assert_eq!(e.kind, DecodeErrorKind::TrailingBytes);
    /// ```
    #[inline]
    pub fn expect_end(&mut self) -> Result<(), DecodeError> {
        WireRead::expect_end(self)
    }

    /// Inlined on purpose: a `&self` passed to an out-of-line function would force the reader
    /// out of registers on the hot path. `DecodeError::new` is the cold, out-of-line part.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end_error(&self) -> DecodeError {
        DecodeError::new(DecodeErrorKind::UnexpectedEnd, self.pos as u64 * 8)
    }

    /// Borrows the next `n` bytes (within `end`) and advances.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.end - self.pos {
            return Err(self.end_error());
        }
        match self.data.get(self.pos..self.pos + n) {
            Some(bytes) => {
                self.pos += n;
                Ok(bytes)
            }
            None => Err(self.end_error()),
        }
    }

    /// Takes the next `N` bytes as an array.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        if N > self.end - self.pos {
            return Err(self.end_error());
        }
        match self.data.get(self.pos..).and_then(<[u8]>::first_chunk::<N>) {
            Some(bytes) => {
                self.pos += N;
                Ok(*bytes)
            }
            None => Err(self.end_error()),
        }
    }

    /// Takes one byte.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn byte(&mut self) -> Result<u8, DecodeError> {
        if self.pos >= self.end {
            return Err(self.end_error());
        }
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.end_error()),
        }
    }
}

impl<'a> WireRead<'a> for ByteReader<'a> {
    const BYTE_STREAM: bool = true;

    #[inline]
    fn from_bytes(data: &'a [u8]) -> Self {
        Self::new(data)
    }

    #[inline]
    fn bits_read(&self) -> u64 {
        ByteReader::bits_read(self)
    }

    #[inline]
    fn bits_remaining(&self) -> u64 {
        ByteReader::bits_remaining(self)
    }

    #[inline]
    fn read_bits(&mut self, bits: u32) -> Result<u64, DecodeError> {
        if bits > 64 {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        let start = self.bits_read();
        let value = match byte_width(bits) {
            0 => 0,
            1 => self.byte()?.into(),
            2 => u16::from_le_bytes(self.array::<2>()?).into(),
            4 => u32::from_le_bytes(self.array::<4>()?).into(),
            _ => u64::from_le_bytes(self.array::<8>()?),
        };
        if value & !mask(bits) != 0 {
            return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, start));
        }
        Ok(value)
    }

    #[inline]
    fn peek_bits(&self, bits: u32) -> u64 {
        let mut word = [0u8; 8];
        let rest = self.data.get(self.pos..self.end).unwrap_or_default();
        let n = rest.len().min(8);
        if let (Some(dst), Some(src)) = (word.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        u64::from_le_bytes(word) & mask(bits.min(56))
    }

    #[inline]
    fn read_bool(&mut self) -> Result<bool, DecodeError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(DecodeError::new(
                DecodeErrorKind::ValueOutOfRange,
                self.bits_read() - 8,
            )),
        }
    }

    #[inline]
    fn read_vlq_width(&mut self, group_bits: u32, type_bits: u32) -> Result<u64, DecodeError> {
        let start = self.bits_read();
        check_vlq_args(group_bits, type_bits, start)?;
        decode_vlq(DEFAULT_VLQ_GROUP_BITS, type_bits, start, || {
            let b = self
                .byte()
                .map_err(|_| DecodeError::new(DecodeErrorKind::UnexpectedEnd, start))?;
            Ok((u64::from(b & 0x7f), b & 0x80 != 0))
        })
    }

    #[inline]
    fn align(&mut self) -> Result<(), DecodeError> {
        Ok(())
    }

    #[inline]
    fn read_raw_bytes(&mut self, len: u64) -> Result<&'a [u8], DecodeError> {
        match usize::try_from(len) {
            Ok(n) => self.take(n),
            Err(_) => Err(self.end_error()),
        }
    }

    #[inline]
    fn skip_bits(&mut self, bits: u64) -> Result<(), DecodeError> {
        if bits % 8 != 0 {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        self.read_raw_bytes(bits / 8).map(|_| ())
    }

    #[inline]
    fn enter_extension(&mut self) -> Result<Option<u64>, DecodeError> {
        if !self.read_fence_present()? {
            return Ok(None);
        }
        let start = self.bits_read();
        let len = self.read_vlq_length()?;
        let len = match usize::try_from(len) {
            Ok(len) if len <= self.end - self.pos => len,
            _ => return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start)),
        };
        let outer = self.end as u64;
        self.end = self.pos + len;
        Ok(Some(outer))
    }

    #[inline]
    fn leave_extension(&mut self, outer_end: u64) {
        self.pos = self.end;
        let outer = usize::try_from(outer_end).unwrap_or(self.data.len());
        self.end = outer.clamp(self.end, self.data.len());
    }

    fn read_extension<T, F>(&mut self, f: F) -> Result<Option<T>, DecodeError>
    where
        F: FnOnce(&mut Self) -> Result<T, DecodeError>,
    {
        if !self.read_bool()? {
            return Ok(None);
        }
        let start = self.bits_read();
        let len = self.read_vlq_length()?;
        let len = match usize::try_from(len) {
            Ok(len) if len <= self.end - self.pos => len,
            _ => return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start)),
        };
        let mut inner = ByteReader {
            data: self.data,
            pos: self.pos,
            end: self.pos + len,
            depth: self.depth,
        };
        let value = f(&mut inner)?;
        self.pos += len;
        Ok(Some(value))
    }

    #[inline]
    fn depth_mut(&mut self) -> &mut u32 {
        &mut self.depth
    }

    #[inline]
    fn finish(&mut self) -> Result<(), DecodeError> {
        ByteReader::finish(self)
    }
}

impl crate::error::StreamPosition for ByteWriter {
    #[inline]
    fn bit_position(&self) -> u64 {
        self.bits_written()
    }
}

impl crate::error::StreamPosition for ByteReader<'_> {
    #[inline]
    fn bit_position(&self) -> u64 {
        self.bits_read()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths() {
        let mut w = ByteWriter::new();
        for bits in 0..=64u32 {
            w.write_bits(mask(bits), bits).unwrap();
        }
        let expected: usize = (0..=64).map(byte_width).sum();
        assert_eq!(w.finish().len(), expected);
        let bytes = w.into_bytes();
        let mut r = ByteReader::new(&bytes);
        for bits in 0..=64u32 {
            assert_eq!(r.read_bits(bits).unwrap(), mask(bits));
        }
        r.expect_end().unwrap();
    }

    #[test]
    fn bits_above_width_rejected() {
        let mut r = ByteReader::new(&[0x08]);
        assert_eq!(
            r.read_bits(3).unwrap_err(),
            DecodeError::new(DecodeErrorKind::ValueOutOfRange, 0)
        );
        let mut r = ByteReader::new(&[0xff, 0xff, 0xff, 0x01]);
        assert_eq!(
            r.read_bits(24).unwrap_err().kind,
            DecodeErrorKind::ValueOutOfRange
        );
        let mut r = ByteReader::new(&[0xff, 0xff, 0xff, 0x00]);
        assert_eq!(r.read_bits(24).unwrap(), 0xff_ffff);
        let mut r = ByteReader::new(&[0xff, 0xff, 0xff]);
        assert_eq!(
            r.read_bits(24).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        assert_eq!(
            r.read_bits(65).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
        assert_eq!(r.read_bits(0).unwrap(), 0);
    }

    #[test]
    fn write_checks() {
        let mut w = ByteWriter::new();
        assert_eq!(
            w.write_bits(0, 65).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        assert_eq!(
            w.write_bits(2, 1).unwrap_err().kind,
            EncodeErrorKind::ValueOutOfRange
        );
        assert_eq!(
            w.write_vlq(2, 0).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        assert_eq!(w.bits_written(), 0);
    }

    #[test]
    fn bools() {
        let mut r = ByteReader::new(&[0, 1, 2]);
        assert!(!r.read_bool().unwrap());
        assert!(r.read_bool().unwrap());
        assert_eq!(
            r.read_bool().unwrap_err(),
            DecodeError::new(DecodeErrorKind::ValueOutOfRange, 16)
        );
        assert_eq!(
            r.read_bool().unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
    }

    #[test]
    fn leb128() {
        for n in [1, 7, 8, 32] {
            let mut w = ByteWriter::new();
            for v in [0, 1, 127, 128, 624_485, u64::MAX] {
                w.write_vlq(v, n).unwrap();
                w.write_vlq_signed(-(v as i64), n).unwrap();
            }
            let bytes = w.into_bytes();
            let mut r = ByteReader::new(&bytes);
            for v in [0, 1, 127, 128, 624_485, u64::MAX] {
                assert_eq!(r.read_vlq(n).unwrap(), v);
                assert_eq!(r.read_vlq_signed(n).unwrap(), -(v as i64));
            }
        }
        let mut w = ByteWriter::new();
        w.write_vlq(624_485, 7).unwrap();
        assert_eq!(w.finish(), &[0xE5, 0x8E, 0x26]);
        assert_eq!(
            ByteReader::new(&[0x80]).read_vlq(7).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        assert_eq!(
            ByteReader::new(&[0x80, 0]).read_vlq(7).unwrap_err().kind,
            DecodeErrorKind::OverlongVlq
        );
        assert_eq!(
            ByteReader::new(&[0xff; 11]).read_vlq(7).unwrap_err().kind,
            DecodeErrorKind::OverlongVlq
        );
        assert_eq!(
            ByteReader::new(&[0x80, 0x80, 0x04])
                .read_vlq_width(7, 16)
                .unwrap_err()
                .kind,
            DecodeErrorKind::OverlongVlq
        );
        assert_eq!(
            ByteReader::new(&[0]).read_vlq(33).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
    }

    #[test]
    fn raw_and_skip() {
        let mut r = ByteReader::new(&[1, 2, 3, 4]);
        assert_eq!(r.read_raw_bytes(2).unwrap(), &[1, 2]);
        assert_eq!(
            r.skip_bits(4).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
        assert_eq!(
            r.read_raw_bytes(3).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        assert_eq!(
            r.read_raw_bytes(u64::MAX).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        r.skip_bits(8).unwrap();
        assert_eq!(
            r.expect_end().unwrap_err().kind,
            DecodeErrorKind::TrailingBytes
        );
        r.skip_bits(8).unwrap();
        r.expect_end().unwrap();
        assert!(r.skip_bits(8).is_err());
    }

    #[test]
    fn extensions() {
        let mut w = ByteWriter::new();
        w.write_extension(|w| {
            w.write_bits(7, 3)?;
            w.write_str("new", None)
        })
        .unwrap();
        w.write_bool(true).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(bytes, [1, 5, 7, 3, b'n', b'e', b'w', 1]);
        let mut r = ByteReader::new(&bytes);
        assert_eq!(r.read_extension(|r| r.read_bits(3)).unwrap(), Some(7));
        assert!(r.read_bool().unwrap());
        let mut r = ByteReader::new(&bytes);
        let ext = r
            .read_extension(|r| Ok((r.read_bits(3)?, r.read_str(None)?, r.read_fence_present()?)))
            .unwrap();
        assert_eq!(ext, Some((7, "new", false)));
        let mut r = ByteReader::new(&[1, 9, 0]);
        assert_eq!(
            r.read_extension(|_| Ok(())).unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 8)
        );
        let mut r = ByteReader::new(&[0]);
        assert_eq!(r.read_extension(|_| Ok(())).unwrap(), None);
    }
}

//! BITSTREAM: [`BitWriter`] and [`BitReader`].
//!
//! Bits are packed LSB-first into little-endian bytes: the first bit written is bit 0 of byte 0.
//! The writer collects bits in a 64-bit scratch word and appends it to its buffer 8 bytes at a
//! time; the reader loads 8 bytes at a time (`u64::from_le_bytes`) wherever 8 bytes are left and
//! extracts any field of up to 56 bits with one shift and one mask. No per-bit loops.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::mask;
use crate::vlq::{DEFAULT_VLQ_GROUP_BITS, check_vlq_args, decode_vlq, valid_vlq_group_bits};
use crate::wire::{WireRead, WireWrite};

/// Writes a BITSTREAM. Reuse one writer across messages with [`WireWrite::clear`]: it keeps its
/// allocation.
///
/// ```
/// use idlc_runtime::{BitWriter, WireWrite};
/// let mut w = BitWriter::with_capacity(1200);
/// for tick in 0..3u64 {
///     w.clear();
///     w.write_bits(tick, 2).unwrap();
///     w.write_bool(true).unwrap();
///     let packet: &[u8] = w.finish();
///     assert_eq!(packet, &[(tick | 4) as u8]);
/// }
/// assert!(w.capacity() >= 1200);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BitWriter {
    /// Whole bytes written so far.
    buf: Vec<u8>,
    /// Pending bits, LSB-first; only the low `used` bits may be set.
    scratch: u64,
    /// Number of pending bits, always below 64.
    used: u32,
}

impl BitWriter {
    /// An empty writer.
    ///
    /// ```
    /// use idlc_runtime::{BitWriter, WireWrite};
    /// assert_eq!(BitWriter::new().bits_written(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `bytes` bytes.
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// assert!(BitWriter::with_capacity(100).capacity() >= 100);
    /// ```
    #[must_use]
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            buf: Vec::with_capacity(bytes),
            scratch: 0,
            used: 0,
        }
    }

    /// Bytes the buffer can hold without reallocating.
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// assert_eq!(BitWriter::new().capacity(), 0);
    /// ```
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Appends `bits` bits of `value`. Preconditions (checked by callers): `bits <= 64` and no
    /// bit of `value` at or above `bits` is set.
    #[inline(always)]
    fn put(&mut self, value: u64, bits: u32) {
        // used < 64, so the shift is in range.
        self.scratch |= value << self.used;
        let total = self.used + bits;
        if total >= 64 {
            self.buf.extend_from_slice(&self.scratch.to_le_bytes());
            // The bits of `value` that did not fit; none when used == 0 (shift by 64).
            self.scratch = value.checked_shr(64 - self.used).unwrap_or(0);
            self.used = total - 64;
        } else {
            self.used = total;
        }
    }

    /// Moves the whole bytes of the scratch word into the buffer.
    #[inline]
    fn flush_bytes(&mut self) {
        let n = (self.used / 8) as usize;
        if let Some(bytes) = self.scratch.to_le_bytes().get(..n) {
            self.buf.extend_from_slice(bytes);
        }
        // n <= 7, so the shift is below 64.
        self.scratch = self.scratch.checked_shr(n as u32 * 8).unwrap_or(0);
        self.used -= n as u32 * 8;
    }

    /// Pads with zero bits to a byte boundary and moves all pending bits to the buffer.
    #[inline]
    fn pad_and_flush(&mut self) {
        self.used = self.used.next_multiple_of(8);
        if self.used == 64 {
            self.buf.extend_from_slice(&self.scratch.to_le_bytes());
            self.scratch = 0;
            self.used = 0;
        } else {
            self.flush_bytes();
        }
    }

    /// Appends every bit written to `other` (not padded).
    fn append(&mut self, other: &BitWriter) {
        if self.used % 8 == 0 {
            self.flush_bytes();
            self.buf.extend_from_slice(&other.buf);
        } else {
            let mut chunks = other.buf.chunks_exact(8);
            for chunk in chunks.by_ref() {
                if let Ok(word) = <[u8; 8]>::try_from(chunk) {
                    self.put(u64::from_le_bytes(word), 64);
                }
            }
            for &byte in chunks.remainder() {
                self.put(u64::from(byte), 8);
            }
        }
        self.put(other.scratch, other.used);
    }
}

impl WireWrite for BitWriter {
    const BYTE_STREAM: bool = false;

    #[inline]
    fn bits_written(&self) -> u64 {
        self.buf.len() as u64 * 8 + u64::from(self.used)
    }

    #[inline]
    fn write_bits(&mut self, value: u64, bits: u32) -> Result<(), EncodeError> {
        if bits > 64 {
            return Err(self.error(EncodeErrorKind::InvalidArgument));
        }
        if value & !mask(bits) != 0 {
            return Err(self.error(EncodeErrorKind::ValueOutOfRange));
        }
        self.put(value, bits);
        Ok(())
    }

    #[inline]
    fn write_bool(&mut self, value: bool) -> Result<(), EncodeError> {
        self.put(u64::from(value), 1);
        Ok(())
    }

    #[inline]
    fn write_vlq(&mut self, value: u64, group_bits: u32) -> Result<(), EncodeError> {
        if !valid_vlq_group_bits(group_bits) {
            return Err(self.error(EncodeErrorKind::InvalidArgument));
        }
        let n = group_bits;
        let group_mask = mask(n);
        // Groups are gathered in `acc` and written up to 64 bits at a time.
        let mut acc = 0u64;
        let mut acc_bits = 0u32;
        let mut rest = value;
        loop {
            let payload = rest & group_mask;
            rest >>= n;
            let more = u64::from(rest != 0);
            if acc_bits + n + 1 > 64 {
                self.put(acc, acc_bits);
                acc = 0;
                acc_bits = 0;
            }
            acc |= (payload | more << n) << acc_bits;
            acc_bits += n + 1;
            if rest == 0 {
                break;
            }
        }
        self.put(acc, acc_bits);
        Ok(())
    }

    #[inline]
    fn align(&mut self) -> Result<(), EncodeError> {
        self.used = self.used.next_multiple_of(8);
        if self.used == 64 {
            self.buf.extend_from_slice(&self.scratch.to_le_bytes());
            self.scratch = 0;
            self.used = 0;
        }
        Ok(())
    }

    #[inline]
    fn write_raw_bytes(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        self.pad_and_flush();
        self.buf.extend_from_slice(bytes);
        Ok(())
    }

    fn write_extension<F>(&mut self, f: F) -> Result<(), EncodeError>
    where
        F: FnOnce(&mut Self) -> Result<(), EncodeError>,
    {
        let mut ext = BitWriter::new();
        let at = self.bits_written();
        f(&mut ext).map_err(|mut e| {
            e.bit_offset = e.bit_offset.saturating_add(at);
            e
        })?;
        self.write_bool(true)?;
        self.write_vlq(ext.bits_written(), DEFAULT_VLQ_GROUP_BITS)?;
        self.append(&ext);
        Ok(())
    }

    fn finish(&mut self) -> &[u8] {
        self.pad_and_flush();
        &self.buf
    }

    fn into_bytes(mut self) -> Vec<u8> {
        self.pad_and_flush();
        self.buf
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.scratch = 0;
        self.used = 0;
    }
}

/// Reads a BITSTREAM from a byte slice, bounds-checking every read.
///
/// `Copy`: a copy is a saved position (cheap look-ahead or retry).
///
/// ```
/// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[0b1011_0101, 0x01]);
/// assert_eq!(r.read_bits(4).unwrap(), 0b0101);
/// assert_eq!(r.read_bits(5).unwrap(), 0b1_1011);
/// assert_eq!(r.bits_remaining(), 7);
/// assert_eq!(r.read_bits(8).unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Bit position of the next read. Invariant: `pos <= end`.
    pos: u64,
    /// Bit position where this reader's input ends (`data.len() * 8`, or the end of an
    /// extension).
    end: u64,
}

impl<'a> BitReader<'a> {
    /// A reader at the first bit of `data`.
    ///
    /// ```
    /// use idlc_runtime::{BitReader, WireRead};
    /// assert_eq!(BitReader::new(&[1, 2, 3]).bits_remaining(), 24);
    /// ```
    #[must_use]
    pub const fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            end: data.len() as u64 * 8,
        }
    }

    /// The bytes this reader reads from.
    ///
    /// ```
    /// use idlc_runtime::BitReader;
    /// assert_eq!(BitReader::new(&[4]).data(), &[4]);
    /// ```
    #[must_use]
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The 64 bits starting at `pos` (bit 0 = the bit at `pos`); at least 57 of them are input
    /// bits, and bits beyond the slice are 0.
    #[inline(always)]
    fn peek(&self) -> u64 {
        let byte = (self.pos >> 3) as usize;
        let shift = (self.pos & 7) as u32;
        let word = match self.data.get(byte..).and_then(<[u8]>::first_chunk::<8>) {
            Some(word) => u64::from_le_bytes(*word),
            None => self.tail_word(byte),
        };
        word >> shift
    }

    /// The last (fewer than 8) bytes from `byte` on, zero-extended.
    #[cold]
    #[inline(never)]
    fn tail_word(&self, byte: usize) -> u64 {
        let mut word = [0u8; 8];
        if let Some(rest) = self.data.get(byte..) {
            for (dst, src) in word.iter_mut().zip(rest) {
                *dst = *src;
            }
        }
        u64::from_le_bytes(word)
    }

    /// Takes `bits` bits. Preconditions: `bits <= 64` and `bits <= end - pos`.
    #[inline(always)]
    fn take(&mut self, bits: u32) -> u64 {
        if bits <= 56 {
            let value = self.peek() & mask(bits);
            self.pos += u64::from(bits);
            value
        } else {
            let low = self.peek() & mask(32);
            self.pos += 32;
            let high = self.peek() & mask(bits - 32);
            self.pos += u64::from(bits - 32);
            low | high << 32
        }
    }

    #[inline(always)]
    fn remaining(&self) -> u64 {
        self.end - self.pos
    }

    #[cold]
    #[inline(never)]
    fn end_error(&self) -> DecodeError {
        DecodeError::new(DecodeErrorKind::UnexpectedEnd, self.pos)
    }

    /// Skips padding up to the next byte boundary (at most `remaining` bits), checking it is 0.
    #[inline]
    fn skip_padding(&mut self, limit_to_end: bool) -> Result<(), DecodeError> {
        let mut pad = ((8 - (self.pos & 7)) & 7) as u32;
        if u64::from(pad) > self.remaining() {
            if limit_to_end {
                pad = self.remaining() as u32;
            } else {
                return Err(self.end_error());
            }
        }
        let at = self.pos;
        if self.take(pad) != 0 {
            return Err(DecodeError::new(DecodeErrorKind::BadPadding, at));
        }
        Ok(())
    }
}

impl<'a> WireRead<'a> for BitReader<'a> {
    const BYTE_STREAM: bool = false;

    #[inline]
    fn from_bytes(data: &'a [u8]) -> Self {
        Self::new(data)
    }

    #[inline]
    fn bits_read(&self) -> u64 {
        self.pos
    }

    #[inline]
    fn bits_remaining(&self) -> u64 {
        self.remaining()
    }

    #[inline]
    fn read_bits(&mut self, bits: u32) -> Result<u64, DecodeError> {
        if bits > 64 {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        if u64::from(bits) > self.remaining() {
            return Err(self.end_error());
        }
        Ok(self.take(bits))
    }

    #[inline]
    fn read_bool(&mut self) -> Result<bool, DecodeError> {
        if self.pos >= self.end {
            return Err(self.end_error());
        }
        match self.data.get((self.pos >> 3) as usize) {
            Some(byte) => {
                let bit = (byte >> (self.pos & 7)) & 1;
                self.pos += 1;
                Ok(bit != 0)
            }
            None => Err(self.end_error()),
        }
    }

    #[inline]
    fn read_vlq_width(&mut self, group_bits: u32, type_bits: u32) -> Result<u64, DecodeError> {
        let start = self.pos;
        check_vlq_args(group_bits, type_bits, start)?;
        let n = group_bits;
        let group_len = n + 1;
        // Groups are cut from one 64-bit load while it has enough bits (at least 57 of them).
        let mut word = self.peek();
        let mut avail = 57u32;
        decode_vlq(n, type_bits, start, || {
            if u64::from(group_len) > self.remaining() {
                return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start));
            }
            if avail < group_len {
                word = self.peek();
                avail = 57;
            }
            let group = word & mask(group_len);
            word >>= group_len;
            avail -= group_len;
            self.pos += u64::from(group_len);
            Ok((group & mask(n), group >> n != 0))
        })
    }

    #[inline]
    fn align(&mut self) -> Result<(), DecodeError> {
        self.skip_padding(false)
    }

    #[inline]
    fn read_raw_bytes(&mut self, len: u64) -> Result<&'a [u8], DecodeError> {
        self.skip_padding(false)?;
        if len > self.remaining() / 8 {
            return Err(self.end_error());
        }
        let start = (self.pos >> 3) as usize;
        let bytes = usize::try_from(len)
            .ok()
            .and_then(|n| self.data.get(start..start.checked_add(n)?))
            .ok_or_else(|| self.end_error())?;
        self.pos += len * 8;
        Ok(bytes)
    }

    #[inline]
    fn skip_bits(&mut self, bits: u64) -> Result<(), DecodeError> {
        if bits > self.remaining() {
            return Err(self.end_error());
        }
        self.pos += bits;
        Ok(())
    }

    fn read_extension<T, F>(&mut self, f: F) -> Result<Option<T>, DecodeError>
    where
        F: FnOnce(&mut Self) -> Result<T, DecodeError>,
    {
        if !self.read_bool()? {
            return Ok(None);
        }
        let start = self.pos;
        let len = self.read_vlq(DEFAULT_VLQ_GROUP_BITS)?;
        if len > self.remaining() {
            return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start));
        }
        let mut inner = BitReader {
            data: self.data,
            pos: self.pos,
            end: self.pos + len,
        };
        let value = f(&mut inner)?;
        self.pos += len;
        Ok(Some(value))
    }

    #[inline]
    fn finish(&mut self) -> Result<(), DecodeError> {
        self.skip_padding(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-at-a-time reference writer.
    fn reference(fields: &[(u64, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut pos = 0usize;
        for &(v, n) in fields {
            for i in 0..n {
                if pos % 8 == 0 {
                    out.push(0);
                }
                if v >> i & 1 == 1 {
                    *out.last_mut().unwrap() |= 1 << (pos % 8);
                }
                pos += 1;
            }
        }
        out
    }

    #[test]
    fn every_width_at_every_offset() {
        for offset in 0..64u32 {
            for bits in 0..=64u32 {
                let value = 0xA5C3_96F0_0F69_3C5Au64 & mask(bits);
                let fields = [(mask(offset) & 0x5555_5555_5555_5555, offset), (value, bits), (1, 1)];
                let mut w = BitWriter::new();
                for &(v, n) in &fields {
                    w.write_bits(v, n).unwrap();
                }
                assert_eq!(w.bits_written(), u64::from(offset + bits + 1));
                let bytes = w.into_bytes();
                assert_eq!(bytes, reference(&fields), "offset {offset} bits {bits}");
                let mut r = BitReader::new(&bytes);
                for &(v, n) in &fields {
                    assert_eq!(r.read_bits(n).unwrap(), v);
                }
                r.expect_end().unwrap();
            }
        }
    }

    #[test]
    fn write_bits_checks() {
        let mut w = BitWriter::new();
        assert_eq!(
            w.write_bits(0, 65).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        assert_eq!(
            w.write_bits(1, 0).unwrap_err().kind,
            EncodeErrorKind::ValueOutOfRange
        );
        w.write_bits(0, 0).unwrap();
        w.write_bits(u64::MAX, 64).unwrap();
        assert_eq!(
            w.write_bits(4, 2).unwrap_err(),
            EncodeError::new(EncodeErrorKind::ValueOutOfRange, 64)
        );
        assert_eq!(w.finish(), &[0xff; 8]);
    }

    #[test]
    fn read_bits_checks() {
        let mut r = BitReader::new(&[0xff; 9]);
        assert_eq!(
            r.read_bits(65).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
        assert_eq!(r.read_bits(0).unwrap(), 0);
        r.read_bits(7).unwrap();
        assert_eq!(r.read_bits(64).unwrap(), u64::MAX);
        assert_eq!(r.read_bits(2).unwrap_err(), DecodeError::new(DecodeErrorKind::UnexpectedEnd, 71));
        assert_eq!(r.read_bits(1).unwrap(), 1);
        assert!(r.read_bool().is_err());
        assert_eq!(r.read_bits(0).unwrap(), 0);
        let mut empty = BitReader::new(&[]);
        assert_eq!(empty.read_bits(0).unwrap(), 0);
        assert_eq!(empty.read_bits(1).unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
        assert_eq!(empty.read_bits(64).unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
    }

    #[test]
    fn finish_pads_and_writing_continues() {
        let mut w = BitWriter::new();
        w.write_bits(1, 1).unwrap();
        assert_eq!(w.finish(), &[1]);
        assert_eq!(w.finish(), &[1]);
        w.write_bits(0xff, 8).unwrap();
        assert_eq!(w.bits_written(), 16);
        assert_eq!(w.finish(), &[1, 0xff]);
    }

    #[test]
    fn align_at_every_offset() {
        for offset in 0..70u32 {
            let mut w = BitWriter::new();
            for _ in 0..offset {
                w.write_bool(true).unwrap();
            }
            w.align().unwrap();
            assert_eq!(w.bits_written() % 8, 0);
            assert_eq!(w.bits_written(), u64::from(offset.next_multiple_of(8)));
            w.write_raw_bytes(&[0xAB, 0xCD]).unwrap();
            let bytes = w.into_bytes();
            let mut r = BitReader::new(&bytes);
            for _ in 0..offset {
                assert!(r.read_bool().unwrap());
            }
            assert_eq!(r.read_raw_bytes(2).unwrap(), &[0xAB, 0xCD]);
            r.expect_end().unwrap();
        }
    }

    #[test]
    fn padding_is_verified() {
        let mut r = BitReader::new(&[0b0000_0101]);
        r.read_bool().unwrap();
        assert_eq!(r.finish().unwrap_err(), DecodeError::new(DecodeErrorKind::BadPadding, 1));
        let mut r = BitReader::new(&[0b1000_0001]);
        r.read_bool().unwrap();
        assert_eq!(r.align().unwrap_err().kind, DecodeErrorKind::BadPadding);
        let mut r = BitReader::new(&[0b1000_0001]);
        r.read_bool().unwrap();
        assert_eq!(r.read_raw_bytes(0).unwrap_err().kind, DecodeErrorKind::BadPadding);
        let mut r = BitReader::new(&[1, 2]);
        r.read_bool().unwrap();
        r.finish().unwrap();
        assert_eq!(r.bits_read(), 8);
        assert_eq!(r.expect_end().unwrap_err().kind, DecodeErrorKind::TrailingBytes);
        let mut r = BitReader::new(&[]);
        r.finish().unwrap();
        r.expect_end().unwrap();
        r.align().unwrap();
    }

    #[test]
    fn raw_bytes_bounds() {
        let mut r = BitReader::new(&[1, 2, 3]);
        assert_eq!(r.read_raw_bytes(4).unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
        assert_eq!(r.read_raw_bytes(u64::MAX).unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
        assert_eq!(r.read_raw_bytes(3).unwrap(), &[1, 2, 3]);
        assert_eq!(r.read_raw_bytes(0).unwrap(), &[] as &[u8]);
    }

    #[test]
    fn vlq_every_group_size() {
        let values = [0, 1, 2, 63, 64, 127, 128, 300, 1 << 32, u64::MAX >> 1, u64::MAX];
        for n in 1..=32 {
            let mut w = BitWriter::new();
            for &v in &values {
                w.write_vlq(v, n).unwrap();
                w.write_vlq_signed(v as i64, n).unwrap();
            }
            let expected: u64 = values
                .iter()
                .map(|&v| {
                    crate::vlq::vlq_bits(v, n) + crate::vlq::vlq_bits(crate::zigzag_encode(v as i64), n)
                })
                .sum();
            assert_eq!(w.bits_written(), expected);
            let bytes = w.into_bytes();
            let mut r = BitReader::new(&bytes);
            for &v in &values {
                assert_eq!(r.read_vlq(n).unwrap(), v, "n={n}");
                assert_eq!(r.read_vlq_signed(n).unwrap(), v as i64);
            }
            r.expect_end().unwrap();
        }
        let mut w = BitWriter::new();
        assert_eq!(w.write_vlq(1, 0).unwrap_err().kind, EncodeErrorKind::InvalidArgument);
        assert_eq!(w.write_vlq(1, 33).unwrap_err().kind, EncodeErrorKind::InvalidArgument);
        let mut r = BitReader::new(&[0]);
        assert_eq!(r.read_vlq(0).unwrap_err().kind, DecodeErrorKind::InvalidArgument);
        assert_eq!(r.read_vlq_width(7, 0).unwrap_err().kind, DecodeErrorKind::InvalidArgument);
        assert_eq!(r.read_vlq_width(7, 65).unwrap_err().kind, DecodeErrorKind::InvalidArgument);
    }

    #[test]
    fn vlq_is_leb128_for_seven_bits() {
        let mut w = BitWriter::new();
        w.write_vlq(624_485, 7).unwrap();
        assert_eq!(w.finish(), &[0xE5, 0x8E, 0x26]);
    }

    #[test]
    fn vlq_rejections() {
        // Truncated.
        let mut r = BitReader::new(&[0x80]);
        assert_eq!(r.read_vlq(7).unwrap_err(), DecodeError::new(DecodeErrorKind::UnexpectedEnd, 0));
        // Redundant zero group.
        let mut r = BitReader::new(&[0x81, 0x00]);
        assert_eq!(r.read_vlq(7).unwrap_err().kind, DecodeErrorKind::OverlongVlq);
        // Eleven groups for a u64.
        let mut r = BitReader::new(&[0xff; 16]);
        assert_eq!(r.read_vlq(7).unwrap_err().kind, DecodeErrorKind::OverlongVlq);
        // u64::MAX is fine, one more bit is not.
        let mut bytes = [0xff; 10];
        bytes[9] = 0x01;
        assert_eq!(BitReader::new(&bytes).read_vlq(7).unwrap(), u64::MAX);
        bytes[9] = 0x02;
        assert_eq!(BitReader::new(&bytes).read_vlq(7).unwrap_err().kind, DecodeErrorKind::OverlongVlq);
        // A VLQ across the end of a long buffer, groups of 32 bits (33 with the continuation).
        let mut w = BitWriter::new();
        w.write_bits(0, 5).unwrap();
        w.write_vlq(u64::MAX, 32).unwrap();
        let bytes = w.into_bytes();
        let mut r = BitReader::new(&bytes);
        r.read_bits(5).unwrap();
        assert_eq!(r.read_vlq(32).unwrap(), u64::MAX);
        let mut r = BitReader::new(bytes.get(..8).unwrap());
        r.read_bits(5).unwrap();
        assert_eq!(r.read_vlq(32).unwrap_err(), DecodeError::new(DecodeErrorKind::UnexpectedEnd, 5));
    }

    #[test]
    fn extension_round_trip_and_skip() {
        let mut w = BitWriter::new();
        w.write_bits(1, 3).unwrap();
        w.write_extension(|w| {
            w.write_bits(0x1234, 16)?;
            w.write_bits(0x5, 3)?;
            w.write_vlq(1 << 40, 7)
        })
        .unwrap();
        w.write_bool(false).unwrap(); // an absent extension
        w.write_bits(0x2a, 7).unwrap();
        let bytes = w.into_bytes();
        // New reader: everything.
        let mut r = BitReader::new(&bytes);
        r.read_bits(3).unwrap();
        let ext = r
            .read_extension(|r| Ok((r.read_bits(16)?, r.read_bits(3)?, r.read_vlq(7)?, r.read_fence_present()?)))
            .unwrap();
        assert_eq!(ext, Some((0x1234, 5, 1 << 40, false)));
        assert_eq!(r.read_extension(|r| r.read_bool()).unwrap(), None);
        assert_eq!(r.read_bits(7).unwrap(), 0x2a);
        r.expect_end().unwrap();
        // Old reader: part of it.
        let mut r = BitReader::new(&bytes);
        r.read_bits(3).unwrap();
        assert_eq!(r.read_extension(|r| r.read_bits(16)).unwrap(), Some(0x1234));
        assert!(!r.read_bool().unwrap());
        assert_eq!(r.read_bits(7).unwrap(), 0x2a);
        // A reader that reads past the extension's end fails.
        let mut r = BitReader::new(&bytes);
        r.read_bits(3).unwrap();
        assert_eq!(
            r.read_extension(|r| r.read_bits(64).and(r.read_bits(8)))
                .unwrap_err()
                .kind,
            DecodeErrorKind::UnexpectedEnd
        );
        // A declared length beyond the input.
        let mut w = BitWriter::new();
        w.write_bool(true).unwrap();
        w.write_vlq(100, 7).unwrap();
        let bytes = w.into_bytes();
        assert_eq!(
            BitReader::new(&bytes).read_extension(|_| Ok(())).unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 1)
        );
    }

    #[test]
    fn extension_errors_are_offset() {
        let mut w = BitWriter::new();
        w.write_bits(0, 10).unwrap();
        let e = w.write_extension(|w| {
            w.write_bool(true)?;
            w.write_bits(9, 3)
        });
        assert_eq!(e.unwrap_err().bit_offset, 11);
        assert_eq!(w.bits_written(), 10);
    }

    #[test]
    fn append_unaligned_long() {
        for prefix in [0u32, 3, 8, 13] {
            let mut w = BitWriter::new();
            w.write_bits(mask(prefix), prefix).unwrap();
            w.write_extension(|w| {
                for i in 0..40u64 {
                    w.write_bits(i, 7)?;
                }
                Ok(())
            })
            .unwrap();
            let bytes = w.into_bytes();
            let mut r = BitReader::new(&bytes);
            r.read_bits(prefix).unwrap();
            let got = r
                .read_extension(|r| (0..40).map(|_| r.read_bits(7)).collect::<Result<Vec<_>, _>>())
                .unwrap()
                .unwrap();
            assert_eq!(got, (0..40).collect::<Vec<_>>());
        }
    }

    #[test]
    fn skip_bits() {
        let mut r = BitReader::new(&[0xff, 0x0f]);
        r.skip_bits(12).unwrap();
        assert_eq!(r.read_bits(4).unwrap(), 0);
        assert!(r.skip_bits(1).is_err());
        r.skip_bits(0).unwrap();
    }

    #[test]
    fn clear_keeps_allocation() {
        let mut w = BitWriter::with_capacity(16);
        for _ in 0..100 {
            w.write_bits(0xffff, 16).unwrap();
        }
        let cap = w.capacity();
        let ptr = w.finish().as_ptr();
        w.clear();
        assert_eq!(w.capacity(), cap);
        for _ in 0..100 {
            w.write_bits(0xffff, 16).unwrap();
        }
        assert_eq!(w.finish().as_ptr(), ptr);
    }
}

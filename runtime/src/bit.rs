//! BITSTREAM: [`BitWriter`] and [`BitReader`].
//!
//! Bits are packed LSB-first into little-endian bytes: the first bit written is bit 0 of byte 0.
//! The writer collects bits in a 64-bit scratch word and appends it to its buffer 8 bytes at a
//! time; the reader loads 8 bytes at a time (`u64::from_le_bytes`) wherever 8 bytes are left and
//! extracts any field of up to 56 bits with one shift and one mask. No per-bit loops.

use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::int::mask;
use crate::vlq::{
    DEFAULT_VLQ_GROUP_BITS, check_vlq_args, decode_vlq, valid_vlq_group_bits, vlq_groups,
    vlq_max_groups,
};
use crate::wire::{WireRead, WireWrite};

/// Writes a BITSTREAM. Reuse one writer across messages with [`BitWriter::clear`]: it keeps its
/// allocation.
///
/// The methods a game calls on a writer it holds ([`BitWriter::clear`], [`BitWriter::finish`],
/// [`BitWriter::into_bytes`], [`BitWriter::bits_written`], [`BitWriter::truncate`]) are
/// inherent: they need no import. The `write_*` primitives, which generated code calls, are
/// [`WireWrite`]'s (import it to call them).
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

    /// Bits written so far ([`WireWrite::bits_written`]).
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// assert_eq!(BitWriter::new().bits_written(), 0);
    /// ```
    #[inline]
    #[must_use]
    pub fn bits_written(&self) -> u64 {
        self.buf.len() as u64 * 8 + u64::from(self.used)
    }

    /// Pads the message with zero bits to a whole byte and returns everything written
    /// ([`WireWrite::finish`]). Writing may go on afterwards (from the byte boundary).
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// let mut w = BitWriter::new();
    /// assert_eq!(w.finish(), &[] as &[u8]);
    /// ```
    #[inline]
    pub fn finish(&mut self) -> &[u8] {
        self.pad_and_flush();
        &self.buf
    }

    /// [`BitWriter::finish`], then hands over the buffer ([`WireWrite::into_bytes`]).
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// assert_eq!(BitWriter::new().into_bytes(), Vec::<u8>::new());
    /// ```
    #[inline]
    #[must_use]
    pub fn into_bytes(mut self) -> Vec<u8> {
        self.pad_and_flush();
        self.buf
    }

    /// Empties the writer for reuse, keeping its allocation ([`WireWrite::clear`]).
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// let mut w = BitWriter::with_capacity(64);
    /// w.clear();
    /// assert_eq!((w.bits_written(), w.finish().len()), (0, 0));
    /// assert!(w.capacity() >= 64);
    /// ```
    #[inline]
    pub fn clear(&mut self) {
        self.buf.clear();
        self.scratch = 0;
        self.used = 0;
    }

    /// Forgets everything written after the first `bits` bits, keeping the allocation
    /// ([`WireWrite::truncate`]).
    ///
    /// ```
    /// use idlc_runtime::BitWriter;
    /// let mut w = BitWriter::new();
    /// w.truncate(3); // fewer were written: nothing happens
    /// assert_eq!(w.bits_written(), 0);
    /// ```
    pub fn truncate(&mut self, bits: u64) {
        if bits >= self.bits_written() {
            return;
        }
        let whole = self.buf.len() as u64 * 8;
        if bits >= whole {
            self.used = (bits - whole) as u32;
            self.scratch &= mask(self.used);
            return;
        }
        // `bits < whole <= usize::MAX * 8`: the byte index fits a usize.
        let byte = (bits / 8) as usize;
        self.used = (bits % 8) as u32;
        self.scratch = u64::from(self.buf.get(byte).copied().unwrap_or(0)) & mask(self.used);
        self.buf.truncate(byte);
    }

    /// Appends `bits` bits of `value`. Preconditions (checked by callers): `bits <= 64` and no
    /// bit of `value` at or above `bits` is set.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
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

    /// A VLQ of any number of groups (`group_bits` valid): up to `57 / (group_bits + 1)` groups
    /// are laid out at once, payloads spread into their slots, every continuation bit set, then
    /// the chunk cut to its groups and the very last continuation bit cleared.
    #[inline(never)]
    fn write_vlq_long(&mut self, value: u64, n: u32) {
        let group_len = n + 1;
        let mut left = vlq_groups(value, n);
        let mut rest = value;
        let per_word = 57 / group_len;
        loop {
            let chunk = spread_groups(rest, n) | vlq_continuation_mask(n);
            if left <= per_word {
                let bits = left * group_len;
                // bits <= 57; the final continuation bit (bits - 1) becomes 0.
                self.put(chunk & ((1u64 << (bits - 1)) - 1), bits);
                return;
            }
            self.put(
                chunk & ((1u64 << (per_word * group_len)) - 1),
                per_word * group_len,
            );
            left -= per_word;
            // per_word * n < 64.
            rest >>= per_word * n;
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

    /// Appends the bits of `other` after its first `phase` bits, which are zero placeholders:
    /// `other` was started at the bit phase (position modulo 8) that `self` has now, so that
    /// ALIGN inside it padded to the same byte boundaries as the final stream.
    fn append_phased(&mut self, other: &BitWriter, phase: u32) {
        self.flush_bytes();
        // Now self.used == phase (< 8): the placeholders of `other` sit exactly over the pending
        // bits of `self`, and are zero, so OR merges the two.
        debug_assert_eq!(self.used, phase);
        match other.buf.split_first() {
            Some((&first, rest)) => {
                self.scratch |= u64::from(first);
                self.used = 8;
                self.flush_bytes();
                self.buf.extend_from_slice(rest);
                self.put(other.scratch, other.used);
            }
            None => {
                self.scratch |= other.scratch;
                self.used = other.used;
            }
        }
    }
}

impl WireWrite for BitWriter {
    const BYTE_STREAM: bool = false;

    #[inline]
    fn bits_written(&self) -> u64 {
        BitWriter::bits_written(self)
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
    fn write_bools<I: IntoIterator<Item = bool>>(&mut self, bools: I) -> Result<(), EncodeError> {
        let (mut word, mut filled) = (0u64, 0u32);
        for value in bools {
            word |= u64::from(value) << filled;
            filled += 1;
            if filled == 64 {
                self.put(word, 64);
                (word, filled) = (0, 0);
            }
        }
        self.put(word, filled);
        Ok(())
    }

    #[inline]
    fn write_bool_slice(&mut self, bools: &[bool]) -> Result<(), EncodeError> {
        let mut chunks = bools.chunks_exact(8);
        for chunk in &mut chunks {
            self.put(pack_bool_bytes(chunk), 8);
        }
        // The last 0-7 one by one: a short copy into a word's bytes would stall the load.
        let rest = chunks.remainder();
        let word = rest
            .iter()
            .enumerate()
            .fold(0, |word, (i, &value)| word | u64::from(value) << i);
        self.put(word, rest.len() as u32);
        Ok(())
    }

    /// Inlined into every call site, where `group_bits` is a constant: a value of one or two
    /// groups (every `VLQ(7)` below 16,384) is one `put` of a word computed with shifts and
    /// masks; longer values go to `BitWriter::write_vlq_long`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn write_vlq(&mut self, value: u64, group_bits: u32) -> Result<(), EncodeError> {
        if !valid_vlq_group_bits(group_bits) {
            return Err(self.error(EncodeErrorKind::InvalidArgument));
        }
        let n = group_bits;
        if value >> n == 0 {
            // One group, its continuation bit 0.
            self.put(value, n + 1);
            return Ok(());
        }
        if n <= 31 && value >> (2 * n) == 0 {
            // Two groups: the low one with its continuation bit set, then the high one.
            let word = (value & mask(n)) | 1 << n | (value >> n) << (n + 1);
            self.put(word, 2 * (n + 1));
            return Ok(());
        }
        self.write_vlq_long(value, n);
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
        // The content starts after the present bit and a VLQ(7) length, which is a whole number
        // of bytes: its bit phase is known before its length is. Write it into a scratch writer
        // started at that phase so that ALIGN inside pads to the real byte boundaries.
        let phase = ((self.bits_written() + 1) % 8) as u32;
        let mut ext = BitWriter {
            buf: Vec::new(),
            scratch: 0,
            used: phase,
        };
        let at = self.bits_written() + 1;
        f(&mut ext).map_err(|mut e| {
            e.bit_offset = e
                .bit_offset
                .saturating_sub(u64::from(phase))
                .saturating_add(at);
            e
        })?;
        self.write_bool(true)?;
        self.write_vlq(
            ext.bits_written() - u64::from(phase),
            DEFAULT_VLQ_GROUP_BITS,
        )?;
        self.append_phased(&ext, phase);
        Ok(())
    }

    #[inline]
    fn finish(&mut self) -> &[u8] {
        BitWriter::finish(self)
    }

    #[inline]
    fn into_bytes(self) -> Vec<u8> {
        BitWriter::into_bytes(self)
    }

    #[inline]
    fn clear(&mut self) {
        BitWriter::clear(self);
    }

    #[inline]
    fn truncate(&mut self, bits: u64) {
        BitWriter::truncate(self, bits);
    }
}

/// Eight BOOLs as the low bits of a byte, the first in bit 0: their bytes (0 or 1) as one
/// little-endian word, times a constant that moves byte i's low bit to bit 56 + i with no two
/// partial products on the same bit (so no carries).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn pack_bool_bytes(bools: &[bool]) -> u64 {
    let mut bytes = [0u8; 8];
    for (byte, &value) in bytes.iter_mut().zip(bools) {
        *byte = u8::from(value);
    }
    u64::from_le_bytes(bytes).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// Masks to move VLQ payloads between their slots (`n` payload bits every `n + 1` bits) and a
/// packed integer in log-steps: step `k` joins lanes of `(n + 1) << k` bits holding `n << k`
/// payload bits pairwise, moving each upper half down by `1 << k`.
#[derive(Clone, Copy)]
struct GroupMasks {
    /// Payload bits of the `57 / (n + 1)` whole groups in a word.
    payload: u64,
    /// Number of steps: `ceil(log2(groups per word))`.
    steps: u32,
    /// Per step: the lower half of each joined lane.
    low: [u64; 5],
    /// Per step: the upper half's payload bits, where they are before compaction.
    high: [u64; 5],
}

const fn ones(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

// Evaluated at compile time: the indexing below cannot fail at run time.
const GROUP_MASKS: [GroupMasks; 33] = {
    let empty = GroupMasks {
        payload: 0,
        steps: 0,
        low: [0; 5],
        high: [0; 5],
    };
    let mut table = [empty; 33];
    let mut n = 1u32;
    while n <= 32 {
        let len = n + 1;
        let per_word = 57 / len;
        let mut m = empty;
        let mut i = 0;
        while i < per_word {
            m.payload |= ones(n) << (i * len);
            i += 1;
        }
        let mut k = 0u32;
        while (1u32 << k) < per_word {
            let lane = len << k;
            let bits = n << k;
            let mut base = 0u32;
            while base < 64 {
                m.low[k as usize] |= ones(bits) << base;
                if base + lane < 64 {
                    m.high[k as usize] |= ones(bits) << (base + lane);
                }
                base += 2 * lane;
            }
            k += 1;
        }
        m.steps = k;
        table[n as usize] = m;
        n += 1;
    }
    table
};

/// Lays the low `per_word * n` bits of `value` out as the `per_word = 57 / (n + 1)` groups of a
/// word, each followed by a 0 bit.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn spread_groups(value: u64, n: u32) -> u64 {
    let Some(m) = GROUP_MASKS.get(n as usize) else {
        return 0;
    };
    let mut x = value & ones((57 / (n + 1)) * n);
    let mut k = m.steps;
    while k > 0 {
        k -= 1;
        if let (Some(&low), Some(&high)) = (m.low.get(k as usize), m.high.get(k as usize)) {
            x = (x & low) | ((x << (1u32 << k)) & high);
        }
    }
    x
}

/// Inverse of [`spread_groups`]: the payloads of the groups of `word`, packed.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn spread_back(word: u64, n: u32) -> u64 {
    let Some(m) = GROUP_MASKS.get(n as usize) else {
        return 0;
    };
    let mut x = word & m.payload;
    for k in 0..m.steps {
        if let (Some(&low), Some(&high)) = (m.low.get(k as usize), m.high.get(k as usize)) {
            x = (x & low) | ((x & high) >> (1u32 << k));
        }
    }
    x
}

/// A valid VLQ(7) for a type of `type_bits` (1 to 64) bits starting at bit `offset` (0 to 7)
/// of `raw`, the little-endian bytes from the VLQ's first byte on, and ending within
/// `remaining` bits: its value and its length in bits. `None` when it is not valid, does not
/// end within `raw`'s first `GROUPS` groups, or runs past the end: the general path then
/// reports its error. No branch depends on the VLQ's length: its end comes from one
/// `trailing_zeros` of the raw bytes, so the position of the next read is one load, an and,
/// the count and an add after this one's.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn vlq7_in<const GROUPS: u32>(
    raw: u128,
    offset: u32,
    type_bits: u32,
    remaining: u64,
) -> Option<(u64, u32)> {
    // The continuation bits of the first GROUPS groups (a 0 ends the VLQ), at their places in
    // the unshifted bytes.
    const MORE: u128 = 0x8080_8080_8080_8080_8080;
    let more = (MORE & (u128::MAX >> (128 - 8 * GROUPS))) << offset;
    let stop = (!raw & more).trailing_zeros();
    let len = (stop + 1).wrapping_sub(offset);
    let groups = len / 8;
    let bits = groups * 7;
    let x = raw >> offset;
    let (low, high) = (x as u64, (x >> 64) as u64);
    // Groups 9 and 10: 14 bits, of which a 64-bit value keeps the lowest 8.
    let top = (high & 0x7f) | (high & 0x7f00) >> 1;
    let value = (gather_7_of_8(low) | top << 56) & (u64::MAX >> (64 - bits.clamp(1, 64)));
    let last = if groups == 10 {
        top >> 7
    } else {
        value >> bits.saturating_sub(7).min(63)
    };
    let fits = if type_bits >= 64 {
        groups < 10 || top >> 8 == 0
    } else {
        value >> type_bits == 0
    };
    let ok = stop < 128
        && groups <= type_bits.div_ceil(7).min(GROUPS)
        && fits
        && (groups == 1 || last != 0)
        && u64::from(len) <= remaining;
    ok.then_some((value, len))
}

/// The 7-bit payloads of the eight 8-bit groups of `word`, packed (group 0 lowest): 56 bits.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn gather_7_of_8(word: u64) -> u64 {
    let x = word & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | (x & 0x7f00_7f00_7f00_7f00) >> 1;
    let x = (x & 0x0000_3fff_0000_3fff) | (x & 0x3fff_0000_3fff_0000) >> 2;
    (x & 0x0fff_ffff) | (x & 0x0fff_ffff_0000_0000) >> 4
}

/// The continuation-bit positions of `VLQ(n)` groups within the first 57 bits of a word:
/// bits `n`, `2n + 1`, `3n + 2`, ... (`n` in 1..=32).
#[inline]
fn vlq_continuation_mask(n: u32) -> u64 {
    match CONTINUATION_MASKS.get(n as usize) {
        Some(m) => *m,
        None => 0,
    }
}

// Evaluated at compile time: the indexing below cannot fail at run time.
const CONTINUATION_MASKS: [u64; 33] = {
    let mut masks = [0u64; 33];
    let mut n = 1;
    while n <= 32 {
        let mut pos = n;
        while pos < 57 {
            masks[n as usize] |= 1 << pos;
            pos += n + 1;
        }
        n += 1;
    }
    masks
};

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
    /// How many nested struct decodes are under way (see [`WireRead::enter`]).
    depth: u32,
    /// The input's last 8 bytes (all of it when shorter, zero-extended), little-endian: what
    /// a read within 8 bytes of the end takes its bits from.
    tail: u64,
    /// The bit position of `tail`'s first bit.
    tail_bit: u64,
}

/// The last `min(8, data.len())` bytes of `data` as a little-endian word, zero-extended: one
/// or two loads (two overlapping ones from 4 bytes, three single bytes below).
const fn last_word(data: &[u8]) -> u64 {
    if let Some(last) = data.last_chunk::<8>() {
        return u64::from_le_bytes(*last);
    }
    let len = data.len();
    if let (Some(low), Some(high)) = (data.first_chunk::<4>(), data.last_chunk::<4>()) {
        let (low, high) = (u32::from_le_bytes(*low), u32::from_le_bytes(*high));
        // len is 4 to 7: `high` starts at byte len - 4 and overlaps `low` from there.
        return low as u64 | (high as u64) << (8 * (len - 4));
    }
    match data {
        [] => 0,
        [a] => *a as u64,
        [a, b] => *a as u64 | (*b as u64) << 8,
        [a, b, c, ..] => *a as u64 | (*b as u64) << 8 | (*c as u64) << 16,
    }
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
            depth: 0,
            tail: last_word(data),
            tail_bit: data.len().saturating_sub(8) as u64 * 8,
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

    /// Bits consumed so far ([`WireRead::bits_read`]). Like [`BitReader::bits_remaining`],
    /// [`BitReader::finish`] and [`BitReader::expect_end`], inherent: no import needed.
    ///
    /// ```
    /// use idlc_runtime::BitReader;
    /// assert_eq!(BitReader::new(&[0xff]).bits_read(), 0);
    /// ```
    #[inline]
    #[must_use]
    pub const fn bits_read(&self) -> u64 {
        self.pos
    }

    /// Bits left to read, including any final padding ([`WireRead::bits_remaining`]).
    ///
    /// ```
    /// use idlc_runtime::BitReader;
    /// assert_eq!(BitReader::new(&[0xff]).bits_remaining(), 8);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub const fn bits_remaining(&self) -> u64 {
        self.end - self.pos
    }

    /// Ends a message: checks that the bits up to the next byte boundary are zero padding and
    /// skips them ([`WireRead::finish`]).
    ///
    /// ```
    /// use idlc_runtime::BitReader;
    /// let mut r = BitReader::new(&[0, 0xff]);
    /// r.finish().unwrap();
    /// assert_eq!(r.bits_remaining(), 16); // at a byte boundary already
    /// ```
    #[inline]
    pub fn finish(&mut self) -> Result<(), DecodeError> {
        self.skip_padding(true)
    }

    /// [`BitReader::finish`], then requires the input to be exhausted
    /// ([`WireRead::expect_end`]).
    ///
    /// ```
    /// use idlc_runtime::{BitReader, DecodeErrorKind};
    /// assert!(BitReader::new(&[]).expect_end().is_ok());
    /// let e = BitReader::new(&[0]).expect_end().unwrap_err();
    /// assert_eq!(e.kind, DecodeErrorKind::TrailingBytes);
    /// ```
    #[inline]
    pub fn expect_end(&mut self) -> Result<(), DecodeError> {
        WireRead::expect_end(self)
    }

    /// The 64 bits starting at `pos` (bit 0 = the bit at `pos`); at least 57 of them are input
    /// bits, and bits beyond the slice are 0.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn peek(&self) -> u64 {
        self.peek_at(self.pos)
    }

    /// [`Self::peek`] at bit position `pos` (which must not exceed the input's bits).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn peek_at(&self, pos: u64) -> u64 {
        match self
            .data
            .get((pos >> 3) as usize..)
            .and_then(<[u8]>::first_chunk::<8>)
        {
            Some(word) => u64::from_le_bytes(*word) >> (pos & 7),
            // No 8 bytes at `pos`: it lies within the last 8 bytes or at the end, which `tail`
            // holds (bits past the input read as 0).
            None => {
                let offset = pos.wrapping_sub(self.tail_bit);
                if offset < 64 { self.tail >> offset } else { 0 }
            }
        }
    }

    /// Takes `bits` bits. Preconditions: `bits <= 64` and `bits <= end - pos`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
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

    /// Inlined on purpose: a `&self` passed to an out-of-line function would force the reader
    /// out of registers on the hot path. `DecodeError::new` is `#[cold]`: the error path stays
    /// off the hot one.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn end_error(&self) -> DecodeError {
        DecodeError::new(DecodeErrorKind::UnexpectedEnd, self.pos)
    }

    /// A VLQ of any length, checked: the arguments, the input's end, minimality and the type's
    /// width. VLQ(7), the usual group size, and VLQ(1), the size of small signed values (a
    /// zigzag of mk48's altitudes), get their own copies in which the group arithmetic
    /// (divisions by the group length) is constant: those divisions took a third of the samples
    /// of reading long VLQ(7)s.
    #[inline(never)]
    fn read_vlq_general(&mut self, group_bits: u32, type_bits: u32) -> Result<u64, DecodeError> {
        match group_bits {
            7 => self.read_vlq_groups(7, type_bits),
            1 => self.read_vlq_groups(1, type_bits),
            _ => self.read_vlq_groups(group_bits, type_bits),
        }
    }

    /// The one- and two-group forms of a `VLQ(n)` (`n` at most 27) of a `type_bits`-bit type:
    /// the value when the VLQ has one of them, is minimal and fits the type; `None` otherwise,
    /// and then nothing is consumed (the caller's full reader decides, errors included).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_short_vlq(&mut self, n: u32, type_bits: u32) -> Option<u64> {
        let word = self.peek();
        let group_len = n + 1;
        let low = word & mask(n);
        if word >> n & 1 == 0 {
            if u64::from(group_len) <= self.bits_remaining()
                && (type_bits >= n || low >> type_bits == 0)
            {
                self.pos += u64::from(group_len);
                return Some(low);
            }
        } else if word >> (2 * n + 1) & 1 == 0 {
            let high = (word >> group_len) & mask(n);
            // Minimal (a non-zero last group), and within the type's width.
            if u64::from(2 * group_len) <= self.bits_remaining()
                && high != 0
                && type_bits > n
                && (type_bits - n >= n || high >> (type_bits - n) == 0)
            {
                self.pos += u64::from(2 * group_len);
                return Some(low | high << n);
            }
        }
        None
    }

    /// A VLQ(7) of a 64-bit value past the inlined paths of one and two groups: the 16-byte
    /// window of [`WireRead::read_vlq`].
    #[inline(never)]
    fn read_vlq7_wide(&mut self) -> Result<u64, DecodeError> {
        self.read_vlq_width(DEFAULT_VLQ_GROUP_BITS, 64)
    }

    /// A VLQ(7) of a type of at most 7 groups (`type_bits` 1 to 49) past the inlined paths of
    /// one and two groups: one 8-byte load ([`vlq7_in`]), else the general path.
    #[inline(never)]
    fn read_vlq7_long(&mut self, type_bits: u32) -> Result<u64, DecodeError> {
        let raw = u128::from(self.peek_at(self.pos & !7));
        match vlq7_in::<7>(raw, (self.pos & 7) as u32, type_bits, self.bits_remaining()) {
            Some((value, len)) => {
                self.pos += u64::from(len);
                Ok(value)
            }
            None => self.read_vlq_general(7, type_bits),
        }
    }

    /// [`BitReader::read_vlq_general`]'s body, inlined into its two copies.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_vlq_groups(&mut self, group_bits: u32, type_bits: u32) -> Result<u64, DecodeError> {
        let start = self.pos;
        check_vlq_args(group_bits, type_bits, start)?;
        let n = group_bits;
        let group_len = n + 1;
        let per_word = 57 / group_len;
        let span = per_word * group_len;
        let max_groups = vlq_max_groups(n, type_bits);
        // Fast path: two 64-bit loads (at the VLQ's start and `span` bits later, each holding
        // `per_word` whole groups) cover 2 * per_word groups, 14 for VLQ(7). The first
        // continuation bit that is 0 ends the VLQ; everything else is computed without
        // data-dependent branches, so the position of the next read is known after one load,
        // one `trailing_zeros` and one add.
        if self.bits_remaining() >= u64::from(span) + 64 {
            let cont = vlq_continuation_mask(n);
            let (w0, w1) = (self.peek(), self.peek_at(self.pos + u64::from(span)));
            let (s0, s1) = (!w0 & cont, !w1 & cont);
            if s0 | s1 != 0 {
                let first = s0 != 0;
                let (w, stop, before) = if first {
                    (w0, s0.trailing_zeros(), 0)
                } else {
                    (w1, s1.trailing_zeros(), per_word)
                };
                let here = stop / group_len + 1;
                let total = before + here;
                let last = (w >> ((here - 1) * group_len)) & mask(n);
                let room = type_bits.saturating_sub((total - 1) * n);
                let keep = u64::MAX >> (64 - (total * n).min(64));
                // Both words' payloads, the second's masked off when unused: no branch to
                // mispredict on the VLQ's length.
                let second = spread_back(w1, n) << (per_word * n);
                let value =
                    (spread_back(w0, n) | (second & u64::from(first).wrapping_sub(1))) & keep;
                let bad = (total > max_groups)
                    | ((room < n) & (last >> room.min(63) != 0))
                    | ((total > 1) & (last == 0));
                if bad {
                    return Err(DecodeError::new(DecodeErrorKind::OverlongVlq, start));
                }
                // The terminating continuation bit is the VLQ's last bit.
                self.pos += u64::from(stop + 1) + if first { 0 } else { u64::from(span) };
                return Ok(value);
            }
        }
        // General path: group by group, reloading the word when it runs low.
        let mut word = self.peek();
        let mut avail = 57u32;
        decode_vlq(n, type_bits, start, || {
            if u64::from(group_len) > self.bits_remaining() {
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

    /// Skips padding up to the next byte boundary (at most `remaining` bits), checking it is 0.
    #[inline]
    fn skip_padding(&mut self, limit_to_end: bool) -> Result<(), DecodeError> {
        let mut pad = ((8 - (self.pos & 7)) & 7) as u32;
        if u64::from(pad) > self.bits_remaining() {
            if limit_to_end {
                pad = self.bits_remaining() as u32;
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
        BitReader::bits_read(self)
    }

    #[inline]
    fn bits_remaining(&self) -> u64 {
        BitReader::bits_remaining(self)
    }

    #[inline]
    fn read_bits(&mut self, bits: u32) -> Result<u64, DecodeError> {
        if bits > 64 {
            return Err(self.error(DecodeErrorKind::InvalidArgument));
        }
        if u64::from(bits) > self.bits_remaining() {
            return Err(self.end_error());
        }
        Ok(self.take(bits))
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn peek_bits(&self, bits: u32) -> u64 {
        let bits = bits.min(56);
        let avail = self.bits_remaining().min(u64::from(bits)) as u32;
        self.peek() & mask(avail)
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
    fn read_bool_bits(&mut self, count: u32) -> Result<u64, DecodeError> {
        self.read_bits(count)
    }

    /// Inlined into every call site, where the arguments are constants.
    ///
    /// - A VLQ(7) of a type wider than 7 groups (50 to 64 bits) takes one 16-byte load and no
    ///   branch on its length (`vlq7_in`): such values spread over 1 to 10 groups, where a
    ///   branch per length mispredicts (`cargo bench -p idlc-runtime --bench bitstream`: 1M
    ///   random-length VLQ(7)s, 5.77 → 4.16 ms).
    /// - Any other VLQ of one or two groups (every `VLQ(7)` below 16,384) is one load, two bit
    ///   tests and the checks of a minimal encoding. The branches let the next read's position
    ///   be known before the load, which wins where lengths repeat: the narrow ids and counts
    ///   of real messages (the branch-free form made the Character decode 10% slower).
    /// - Anything else (longer, malformed, near the end of the input) goes to
    ///   `BitReader::read_vlq7_long` (a VLQ(7) of up to 7 groups) or to
    ///   `BitReader::read_vlq_general`, which also report the errors.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_vlq_width(&mut self, group_bits: u32, type_bits: u32) -> Result<u64, DecodeError> {
        let n = group_bits;
        // Up to 10 groups: one 16-byte load, when 16 bytes are left from the VLQ's first.
        if n == 7 && (50..=64).contains(&type_bits) {
            let byte = (self.pos >> 3) as usize;
            if let Some(window) = self.data.get(byte..).and_then(<[u8]>::first_chunk::<16>) {
                let raw = u128::from_le_bytes(*window);
                let (offset, remaining) = ((self.pos & 7) as u32, self.bits_remaining());
                return match vlq7_in::<10>(raw, offset, type_bits, remaining) {
                    Some((value, len)) => {
                        self.pos += u64::from(len);
                        Ok(value)
                    }
                    None => self.read_vlq_general(7, type_bits),
                };
            }
        }
        if valid_vlq_group_bits(n) && n <= 27 && (1..=64).contains(&type_bits) {
            if let Some(value) = self.read_short_vlq(n, type_bits) {
                return Ok(value);
            }
        }
        if n == 7 && (1..=49).contains(&type_bits) {
            return self.read_vlq7_long(type_bits);
        }
        self.read_vlq_general(group_bits, type_bits)
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn read_vlq_length(&mut self) -> Result<u64, DecodeError> {
        match self.read_short_vlq(DEFAULT_VLQ_GROUP_BITS, 64) {
            Some(value) => Ok(value),
            None => self.read_vlq7_wide(),
        }
    }

    #[inline]
    fn align(&mut self) -> Result<(), DecodeError> {
        self.skip_padding(false)
    }

    #[inline]
    fn read_raw_bytes(&mut self, len: u64) -> Result<&'a [u8], DecodeError> {
        self.skip_padding(false)?;
        if len > self.bits_remaining() / 8 {
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
        if bits > self.bits_remaining() {
            return Err(self.end_error());
        }
        self.pos += bits;
        Ok(())
    }

    #[inline]
    fn enter_extension(&mut self) -> Result<Option<u64>, DecodeError> {
        if !self.read_fence_present()? {
            return Ok(None);
        }
        let start = self.pos;
        let len = self.read_vlq_length()?;
        if len > self.bits_remaining() {
            return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start));
        }
        let outer = self.end;
        self.end = self.pos + len;
        Ok(Some(outer))
    }

    #[inline]
    fn leave_extension(&mut self, outer_end: u64) {
        self.pos = self.end;
        self.end = outer_end.max(self.end);
    }

    fn read_extension<T, F>(&mut self, f: F) -> Result<Option<T>, DecodeError>
    where
        F: FnOnce(&mut Self) -> Result<T, DecodeError>,
    {
        if !self.read_bool()? {
            return Ok(None);
        }
        let start = self.pos;
        let len = self.read_vlq_length()?;
        if len > self.bits_remaining() {
            return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, start));
        }
        let mut inner = BitReader {
            data: self.data,
            pos: self.pos,
            end: self.pos + len,
            depth: self.depth,
            tail: self.tail,
            tail_bit: self.tail_bit,
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
        BitReader::finish(self)
    }
}

impl crate::error::StreamPosition for BitWriter {
    #[inline]
    fn bit_position(&self) -> u64 {
        self.bits_written()
    }
}

impl crate::error::StreamPosition for BitReader<'_> {
    #[inline]
    fn bit_position(&self) -> u64 {
        self.bits_read()
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn bool_slices_pack_as_single_bools() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..70 {
            let bools: Vec<bool> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state & 1 == 1
                })
                .collect();
            for phase in [0, 3, 63] {
                let (mut one, mut run) = (BitWriter::new(), BitWriter::new());
                one.write_bits(0, phase).unwrap();
                run.write_bits(0, phase).unwrap();
                for &b in &bools {
                    one.write_bool(b).unwrap();
                }
                run.write_bool_slice(&bools).unwrap();
                assert_eq!(one.finish(), run.finish(), "len {len} phase {phase}");
            }
        }
    }
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
                let fields = [
                    (mask(offset) & 0x5555_5555_5555_5555, offset),
                    (value, bits),
                    (1, 1),
                ];
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
        assert_eq!(
            r.read_bits(2).unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 71)
        );
        assert_eq!(r.read_bits(1).unwrap(), 1);
        assert!(r.read_bool().is_err());
        assert_eq!(r.read_bits(0).unwrap(), 0);
        let mut empty = BitReader::new(&[]);
        assert_eq!(empty.read_bits(0).unwrap(), 0);
        assert_eq!(
            empty.read_bits(1).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        assert_eq!(
            empty.read_bits(64).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
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
        assert_eq!(
            r.finish().unwrap_err(),
            DecodeError::new(DecodeErrorKind::BadPadding, 1)
        );
        let mut r = BitReader::new(&[0b1000_0001]);
        r.read_bool().unwrap();
        assert_eq!(r.align().unwrap_err().kind, DecodeErrorKind::BadPadding);
        let mut r = BitReader::new(&[0b1000_0001]);
        r.read_bool().unwrap();
        assert_eq!(
            r.read_raw_bytes(0).unwrap_err().kind,
            DecodeErrorKind::BadPadding
        );
        let mut r = BitReader::new(&[1, 2]);
        r.read_bool().unwrap();
        r.finish().unwrap();
        assert_eq!(r.bits_read(), 8);
        assert_eq!(
            r.expect_end().unwrap_err().kind,
            DecodeErrorKind::TrailingBytes
        );
        let mut r = BitReader::new(&[]);
        r.finish().unwrap();
        r.expect_end().unwrap();
        r.align().unwrap();
    }

    #[test]
    fn raw_bytes_bounds() {
        let mut r = BitReader::new(&[1, 2, 3]);
        assert_eq!(
            r.read_raw_bytes(4).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        assert_eq!(
            r.read_raw_bytes(u64::MAX).unwrap_err().kind,
            DecodeErrorKind::UnexpectedEnd
        );
        assert_eq!(r.read_raw_bytes(3).unwrap(), &[1, 2, 3]);
        assert_eq!(r.read_raw_bytes(0).unwrap(), &[] as &[u8]);
    }

    #[test]
    fn vlq_every_group_size() {
        let values = [
            0,
            1,
            2,
            63,
            64,
            127,
            128,
            300,
            1 << 32,
            u64::MAX >> 1,
            u64::MAX,
        ];
        for n in 1..=32 {
            let mut w = BitWriter::new();
            for &v in &values {
                w.write_vlq(v, n).unwrap();
                w.write_vlq_signed(v as i64, n).unwrap();
            }
            let expected: u64 = values
                .iter()
                .map(|&v| {
                    crate::vlq::vlq_bits(v, n)
                        + crate::vlq::vlq_bits(crate::zigzag_encode(v as i64), n)
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
        assert_eq!(
            w.write_vlq(1, 0).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        assert_eq!(
            w.write_vlq(1, 33).unwrap_err().kind,
            EncodeErrorKind::InvalidArgument
        );
        let mut r = BitReader::new(&[0]);
        assert_eq!(
            r.read_vlq(0).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
        assert_eq!(
            r.read_vlq_width(7, 0).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
        assert_eq!(
            r.read_vlq_width(7, 65).unwrap_err().kind,
            DecodeErrorKind::InvalidArgument
        );
    }

    /// The fast paths of `read_vlq_width` (for VLQ(7) of 50- to 64-bit types the 16-byte window
    /// of `vlq7_in`; one load for 1 or 2 groups; for VLQ(7) of up to 49-bit types the 8-byte
    /// window of `vlq7_in`; then the two-load path of
    /// `read_vlq_groups`) agree with the group-by-group definition (value, error kind, and bits
    /// consumed) on random and structured inputs of every length up to 24 bytes, some ending
    /// before the input does; half the rounds are VLQ(7).
    #[test]
    fn vlq_fast_path_matches_reference() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for round in 0..40_000u32 {
            let n = if round % 8 < 4 {
                7
            } else {
                rng.random_range(1..=32u32)
            };
            let t =
                [1, 5, 7, 8, 14, 16, 21, 31, 32, 35, 49, 50, 56, 63, 64][rng.random_range(0..15)];
            let mut data = [0u8; 24];
            match round % 4 {
                0 => rng.fill(&mut data[..]),
                1 => {
                    // A valid or slightly broken VLQ of a random value.
                    let mut w = BitWriter::new();
                    w.write_vlq(rng.random::<u64>() >> rng.random_range(0..64), n)
                        .unwrap();
                    let b = w.into_bytes();
                    let k = b.len().min(24);
                    data[..k].copy_from_slice(&b[..k]);
                    if rng.random_bool(0.3) {
                        data[rng.random_range(0..24)] ^= 1 << rng.random_range(0..8);
                    }
                }
                2 => data = [0xff; 24],
                _ => {
                    rng.fill(&mut data[..]);
                    data[rng.random_range(0..24)] = 0;
                }
            }
            let offset = rng.random_range(0..8u32);
            // Inputs of every length, some with an end before the input's (an extension's):
            // the one-load paths and the 16-byte VLQ(7) window must fall back near either end.
            let len = if round % 3 == 0 {
                rng.random_range(1..=24usize)
            } else {
                24
            };
            let data = &data[..len];
            let end = if round % 5 == 0 {
                rng.random_range(u64::from(offset).min(len as u64 * 8)..=len as u64 * 8)
            } else {
                len as u64 * 8
            };
            let mut fast = BitReader::new(data);
            fast.end = end;
            let got = fast
                .skip_bits(offset.into())
                .and_then(|()| fast.read_vlq_width(n, t))
                .map_err(|e| e.kind);
            // Reference: bit-at-a-time groups.
            let mut pos = u64::from(offset);
            let bit = |p: u64| u64::from(data[(p / 8) as usize] >> (p % 8) & 1);
            let expected = decode_vlq(n, t, 0, || {
                if pos + u64::from(n) + 1 > end {
                    return Err(DecodeError::new(DecodeErrorKind::UnexpectedEnd, 0));
                }
                let mut g = 0;
                for i in 0..n {
                    g |= bit(pos + u64::from(i)) << i;
                }
                let more = bit(pos + u64::from(n)) == 1;
                pos += u64::from(n) + 1;
                Ok((g, more))
            })
            .map_err(|e| e.kind);
            let expected = if u64::from(offset) > end {
                Err(DecodeErrorKind::UnexpectedEnd)
            } else {
                expected
            };
            assert_eq!(
                got, expected,
                "n={n} t={t} offset={offset} end={end} data={data:02x?}"
            );
            if got.is_ok() {
                assert_eq!(fast.bits_read(), pos);
            }
            if n == 7 && t == 64 {
                // Lengths take the short forms first, then the window: the same answers.
                let mut length = BitReader::new(data);
                length.end = end;
                let got_length = length
                    .skip_bits(offset.into())
                    .and_then(|()| length.read_vlq_length())
                    .map_err(|e| e.kind);
                assert_eq!(got_length, got, "length: offset={offset} data={data:02x?}");
                assert_eq!(length.bits_read(), fast.bits_read());
            }
        }
    }

    #[test]
    fn group_spreading_round_trips() {
        for n in 1..=32u32 {
            let per_word = 57 / (n + 1);
            for v in [0, 1, u64::MAX, 0x0123_4567_89ab_cdef, 0xa5a5_a5a5_a5a5_a5a5] {
                let spread = spread_groups(v, n);
                let mut slow = 0u64;
                for i in 0..per_word {
                    slow |= ((v >> (i * n)) & mask(n)) << (i * (n + 1));
                }
                assert_eq!(spread, slow, "n={n} v={v:x}");
                assert_eq!(spread_back(spread, n), v & mask(per_word * n), "n={n}");
                assert_eq!(
                    spread_back(spread | vlq_continuation_mask(n), n),
                    v & mask(per_word * n)
                );
            }
        }
    }

    /// `peek_at` near and past the input's end (the tail path) gives the bytes from the position
    /// on, zero-extended, for every input length and bit position.
    #[test]
    fn peek_near_the_end_is_zero_extended() {
        let data: Vec<u8> = (1..=20u8).map(|b| b.wrapping_mul(37) | 1).collect();
        for len in 0..=data.len() {
            let r = BitReader::new(&data[..len]);
            for pos in 0..=(len as u64 * 8 + 8) {
                let byte = (pos / 8) as usize;
                let mut expected = 0u64;
                for k in 0..8 {
                    if let Some(&b) = data[..len].get(byte + k) {
                        expected |= u64::from(b) << (8 * k);
                    }
                }
                assert_eq!(r.peek_at(pos), expected >> (pos % 8), "len {len} pos {pos}");
            }
        }
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
        assert_eq!(
            r.read_vlq(7).unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 0)
        );
        // Redundant zero group.
        let mut r = BitReader::new(&[0x81, 0x00]);
        assert_eq!(
            r.read_vlq(7).unwrap_err().kind,
            DecodeErrorKind::OverlongVlq
        );
        // Eleven groups for a u64.
        let mut r = BitReader::new(&[0xff; 16]);
        assert_eq!(
            r.read_vlq(7).unwrap_err().kind,
            DecodeErrorKind::OverlongVlq
        );
        // u64::MAX is fine, one more bit is not.
        let mut bytes = [0xff; 10];
        bytes[9] = 0x01;
        assert_eq!(BitReader::new(&bytes).read_vlq(7).unwrap(), u64::MAX);
        bytes[9] = 0x02;
        assert_eq!(
            BitReader::new(&bytes).read_vlq(7).unwrap_err().kind,
            DecodeErrorKind::OverlongVlq
        );
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
        assert_eq!(
            r.read_vlq(32).unwrap_err(),
            DecodeError::new(DecodeErrorKind::UnexpectedEnd, 5)
        );
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
            .read_extension(|r| {
                Ok((
                    r.read_bits(16)?,
                    r.read_bits(3)?,
                    r.read_vlq(7)?,
                    r.read_fence_present()?,
                ))
            })
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
            BitReader::new(&bytes)
                .read_extension(|_| Ok(()))
                .unwrap_err(),
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
        assert_eq!(e.unwrap_err().bit_offset, 12);
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
                .read_extension(|r| {
                    (0..40)
                        .map(|_| r.read_bits(7))
                        .collect::<Result<Vec<_>, _>>()
                })
                .unwrap()
                .unwrap();
            assert_eq!(got, (0..40).collect::<Vec<_>>());
        }
    }

    #[test]
    fn extension_alignment_is_absolute() {
        for prefix in 0..20u32 {
            for inner in 0..12u32 {
                let mut w = BitWriter::new();
                w.write_bits(mask(prefix), prefix).unwrap();
                w.write_extension(|w| {
                    w.write_bits(mask(inner), inner)?;
                    w.write_str("héllo", None)?;
                    w.write_bool(true)?;
                    w.write_extension(|w| w.write_bytes(&[1, 2, 3], Some(3)))?;
                    w.align()
                })
                .unwrap();
                w.write_bool(true).unwrap();
                let bytes = w.into_bytes();
                let mut r = BitReader::new(&bytes);
                r.read_bits(prefix).unwrap();
                let got = r
                    .read_extension(|r| {
                        assert_eq!(r.read_bits(inner)?, mask(inner));
                        assert_eq!(r.read_str(None)?, "héllo");
                        assert!(r.read_bool()?);
                        let inner = r.read_extension(|r| r.read_bytes(Some(3)))?;
                        r.align()?;
                        Ok(inner)
                    })
                    .unwrap();
                assert_eq!(got, Some(Some(&[1u8, 2, 3][..])));
                assert!(r.read_bool().unwrap());
                r.expect_end().unwrap();
            }
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
    fn truncate_matches_a_writer_that_stopped_there() {
        let fields: Vec<(u64, u32)> = (0..40u64)
            .map(|i| {
                (
                    i.wrapping_mul(0x9e37_79b9) & mask(((i * 7) % 64 + 1) as u32),
                    ((i * 7) % 64 + 1) as u32,
                )
            })
            .collect();
        let mut whole = BitWriter::new();
        for &(value, bits) in &fields {
            whole.write_bits(value, bits).unwrap();
        }
        for cut in 0..=fields.len() {
            let mut prefix = BitWriter::new();
            for &(value, bits) in &fields[..cut] {
                prefix.write_bits(value, bits).unwrap();
            }
            for extra in [0, 1, 5] {
                let mut w = whole.clone();
                w.truncate(prefix.bits_written() + extra);
                let mut expected = prefix.clone();
                match fields.get(cut) {
                    Some(&(value, bits)) if extra < u64::from(bits) => {
                        let extra = extra as u32;
                        expected.write_bits(value & mask(extra), extra).unwrap();
                    }
                    _ => continue,
                }
                assert_eq!(
                    w.bits_written(),
                    expected.bits_written(),
                    "cut {cut} + {extra}"
                );
                w.write_bits(0b1011, 4).unwrap();
                expected.write_bits(0b1011, 4).unwrap();
                assert_eq!(w.into_bytes(), expected.into_bytes(), "cut {cut} + {extra}");
            }
        }
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

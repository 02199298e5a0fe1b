//! The hand-written bitpacker's streams: LSB-first bits (bit k of the stream is bit k % 8 of
//! byte k / 8), written through a 64-bit scratch word that is flushed to a `Vec<u8>` eight bytes
//! at a time, read through unaligned 64-bit loads. No loop runs per bit.

/// Why a read failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError {
    /// The input ended inside a value.
    End,
    /// A value outside its range (a fixed-point step, a count, an integer).
    OutOfRange,
    /// An enumerator index beyond the enum.
    BadEnumerator,
    /// A VLQ with more groups than its type needs, or a redundant zero group.
    OverlongVlq,
    /// A count whose elements cannot fit in the bits left.
    LengthOverBound,
}

/// A bit writer: whole fields go into a 64-bit scratch word, full words go to the buffer.
#[derive(Debug, Clone, Default)]
pub struct BitPacker {
    bytes: Vec<u8>,
    scratch: u64,
    /// Bits of `scratch` in use, always below 64.
    filled: u32,
}

impl BitPacker {
    /// Empties the writer, keeping its buffer.
    #[inline]
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.scratch = 0;
        self.filled = 0;
    }

    /// Appends the low `bits` bits of `value` (`bits <= 64`; the bits above must be zero).
    #[inline(always)]
    pub fn put(&mut self, value: u64, bits: u32) {
        self.scratch |= value << self.filled;
        let total = self.filled + bits;
        if total >= 64 {
            self.bytes.extend_from_slice(&self.scratch.to_le_bytes());
            // The bits of `value` that did not fit (none when the word was empty).
            self.scratch = if self.filled == 0 {
                0
            } else {
                value >> (64 - self.filled)
            };
            self.filled = total - 64;
        } else {
            self.filled = total;
        }
    }

    /// Appends `value` as a VLQ of 7-bit groups, each followed by its continuation bit: up to
    /// three groups (every u16) as one word, longer values a word per three groups.
    #[inline(always)]
    pub fn put_vlq7(&mut self, value: u64) {
        if value < 1 << 7 {
            self.put(value, 8);
        } else if value < 1 << 14 {
            self.put(value & 0x7f | 0x80 | (value >> 7) << 8, 16);
        } else if value < 1 << 21 {
            self.put(spread3(value) | 0x8080, 24);
        } else {
            self.put_vlq7_long(value);
        }
    }

    /// A VLQ of more than three groups.
    #[inline(never)]
    fn put_vlq7_long(&mut self, mut value: u64) {
        while value >= 1 << 21 {
            self.put(spread3(value) | 0x80_8080, 24);
            value >>= 21;
        }
        self.put_vlq7(value);
    }

    /// Pads to a byte with zero bits and returns the message.
    #[inline]
    pub fn finish(&mut self) -> &[u8] {
        let bytes = self.filled.div_ceil(8) as usize;
        self.bytes
            .extend_from_slice(&self.scratch.to_le_bytes()[..bytes]);
        self.scratch = 0;
        self.filled = 0;
        &self.bytes
    }
}

/// The low three 7-bit groups of `value` in the payload slots of three 8-bit groups.
#[inline(always)]
fn spread3(value: u64) -> u64 {
    value & 0x7f | (value >> 7 & 0x7f) << 8 | (value >> 14 & 0x7f) << 16
}

/// A bit reader over one message.
#[derive(Debug, Clone)]
pub struct BitUnpacker<'a> {
    data: &'a [u8],
    /// The next bit to read.
    pos: usize,
    /// The bits of `data`.
    end: usize,
}

impl<'a> BitUnpacker<'a> {
    /// A reader at the start of `data`.
    #[inline]
    pub fn new(data: &'a [u8]) -> Self {
        Self {
            data,
            pos: 0,
            end: data.len() * 8,
        }
    }

    /// The bits left.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.end - self.pos
    }

    /// The 8 bytes from `byte` on as a little-endian word, zeros past the end.
    #[inline]
    fn word_at(&self, byte: usize) -> u64 {
        if let Some(word) = self.data.get(byte..).and_then(<[u8]>::first_chunk::<8>) {
            return u64::from_le_bytes(*word);
        }
        let mut word = [0u8; 8];
        if let Some(tail) = self.data.get(byte..) {
            word[..tail.len()].copy_from_slice(tail);
        }
        u64::from_le_bytes(word)
    }

    /// Reads `bits` bits (`bits <= 57`).
    #[inline]
    pub fn get(&mut self, bits: u32) -> Result<u64, ReadError> {
        if bits as usize > self.remaining() {
            return Err(ReadError::End);
        }
        let word = self.word_at(self.pos >> 3) >> (self.pos & 7);
        self.pos += bits as usize;
        Ok(word & ((1u64 << bits) - 1))
    }

    /// Reads 64 bits (two 32-bit reads).
    #[inline]
    pub fn get64(&mut self) -> Result<u64, ReadError> {
        let low = self.get(32)?;
        Ok(low | self.get(32)? << 32)
    }

    /// Skips `bits` bits.
    #[inline]
    pub fn skip(&mut self, bits: usize) -> Result<(), ReadError> {
        if bits > self.remaining() {
            return Err(ReadError::End);
        }
        self.pos += bits;
        Ok(())
    }

    /// Reads a VLQ of 7-bit groups of at most `max_groups` groups (the type's
    /// `ceil(type_bits / 7)`), minimal (no redundant zero group), with no payload bit at or above
    /// `type_bits`.
    #[inline]
    pub fn get_vlq7(&mut self, max_groups: u32, type_bits: u32) -> Result<u64, ReadError> {
        // One group (type_bits >= 7 here): the common case, one read.
        if self.remaining() >= 8 {
            let group = self.word_at(self.pos >> 3) >> (self.pos & 7) & 0xff;
            if group < 0x80 && type_bits >= 7 {
                self.pos += 8;
                return Ok(group);
            }
        }
        let mut value = 0u64;
        for i in 0..max_groups {
            let group = self.get(8)?;
            let payload = group & 0x7f;
            let shift = 7 * i;
            let room = type_bits - shift;
            if room < 7 && payload >> room != 0 {
                return Err(ReadError::OverlongVlq);
            }
            value |= payload << shift;
            if group < 0x80 {
                if i > 0 && payload == 0 {
                    return Err(ReadError::OverlongVlq);
                }
                return Ok(value);
            }
        }
        Err(ReadError::OverlongVlq)
    }
}

//! Encode and decode errors.
//!
//! Every fallible operation of the runtime returns one of these two error types. They are small
//! (32 bytes, nothing allocated until something fails) so that a `Result` costs little on the hot
//! path, and they carry the bit offset at which the problem was found plus the path of the field
//! that generated code was encoding or decoding (`Player.buffs[3].kind`).
//!
//! The path is built on the way out, on the error path only: the codec of a struct names the
//! field that failed (`Buff.kind`, [`DecodeError::in_field`]), a sequence or array adds the
//! element's index (`Buff[3].kind`, [`DecodeError::at_index`]), and the struct that holds it
//! replaces the inner struct's name by its own field (`Player.buffs[3].kind`). The text is that of
//! the IR interpreter (`idlc::interpret`): IDL names, `[i]` for an element, nothing for an
//! OPTIONAL's value, ` (ALIGN)` / ` (CHECK)` after the struct for those wire items.

use core::fmt;

/// What went wrong while decoding.
///
/// ```
/// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[]);
/// assert_eq!(r.read_bool().unwrap_err().kind, DecodeErrorKind::UnexpectedEnd);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended (or an extension's declared length ended) before the value did.
    UnexpectedEnd,
    /// A value is outside the range its type allows (a ranged integer above `max - min`, a
    /// fixed-point step above its maximum, a byte-stream bool that is neither 0 nor 1, a byte-stream
    /// integer with bits set above its declared width, an index that is not increasing, ...).
    ValueOutOfRange,
    /// An enumerator index is not below the enum's count.
    BadEnumerator,
    /// A length or count is above its declared maximum, or claims more elements than the bits left
    /// could possibly hold.
    LengthOverBound,
    /// A VLQ has more groups than its type needs, a value that does not fit the type, or a
    /// redundant trailing zero group (the encoding is not minimal).
    OverlongVlq,
    /// Padding bits (ALIGN, or the end of a message) are not zero.
    BadPadding,
    /// A STRING is not valid UTF-8.
    BadUtf8,
    /// A CHECK marker does not hold the expected value: reader and writer disagree on the layout.
    CheckMismatch,
    /// The CRC32 of a framed packet does not match (corruption, or another protocol / version).
    CrcMismatch,
    /// Whole bytes are left after the end of the message where the caller asked for none.
    TrailingBytes,
    /// The caller (generated code) asked for something impossible: more than 64 bits, a VLQ group
    /// size outside 1..=32, `min > max`, a resolution that is not positive. Never caused by the
    /// input bytes alone.
    InvalidArgument,
    /// Structs that contain themselves are nested deeper than
    /// [`MAX_DECODE_DEPTH`](crate::MAX_DECODE_DEPTH) in one message.
    TooDeep,
}

impl DecodeErrorKind {
    /// A short human-readable description.
    ///
    /// ```
    /// use idlc_runtime::DecodeErrorKind;
    /// assert_eq!(DecodeErrorKind::BadUtf8.as_str(), "invalid UTF-8");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::UnexpectedEnd => "unexpected end of input",
            Self::ValueOutOfRange => "value out of range",
            Self::BadEnumerator => "unknown enumerator",
            Self::LengthOverBound => "length over bound",
            Self::OverlongVlq => "over-long VLQ",
            Self::BadPadding => "non-zero padding",
            Self::BadUtf8 => "invalid UTF-8",
            Self::CheckMismatch => "CHECK marker mismatch",
            Self::CrcMismatch => "CRC32 mismatch",
            Self::TrailingBytes => "trailing bytes after the message",
            Self::InvalidArgument => "invalid argument",
            Self::TooDeep => "structs nested too deeply",
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A decode failure: what went wrong, where (bit offset from the start of the buffer), and in
/// which field.
///
/// The bit offset is where the value that failed begins: the field, or the element of a
/// sequence or array, whose read failed (fields that generated code reads as one packed word
/// included: each reports its own bits). A value that was read whole but is not valid (an
/// enumerator index the Rust enum lacks, a raw float outside its NUMERIC range, text that is not
/// UTF-8) is reported where its read ended, as the IR interpreter does. A CRC mismatch is at 0.
///
/// ```
/// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[0xff]);
/// r.read_bits(3).unwrap();
/// let e = r.read_uint_ranged(0, 2).unwrap_err(); // reads 2 bits: 3 > 2
/// assert_eq!((e.kind, e.bit_offset), (DecodeErrorKind::ValueOutOfRange, 3));
/// assert_eq!(e.to_string(), "value out of range at bit 3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DecodeError {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Bit offset (from the start of the buffer) where the value that failed begins.
    pub bit_offset: u64,
    /// The path of the field being decoded (`Player.buffs[3].kind`: IDL names, from the struct
    /// that was decoded to the innermost field). Generated code always sets it; `None` for an
    /// error of the runtime's own reads.
    pub field: Option<Box<str>>,
}

impl DecodeError {
    /// A new error with no field path. Inlinable (three stores): built out of line, it would
    /// come back through memory, and a caller that then names its field (generated code) could
    /// not keep its `Result` in registers on the success path.
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// let e = DecodeError::new(DecodeErrorKind::BadEnumerator, 12);
    /// assert_eq!((e.bit_offset, e.field), (12, None));
    /// ```
    #[cold]
    #[inline]
    pub const fn new(kind: DecodeErrorKind, bit_offset: u64) -> Self {
        Self {
            kind,
            bit_offset,
            field: None,
        }
    }

    /// Names the field the error happened in, from the struct that holds it: `at` is
    /// `Struct.field` (what generated code passes, one static string per call site), or a bare
    /// name. It replaces the first segment of the path so far (the name of the inner struct
    /// whose codec failed, which only knew itself) and keeps the rest.
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// // Buff's decoder fails on `kind`; Player's reads the Buff at index 3 of `buffs`.
    /// let e = DecodeError::new(DecodeErrorKind::BadEnumerator, 12)
    ///     .in_field("Buff.kind")
    ///     .at_index(3)
    ///     .in_field("Player.buffs");
    /// assert_eq!(e.field.as_deref(), Some("Player.buffs[3].kind"));
    /// assert_eq!(e.to_string(), "unknown enumerator at bit 12 in Player.buffs[3].kind");
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn in_field(self, at: &'static str) -> Self {
        self.map_field(|field| Some(path::named(field, at)))
    }

    /// Adds the index of the sequence or array element the error happened in (after the first
    /// segment of the path: the element comes before its own fields).
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// let e = DecodeError::new(DecodeErrorKind::ValueOutOfRange, 40)
    ///     .at_index(1) // an INT in a SEQUENCE<SEQUENCE<INT>>
    ///     .at_index(2)
    ///     .in_field("Grid.rows");
    /// assert_eq!(e.field.as_deref(), Some("Grid.rows[2][1]"));
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn at_index(self, index: usize) -> Self {
        self.map_field(|field| Some(path::indexed(field, index)))
    }

    /// Moves the error to `bit_offset`: generated code reads a run of fixed-width fields as one
    /// word, then checks each field; a field's error gives the field's own offset.
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// let e = DecodeError::new(DecodeErrorKind::ValueOutOfRange, 54).at_bit(4);
    /// assert_eq!(e.bit_offset, 4);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn at_bit(mut self, bit_offset: u64) -> Self {
        self.bit_offset = bit_offset;
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at bit {}", self.kind, self.bit_offset)?;
        if let Some(path) = &self.field {
            write!(f, " in {path}")?;
        }
        Ok(())
    }
}

impl std::error::Error for DecodeError {}

/// What went wrong while encoding.
///
/// ```
/// use idlc_runtime::{BitWriter, EncodeErrorKind, WireWrite};
/// let mut w = BitWriter::new();
/// assert_eq!(w.write_uint_ranged(9, 0, 8).unwrap_err().kind, EncodeErrorKind::ValueOutOfRange);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// The value is outside its IDL range, or does not fit the requested number of bits.
    ValueOutOfRange,
    /// A NaN was given where a number in a range is required (fixed point).
    NotANumber,
    /// A string, byte array or sequence is longer than its declared maximum.
    LengthOverBound,
    /// An enumerator index is not below the enum's count.
    BadEnumerator,
    /// The caller asked for something impossible: more than 64 bits, a VLQ group size outside
    /// 1..=32, `min > max`, a resolution that is not positive and finite.
    InvalidArgument,
}

impl EncodeErrorKind {
    /// A short human-readable description.
    ///
    /// ```
    /// use idlc_runtime::EncodeErrorKind;
    /// assert_eq!(EncodeErrorKind::NotANumber.as_str(), "NaN");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ValueOutOfRange => "value out of range",
            Self::NotANumber => "NaN",
            Self::LengthOverBound => "length over bound",
            Self::BadEnumerator => "unknown enumerator",
            Self::InvalidArgument => "invalid argument",
        }
    }
}

impl fmt::Display for EncodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An encode failure: what went wrong, at which bit of the output, and in which field.
///
/// The bit offset is the number of bits written before the value that failed: the field, or the
/// element of a sequence or array (fields that generated code packs into one word included: each
/// reports its own place in the word). A delta encoder decides a changed-bit from the values as
/// they will be sent before it writes that bit: a value that cannot be sent is reported there
/// (before the field's changed-bit, or before the DELTA or DEAD_RECKONING block that holds it;
/// an element of a DELTA SEQUENCE: before the sequence's changed-bit). `quantized_with`
/// (`Codec::sent`) writes nothing: its errors are at bit 0.
///
/// ```
/// use idlc_runtime::{BitWriter, EncodeErrorKind, WireWrite};
/// let mut w = BitWriter::new();
/// w.write_bool(true).unwrap();
/// let e = w.write_fixed_point(f64::NAN, 0.0, 1.0, 0.1).unwrap_err();
/// assert_eq!((e.kind, e.bit_offset), (EncodeErrorKind::NotANumber, 1));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EncodeError {
    /// What went wrong.
    pub kind: EncodeErrorKind,
    /// Bits written before the value that failed.
    pub bit_offset: u64,
    /// The path of the field being encoded (`Player.buffs[3].kind`: IDL names, from the struct
    /// that was encoded to the innermost field). Generated code always sets it; `None` for an
    /// error of the runtime's own writes.
    pub field: Option<Box<str>>,
}

impl EncodeError {
    /// A new error with no field path. Inlinable (three stores): built out of line, it would
    /// come back through memory, and a caller that then names its field (generated code) could
    /// not keep its `Result` in registers on the success path.
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let e = EncodeError::new(EncodeErrorKind::LengthOverBound, 0);
    /// assert_eq!(e.to_string(), "length over bound at bit 0");
    /// ```
    #[cold]
    #[inline]
    pub const fn new(kind: EncodeErrorKind, bit_offset: u64) -> Self {
        Self {
            kind,
            bit_offset,
            field: None,
        }
    }

    /// Names the field the error happened in: see [`DecodeError::in_field`].
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let e = EncodeError::new(EncodeErrorKind::NotANumber, 3).in_field("Pos.x");
    /// assert_eq!(e.to_string(), "NaN at bit 3 in Pos.x");
    /// let e = e.in_field("Player.pos");
    /// assert_eq!(e.field.as_deref(), Some("Player.pos.x"));
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn in_field(self, at: &'static str) -> Self {
        self.map_field(|field| Some(path::named(field, at)))
    }

    /// Adds the index of the element the error happened in: see [`DecodeError::at_index`].
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let e = EncodeError::new(EncodeErrorKind::ValueOutOfRange, 9)
    ///     .in_field("Buff.kind")
    ///     .at_index(3)
    ///     .in_field("Player.buffs");
    /// assert_eq!(e.to_string(), "value out of range at bit 9 in Player.buffs[3].kind");
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn at_index(self, index: usize) -> Self {
        self.map_field(|field| Some(path::indexed(field, index)))
    }

    /// Moves the error to `bit_offset` (a field's place in a packed word, or the bit before which
    /// a delta encoder checked the value).
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let e = EncodeError::new(EncodeErrorKind::NotANumber, 0).at_bit(17);
    /// assert_eq!(e.bit_offset, 17);
    /// ```
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[must_use]
    pub fn at_bit(mut self, bit_offset: u64) -> Self {
        self.bit_offset = bit_offset;
        self
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at bit {}", self.kind, self.bit_offset)?;
        if let Some(path) = &self.field {
            write!(f, " in {path}")?;
        }
        Ok(())
    }
}

impl std::error::Error for EncodeError {}

/// Where a stream is, in bits from its start: what a writer has written, what a reader has
/// read. What [`WithField::in_field_ahead`] and [`WithField::in_field_back`] count from.
pub trait StreamPosition {
    /// The bits written or read so far.
    fn bit_position(&self) -> u64;
}

/// Names the field or element of the error of a `Result` (only when it is an error):
/// `r.read_bool().in_field("Player.alive")?`. See [`DecodeError::in_field`] and
/// [`DecodeError::at_index`]. Generated code calls these rather than
/// `.map_err(|e| e.in_field(..))`: a method generic over `T` alone is compiled once per
/// value type, a closure once per call site.
///
/// ```
/// use idlc_runtime::{BitReader, WireRead, WithField};
/// let mut r = BitReader::new(&[]);
/// let e = r.read_bool().in_field("Player.alive").unwrap_err();
/// assert_eq!(e.field.as_deref(), Some("Player.alive"));
/// assert_eq!(e.to_string(), "unexpected end of input at bit 0 in Player.alive");
/// let e = r.read_bool().at_index(2).in_field("Player.flags").unwrap_err();
/// assert_eq!(e.field.as_deref(), Some("Player.flags[2]"));
/// ```
pub trait WithField {
    /// Names the field the error happened in (`Struct.field`, replacing the inner struct's
    /// name at the start of the path so far).
    #[must_use]
    fn in_field(self, field: &'static str) -> Self;

    /// Adds the index of the sequence or array element the error happened in.
    #[must_use]
    fn at_index(self, index: usize) -> Self;

    /// [`WithField::in_field`], then the error moved to the bit `ahead` bits past where `w` has
    /// written to: a field of a packed run, refused before its word is written. The position is
    /// found on the error path only, as `.map_err(|e| e.in_field(field).at_bit(w.bits_written() +
    /// ahead))` would, without a closure per call site for a user's build to compile.
    #[must_use]
    fn in_field_ahead<W: StreamPosition + ?Sized>(
        self,
        field: &'static str,
        w: &W,
        ahead: u64,
    ) -> Self;

    /// [`WithField::in_field`], then the error moved to the bit `back` bits before where `r` has
    /// read to: a field of a packed run, refused once its word is read.
    #[must_use]
    fn in_field_back<R: StreamPosition + ?Sized>(
        self,
        field: &'static str,
        r: &R,
        back: u64,
    ) -> Self;
}

/// `WithField` on the `Result` of either error type: the same calls on the error path only.
macro_rules! with_field {
    ($error:ident) => {
        impl<T> WithField for Result<T, $error> {
            #[inline]
            fn in_field(self, field: &'static str) -> Self {
                self.map_err(|e| e.in_field(field))
            }

            #[inline]
            fn at_index(self, index: usize) -> Self {
                self.map_err(|e| e.at_index(index))
            }

            #[inline]
            fn in_field_ahead<W: StreamPosition + ?Sized>(
                self,
                field: &'static str,
                w: &W,
                ahead: u64,
            ) -> Self {
                self.map_err(|e| e.in_field(field).at_bit(w.bit_position() + ahead))
            }

            #[inline]
            fn in_field_back<R: StreamPosition + ?Sized>(
                self,
                field: &'static str,
                r: &R,
                back: u64,
            ) -> Self {
                self.map_err(|e| {
                    e.in_field(field)
                        .at_bit(r.bit_position().saturating_sub(back))
                })
            }
        }
    };
}

with_field!(DecodeError);
with_field!(EncodeError);

/// `map_field` of both error types, the one place their field path is taken apart and put
/// back: taken apart in the (inlined) caller, so that the caller's `Result` does not escape to
/// the cold call that builds the text and stays in registers on the success path.
macro_rules! map_field {
    ($error:ident) => {
        impl $error {
            #[cfg_attr(debug_assertions, inline)]
            #[cfg_attr(not(debug_assertions), inline(always))]
            fn map_field(self, f: impl FnOnce(Option<Box<str>>) -> Option<Box<str>>) -> Self {
                let $error {
                    kind,
                    bit_offset,
                    field,
                } = self;
                $error {
                    kind,
                    bit_offset,
                    field: f(field),
                }
            }
        }
    };
}

map_field!(DecodeError);
map_field!(EncodeError);

/// The text of field paths, built on the error path only.
mod path {
    /// Where the first segment of a path ends: the name of the struct whose codec began it
    /// (empty for an element of a sequence of non-structs: `[2]`).
    fn root_len(path: &str) -> usize {
        path.find(['.', '[', ' ']).unwrap_or(path.len())
    }

    /// `at` followed by what `inner` says below its first segment.
    #[cold]
    #[inline(never)]
    pub(super) fn named(inner: Option<Box<str>>, at: &str) -> Box<str> {
        let Some(inner) = inner else {
            return at.into();
        };
        let rest = &inner[root_len(&inner)..];
        let mut out = String::with_capacity(at.len() + rest.len());
        out.push_str(at);
        out.push_str(rest);
        out.into_boxed_str()
    }

    /// `inner` with `[index]` after its first segment.
    #[cold]
    #[inline(never)]
    pub(super) fn indexed(inner: Option<Box<str>>, index: usize) -> Box<str> {
        let inner = inner.as_deref().unwrap_or("");
        let (root, rest) = inner.split_at(root_len(inner));
        format!("{root}[{index}]{rest}").into_boxed_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream at a fixed position.
    struct At(u64);

    impl StreamPosition for At {
        fn bit_position(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn a_packed_fields_bit_is_counted_from_the_stream() {
        let refused: Result<(), DecodeError> =
            Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, 0));
        let e = refused
            .clone()
            .in_field_back("P.x", &At(64), 21)
            .unwrap_err();
        assert_eq!((e.field.as_deref(), e.bit_offset), (Some("P.x"), 43));
        // Never below the stream's start, whatever the offset.
        let e = refused.in_field_back("P.x", &At(3), 21).unwrap_err();
        assert_eq!(e.bit_offset, 0);
        let refused: Result<(), EncodeError> =
            Err(EncodeError::new(EncodeErrorKind::ValueOutOfRange, 0));
        let e = refused.in_field_ahead("P.y", &At(10), 21).unwrap_err();
        assert_eq!((e.field.as_deref(), e.bit_offset), (Some("P.y"), 31));
    }

    #[test]
    fn every_decode_kind_displays() {
        use DecodeErrorKind::*;
        for k in [
            UnexpectedEnd,
            ValueOutOfRange,
            BadEnumerator,
            LengthOverBound,
            OverlongVlq,
            BadPadding,
            BadUtf8,
            CheckMismatch,
            CrcMismatch,
            TrailingBytes,
            InvalidArgument,
            TooDeep,
        ] {
            let e = DecodeError::new(k, 5);
            assert!(e.to_string().starts_with(k.as_str()));
            assert!(e.to_string().ends_with("at bit 5"));
            let boxed: Box<dyn std::error::Error> = Box::new(e);
            assert!(!boxed.to_string().is_empty());
        }
    }

    #[test]
    fn every_encode_kind_displays() {
        use EncodeErrorKind::*;
        for k in [
            ValueOutOfRange,
            NotANumber,
            LengthOverBound,
            BadEnumerator,
            InvalidArgument,
        ] {
            let e = EncodeError::new(k, 9).in_field("S.f");
            assert_eq!(e.to_string(), format!("{} at bit 9 in S.f", k.as_str()));
        }
    }

    /// The path costs one pointer and a length, allocated only when an error is built: the errors
    /// are no larger than when they held a `&'static str` (32 bytes), and a `Result` of a small
    /// value is no larger than the error (the kind's niche holds `Ok`).
    #[test]
    fn errors_are_small() {
        use core::mem::size_of;
        assert_eq!(size_of::<DecodeError>(), 32);
        assert_eq!(size_of::<EncodeError>(), 32);
        assert_eq!(size_of::<Result<(), EncodeError>>(), 32);
        assert_eq!(size_of::<Result<u64, DecodeError>>(), 32);
        assert_eq!(size_of::<Result<f64, DecodeError>>(), 32);
    }

    #[test]
    fn paths_compose_from_the_inside_out() {
        let e = DecodeError::new(DecodeErrorKind::BadEnumerator, 7);
        // A field of the top-level struct.
        assert_eq!(
            e.clone().in_field("P.kind").field.as_deref(),
            Some("P.kind")
        );
        // A struct in a field: the inner struct's name gives way to the outer field.
        let nested = e.clone().in_field("Inner.kind").in_field("Outer.inner");
        assert_eq!(nested.field.as_deref(), Some("Outer.inner.kind"));
        let deeper = nested.in_field("Top.outer");
        assert_eq!(deeper.field.as_deref(), Some("Top.outer.inner.kind"));
        // An element that is not a struct, then one that is, then arrays of arrays.
        let plain = e.clone().at_index(4).in_field("P.scores");
        assert_eq!(plain.field.as_deref(), Some("P.scores[4]"));
        let item = e
            .clone()
            .in_field("Item.kind")
            .at_index(0)
            .in_field("P.items");
        assert_eq!(item.field.as_deref(), Some("P.items[0].kind"));
        let grid = e.clone().in_field("Cell.kind").at_index(1).at_index(2);
        assert_eq!(
            grid.clone().in_field("P.grid").field.as_deref(),
            Some("P.grid[2][1].kind")
        );
        // Struct-level items keep their note.
        let align = e
            .clone()
            .in_field("Inner (ALIGN)")
            .at_index(3)
            .in_field("P.inners");
        assert_eq!(align.field.as_deref(), Some("P.inners[3] (ALIGN)"));
        // The offset and kind are untouched by naming.
        assert_eq!(
            (align.kind, align.bit_offset),
            (DecodeErrorKind::BadEnumerator, 7)
        );
    }

    #[test]
    fn with_field_names_errors_only() {
        let r: Result<(), EncodeError> = Err(EncodeError::new(EncodeErrorKind::NotANumber, 0));
        let e = r.in_field("In.a").in_field("Out.b").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("Out.b.a"));
        assert_eq!(e.to_string(), "NaN at bit 0 in Out.b.a");
        let ok: Result<u8, DecodeError> = Ok(1);
        assert_eq!(ok.in_field("a"), Ok(1));
    }
}

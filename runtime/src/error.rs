//! Encode and decode errors.
//!
//! Every fallible operation of the runtime returns one of these two error types. They are small
//! (`Copy`, no allocation) so that a `Result` costs little on the hot path, and they carry the bit
//! offset at which the problem was found plus, optionally, the name of the field that generated
//! code was encoding or decoding (see [`WithField`]).

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

/// A decode failure: what went wrong, where (bit offset from the start of the buffer), and
/// optionally in which field.
///
/// The bit offset is where the value that failed starts (for [`DecodeErrorKind::CrcMismatch`]:
/// 0).
///
/// ```
/// use idlc_runtime::{BitReader, DecodeErrorKind, WireRead};
/// let mut r = BitReader::new(&[0xff]);
/// r.read_bits(3).unwrap();
/// let e = r.read_uint_ranged(0, 2).unwrap_err(); // reads 2 bits: 3 > 2
/// assert_eq!((e.kind, e.bit_offset), (DecodeErrorKind::ValueOutOfRange, 3));
/// assert_eq!(e.to_string(), "value out of range at bit 3");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DecodeError {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Bit offset (from the start of the buffer) of the value that failed.
    pub bit_offset: u64,
    /// The innermost field being decoded, when generated code supplied it.
    pub field: Option<&'static str>,
}

impl DecodeError {
    /// A new error with no field name.
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// let e = DecodeError::new(DecodeErrorKind::BadEnumerator, 12);
    /// assert_eq!(e.bit_offset, 12);
    /// ```
    #[cold]
    #[inline(never)]
    pub const fn new(kind: DecodeErrorKind, bit_offset: u64) -> Self {
        Self {
            kind,
            bit_offset,
            field: None,
        }
    }

    /// Attaches a field name unless one is already set (the innermost field wins).
    ///
    /// ```
    /// use idlc_runtime::{DecodeError, DecodeErrorKind};
    /// let e = DecodeError::new(DecodeErrorKind::BadUtf8, 8).in_field("name").in_field("player");
    /// assert_eq!(e.field, Some("name"));
    /// assert_eq!(e.to_string(), "invalid UTF-8 at bit 8 in field `name`");
    /// ```
    #[must_use]
    pub const fn in_field(mut self, field: &'static str) -> Self {
        if self.field.is_none() {
            self.field = Some(field);
        }
        self
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at bit {}", self.kind, self.bit_offset)?;
        if let Some(field) = self.field {
            write!(f, " in field `{field}`")?;
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

/// An encode failure: what went wrong, at which bit of the output, and optionally in which field.
///
/// ```
/// use idlc_runtime::{BitWriter, EncodeErrorKind, WireWrite};
/// let mut w = BitWriter::new();
/// w.write_bool(true).unwrap();
/// let e = w.write_fixed_point(f64::NAN, 0.0, 1.0, 0.1).unwrap_err();
/// assert_eq!((e.kind, e.bit_offset), (EncodeErrorKind::NotANumber, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EncodeError {
    /// What went wrong.
    pub kind: EncodeErrorKind,
    /// Bits written before the value that failed.
    pub bit_offset: u64,
    /// The innermost field being encoded, when generated code supplied it.
    pub field: Option<&'static str>,
}

impl EncodeError {
    /// A new error with no field name.
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let e = EncodeError::new(EncodeErrorKind::LengthOverBound, 0);
    /// assert_eq!(e.to_string(), "length over bound at bit 0");
    /// ```
    #[cold]
    #[inline(never)]
    pub const fn new(kind: EncodeErrorKind, bit_offset: u64) -> Self {
        Self {
            kind,
            bit_offset,
            field: None,
        }
    }

    /// Attaches a field name unless one is already set (the innermost field wins).
    ///
    /// ```
    /// use idlc_runtime::{EncodeError, EncodeErrorKind};
    /// let e = EncodeError::new(EncodeErrorKind::NotANumber, 3).in_field("x");
    /// assert_eq!(e.to_string(), "NaN at bit 3 in field `x`");
    /// ```
    #[must_use]
    pub const fn in_field(mut self, field: &'static str) -> Self {
        if self.field.is_none() {
            self.field = Some(field);
        }
        self
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at bit {}", self.kind, self.bit_offset)?;
        if let Some(field) = self.field {
            write!(f, " in field `{field}`")?;
        }
        Ok(())
    }
}

impl std::error::Error for EncodeError {}

/// Adds a field name to the error of a `Result`, for generated code:
/// `r.read_bool().in_field("alive")?`.
///
/// ```
/// use idlc_runtime::{BitReader, WireRead, WithField};
/// let mut r = BitReader::new(&[]);
/// let e = r.read_bool().in_field("alive").unwrap_err();
/// assert_eq!(e.field, Some("alive"));
/// ```
pub trait WithField {
    /// Names the field the error happened in (kept only if no inner field was named).
    #[must_use]
    fn in_field(self, field: &'static str) -> Self;
}

impl<T> WithField for Result<T, DecodeError> {
    #[inline]
    fn in_field(self, field: &'static str) -> Self {
        self.map_err(|e| e.in_field(field))
    }
}

impl<T> WithField for Result<T, EncodeError> {
    #[inline]
    fn in_field(self, field: &'static str) -> Self {
        self.map_err(|e| e.in_field(field))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let e = EncodeError::new(k, 9).in_field("f");
            assert_eq!(
                e.to_string(),
                format!("{} at bit 9 in field `f`", k.as_str())
            );
        }
    }

    #[test]
    fn errors_are_small() {
        assert!(core::mem::size_of::<DecodeError>() <= 32);
        assert!(core::mem::size_of::<EncodeError>() <= 32);
    }

    #[test]
    fn with_field_keeps_innermost() {
        let r: Result<(), EncodeError> = Err(EncodeError::new(EncodeErrorKind::NotANumber, 0));
        assert_eq!(r.in_field("a").in_field("b").unwrap_err().field, Some("a"));
        let ok: Result<u8, DecodeError> = Ok(1);
        assert_eq!(ok.in_field("a"), Ok(1));
    }
}

//! Encoding markers and the per-encoding codec trait that generated types implement.
//!
//! Generated code defines one zero-sized marker type per `ENCODING(NAME)` implementing
//! [`Encoding`], and implements [`Codec<Marker>`](Codec) for every type that encoding covers.
//! [`to_bytes`] / [`from_bytes`] then give `to_bytes_with::<S2S>()` and friends for free.

use crate::error::{DecodeError, EncodeError};
use crate::wire::{Style, WireRead, WireWrite};

/// A named encoding (one per `ENCODING(NAME)` of an Encoding file): its name and wire style.
///
/// ```
/// use idlc_runtime::{BitStream, Encoding};
/// #[derive(Debug, Clone, Copy, Default)]
/// struct S2C;
/// impl Encoding for S2C {
///     const NAME: &'static str = "S2C";
///     type Style = BitStream;
/// }
/// assert_eq!(S2C::NAME, "S2C");
/// ```
pub trait Encoding: Copy + Default + 'static {
    /// The encoding's name, as written in the Encoding file.
    const NAME: &'static str;
    /// BITSTREAM ([`BitStream`](crate::BitStream)) or BYTESTREAM
    /// ([`ByteStream`](crate::ByteStream)).
    type Style: Style;
}

/// A type that can be encoded and decoded in encoding `E` (implemented by generated code).
///
/// `decode_from` must not check the end of the message: a newer writer may have appended
/// segments after a FENCE, which an older reader ignores (WIRE.md).
///
/// ```
/// use idlc_runtime::{
///     from_bytes, to_bytes, BitReader, BitStream, BitWriter, Codec, DecodeError, EncodeError,
///     Encoding, WireRead, WireWrite,
/// };
/// #[derive(Debug, Clone, Copy, Default)]
/// struct Lean;
/// impl Encoding for Lean {
///     const NAME: &'static str = "Lean";
///     type Style = BitStream;
/// }
/// #[derive(Debug, PartialEq)]
/// struct Hp(i64);
/// impl Codec<Lean> for Hp {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> {
///         w.write_int_ranged(self.0, -100, 100)
///     }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> {
///         r.read_int_ranged(-100, 100).map(Hp)
///     }
/// }
/// let bytes = to_bytes::<Lean, _>(&Hp(-3)).unwrap();
/// assert_eq!(bytes.len(), 1);
/// assert_eq!(from_bytes::<Lean, Hp>(&bytes).unwrap(), Hp(-3));
/// ```
pub trait Codec<E: Encoding>: Sized {
    /// Writes `self` in encoding `E`.
    fn encode_to(&self, w: &mut <E::Style as Style>::Writer) -> Result<(), EncodeError>;

    /// Reads a value in encoding `E`.
    fn decode_from(r: &mut <E::Style as Style>::Reader<'_>) -> Result<Self, DecodeError>;

    /// Writes `self` nested in another value (a field, an element, an OPTIONAL): the segments
    /// after each FENCE go in open extensions with their length, so that an older reader can
    /// skip what it does not know (WIRE.md, "Fences and versions"). The same as
    /// [`Codec::encode_to`] for a struct without FENCE segments; generated code overrides both
    /// nested methods for the others.
    #[inline]
    fn encode_nested_to(&self, w: &mut <E::Style as Style>::Writer) -> Result<(), EncodeError> {
        self.encode_to(w)
    }

    /// Reads a value written by [`Codec::encode_nested_to`].
    #[inline]
    fn decode_nested_from(r: &mut <E::Style as Style>::Reader<'_>) -> Result<Self, DecodeError> {
        Self::decode_from(r)
    }

    /// Reads a value in encoding `E` into `self`, reusing the memory it owns (its `Vec`s,
    /// `String`s and those of the structs it holds): a receiver that decodes every packet into
    /// one value allocates only when a collection grows. On an error `self` holds a mix of its
    /// old fields and the ones read, each a valid value. Generated code overrides this default
    /// (which decodes a new value) for the structs that own memory.
    #[inline]
    fn decode_in_place_from(
        &mut self,
        r: &mut <E::Style as Style>::Reader<'_>,
    ) -> Result<(), DecodeError> {
        *self = Self::decode_from(r)?;
        Ok(())
    }

    /// [`Codec::decode_in_place_from`] for a value written by [`Codec::encode_nested_to`].
    #[inline]
    fn decode_nested_in_place_from(
        &mut self,
        r: &mut <E::Style as Style>::Reader<'_>,
    ) -> Result<(), DecodeError> {
        *self = Self::decode_nested_from(r)?;
        Ok(())
    }

    /// The value the receiver holds after `self` is sent in encoding `E` (quantized fields on
    /// their steps): what a delta encoder compares with the baseline and keeps as its mirror.
    /// Generated code computes it field by field; this default encodes and decodes.
    fn sent(&self) -> Result<Self, EncodeError> {
        let mut w = <E::Style as Style>::Writer::default();
        self.encode_to(&mut w)?;
        let bytes = w.into_bytes();
        let mut r = <E::Style as Style>::Reader::from_bytes(&bytes);
        Self::decode_from(&mut r).map_err(|e| {
            EncodeError::new(crate::error::EncodeErrorKind::InvalidArgument, e.bit_offset)
        })
    }

    /// Asks the CPU to start loading the memory `self` owns (its `Vec`s, `String`s and those of
    /// the structs it holds; see [`crate::prefetch`]): what [`crate::iter_prefetching`] calls on
    /// a batch of elements before an encoder reaches them. A hint with no effect on any value.
    /// Generated code overrides this default (nothing) for the structs that own memory.
    #[inline]
    fn prefetch_owned(&self) {}

    /// Whether `self` as sent equals `other`, a baseline's value, without building the sent
    /// value: what a `DELTA SEQUENCE` asks of each element, and a changed-bit of a struct
    /// field, to decide whether it changed. It fails exactly when `sent` fails, with the same
    /// error. Generated code compares field by field, and a FIXED_POINT field also equals an
    /// `other` off the steps that is sent as the same step (WIRE_FORMAT.md, section 5); this
    /// default is `self.sent()? == *other`.
    fn sent_equals(&self, other: &Self) -> Result<bool, EncodeError>
    where
        Self: PartialEq,
    {
        Ok(self.sent()? == *other)
    }
}

/// Implements [`Codec<$to>`](Codec) for `$ty` by forwarding every method to its
/// `Codec<$from>`: what generated code writes for a struct whose wire is the same in two
/// encodings of one stream style (the same plan, and the same plans for every struct it holds),
/// so that the second encoding adds no code to compile. Adding a method to [`Codec`] means
/// adding it here.
///
/// ```
/// use idlc_runtime::{BitReader, BitStream, BitWriter, Codec, DecodeError, EncodeError, Encoding};
///
/// #[derive(Debug, Clone, Copy, Default)]
/// pub struct S2C;
/// impl Encoding for S2C {
///     const NAME: &'static str = "S2C";
///     type Style = BitStream;
/// }
/// #[derive(Debug, Clone, Copy, Default)]
/// pub struct S2S;
/// impl Encoding for S2S {
///     const NAME: &'static str = "S2S";
///     type Style = BitStream;
/// }
///
/// #[derive(Debug, Clone, PartialEq)]
/// pub struct Flag(bool);
/// impl Codec<S2C> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> {
///         idlc_runtime::WireWrite::write_bool(w, self.0)
///     }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> {
///         Ok(Flag(idlc_runtime::WireRead::read_bool(r)?))
///     }
/// }
/// idlc_runtime::same_codec!(Flag, S2S => S2C);
///
/// let bytes = idlc_runtime::to_bytes::<S2S, _>(&Flag(true)).unwrap();
/// assert_eq!(bytes, idlc_runtime::to_bytes::<S2C, _>(&Flag(true)).unwrap());
/// assert_eq!(idlc_runtime::from_bytes::<S2S, Flag>(&bytes).unwrap(), Flag(true));
/// ```
#[macro_export]
macro_rules! same_codec {
    ($ty:ty, $to:ty => $from:ty) => {
        #[allow(dead_code)]
        impl $crate::Codec<$to> for $ty {
            #[inline]
            fn encode_to(
                &self,
                w: &mut $crate::WriterOf<$to>,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                <Self as $crate::Codec<$from>>::encode_to(self, w)
            }
            #[inline]
            fn decode_from(
                r: &mut $crate::ReaderOf<'_, $to>,
            ) -> ::core::result::Result<Self, $crate::DecodeError> {
                <Self as $crate::Codec<$from>>::decode_from(r)
            }
            #[inline]
            fn encode_nested_to(
                &self,
                w: &mut $crate::WriterOf<$to>,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                <Self as $crate::Codec<$from>>::encode_nested_to(self, w)
            }
            #[inline]
            fn decode_nested_from(
                r: &mut $crate::ReaderOf<'_, $to>,
            ) -> ::core::result::Result<Self, $crate::DecodeError> {
                <Self as $crate::Codec<$from>>::decode_nested_from(r)
            }
            #[inline]
            fn decode_in_place_from(
                &mut self,
                r: &mut $crate::ReaderOf<'_, $to>,
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                <Self as $crate::Codec<$from>>::decode_in_place_from(self, r)
            }
            #[inline]
            fn decode_nested_in_place_from(
                &mut self,
                r: &mut $crate::ReaderOf<'_, $to>,
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                <Self as $crate::Codec<$from>>::decode_nested_in_place_from(self, r)
            }
            #[inline]
            fn sent(&self) -> ::core::result::Result<Self, $crate::EncodeError> {
                <Self as $crate::Codec<$from>>::sent(self)
            }
            #[inline]
            fn prefetch_owned(&self) {
                <Self as $crate::Codec<$from>>::prefetch_owned(self)
            }
            #[inline]
            fn sent_equals(&self, other: &Self) -> ::core::result::Result<bool, $crate::EncodeError>
            where
                Self: ::core::cmp::PartialEq,
            {
                <Self as $crate::Codec<$from>>::sent_equals(self, other)
            }
        }
    };
}

/// Encodes `value` in encoding `E` into a new buffer (padded to a whole byte).
///
/// ```
/// use idlc_runtime::{to_bytes, BitStream, BitWriter, BitReader, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// struct Flag(bool);
/// impl Codec<E> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bool(self.0) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bool().map(Flag) }
/// }
/// assert_eq!(to_bytes::<E, _>(&Flag(true)).unwrap(), vec![1]);
/// ```
pub fn to_bytes<E: Encoding, T: Codec<E>>(value: &T) -> Result<Vec<u8>, EncodeError> {
    let mut w = <E::Style as Style>::Writer::default();
    let written = value.encode_to(&mut w);
    bytes_written(w, written)
}

/// The bytes of `w` once a value is `written` in it: the part of [`to_bytes`] that does not
/// depend on the value's type, compiled once per writer (and what `to_bytes_with` ends with).
#[inline]
pub fn bytes_written<W: WireWrite>(
    w: W,
    written: Result<(), EncodeError>,
) -> Result<Vec<u8>, EncodeError> {
    written.map(|()| w.into_bytes())
}

/// The value the receiver gets when `value` is sent in encoding `E` (what a generated struct's
/// `quantized_with::<E>` returns): [`Codec::sent`], after the encoder has checked that `value`
/// can be sent at all, so that the error is the one [`to_bytes`] gives. One generic function
/// here rather than a body per struct: a user's build type-checks it once.
///
/// ```
/// use idlc_runtime::{quantized, BitStream, BitWriter, BitReader, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// # #[derive(Debug, PartialEq)]
/// struct Flag(bool);
/// impl Codec<E> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bool(self.0) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bool().map(Flag) }
/// }
/// assert_eq!(quantized::<E, _>(&Flag(true)).unwrap(), Flag(true));
/// ```
///
/// # Errors
/// What [`Codec::encode_to`] or [`Codec::sent`] returns.
pub fn quantized<E: Encoding, T: Codec<E>>(value: &T) -> Result<T, EncodeError> {
    let mut checked = <E::Style as Style>::Writer::default();
    value.encode_to(&mut checked)?;
    value.sent()
}

/// Decodes a value of encoding `E` from `bytes`. Whatever follows the value (a newer writer's
/// tail) is ignored.
///
/// ```
/// use idlc_runtime::{from_bytes, BitStream, BitWriter, BitReader, Codec, DecodeError, EncodeError, Encoding, WireRead, WireWrite};
/// # #[derive(Debug, Clone, Copy, Default)] struct E;
/// # impl Encoding for E { const NAME: &'static str = "E"; type Style = BitStream; }
/// # #[derive(Debug)]
/// struct Flag(bool);
/// impl Codec<E> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> { w.write_bool(self.0) }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> { r.read_bool().map(Flag) }
/// }
/// assert!(from_bytes::<E, Flag>(&[0b11]).unwrap().0);
/// assert!(from_bytes::<E, Flag>(&[]).is_err());
/// ```
#[inline]
pub fn from_bytes<E: Encoding, T: Codec<E>>(bytes: &[u8]) -> Result<T, DecodeError> {
    let mut r = <E::Style as Style>::Reader::from_bytes(bytes);
    T::decode_from(&mut r)
}

/// Skips an open extension point this reader knows no fields of: the present bit and, if it is
/// set, the extension whose length follows (see [`WireWrite::write_extension`]).
///
/// ```
/// use idlc_runtime::{skip_extension, BitReader, BitWriter, WireRead, WireWrite};
/// let mut w = BitWriter::new();
/// w.write_extension(|w| w.write_bits(0x1234, 16)).unwrap();
/// w.write_bool(true).unwrap();
/// let bytes = w.into_bytes();
/// let mut r = BitReader::new(&bytes);
/// skip_extension(&mut r).unwrap();
/// assert!(r.read_bool().unwrap());
/// ```
pub fn skip_extension<'a, R: WireRead<'a>>(r: &mut R) -> Result<(), DecodeError> {
    // The end of the message is an absent extension, like an absent segment after a FENCE.
    if r.bits_remaining() == 0 {
        return Ok(());
    }
    r.read_extension(|_| Ok(())).map(|_| ())
}

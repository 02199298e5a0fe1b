//! The entry points every generated struct has (DESIGN.md "Generated Rust API"), written once:
//! a generated struct says `idlc::codec_methods!(Player);` (and `idlc::delta_methods!(Player);`
//! for a PUBLISHABLE_STRUCT) instead of repeating the same forwarding block per struct.
//!
//! They stay inherent methods, not provided methods of a trait: game code that imports only the
//! generated module (`use mygame::net_client as c;` then `c::World::from_bytes(..)`) calls them
//! without bringing any trait into scope. Each forwards to the struct's [`Codec`] or
//! [`DeltaCodec`] in the module's `DefaultEncoding`, or in the encoding named by `E`; the macro
//! expands where it is called, so `DefaultEncoding` is the calling module's.
//!
//! [`Codec`]: crate::Codec
//! [`DeltaCodec`]: crate::DeltaCodec

/// The full-form entry points of a generated struct: `to_bytes`, `from_bytes`,
/// `from_bytes_in_place`, their `_with::<E>` forms, `encode`, `decode`, `decode_in_place` and
/// `quantized_with`. The calling module defines `DefaultEncoding`, and the struct implements
/// `Codec<DefaultEncoding>`.
///
/// ```
/// use idlc_runtime::{BitReader, BitStream, BitWriter, Codec, DecodeError, EncodeError, Encoding};
///
/// #[derive(Debug, Clone, Copy, Default)]
/// pub struct DefaultEncoding;
/// impl Encoding for DefaultEncoding {
///     const NAME: &'static str = "Lean";
///     type Style = BitStream;
/// }
///
/// #[derive(Debug, Clone, PartialEq, Default)]
/// pub struct Flag {
///     pub on: bool,
/// }
///
/// impl Codec<DefaultEncoding> for Flag {
///     fn encode_to(&self, w: &mut BitWriter) -> Result<(), EncodeError> {
///         idlc_runtime::WireWrite::write_bool(w, self.on)
///     }
///     fn decode_from(r: &mut BitReader<'_>) -> Result<Self, DecodeError> {
///         Ok(Flag { on: idlc_runtime::WireRead::read_bool(r)? })
///     }
/// }
///
/// idlc_runtime::codec_methods!(Flag);
///
/// let bytes = Flag { on: true }.to_bytes().unwrap();
/// assert_eq!(Flag::from_bytes(&bytes).unwrap(), Flag { on: true });
/// ```
#[macro_export]
macro_rules! codec_methods {
    ($name:ident) => {
        #[allow(dead_code)]
        impl $name {
            /// Encodes `self` in [`DefaultEncoding`]: the full form, every field.
            #[inline]
            #[allow(clippy::wrong_self_convention)]
            pub fn to_bytes(
                &self,
            ) -> ::core::result::Result<::std::vec::Vec<u8>, $crate::EncodeError> {
                $crate::to_bytes::<DefaultEncoding, Self>(self)
            }

            /// Decodes a value written by [`Self::to_bytes`]; any malformed input is an error.
            #[inline]
            pub fn from_bytes(bytes: &[u8]) -> ::core::result::Result<Self, $crate::DecodeError> {
                $crate::from_bytes::<DefaultEncoding, Self>(bytes)
            }

            /// Decodes a value written by [`Self::to_bytes`] into `self`, reusing the memory it
            /// owns (its `Vec`s and `String`s): a receiver that decodes every packet into one
            /// value allocates only when a collection grows. On an error `self` holds a mix of
            /// its old fields and the ones read, each a valid value.
            #[inline]
            #[allow(clippy::wrong_self_convention)]
            pub fn from_bytes_in_place(
                &mut self,
                bytes: &[u8],
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                $crate::from_bytes_in_place::<DefaultEncoding, Self>(bytes, self)
            }

            /// Encodes `self` in the encoding `E`.
            #[allow(clippy::wrong_self_convention)]
            pub fn to_bytes_with<E: $crate::Encoding>(
                &self,
            ) -> ::core::result::Result<::std::vec::Vec<u8>, $crate::EncodeError>
            where
                Self: $crate::Codec<E>,
            {
                // `to_bytes`'s body, here rather than called: a user's build compiles one
                // function per type and encoding instead of two.
                let mut w = $crate::WriterOf::<E>::default();
                let written = $crate::Codec::<E>::encode_to(self, &mut w);
                $crate::__private::bytes_written(w, written)
            }

            /// Decodes a value written in the encoding `E`.
            pub fn from_bytes_with<E: $crate::Encoding>(
                bytes: &[u8],
            ) -> ::core::result::Result<Self, $crate::DecodeError>
            where
                Self: $crate::Codec<E>,
            {
                let mut r = <$crate::ReaderOf<'_, E> as $crate::WireRead<'_>>::from_bytes(bytes);
                <Self as $crate::Codec<E>>::decode_from(&mut r)
            }

            /// [`Self::from_bytes_in_place`] in the encoding `E`.
            #[allow(clippy::wrong_self_convention)]
            pub fn from_bytes_in_place_with<E: $crate::Encoding>(
                &mut self,
                bytes: &[u8],
            ) -> ::core::result::Result<(), $crate::DecodeError>
            where
                Self: $crate::Codec<E>,
            {
                $crate::from_bytes_in_place::<E, Self>(bytes, self)
            }

            /// Appends `self` in [`DefaultEncoding`] to a writer you reuse.
            #[inline]
            pub fn encode(
                &self,
                w: &mut $crate::WriterOf<DefaultEncoding>,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                $crate::Codec::<DefaultEncoding>::encode_to(self, w)
            }

            /// Reads one value in [`DefaultEncoding`] from a reader.
            #[inline]
            pub fn decode(
                r: &mut $crate::ReaderOf<'_, DefaultEncoding>,
            ) -> ::core::result::Result<Self, $crate::DecodeError> {
                <Self as $crate::Codec<DefaultEncoding>>::decode_from(r)
            }

            /// Reads one value in [`DefaultEncoding`] from a reader into `self`, as
            /// [`Self::from_bytes_in_place`] does.
            #[inline]
            pub fn decode_in_place(
                &mut self,
                r: &mut $crate::ReaderOf<'_, DefaultEncoding>,
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                $crate::Codec::<DefaultEncoding>::decode_in_place_from(self, r)
            }

            /// The value the receiver gets when `self` is sent in the encoding `E`: quantized
            /// fields on their steps, as `from_bytes_with::<E>(&to_bytes_with::<E>()?)` would
            /// give, computed without decoding; the error `to_bytes_with` would give for a
            /// value it cannot send.
            pub fn quantized_with<E: $crate::Encoding>(
                &self,
            ) -> ::core::result::Result<Self, $crate::EncodeError>
            where
                Self: $crate::Codec<E>,
            {
                $crate::quantized::<E, Self>(self)
            }
        }
    };
}

/// The delta entry points of a generated PUBLISHABLE_STRUCT: `encode_delta`,
/// `encode_delta_into`, `decode_delta`, `decode_delta_into`, `to_delta_bytes`,
/// `from_delta_bytes` and their `_with::<E>` forms. The struct implements
/// `DeltaCodec<DefaultEncoding>` of the calling module's `DefaultEncoding`.
#[macro_export]
macro_rules! delta_methods {
    ($name:ident) => {
        #[allow(dead_code)]
        impl $name {
            /// Appends what changed since `baseline` (the state the receiver holds) in
            /// [`DefaultEncoding`], and returns the mirror: exactly the state the receiver will
            /// reconstruct, the baseline of the next delta once the receiver has it.
            #[inline]
            pub fn encode_delta(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                w: &mut $crate::WriterOf<DefaultEncoding>,
            ) -> ::core::result::Result<Self, $crate::EncodeError> {
                $crate::DeltaCodec::<DefaultEncoding>::encode_delta_to(self, baseline, ctx, w)
            }

            /// [`Self::encode_delta`] with the mirror written into `mirror`, reusing the memory
            /// its `Vec`s hold (keep two mirrors and swap them). `baseline` is never touched;
            /// after an error `mirror` holds no meaningful state.
            #[inline]
            pub fn encode_delta_into(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                w: &mut $crate::WriterOf<DefaultEncoding>,
                mirror: &mut Self,
            ) -> ::core::result::Result<(), $crate::EncodeError> {
                $crate::DeltaCodec::<DefaultEncoding>::encode_delta_into(
                    self, baseline, ctx, w, mirror,
                )
            }

            /// Reads a delta written by [`Self::encode_delta`] against the same baseline.
            #[inline]
            pub fn decode_delta(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                r: &mut $crate::ReaderOf<'_, DefaultEncoding>,
            ) -> ::core::result::Result<Self, $crate::DecodeError> {
                <Self as $crate::DeltaCodec<DefaultEncoding>>::decode_delta_from(baseline, ctx, r)
            }

            /// [`Self::decode_delta`] into `state`, reusing the memory its `Vec`s hold (keep two
            /// states and swap them). `baseline` is never touched; after an error `state` holds
            /// no meaningful state.
            #[inline]
            pub fn decode_delta_into(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                r: &mut $crate::ReaderOf<'_, DefaultEncoding>,
                state: &mut Self,
            ) -> ::core::result::Result<(), $crate::DecodeError> {
                <Self as $crate::DeltaCodec<DefaultEncoding>>::decode_delta_into(
                    baseline, ctx, r, state,
                )
            }

            /// [`Self::encode_delta`] into a new buffer (the mirror is dropped).
            #[inline]
            #[allow(clippy::wrong_self_convention)]
            pub fn to_delta_bytes(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
            ) -> ::core::result::Result<::std::vec::Vec<u8>, $crate::EncodeError> {
                $crate::to_delta_bytes::<DefaultEncoding, Self>(self, baseline, ctx)
            }

            /// Decodes a buffer written by [`Self::to_delta_bytes`] against the same baseline.
            #[inline]
            pub fn from_delta_bytes(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                bytes: &[u8],
            ) -> ::core::result::Result<Self, $crate::DecodeError> {
                $crate::from_delta_bytes::<DefaultEncoding, Self>(baseline, ctx, bytes)
            }

            /// [`Self::to_delta_bytes`] in the encoding `E`.
            #[allow(clippy::wrong_self_convention)]
            pub fn to_delta_bytes_with<E: $crate::Encoding>(
                &self,
                baseline: &Self,
                ctx: &$crate::DeltaContext,
            ) -> ::core::result::Result<::std::vec::Vec<u8>, $crate::EncodeError>
            where
                Self: $crate::DeltaCodec<E>,
            {
                $crate::to_delta_bytes::<E, Self>(self, baseline, ctx)
            }

            /// [`Self::from_delta_bytes`] in the encoding `E`.
            pub fn from_delta_bytes_with<E: $crate::Encoding>(
                baseline: &Self,
                ctx: &$crate::DeltaContext,
                bytes: &[u8],
            ) -> ::core::result::Result<Self, $crate::DecodeError>
            where
                Self: $crate::DeltaCodec<E>,
            {
                $crate::from_delta_bytes::<E, Self>(baseline, ctx, bytes)
            }
        }
    };
}

//! The Character codecs as [`Format`]s: one Character per message, the writer reused.

use idlc_runtime::BitWriter;
use idlc_tests::character_client::Character;
use prost::Message;

use super::bits::{BitPacker, BitUnpacker};
use super::{handwritten, model};
use crate::BenchError;
use crate::format::Format;

/// The hand-written bitpacker of MYENCODING1's layout ([`handwritten`]).
pub struct HandWritten;

impl Format for HandWritten {
    const NAME: &'static str = "hand-written bitpacker";
    type Value = Character;
    type Writer = BitPacker;
    type Reader = ();

    #[inline]
    fn encode<'w>(w: &'w mut BitPacker, value: &Character) -> Result<&'w [u8], BenchError> {
        w.clear();
        handwritten::encode(value, w)
            .map_err(|e| BenchError::new(format!("{}: {e:?}", Self::NAME)))?;
        Ok(w.finish())
    }

    #[inline]
    fn decode(_: &mut (), bytes: &[u8]) -> Result<Character, BenchError> {
        handwritten::decode(&mut BitUnpacker::new(bytes))
            .map_err(|e| BenchError::new(format!("{}: {e:?}", Self::NAME)))
    }
}

/// The code idlc generates for MYENCODING1.
pub struct Generated;

impl Format for Generated {
    const NAME: &'static str = "idlc generated MYENCODING1";
    type Value = Character;
    type Writer = BitWriter;
    type Reader = ();

    #[inline]
    fn encode<'w>(w: &'w mut BitWriter, value: &Character) -> Result<&'w [u8], BenchError> {
        w.clear();
        value.encode(w).map_err(BenchError::with(Self::NAME))?;
        Ok(w.finish())
    }

    #[inline]
    fn decode(_: &mut (), bytes: &[u8]) -> Result<Character, BenchError> {
        Character::from_bytes(bytes).map_err(BenchError::with(Self::NAME))
    }
}

/// bitcode 0.6 on its own model type, its `Buffer` reused.
pub struct Bitcode;

impl Format for Bitcode {
    const NAME: &'static str = "bitcode";
    type Value = model::Character;
    type Writer = bitcode::Buffer;
    type Reader = bitcode::Buffer;

    fn encode<'w>(
        w: &'w mut bitcode::Buffer,
        value: &model::Character,
    ) -> Result<&'w [u8], BenchError> {
        Ok(w.encode(value))
    }

    fn decode(r: &mut bitcode::Buffer, bytes: &[u8]) -> Result<model::Character, BenchError> {
        r.decode(bytes).map_err(BenchError::with(Self::NAME))
    }
}

/// prost 0.14 on its own model type.
pub struct Prost;

impl Format for Prost {
    const NAME: &'static str = "prost";
    type Value = model::proto::Character;
    type Writer = Vec<u8>;
    type Reader = ();

    fn encode<'w>(
        w: &'w mut Vec<u8>,
        value: &model::proto::Character,
    ) -> Result<&'w [u8], BenchError> {
        w.clear();
        value.encode(w).map_err(BenchError::with(Self::NAME))?;
        Ok(w)
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<model::proto::Character, BenchError> {
        model::proto::Character::decode(bytes).map_err(BenchError::with(Self::NAME))
    }
}

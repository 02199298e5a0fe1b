//! The mk48 serializers as [`Format`]s. Every one encodes an update as one message into a
//! writer reused from update to update (cleared first), and decodes a message into owned values.

use idlc_runtime::{BitWriter, ByteWriter, Codec};
use idlc_tests::mk48::{MK48, MK48_LOSSY, MK48_PLAIN, Update as IdlUpdate};
use prost::Message;

use super::{model, proto};
use crate::BenchError;
use crate::format::Format;

/// idlc, encoding MK48: lossless, every field in its range's bits, a bit stream.
pub struct IdlcRanged;

impl Format for IdlcRanged {
    const NAME: &'static str = "idlc MK48 (ranged, lossless)";
    type Value = IdlUpdate;
    type Writer = BitWriter;
    type Reader = ();

    fn encode<'w>(w: &'w mut BitWriter, value: &IdlUpdate) -> Result<&'w [u8], BenchError> {
        w.clear();
        Codec::<MK48>::encode_to(value, w).map_err(BenchError::with(Self::NAME))?;
        Ok(w.finish())
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<IdlUpdate, BenchError> {
        IdlUpdate::from_bytes_with::<MK48>(bytes).map_err(BenchError::with(Self::NAME))
    }

    fn decode_into(_: &mut (), bytes: &[u8], out: &mut IdlUpdate) -> Result<(), BenchError> {
        out.from_bytes_in_place_with::<MK48>(bytes)
            .map_err(BenchError::with(Self::NAME))
    }
}

/// idlc, encoding MK48_PLAIN: the native widths, a byte stream.
pub struct IdlcPlain;

impl Format for IdlcPlain {
    const NAME: &'static str = "idlc MK48_PLAIN (native widths, bytes)";
    type Value = IdlUpdate;
    type Writer = ByteWriter;
    type Reader = ();

    fn encode<'w>(w: &'w mut ByteWriter, value: &IdlUpdate) -> Result<&'w [u8], BenchError> {
        w.clear();
        Codec::<MK48_PLAIN>::encode_to(value, w).map_err(BenchError::with(Self::NAME))?;
        Ok(w.finish())
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<IdlUpdate, BenchError> {
        IdlUpdate::from_bytes_with::<MK48_PLAIN>(bytes).map_err(BenchError::with(Self::NAME))
    }

    fn decode_into(_: &mut (), bytes: &[u8], out: &mut IdlUpdate) -> Result<(), BenchError> {
        out.from_bytes_in_place_with::<MK48_PLAIN>(bytes)
            .map_err(BenchError::with(Self::NAME))
    }
}

/// idlc, encoding MK48_LOSSY: MK48 with positions and the world radius to 1 cm.
pub struct IdlcLossy;

impl Format for IdlcLossy {
    const NAME: &'static str = "idlc MK48_LOSSY (positions to 1 cm)";
    type Value = IdlUpdate;
    type Writer = BitWriter;
    type Reader = ();

    fn encode<'w>(w: &'w mut BitWriter, value: &IdlUpdate) -> Result<&'w [u8], BenchError> {
        w.clear();
        Codec::<MK48_LOSSY>::encode_to(value, w).map_err(BenchError::with(Self::NAME))?;
        Ok(w.finish())
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<IdlUpdate, BenchError> {
        IdlUpdate::from_bytes_with::<MK48_LOSSY>(bytes).map_err(BenchError::with(Self::NAME))
    }

    fn decode_into(_: &mut (), bytes: &[u8], out: &mut IdlUpdate) -> Result<(), BenchError> {
        out.from_bytes_in_place_with::<MK48_LOSSY>(bytes)
            .map_err(BenchError::with(Self::NAME))
    }
}

/// bitcode 0.6 (derive), its `Buffer` reused for encoding and for decoding.
pub struct Bitcode;

impl Format for Bitcode {
    const NAME: &'static str = "bitcode";
    type Value = model::Update;
    type Writer = bitcode::Buffer;
    type Reader = bitcode::Buffer;

    fn encode<'w>(
        w: &'w mut bitcode::Buffer,
        value: &model::Update,
    ) -> Result<&'w [u8], BenchError> {
        Ok(w.encode(value))
    }

    fn decode(r: &mut bitcode::Buffer, bytes: &[u8]) -> Result<model::Update, BenchError> {
        r.decode(bytes).map_err(BenchError::with(Self::NAME))
    }
}

/// postcard 1.1 (serde), `to_extend` into a reused `Vec`.
pub struct Postcard;

impl Format for Postcard {
    const NAME: &'static str = "postcard";
    type Value = model::Update;
    type Writer = Vec<u8>;
    type Reader = ();

    fn encode<'w>(w: &'w mut Vec<u8>, value: &model::Update) -> Result<&'w [u8], BenchError> {
        let mut buffer = std::mem::take(w);
        buffer.clear();
        *w = postcard::to_extend(value, buffer).map_err(BenchError::with(Self::NAME))?;
        Ok(w)
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<model::Update, BenchError> {
        postcard::from_bytes(bytes).map_err(BenchError::with(Self::NAME))
    }
}

/// prost 0.14 (derived `Message`), encoded into a reused `Vec`.
pub struct Prost;

impl Format for Prost {
    const NAME: &'static str = "prost";
    type Value = proto::Update;
    type Writer = Vec<u8>;
    type Reader = ();

    fn encode<'w>(w: &'w mut Vec<u8>, value: &proto::Update) -> Result<&'w [u8], BenchError> {
        w.clear();
        value.encode(w).map_err(BenchError::with(Self::NAME))?;
        Ok(w)
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<proto::Update, BenchError> {
        proto::Update::decode(bytes).map_err(BenchError::with(Self::NAME))
    }

    fn decode_into(_: &mut (), bytes: &[u8], out: &mut proto::Update) -> Result<(), BenchError> {
        out.clear();
        out.merge(bytes).map_err(BenchError::with(Self::NAME))
    }
}

/// bincode 2 (its own derive), the standard configuration (varints), into a reused `Vec`.
pub struct Bincode;

impl Format for Bincode {
    const NAME: &'static str = "bincode 2";
    type Value = model::Update;
    type Writer = Vec<u8>;
    type Reader = ();

    fn encode<'w>(w: &'w mut Vec<u8>, value: &model::Update) -> Result<&'w [u8], BenchError> {
        w.clear();
        bincode::encode_into_std_write(value, w, bincode::config::standard())
            .map_err(BenchError::with(Self::NAME))?;
        Ok(w)
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<model::Update, BenchError> {
        bincode::decode_from_slice(bytes, bincode::config::standard())
            .map(|(value, _)| value)
            .map_err(BenchError::with(Self::NAME))
    }
}

/// serde_json (the text baseline), into a reused `Vec`.
pub struct SerdeJson;

impl Format for SerdeJson {
    const NAME: &'static str = "serde_json";
    type Value = model::Update;
    type Writer = Vec<u8>;
    type Reader = ();

    fn encode<'w>(w: &'w mut Vec<u8>, value: &model::Update) -> Result<&'w [u8], BenchError> {
        w.clear();
        serde_json::to_writer(&mut *w, value).map_err(BenchError::with(Self::NAME))?;
        Ok(w)
    }

    fn decode(_: &mut (), bytes: &[u8]) -> Result<model::Update, BenchError> {
        serde_json::from_slice(bytes).map_err(BenchError::with(Self::NAME))
    }
}

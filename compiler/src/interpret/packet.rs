//! Packets of a PROTOCOL (docs/WIRE_FORMAT.md, section 6): the version found from the CRC, then
//! every item decoded by its id, as generated dispatch reads them.

use idlc_runtime::{
    BitStream, ByteStream, Encoding as RuntimeEncoding, ItemHeader, ItemKind, PacketReader,
    WireRead,
};
use indexmap::IndexMap;

use super::decode::Decoder;
use super::explain::Entry;
use super::{Context, DecodeError, DecodeErrorKind, Value};
use crate::ir::{EntryKind, Ir, ProtocolDef, Style, protocol::version_ids, response_struct_name};

#[derive(Debug, Clone, Copy, Default)]
struct Bits;
impl RuntimeEncoding for Bits {
    const NAME: &'static str = "interpreted BITSTREAM";
    type Style = BitStream;
}

#[derive(Debug, Clone, Copy, Default)]
struct Bytes;
impl RuntimeEncoding for Bytes {
    const NAME: &'static str = "interpreted BYTESTREAM";
    type Style = ByteStream;
}

/// Decodes a framed packet of the protocol `protocol` in `encoding`: the version whose id the
/// CRC matches, then each item (`id`, `name`, `kind`, `request`, and the `value` of a known
/// entry; an unknown id is listed with `"unknown": true` and skipped, as dispatch does). The
/// trace's bit offsets count from the start of the payload (after the 4-byte CRC).
pub fn decode_packet(
    ir: &Ir,
    encoding: &str,
    protocol: &str,
    packet: &[u8],
    trace: Option<&mut Vec<Entry>>,
) -> Result<Value, DecodeError> {
    let schema_error = |message: String| DecodeError {
        path: protocol.to_string(),
        kind: DecodeErrorKind::Schema(message),
    };
    let def = ir
        .schema
        .protocols
        .get(protocol)
        .ok_or_else(|| schema_error(format!("no PROTOCOL `{protocol}`")))?;
    let style = ir
        .encodings
        .get(encoding)
        .map(|e| e.style)
        .ok_or_else(|| schema_error(format!("no encoding `{encoding}`")))?;
    let ids = version_ids(ir, def, encoding);
    let version = ids
        .iter()
        .position(|&id| idlc_runtime::unframe(id, packet).is_ok());
    let Some(version) = version else {
        let error = idlc_runtime::unframe(ids.last().copied().unwrap_or_default(), packet)
            .err()
            .unwrap_or_else(|| {
                idlc_runtime::DecodeError::new(idlc_runtime::DecodeErrorKind::CrcMismatch, 0)
            });
        return Err(DecodeError {
            path: format!(
                "{protocol} (the CRC matches none of its {} versions)",
                ids.len()
            ),
            kind: DecodeErrorKind::Wire(error),
        });
    };
    let reader = Items {
        ir,
        encoding,
        protocol: def,
        trace,
    };
    let items = match style {
        Style::Bitstream => reader.read(PacketReader::<Bits>::new(ids[version], packet)),
        Style::Bytestream => reader.read(PacketReader::<Bytes>::new(ids[version], packet)),
    }?;
    let mut fields = IndexMap::new();
    fields.insert("protocol".to_string(), Value::Str(protocol.to_string()));
    fields.insert("version".to_string(), Value::Int(version as i128));
    fields.insert("items".to_string(), Value::List(items));
    Ok(Value::Struct(fields))
}

struct Items<'a, 't> {
    ir: &'a Ir,
    encoding: &'a str,
    protocol: &'a ProtocolDef,
    trace: Option<&'t mut Vec<Entry>>,
}

impl Items<'_, '_> {
    fn read<'p, E: RuntimeEncoding>(
        mut self,
        reader: Result<PacketReader<'p, E>, idlc_runtime::DecodeError>,
    ) -> Result<Vec<Value>, DecodeError> {
        let protocol = self.protocol.name.clone();
        let wire = |error: idlc_runtime::DecodeError, index: usize| DecodeError {
            path: format!("{protocol} item {index}"),
            kind: DecodeErrorKind::Wire(error),
        };
        let mut reader = reader.map_err(|e| wire(e, 0))?;
        let mut items = Vec::new();
        loop {
            let index = items.len();
            let mut failure = None;
            let item = reader.next_item(|header, r| match self.item(header, r) {
                Ok(value) => Ok(value),
                Err(error) => {
                    let wire_error = error.wire().cloned();
                    failure = Some(error);
                    Err(wire_error.unwrap_or_else(|| {
                        idlc_runtime::DecodeError::new(
                            idlc_runtime::DecodeErrorKind::InvalidArgument,
                            0,
                        )
                    }))
                }
            });
            match item {
                Ok(Some(value)) => items.push(value),
                Ok(None) => return Ok(items),
                Err(error) => return Err(failure.unwrap_or_else(|| wire(error, index))),
            }
        }
    }

    /// One item: its header fields, and its decoded value when the entry is known.
    fn item<'d, R: WireRead<'d>>(
        &mut self,
        header: ItemHeader,
        r: &mut R,
    ) -> Result<Value, DecodeError> {
        let mut fields = IndexMap::new();
        fields.insert("id".to_string(), Value::Int(header.id.into()));
        let (kind, request) = match header.kind {
            ItemKind::Message => ("message", None),
            ItemKind::Request(request) => ("request", Some(request)),
            ItemKind::Response(request) => ("response", Some(request)),
        };
        let entry = self
            .protocol
            .entries
            .iter()
            .find(|e| e.id == header.id)
            .map(|e| &e.kind);
        let struct_name = match (entry, header.kind) {
            (Some(EntryKind::Message(name)), ItemKind::Message)
            | (
                Some(EntryKind::Rpc {
                    name,
                    returns: None,
                }),
                ItemKind::Message,
            )
            | (
                Some(EntryKind::Rpc {
                    name,
                    returns: Some(_),
                }),
                ItemKind::Request(_),
            ) => Some(name.clone()),
            (
                Some(EntryKind::Rpc {
                    name,
                    returns: Some(_),
                }),
                ItemKind::Response(_),
            ) => Some(response_struct_name(name)),
            _ => None,
        };
        if let Some(EntryKind::Message(name) | EntryKind::Rpc { name, .. }) = entry {
            fields.insert("name".to_string(), Value::Str(name.clone()));
        }
        fields.insert("kind".to_string(), Value::Str(kind.to_string()));
        if let Some(request) = request {
            fields.insert("request".to_string(), Value::Int(request.into()));
        }
        match struct_name {
            Some(name) => {
                let ctx =
                    Context::new(self.ir, self.encoding, &name).map_err(|message| DecodeError {
                        path: name.clone(),
                        kind: DecodeErrorKind::Schema(message),
                    })?;
                let value = Decoder::new(&ctx, self.trace.as_deref_mut()).top(r, &name)?;
                fields.insert("value".to_string(), value);
            }
            None => {
                fields.insert("unknown".to_string(), Value::Bool(true));
            }
        }
        Ok(Value::Struct(fields))
    }
}

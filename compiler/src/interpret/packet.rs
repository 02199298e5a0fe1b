//! Packets of a PROTOCOL (docs/WIRE_FORMAT.md, section 6): the version found from the CRC, then
//! every item decoded by its id, as generated dispatch reads them.

use idlc_runtime::{
    BitStream, ByteStream, DEFAULT_VLQ_GROUP_BITS, Encoding as RuntimeEncoding, FRAME_HEADER_BYTES,
    ItemHeader, ItemKind, PacketReader, SESSION_HEADER_BYTES, SessionHeader, WireRead, vlq_bits,
};
use indexmap::IndexMap;

use super::decode::Decoder;
use super::encode::native_bool_bits;
use super::explain::Entry;
use super::value::item_path;
use super::{Context, DecodeError, DecodeErrorKind, Value};
use crate::ir::protocol::{Link, LinkDirection, link, link_version_ids, version_ids};
use crate::ir::{EntryKind, Ir, ProtocolDef, ProtocolEntry, Style, response_struct_name};

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
/// entry; an unknown id is listed with `"unknown": true` and skipped, as dispatch does).
/// `protocol` may name a link of the side (`crate::ir::protocol::links`): its session packets,
/// each item with the member `protocol` its id names.
///
/// Bit offsets (of errors and of the trace) count from the start of the packet: the CRC is bits
/// 0 to 31. The trace explains every bit: the CRC, each item's present bit, length, header and
/// request id, its body (the message's fields, a newer writer's tail, an unknown item), and the
/// end marker and padding after the last item. A body's paths begin with the item
/// (`P.items[1] M.v`).
///
/// A response item is looked up among `protocol`'s own RPCs: right for a protocol that flows
/// both ways; for a link of two, see [`decode_packet_answering`].
pub fn decode_packet(
    ir: &Ir,
    encoding: &str,
    protocol: &str,
    packet: &[u8],
    trace: Option<&mut Vec<Entry>>,
) -> Result<Value, DecodeError> {
    decode_packet_answering(ir, encoding, protocol, protocol, packet, trace)
}

/// [`decode_packet`] for a packet whose responses answer the requests of `answers`: the
/// protocol the receiver of the packet sends (WIRE_FORMAT.md section 6, "Items in a session"),
/// whose RPC ids the responses carry. `idlc decode --type P --answers Q`.
pub fn decode_packet_answering(
    ir: &Ir,
    encoding: &str,
    protocol: &str,
    answers: &str,
    packet: &[u8],
    mut trace: Option<&mut Vec<Entry>>,
) -> Result<Value, DecodeError> {
    let schema_error = |message: String| DecodeError {
        path: protocol.to_string(),
        kind: DecodeErrorKind::Schema(message),
    };
    let resolve = |name: &str| match ir.schema.protocols.get(name) {
        // A protocol reads as the link of it alone: item ids are its entry ids.
        Some(def) => Ok(Link {
            name: def.name.clone(),
            direction: LinkDirection::Sends,
            members: vec![def],
        }),
        None => link(ir, name).ok_or_else(|| schema_error(format!("no PROTOCOL or link `{name}`"))),
    };
    let link = resolve(protocol)?;
    let answered = resolve(answers)?;
    let style = ir
        .encodings
        .get(encoding)
        .map(|e| e.style)
        .ok_or_else(|| schema_error(format!("no encoding `{encoding}`")))?;
    let ids = match link.members.as_slice() {
        [def] => version_ids(ir, def, encoding),
        _ => link_version_ids(ir, &link, encoding),
    };
    // A plain packet of a version, or a session packet (WIRE_FORMAT.md, "Session packets").
    let plain = ids
        .iter()
        .position(|&id| idlc_runtime::unframe(id, packet).is_ok());
    let session = ids
        .iter()
        .position(|&id| idlc_runtime::unframe(idlc_runtime::session_id(id), packet).is_ok());
    let crc = format!("{protocol} (CRC32)");
    let Some(version) = plain.or(session) else {
        let error = idlc_runtime::unframe(ids.last().copied().unwrap_or_default(), packet)
            .err()
            .unwrap_or_else(|| {
                idlc_runtime::DecodeError::new(idlc_runtime::DecodeErrorKind::CrcMismatch, 0)
            });
        if let Some(trace) = trace {
            trace.push(Entry::failure(&crc, error.clone()));
        }
        return Err(DecodeError {
            path: format!(
                "{protocol} (the CRC matches none of its {} versions)",
                ids.len()
            ),
            kind: DecodeErrorKind::Wire(error),
        });
    };
    let session_header = match plain {
        Some(_) => None,
        None => {
            let payload = packet.get(FRAME_HEADER_BYTES..).unwrap_or_default();
            let (header, _) = SessionHeader::split(payload).map_err(|error| DecodeError {
                path: format!("{protocol} (session header)"),
                kind: DecodeErrorKind::Wire(error),
            })?;
            Some(header)
        }
    };
    let frame_bits = 8 * FRAME_HEADER_BYTES as u64;
    let header_bits = frame_bits + 8 * session_header.map_or(0, |_| SESSION_HEADER_BYTES) as u64;
    let first = trace.as_deref().map_or(0, Vec::len);
    if let Some(trace) = trace.as_deref_mut() {
        let what = if session_header.is_some() {
            "session packet, "
        } else {
            ""
        };
        trace.push(Entry {
            path: crc,
            start: 0,
            end: frame_bits,
            value: format!("{what}version {version} of {}", ids.len()),
            error: None,
            bytes: true,
        });
        if let Some(header) = session_header {
            trace.push(Entry {
                path: format!("{protocol} (session header)"),
                start: frame_bits,
                end: header_bits,
                value: format!(
                    "sequence {}, ack {}, ack bits {:#010x}",
                    header.sequence, header.ack, header.ack_bits
                ),
                error: None,
                bytes: true,
            });
        }
    }
    let reader = Items {
        ir,
        encoding,
        link: &link,
        answered: &answered,
        session: session_header.is_some(),
        style,
        payload_bits: 8 * (packet.len() as u64).saturating_sub(header_bits / 8),
        next: 0,
        trace: trace.as_deref_mut(),
    };
    let items_of = packet.get((header_bits / 8) as usize..).unwrap_or_default();
    let items = match (style, session_header) {
        (Style::Bitstream, None) => reader.read(PacketReader::<Bits>::new(ids[version], packet)),
        (Style::Bytestream, None) => reader.read(PacketReader::<Bytes>::new(ids[version], packet)),
        (Style::Bitstream, Some(_)) => {
            reader.read(Ok(PacketReader::<Bits>::session_items(items_of)))
        }
        (Style::Bytestream, Some(_)) => {
            reader.read(Ok(PacketReader::<Bytes>::session_items(items_of)))
        }
    };
    // The items were read from the payload: count from the start of the packet.
    let framing_entries = 1 + usize::from(session_header.is_some());
    if let Some(trace) = trace {
        for entry in trace.iter_mut().skip(first + framing_entries) {
            entry.start += header_bits;
            entry.end += header_bits;
        }
    }
    let items = items.map_err(|mut error| {
        if let DecodeErrorKind::Wire(wire) = &mut error.kind {
            wire.bit_offset += header_bits;
        }
        error
    })?;
    let mut fields = IndexMap::new();
    fields.insert("protocol".to_string(), Value::Str(protocol.to_string()));
    fields.insert("version".to_string(), Value::Int(version as i128));
    if let Some(header) = session_header {
        let mut session = IndexMap::new();
        session.insert("sequence".to_string(), Value::Int(header.sequence.into()));
        session.insert("ack".to_string(), Value::Int(header.ack.into()));
        session.insert("ack_bits".to_string(), Value::Int(header.ack_bits.into()));
        fields.insert("session".to_string(), Value::Struct(session));
    }
    fields.insert("items".to_string(), Value::List(items));
    Ok(Value::Struct(fields))
}

struct Items<'a, 't> {
    ir: &'a Ir,
    encoding: &'a str,
    /// The protocol, as a link of one member, or the link.
    link: &'a Link<'a>,
    /// The protocol (or link) whose requests the packet's responses answer.
    answered: &'a Link<'a>,
    /// Whether it is a session packet: a response's body starts with its status.
    session: bool,
    style: Style,
    /// The bits of the payload.
    payload_bits: u64,
    /// Where the next item (or the end) starts.
    next: u64,
    trace: Option<&'t mut Vec<Entry>>,
}

impl<'a> Items<'a, '_> {
    fn read<'p, E: RuntimeEncoding>(
        mut self,
        reader: Result<PacketReader<'p, E>, idlc_runtime::DecodeError>,
    ) -> Result<Vec<Value>, DecodeError> {
        let protocol = self.link.name.clone();
        let mut reader = reader.map_err(|error| DecodeError {
            path: protocol.clone(),
            kind: DecodeErrorKind::Wire(error),
        })?;
        let mut items = Vec::new();
        loop {
            let index = items.len();
            let mut failure = None;
            let mut entered = false;
            let item = reader.next_item(|header, r| {
                entered = true;
                match self.item(index, header, r) {
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
                }
            });
            match item {
                Ok(Some(value)) => items.push(value),
                Ok(None) => {
                    self.end();
                    return Ok(items);
                }
                Err(error) => {
                    if let Some(failure) = failure {
                        // The body's decoder has recorded it.
                        return Err(failure);
                    }
                    // The runtime's: an item's present bit, length or header, or the end.
                    let path = match error.kind {
                        _ if entered => item_path(&protocol, index),
                        idlc_runtime::DecodeErrorKind::TrailingBytes
                        | idlc_runtime::DecodeErrorKind::BadPadding => format!("{protocol} (end)"),
                        _ => format!("{} (header)", item_path(&protocol, index)),
                    };
                    if let Some(trace) = self.trace.as_deref_mut() {
                        trace.push(Entry::failure(&path, error.clone()));
                    }
                    return Err(DecodeError {
                        path,
                        kind: DecodeErrorKind::Wire(error),
                    });
                }
            }
        }
    }

    /// The member and entry an item names: a response's among the answered protocol's (or
    /// link's) RPCs, anything else's among the packet's.
    fn entry(&self, header: ItemHeader) -> Option<(&'a ProtocolDef, &'a ProtocolEntry)> {
        match header.kind {
            ItemKind::Response(_) => self.answered.entry(header.id),
            _ => self.link.entry(header.id),
        }
    }

    /// Records a read of the bits `start..end` of the payload.
    fn note(&mut self, path: String, start: u64, end: u64, value: String) {
        if let Some(trace) = self.trace.as_deref_mut() {
            trace.push(Entry {
                path,
                start,
                end,
                value,
                error: None,
                bytes: false,
            });
        }
    }

    /// The lines of an item's framing: its present bit, length, header and request id, found
    /// back from where the item begins (`self.next`), where its body begins (the reader's
    /// position) and the header's values: a VLQ has one encoding (the runtime rejects any
    /// other), so its width follows from its value.
    fn framing(&mut self, index: usize, header: ItemHeader, body: u64, end: u64) -> String {
        let item = item_path(&self.link.name, index);
        let (tag, request) = match header.kind {
            ItemKind::Message => (0, None),
            ItemKind::Request(request) => (1, Some(request)),
            ItemKind::Response(request) => (2, Some(request)),
            ItemKind::Reliable(_) | ItemKind::Snapshot { .. } => (3, None),
        };
        let request_bits = request.map_or(0, |r| vlq_bits(r.into(), DEFAULT_VLQ_GROUP_BITS));
        let session = session_fields(header.kind);
        let session_bits = session.as_ref().map_or(0, |(bits, _)| *bits);
        let header_end = body
            .saturating_sub(request_bits)
            .saturating_sub(session_bits);
        let header_start = header_end.saturating_sub(vlq_bits(
            u64::from(header.id) << 2 | tag,
            DEFAULT_VLQ_GROUP_BITS,
        ));
        let start = self.next;
        let length_start = start + u64::from(native_bool_bits(self.style));
        let entry = self.entry(header).map(|(_, e)| entry_name(e));
        let kind = match header.kind {
            ItemKind::Message => "message",
            ItemKind::Request(_) => "request",
            ItemKind::Response(_) => "response",
            ItemKind::Reliable(_) => "reliable message",
            ItemKind::Snapshot { age: 0, .. } => "snapshot",
            ItemKind::Snapshot { .. } => "snapshot delta",
        };
        let size = match self.style {
            Style::Bitstream => format!("{} bits", end - header_start),
            Style::Bytestream => format!("{} bytes", (end - header_start) / 8),
        };
        self.note(
            format!("{item} (present)"),
            start,
            length_start,
            "an item".into(),
        );
        self.note(format!("{item} (length)"), length_start, header_start, size);
        let name = entry.map_or_else(|| "unknown".to_string(), |name| format!("`{name}`"));
        let label = format!("id {} {name}, {kind}", header.id);
        self.note(format!("{item} (header)"), header_start, header_end, label);
        if let Some((_, value)) = session {
            let path = format!("{item} (session)");
            self.note(path, header_end, header_end + session_bits, value);
        }
        if let Some(request) = request {
            let path = format!("{item} (request id)");
            self.note(
                path,
                body.saturating_sub(request_bits),
                body,
                request.to_string(),
            );
        }
        self.next = end;
        item
    }

    /// The end of the items: the 0 bit (a byte in a BYTESTREAM) and the padding after it, when
    /// the items do not end the data.
    fn end(&mut self) {
        let protocol = &self.link.name;
        let (start, payload_bits) = (self.next, self.payload_bits);
        if start < payload_bits {
            let marker = (start + u64::from(native_bool_bits(self.style))).min(payload_bits);
            self.note(
                format!("{protocol} (end)"),
                start,
                marker,
                "no more items".into(),
            );
            if marker < payload_bits {
                let path = format!("{protocol} (padding)");
                self.note(path, marker, payload_bits, "padding".into());
            }
        }
    }

    /// The status before a session response's body (WIRE_FORMAT.md section 6, "Answers"): the
    /// refusal (`code`, `text`) when the call was refused, `None` when a response follows.
    fn answer_status<'d, R: WireRead<'d>>(
        &mut self,
        item: &str,
        r: &mut R,
    ) -> Result<Option<Value>, DecodeError> {
        let wire = |error: idlc_runtime::DecodeError| DecodeError {
            path: format!("{item} (answer)"),
            kind: DecodeErrorKind::Wire(error),
        };
        let start = r.bits_read();
        let refused = r.read_bool().map_err(wire)?;
        let status = if refused { "refused" } else { "a response" };
        self.note(
            format!("{item} (answer)"),
            start,
            r.bits_read(),
            status.into(),
        );
        if !refused {
            return Ok(None);
        }
        let start = r.bits_read();
        let refusal = idlc_runtime::Refusal::decode(r).map_err(wire)?;
        let label = format!("code {}: {:?}", refusal.code, refusal.text);
        self.note(format!("{item} (refusal)"), start, r.bits_read(), label);
        let mut fields = IndexMap::new();
        fields.insert("code".to_string(), Value::Int(refusal.code.into()));
        fields.insert("text".to_string(), Value::Str(refusal.text));
        Ok(Some(Value::Struct(fields)))
    }

    /// One item: its header fields, and its decoded value when the entry is known.
    fn item<'d, R: WireRead<'d>>(
        &mut self,
        index: usize,
        header: ItemHeader,
        r: &mut R,
    ) -> Result<Value, DecodeError> {
        let body_start = r.bits_read();
        let item_end = body_start + r.bits_remaining();
        let item = self.framing(index, header, body_start, item_end);
        let mut fields = IndexMap::new();
        fields.insert("id".to_string(), Value::Int(header.id.into()));
        let (kind, request) = match header.kind {
            ItemKind::Message => ("message", None),
            ItemKind::Request(request) => ("request", Some(request)),
            ItemKind::Response(request) => ("response", Some(request)),
            ItemKind::Reliable(_) => ("reliable message", None),
            ItemKind::Snapshot { age: 0, .. } => ("snapshot", None),
            ItemKind::Snapshot { .. } => ("snapshot delta", None),
        };
        match header.kind {
            ItemKind::Reliable(index) => {
                fields.insert("index".to_string(), Value::Int(index.into()));
            }
            ItemKind::Snapshot { age, ticks } if age > 0 => {
                fields.insert("age".to_string(), Value::Int(age.into()));
                fields.insert("ticks".to_string(), Value::Int(ticks.into()));
            }
            _ => {}
        }
        // A reliable message and a full snapshot are read as a message; a delta is not (its
        // baseline is in another packet).
        let as_message = match header.kind {
            ItemKind::Reliable(_) | ItemKind::Snapshot { age: 0, .. } => ItemKind::Message,
            other => other,
        };
        let member = self.entry(header);
        let entry = member.map(|(_, e)| &e.kind);
        let struct_name = match (entry, as_message) {
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
        if let Some((protocol, entry)) = member {
            let of = match header.kind {
                ItemKind::Response(_) => self.answered,
                _ => self.link,
            };
            if of.members.len() > 1 {
                let protocol = Value::Str(protocol.name.clone());
                fields.insert("protocol".to_string(), protocol);
            }
            let name = Value::Str(entry_name(entry).to_string());
            fields.insert("name".to_string(), name);
        }
        fields.insert("kind".to_string(), Value::Str(kind.to_string()));
        if let Some(request) = request {
            fields.insert("request".to_string(), Value::Int(request.into()));
        }
        if self.session
            && matches!(header.kind, ItemKind::Response(_))
            && let Some(refusal) = self.answer_status(&item, r)?
        {
            fields.insert("refusal".to_string(), refusal);
            let read = r.bits_read();
            if read < item_end {
                let label = format!("skipped: {} bits a newer writer added", item_end - read);
                self.note(format!("{item} (tail)"), read, item_end, label);
            }
            return Ok(Value::Struct(fields));
        }
        match struct_name {
            Some(name) => {
                let ctx =
                    Context::new(self.ir, self.encoding, &name).map_err(|message| DecodeError {
                        path: name.clone(),
                        kind: DecodeErrorKind::Schema(message),
                    })?;
                let mut decoder = Decoder::new(&ctx, self.trace.as_deref_mut());
                // The body's paths begin with its item: `P.items[1] M.v`.
                decoder.path.push(format!("{item} "));
                let value = decoder.top(r, &name)?;
                fields.insert("value".to_string(), value);
                let read = r.bits_read();
                if read < item_end {
                    let label = format!("skipped: {} bits a newer writer added", item_end - read);
                    self.note(format!("{item} (tail)"), read, item_end, label);
                }
            }
            None if matches!(header.kind, ItemKind::Snapshot { .. }) => {
                let bits = item_end - body_start;
                let label = format!("a delta of {bits} bits against a state of another packet");
                self.note(format!("{item} (delta)"), body_start, item_end, label);
            }
            None => {
                fields.insert("unknown".to_string(), Value::Bool(true));
                let label = "skipped: an entry this schema does not know".to_string();
                self.note(format!("{item} (body)"), body_start, item_end, label);
            }
        }
        Ok(Value::Struct(fields))
    }
}

/// The IDL name of an entry: its message, or its RPC.
fn entry_name(entry: &ProtocolEntry) -> &str {
    match &entry.kind {
        EntryKind::Message(name) | EntryKind::Rpc { name, .. } => name,
    }
}

/// The bits and the text of what follows a session item's header (a reliable message's index,
/// a snapshot's age and ticks), as the runtime wrote them; `None` for the other items.
fn session_fields(kind: ItemKind) -> Option<(u64, String)> {
    let group = DEFAULT_VLQ_GROUP_BITS;
    match kind {
        ItemKind::Reliable(index) => Some((
            vlq_bits(u64::from(index) << 1, group),
            format!("reliable message {index}"),
        )),
        ItemKind::Snapshot { age: 0, .. } => Some((vlq_bits(1, group), "in full".to_string())),
        ItemKind::Snapshot { age, ticks } => Some((
            vlq_bits(u64::from(age) << 1 | 1, group) + vlq_bits(u64::from(ticks), group),
            format!("a delta against the packet {age} before, {ticks} ticks older"),
        )),
        _ => None,
    }
}

//! Packets of a protocol: several messages, RPC calls and responses in one datagram, framed with
//! the CRC32 of the protocol version (`docs/WIRE_FORMAT.md`, "Packets").
//!
//! A packet is `crc32 || payload` ([`crate::frame`]); the payload is a run of items, each written
//! as an open extension ([`WireWrite::write_extension`]: a 1 bit, the item's length as a VLQ,
//! then the item), ended by a 0 bit or by the end of the data. An item is a header VLQ
//! (`id << 2 | tag`, [`ItemKind`]), the request id (VLQ) of a call that expects a response and of
//! a response, then the message in its encoding. Because every item carries its length, a reader
//! skips an item whose id it does not know (a newer peer's message) and ignores the tail of a
//! message a newer writer extended after a FENCE, exactly as for a message sent alone; and there
//! is no padding between items in a BITSTREAM.

use core::fmt;
use core::marker::PhantomData;
use std::collections::VecDeque;

use crate::codec::Encoding;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::framing::{FRAME_HEADER_BYTES, frame_into, unframe};
use crate::vlq::DEFAULT_VLQ_GROUP_BITS;
use crate::wire::{Style, WireRead, WireWrite};

/// The request id of an RPC call that expects a response; the response carries it back.
pub type RequestId = u32;

/// What a packet item is: the low two bits of its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemKind {
    /// A MESSAGE, or the call of an RPC without a response type.
    Message,
    /// The call of an RPC `f(..) -> T`: a request id follows the header.
    Request(RequestId),
    /// The response to a request: the request id follows the header, then the `T`.
    Response(RequestId),
    /// In a session packet only: a message sent reliably, with its index in the reliable stream
    /// (WIRE_FORMAT.md, "Session packets").
    Reliable(u16),
    /// In a session packet only: a snapshot (a MESSAGE whose struct is a PUBLISHABLE_STRUCT).
    /// `age` 0 is a full state; otherwise the body is a delta against the snapshot of the same
    /// id in the packet `age` sequences before this one, `ticks` ticks older.
    Snapshot {
        /// Sequences back to the baseline's packet; 0 for a full state.
        age: u16,
        /// Ticks between the baseline and this state (0 for a full state).
        ticks: u32,
    },
}

impl ItemKind {
    const fn tag(self) -> u64 {
        match self {
            ItemKind::Message => 0,
            ItemKind::Request(_) => 1,
            ItemKind::Response(_) => 2,
            ItemKind::Reliable(_) | ItemKind::Snapshot { .. } => 3,
        }
    }

    const fn request(self) -> Option<RequestId> {
        match self {
            ItemKind::Message | ItemKind::Reliable(_) | ItemKind::Snapshot { .. } => None,
            ItemKind::Request(id) | ItemKind::Response(id) => Some(id),
        }
    }

    /// What follows the header of a session item (tag 3): `x`, then the ticks of a delta.
    fn write_session_fields<W: WireWrite>(self, w: &mut W) -> Result<(), EncodeError> {
        match self {
            ItemKind::Reliable(index) => w.write_vlq(u64::from(index) << 1, DEFAULT_VLQ_GROUP_BITS),
            ItemKind::Snapshot { age, ticks } => {
                w.write_vlq(u64::from(age) << 1 | 1, DEFAULT_VLQ_GROUP_BITS)?;
                if age == 0 {
                    return Ok(());
                }
                w.write_vlq(u64::from(ticks), DEFAULT_VLQ_GROUP_BITS)
            }
            _ => Ok(()),
        }
    }

    /// Reads what follows the header of a session item (tag 3).
    fn read_session_fields<'r, R: WireRead<'r>>(r: &mut R) -> Result<Self, DecodeError> {
        let at = r.bits_read();
        let out_of_range = || DecodeError::new(DecodeErrorKind::ValueOutOfRange, at);
        let x = r.read_vlq_length()?;
        let number = u16::try_from(x >> 1).map_err(|_| out_of_range())?;
        if x & 1 == 0 {
            return Ok(ItemKind::Reliable(number));
        }
        let ticks = if number == 0 {
            0
        } else {
            u32::try_from(r.read_vlq_length()?).map_err(|_| out_of_range())?
        };
        Ok(ItemKind::Snapshot { age: number, ticks })
    }
}

/// The header of a packet item: the message id (its place in the PROTOCOL) and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemHeader {
    /// The message or RPC id: declaration order in the PROTOCOL, from 0.
    pub id: u32,
    /// Message, request or response.
    pub kind: ItemKind,
}

/// Why a message could not be added to a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendError {
    /// The message itself cannot be encoded (a value out of its range, ...).
    Encode(EncodeError),
    /// The packet would exceed its MTU with this message: it was not added. Send the packet
    /// ([`PacketWriter::finish`]) and add the message to the next one.
    PacketFull {
        /// The bytes the packet would have taken, frame header included.
        needed: usize,
        /// The packet's limit.
        mtu: usize,
    },
    /// The message alone exceeds the MTU: no packet can carry it.
    MessageTooLarge {
        /// The bytes a packet holding only this message would take.
        needed: usize,
        /// The packet's limit.
        mtu: usize,
    },
    /// The protocol version in use (negotiated) has no such message or RPC: a newer version
    /// added it, and a peer of this one would skip it as unknown. A generated sender's
    /// `supports(id)` says so beforehand.
    NotInVersion {
        /// The message or RPC id.
        id: u32,
        /// The protocol version in use.
        protocol_id: u64,
    },
}

impl From<EncodeError> for SendError {
    fn from(error: EncodeError) -> Self {
        SendError::Encode(error)
    }
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SendError::Encode(e) => write!(f, "cannot encode the message: {e}"),
            SendError::PacketFull { needed, mtu } => write!(
                f,
                "the packet would take {needed} bytes with this message, over its MTU of {mtu}: send it and start another"
            ),
            SendError::MessageTooLarge { needed, mtu } => write!(
                f,
                "the message alone takes {needed} bytes in a packet, over the MTU of {mtu}"
            ),
            SendError::NotInVersion { id, protocol_id } => write!(
                f,
                "message id {id} is not part of the protocol version {protocol_id:#x} in use (a newer version added it)"
            ),
        }
    }
}

impl std::error::Error for SendError {}

/// Builds packets of one protocol version in encoding `E`: add items, then
/// [`PacketWriter::finish`] returns the framed packet and starts the next. Keeps its buffers.
///
/// ```
/// use idlc_runtime::{BitStream, Encoding, ItemKind, PacketReader, PacketWriter, WireRead, WireWrite};
/// #[derive(Debug, Clone, Copy, Default)]
/// struct Bits;
/// impl Encoding for Bits { const NAME: &'static str = "Bits"; type Style = BitStream; }
///
/// let version = 0x5eed;
/// let mut packet = PacketWriter::<Bits>::with_mtu(version, 1200);
/// packet.push(3, ItemKind::Message, |w| w.write_bits(5, 3)).unwrap();
/// packet.push(1, ItemKind::Request(7), |w| w.write_bool(true)).unwrap();
/// let bytes = packet.finish().to_vec();
///
/// let mut reader = PacketReader::<Bits>::new(version, &bytes).unwrap();
/// let first = reader.next_item(|header, r| Ok((header.id, r.read_bits(3)?))).unwrap();
/// assert_eq!(first, Some((3, 5)));
/// let second = reader.next_item(|header, r| Ok((header.kind, r.read_bool()?))).unwrap();
/// assert_eq!(second, Some((ItemKind::Request(7), true)));
/// assert_eq!(reader.next_item(|_, _| Ok(())).unwrap(), None);
/// ```
pub struct PacketWriter<E: Encoding> {
    writer: <E::Style as Style>::Writer,
    framed: Vec<u8>,
    protocol_id: u64,
    mtu: usize,
    items: usize,
}

impl<E: Encoding> fmt::Debug for PacketWriter<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketWriter")
            .field("protocol_id", &self.protocol_id)
            .field("mtu", &self.mtu)
            .field("items", &self.items)
            .field("bits", &self.writer.bits_written())
            .finish()
    }
}

impl<E: Encoding> PacketWriter<E> {
    /// A writer of packets of the protocol version `protocol_id`, with no size limit.
    #[must_use]
    pub fn new(protocol_id: u64) -> Self {
        Self::with_mtu(protocol_id, usize::MAX)
    }

    /// A writer whose packets never exceed `mtu` bytes (frame header included): an item that
    /// would cross it is refused with [`SendError::PacketFull`].
    #[must_use]
    pub fn with_mtu(protocol_id: u64, mtu: usize) -> Self {
        PacketWriter {
            writer: Default::default(),
            framed: Vec::new(),
            protocol_id,
            mtu,
            items: 0,
        }
    }

    /// The protocol version the packets are framed with.
    #[must_use]
    pub fn protocol_id(&self) -> u64 {
        self.protocol_id
    }

    /// Frames the next packets with another protocol version (after a negotiation).
    pub fn set_protocol_id(&mut self, protocol_id: u64) {
        self.protocol_id = protocol_id;
    }

    /// The MTU (`usize::MAX` when there is none).
    #[must_use]
    pub fn mtu(&self) -> usize {
        self.mtu
    }

    /// Items in the packet being built.
    #[must_use]
    pub fn len(&self) -> usize {
        self.items
    }

    /// Whether the packet being built holds no item.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items == 0
    }

    /// The bytes the packet would take if it were finished now, frame header included.
    #[must_use]
    pub fn packet_bytes(&self) -> usize {
        bytes_of(self.writer.bits_written())
    }

    /// Adds an item: the header, the request id of a request or response, then what `body`
    /// writes. Nothing is added when `body` fails or the packet would exceed its MTU.
    pub fn push<F>(&mut self, id: u32, kind: ItemKind, body: F) -> Result<(), SendError>
    where
        F: FnOnce(&mut <E::Style as Style>::Writer) -> Result<(), EncodeError>,
    {
        let start = self.writer.bits_written();
        let written = self.writer.write_extension(|w| {
            w.write_vlq(u64::from(id) << 2 | kind.tag(), DEFAULT_VLQ_GROUP_BITS)?;
            if let Some(request) = kind.request() {
                w.write_vlq(u64::from(request), DEFAULT_VLQ_GROUP_BITS)?;
            }
            kind.write_session_fields(w)?;
            body(w)
        });
        if let Err(error) = written {
            self.writer.truncate(start);
            return Err(SendError::Encode(error));
        }
        let needed = self.packet_bytes();
        if needed > self.mtu {
            // The item alone in a packet: the same bits, from bit 0.
            let alone = bytes_of(self.writer.bits_written() - start);
            self.writer.truncate(start);
            return Err(if self.items == 0 || alone > self.mtu {
                SendError::MessageTooLarge {
                    needed: alone,
                    mtu: self.mtu,
                }
            } else {
                SendError::PacketFull {
                    needed,
                    mtu: self.mtu,
                }
            });
        }
        self.items += 1;
        Ok(())
    }

    /// Ends the packet: returns it framed (CRC32 of the protocol version and the payload, then
    /// the payload) and starts an empty one. An empty packet is 4 bytes (the CRC alone).
    pub fn finish(&mut self) -> &[u8] {
        self.framed.clear();
        frame_into(self.protocol_id, self.writer.finish(), &mut self.framed);
        self.writer.clear();
        self.items = 0;
        &self.framed
    }

    /// Ends a session packet: `header` (WIRE_FORMAT.md, "Session packets") then the items,
    /// framed with `frame_id` (the session id of the protocol version); starts an empty packet.
    /// The MTU counts the items only: give the writer the packet's MTU less the header.
    pub fn finish_with_header(&mut self, frame_id: u64, header: &[u8]) -> &[u8] {
        let items = self.writer.finish();
        self.framed.clear();
        self.framed.reserve(header.len() + items.len());
        self.framed.extend_from_slice(header);
        self.framed.extend_from_slice(items);
        let payload = core::mem::take(&mut self.framed);
        frame_into(frame_id, &payload, &mut self.framed);
        self.writer.clear();
        self.items = 0;
        &self.framed
    }

    /// Drops the items added since the last [`PacketWriter::finish`].
    pub fn clear(&mut self) {
        self.writer.clear();
        self.items = 0;
    }
}

/// The bytes of a packet whose payload is `bits` long: the frame header and whole bytes.
fn bytes_of(bits: u64) -> usize {
    FRAME_HEADER_BYTES.saturating_add(usize::try_from(bits.div_ceil(8)).unwrap_or(usize::MAX))
}

/// Reads the items of a packet written by [`PacketWriter`], one at a time (see its example).
/// Every error is a [`DecodeError`]; nothing panics on any bytes.
pub struct PacketReader<'a, E: Encoding> {
    reader: <E::Style as Style>::Reader<'a>,
    done: bool,
    /// Items of tag 3 (session items) are read, not refused.
    session: bool,
    encoding: PhantomData<E>,
}

impl<E: Encoding> fmt::Debug for PacketReader<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacketReader")
            .field("bits_read", &self.reader.bits_read())
            .field("done", &self.done)
            .finish()
    }
}

impl<'a, E: Encoding> PacketReader<'a, E> {
    /// Checks the frame of `packet` against the protocol version `protocol_id` (a packet of
    /// another protocol or version is [`DecodeErrorKind::CrcMismatch`]) and starts reading its
    /// items.
    pub fn new(protocol_id: u64, packet: &'a [u8]) -> Result<Self, DecodeError> {
        let payload = unframe(protocol_id, packet)?;
        Ok(PacketReader {
            reader: <E::Style as Style>::Reader::from_bytes(payload),
            done: false,
            session: false,
            encoding: PhantomData,
        })
    }

    /// Reads the items of a session packet: `items` is the payload after the session header
    /// (already unframed); session items (reliable messages, snapshots) are read too.
    #[must_use]
    pub fn session_items(items: &'a [u8]) -> Self {
        PacketReader {
            reader: <E::Style as Style>::Reader::from_bytes(items),
            done: false,
            session: true,
            encoding: PhantomData,
        }
    }

    /// Reads the next item: `item` gets its header and a reader limited to the item, and reads
    /// the message (what it leaves unread, a newer writer's tail, is skipped). `Ok(None)` after
    /// the last item. After an error the packet is abandoned: every later call returns `None`.
    pub fn next_item<T, F>(&mut self, item: F) -> Result<Option<T>, DecodeError>
    where
        F: FnOnce(ItemHeader, &mut <E::Style as Style>::Reader<'a>) -> Result<T, DecodeError>,
    {
        if self.done {
            return Ok(None);
        }
        let result = self.read_item(item);
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result
    }

    fn read_item<T, F>(&mut self, item: F) -> Result<Option<T>, DecodeError>
    where
        F: FnOnce(ItemHeader, &mut <E::Style as Style>::Reader<'a>) -> Result<T, DecodeError>,
    {
        if self.reader.bits_remaining() == 0 {
            return Ok(None);
        }
        let value = self.reader.read_extension(|r| {
            let at = r.bits_read();
            let header = r.read_vlq_length()?;
            let id = u32::try_from(header >> 2)
                .map_err(|_| DecodeError::new(DecodeErrorKind::ValueOutOfRange, at))?;
            let kind = match header & 3 {
                0 => ItemKind::Message,
                3 if self.session => ItemKind::read_session_fields(r)?,
                tag => {
                    let at = r.bits_read();
                    let request = u32::try_from(r.read_vlq_length()?)
                        .map_err(|_| DecodeError::new(DecodeErrorKind::ValueOutOfRange, at))?;
                    match tag {
                        1 => ItemKind::Request(request),
                        2 => ItemKind::Response(request),
                        _ => return Err(DecodeError::new(DecodeErrorKind::ValueOutOfRange, at)),
                    }
                }
            };
            item(ItemHeader { id, kind }, r)
        })?;
        if value.is_none() {
            // The end marker: only the padding of the last byte may follow.
            self.reader.expect_end()?;
        }
        Ok(value)
    }
}

/// What a receiver found in a packet, item by item: a message of its protocol, or an id it does
/// not know (sent by a newer peer, or a response where a call was expected): reported, skipped,
/// never a failure of the packet.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming<M> {
    /// A message, call or response this side knows.
    Known(M),
    /// An item this side does not know, skipped.
    Unknown(ItemHeader),
}

impl<M> Incoming<M> {
    /// A known item through `f`; an unknown one as it is (what a link's message enum does with
    /// a member's).
    pub fn map<T>(self, f: impl FnOnce(M) -> T) -> Incoming<T> {
        match self {
            Incoming::Known(m) => Incoming::Known(f(m)),
            Incoming::Unknown(header) => Incoming::Unknown(header),
        }
    }
}

/// The messages and calls of one protocol in encoding `E`: the enum generated per PROTOCOL
/// (`<Protocol>Message`), which a receiver decodes and a relay, a recorder or a test re-sends.
pub trait Messages<E: Encoding>: Sized {
    /// Decodes the item whose header is `header` from a reader limited to the item; an id or
    /// kind this version does not know is [`Incoming::Unknown`] (the caller skips it).
    fn decode_item(
        header: ItemHeader,
        r: &mut <E::Style as Style>::Reader<'_>,
    ) -> Result<Incoming<Self>, DecodeError>;

    /// Adds `self` to `packet` with its id (and its request id, for a call that expects a
    /// response).
    fn encode_item(&self, packet: &mut PacketWriter<E>) -> Result<(), SendError>;
}

/// Reads every item of `packet` (framed for the protocol version `protocol_id`) as `M` and hands
/// each to `each`, unknown ones included; returns how many there were.
pub fn read_packet<E: Encoding, M: Messages<E>>(
    protocol_id: u64,
    packet: &[u8],
    mut each: impl FnMut(Incoming<M>),
) -> Result<usize, DecodeError> {
    let mut reader = PacketReader::<E>::new(protocol_id, packet)?;
    let mut count = 0;
    while let Some(item) = reader.next_item(M::decode_item)? {
        each(item);
        count += 1;
    }
    Ok(count)
}

/// The responses of one protocol's RPCs in encoding `E`: the enum generated per PROTOCOL with
/// responses (`<Protocol>Response`).
pub trait Responses<E: Encoding>: Sized {
    /// Decodes the response of the RPC `id` to `request` from a reader limited to the item;
    /// `None` when that RPC has no response.
    fn decode_response(
        id: u32,
        request: RequestId,
        r: &mut <E::Style as Style>::Reader<'_>,
    ) -> Result<Option<Self>, DecodeError>;
}

/// Reads the responses in `packet` (framed for `protocol_id`), pairs each with its pending
/// request and hands it to `each`: a response to a request that is not pending, of another RPC
/// than the request's, or whose body is malformed ([`ResponseError::Decode`]: its request stays
/// pending) is an error value for that response, and the rest of the packet is still read.
/// Items that are not responses are skipped. Returns how many responses there were; a packet
/// whose framing or item headers are malformed is an error.
pub fn read_responses<E: Encoding, R: Responses<E>>(
    protocol_id: u64,
    packet: &[u8],
    pending: &mut Pending,
    mut each: impl FnMut(Result<R, ResponseError>),
) -> Result<usize, DecodeError> {
    let mut reader = PacketReader::<E>::new(protocol_id, packet)?;
    let mut count = 0;
    while let Some(item) = reader.next_item(|header, r| {
        let ItemKind::Response(request) = header.kind else {
            return Ok(None);
        };
        if let Err(error) = pending.expects(request, header.id) {
            return Ok(Some(Err(error)));
        }
        // A malformed body is an error value for this response; the request stays pending
        // until a valid answer arrives (or the game forgets it), and the next item is read.
        Ok(Some(match R::decode_response(header.id, request, r) {
            Ok(Some(response)) => pending.complete(request, header.id).map(|()| response),
            Ok(None) => Err(ResponseError::UnknownRequest(request)),
            Err(error) => Err(ResponseError::Decode(error)),
        }))
    })? {
        if let Some(response) = item {
            each(response);
            count += 1;
        }
    }
    Ok(count)
}

/// The reply packets of a receiver (generated `dispatch` answers requests into it): a response
/// that does not fit in the packet being built closes it and starts the next, so no answer is
/// lost to a full packet. [`Replies::next_packet`] hands out the packets, oldest first.
///
/// ```
/// use idlc_runtime::{BitStream, Encoding, ItemKind, PacketReader, Replies, WireRead, WireWrite};
/// #[derive(Debug, Clone, Copy, Default)]
/// struct Bits;
/// impl Encoding for Bits { const NAME: &'static str = "Bits"; type Style = BitStream; }
///
/// // One answer fits in a 12-byte packet, two do not: one answer per packet.
/// let mut replies = Replies::<Bits>::with_mtu(7, 12);
/// for request in 0..3 {
///     replies.push(1, request, |w| w.write_bits(0xffff, 16)).unwrap();
/// }
/// let (mut answered, mut packets) = (0, 0);
/// while let Some(packet) = replies.next_packet() {
///     assert!(packet.len() <= 12);
///     packets += 1;
///     let mut reader = PacketReader::<Bits>::new(7, packet).unwrap();
///     while let Some(kind) = reader.next_item(|header, _| Ok(header.kind)).unwrap() {
///         assert_eq!(kind, ItemKind::Response(answered));
///         answered += 1;
///     }
/// }
/// assert_eq!((answered, packets), (3, 3));
/// ```
pub struct Replies<E: Encoding> {
    packet: PacketWriter<E>,
    /// Packets closed because the next response did not fit, oldest first.
    ready: VecDeque<Vec<u8>>,
    /// The packet [`Replies::next_packet`] handed out last.
    out: Vec<u8>,
}

impl<E: Encoding> fmt::Debug for Replies<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replies")
            .field("packet", &self.packet)
            .field("ready", &self.ready.len())
            .finish()
    }
}

impl<E: Encoding> Replies<E> {
    /// Reply packets of the protocol version `protocol_id`, each at most `mtu` bytes.
    #[must_use]
    pub fn with_mtu(protocol_id: u64, mtu: usize) -> Self {
        Replies {
            packet: PacketWriter::with_mtu(protocol_id, mtu),
            ready: VecDeque::new(),
            out: Vec::new(),
        }
    }

    /// Frames the next packets with another protocol version (after a negotiation).
    pub fn set_protocol_id(&mut self, protocol_id: u64) {
        self.packet.set_protocol_id(protocol_id);
    }

    /// Adds the response of the RPC `id` to `request`, written by `body`: into the packet being
    /// built, or, when it is full, into a new one. Fails only when the response cannot be sent
    /// at all: its value cannot be encoded, or it alone exceeds the MTU.
    pub fn push<F>(&mut self, id: u32, request: RequestId, body: F) -> Result<(), SendError>
    where
        F: Fn(&mut <E::Style as Style>::Writer) -> Result<(), EncodeError>,
    {
        let kind = ItemKind::Response(request);
        match self.packet.push(id, kind, &body) {
            Err(SendError::PacketFull { .. }) => {
                self.ready.push_back(self.packet.finish().to_vec());
                self.packet.push(id, kind, body)
            }
            other => other,
        }
    }

    /// Whether no reply waits to be sent.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ready.is_empty() && self.packet.is_empty()
    }

    /// The next reply packet (framed), oldest first, or `None` when every one was handed out.
    /// Call it until `None` after a `dispatch`: a packet full of answers spills into more.
    pub fn next_packet(&mut self) -> Option<&[u8]> {
        if let Some(packet) = self.ready.pop_front() {
            self.out = packet;
            return Some(&self.out);
        }
        if self.packet.is_empty() {
            return None;
        }
        Some(self.packet.finish())
    }
}

/// What a generated receiver's `dispatch` did with one packet: how many items went to the
/// handler, how many were skipped as unknown, how many responses it wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dispatched {
    /// Items decoded and handed to the handler.
    pub handled: usize,
    /// Items skipped: ids this version does not know, or items of the other direction.
    pub unknown: usize,
    /// Responses written for requests in the packet.
    pub responses: usize,
}

/// Why a receiver could not handle a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DispatchError {
    /// The packet is malformed (items before the bad one were handled).
    Decode(DecodeError),
    /// A response the handler returned cannot be sent at all: its value cannot be encoded, or
    /// it alone exceeds the MTU (a full packet is no failure: the replies spill into the next).
    /// Every item of the packet was still handled; the first such failure is reported.
    Reply(SendError),
}

impl From<DecodeError> for DispatchError {
    fn from(error: DecodeError) -> Self {
        DispatchError::Decode(error)
    }
}

impl From<SendError> for DispatchError {
    fn from(error: SendError) -> Self {
        DispatchError::Reply(error)
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::Decode(e) => write!(f, "malformed packet: {e}"),
            DispatchError::Reply(e) => write!(f, "cannot reply: {e}"),
        }
    }
}

impl std::error::Error for DispatchError {}

/// Why a response could not be paired with its request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseError {
    /// The packet or a response in it is malformed.
    Decode(DecodeError),
    /// A response to a request id that is not pending (never sent, or answered already).
    UnknownRequest(RequestId),
    /// A response of another RPC than the one the request called.
    WrongResponse {
        /// The request id.
        request: RequestId,
        /// The id of the RPC the request called.
        expected: u32,
        /// The id the response carries.
        got: u32,
    },
}

impl From<DecodeError> for ResponseError {
    fn from(error: DecodeError) -> Self {
        ResponseError::Decode(error)
    }
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseError::Decode(e) => write!(f, "malformed response packet: {e}"),
            ResponseError::UnknownRequest(request) => {
                write!(f, "a response to request {request}, which is not pending")
            }
            ResponseError::WrongResponse {
                request,
                expected,
                got,
            } => write!(
                f,
                "request {request} called RPC id {expected} but the response is of RPC id {got}"
            ),
        }
    }
}

impl std::error::Error for ResponseError {}

/// The requests a caller sent and awaits responses to: request id → RPC id. Request ids count
/// up from 0 (wrapping); a response pairs with a pending request of the same RPC, once.
///
/// ```
/// use idlc_runtime::{Pending, ResponseError};
/// let mut pending = Pending::default();
/// let a = pending.start(4);
/// let b = pending.start(2);
/// assert_eq!(pending.complete(b, 2), Ok(()));
/// assert_eq!(pending.complete(b, 2), Err(ResponseError::UnknownRequest(b)));
/// assert!(matches!(pending.complete(a, 3), Err(ResponseError::WrongResponse { .. })));
/// assert_eq!(pending.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Pending {
    next: RequestId,
    waiting: Vec<(RequestId, u32)>,
}

impl Pending {
    /// Starts a request of the RPC `rpc_id` and returns its request id.
    pub fn start(&mut self, rpc_id: u32) -> RequestId {
        let request = self.next;
        self.next = self.next.wrapping_add(1);
        self.waiting.push((request, rpc_id));
        request
    }

    /// Pairs a response of the RPC `rpc_id` with the pending `request`, which is then no longer
    /// pending. A wrong RPC leaves the request pending.
    pub fn complete(&mut self, request: RequestId, rpc_id: u32) -> Result<(), ResponseError> {
        let at = self.position(request, rpc_id)?;
        self.waiting.swap_remove(at);
        Ok(())
    }

    /// Whether a response of the RPC `rpc_id` to `request` would pair with a pending request
    /// ([`Pending::complete`] without completing it).
    pub fn expects(&self, request: RequestId, rpc_id: u32) -> Result<(), ResponseError> {
        self.position(request, rpc_id).map(|_| ())
    }

    fn position(&self, request: RequestId, rpc_id: u32) -> Result<usize, ResponseError> {
        let Some(at) = self.waiting.iter().position(|&(r, _)| r == request) else {
            return Err(ResponseError::UnknownRequest(request));
        };
        let expected = self.waiting[at].1;
        if expected != rpc_id {
            return Err(ResponseError::WrongResponse {
                request,
                expected,
                got: rpc_id,
            });
        }
        Ok(at)
    }

    /// Whether `request` awaits its response.
    #[must_use]
    pub fn contains(&self, request: RequestId) -> bool {
        self.waiting.iter().any(|&(r, _)| r == request)
    }

    /// Gives up on a request (a timeout): its response, if it comes, is then unknown.
    pub fn forget(&mut self, request: RequestId) {
        self.waiting.retain(|&(r, _)| r != request);
    }

    /// Requests awaiting their response.
    #[must_use]
    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether no request awaits its response.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

/// The version two peers share: the newest protocol id both lists hold. Each peer lists one id
/// per version it speaks, oldest first (a generated protocol's `VERSIONS`); the result is the
/// index of that version in `ours` and its id, or `None` when the peers share no version.
///
/// ```
/// use idlc_runtime::negotiate;
/// let ours = [10, 11, 12];
/// assert_eq!(negotiate(&ours, &[10, 11]), Some((1, 11)));   // an older peer
/// assert_eq!(negotiate(&ours, &[10, 11, 12, 13]), Some((2, 12))); // a newer peer
/// assert_eq!(negotiate(&ours, &[99]), None);
/// ```
#[must_use]
pub fn negotiate(ours: &[u64], theirs: &[u64]) -> Option<(usize, u64)> {
    ours.iter()
        .enumerate()
        .rev()
        .find(|(_, id)| theirs.contains(id))
        .map(|(k, &id)| (k, id))
}

/// A protocol of generated code in encoding `E`: its name and its ids, one per version prefix
/// (the schema cut at each FENCE of the protocol's list), oldest first.
pub trait Protocol<E: Encoding> {
    /// The protocol's IDL name.
    const NAME: &'static str;
    /// One id per version, oldest first: the newest is the last.
    const VERSIONS: &'static [u64];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BitStream, ByteStream};

    #[derive(Debug, Clone, Copy, Default)]
    struct Bits;
    impl Encoding for Bits {
        const NAME: &'static str = "Bits";
        type Style = BitStream;
    }

    #[derive(Debug, Clone, Copy, Default)]
    struct Bytes;
    impl Encoding for Bytes {
        const NAME: &'static str = "Bytes";
        type Style = ByteStream;
    }

    fn items<E: Encoding>(packet: &[u8]) -> Result<Vec<(ItemHeader, u64)>, DecodeError> {
        let mut reader = PacketReader::<E>::new(9, packet)?;
        let mut out = Vec::new();
        while let Some(item) = reader.next_item(|h, r| Ok((h, r.read_bits(16)?)))? {
            out.push(item);
        }
        Ok(out)
    }

    fn round_trip<E: Encoding>() {
        let mut w = PacketWriter::<E>::new(9);
        let sent = [
            (0, ItemKind::Message, 1),
            (70, ItemKind::Request(300), 2),
            (5, ItemKind::Response(0), 3),
        ];
        for (id, kind, value) in sent {
            w.push(id, kind, |w| w.write_bits(value, 16)).unwrap();
        }
        assert_eq!(w.len(), 3);
        let packet = w.finish().to_vec();
        assert!(w.is_empty());
        let got = items::<E>(&packet).unwrap();
        let expected: Vec<(ItemHeader, u64)> = sent
            .iter()
            .map(|&(id, kind, value)| (ItemHeader { id, kind }, value))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(items::<E>(w.finish()).unwrap(), vec![]);
    }

    #[test]
    fn items_round_trip_in_both_styles() {
        round_trip::<Bits>();
        round_trip::<Bytes>();
    }

    #[test]
    fn an_unread_tail_is_skipped() {
        let mut w = PacketWriter::<Bits>::new(9);
        w.push(1, ItemKind::Message, |w| w.write_bits(0x00ab_cdef, 24))
            .unwrap();
        w.push(2, ItemKind::Message, |w| w.write_bits(0x1234, 16))
            .unwrap();
        let packet = w.finish().to_vec();
        // A reader that knows only the first 16 bits of message 1.
        assert_eq!(
            items::<Bits>(&packet).unwrap(),
            vec![
                (
                    ItemHeader {
                        id: 1,
                        kind: ItemKind::Message
                    },
                    0xcdef
                ),
                (
                    ItemHeader {
                        id: 2,
                        kind: ItemKind::Message
                    },
                    0x1234
                )
            ]
        );
    }

    #[test]
    fn the_mtu_refuses_what_does_not_fit_and_keeps_the_rest() {
        let mut w = PacketWriter::<Bits>::with_mtu(9, 16);
        w.push(0, ItemKind::Message, |w| w.write_bits(1, 16))
            .unwrap();
        let before = w.packet_bytes();
        let err = w
            .push(0, ItemKind::Message, |w| w.write_bits(2, 64))
            .unwrap_err();
        assert!(
            matches!(err, SendError::PacketFull { mtu: 16, .. }),
            "{err}"
        );
        assert_eq!(w.packet_bytes(), before);
        let packet = w.finish().to_vec();
        assert!(packet.len() <= 16);
        assert_eq!(items::<Bits>(&packet).unwrap().len(), 1);
        let mut empty = PacketWriter::<Bits>::with_mtu(9, 8);
        let err = empty
            .push(0, ItemKind::Message, |w| w.write_bytes(&[0; 40], None))
            .unwrap_err();
        assert!(matches!(err, SendError::MessageTooLarge { .. }), "{err}");
    }

    #[test]
    fn a_failed_body_adds_nothing() {
        let mut w = PacketWriter::<Bits>::new(9);
        w.push(0, ItemKind::Message, |w| w.write_bits(1, 3))
            .unwrap();
        let err = w
            .push(1, ItemKind::Message, |w| {
                w.write_bits(1, 5)?;
                w.write_bits(9, 3)
            })
            .unwrap_err();
        assert!(matches!(err, SendError::Encode(_)));
        assert_eq!(w.len(), 1);
        let packet = w.finish().to_vec();
        let mut reader = PacketReader::<Bits>::new(9, &packet).unwrap();
        assert_eq!(
            reader
                .next_item(|h, r| Ok((h.id, r.read_bits(3)?)))
                .unwrap(),
            Some((0, 1))
        );
        assert_eq!(reader.next_item(|_, _| Ok(())).unwrap(), None);
    }

    #[test]
    fn garbage_after_the_end_marker_and_bad_tags_are_errors() {
        let mut w = PacketWriter::<Bits>::new(9);
        w.push(0, ItemKind::Message, |w| w.write_bits(1, 2))
            .unwrap();
        let mut payload = crate::unframe(9, w.finish()).unwrap().to_vec();
        payload.push(0x80);
        let packet = crate::frame(9, &payload);
        let mut reader = PacketReader::<Bits>::new(9, &packet).unwrap();
        assert!(reader.next_item(|_, r| r.read_bits(2)).unwrap().is_some());
        assert!(reader.next_item(|_, _| Ok(())).is_err());
        assert_eq!(reader.next_item(|_, _| Ok(())).unwrap(), None);
        // Tag 3 does not exist.
        let mut raw = crate::BitWriter::new();
        raw.write_extension(|w| {
            w.write_vlq(3, 7)?;
            w.write_vlq(0, 7)
        })
        .unwrap();
        let packet = crate::frame(9, raw.finish());
        let mut reader = PacketReader::<Bits>::new(9, &packet).unwrap();
        assert_eq!(
            reader.next_item(|_, _| Ok(())).unwrap_err().kind,
            DecodeErrorKind::ValueOutOfRange
        );
    }

    #[test]
    fn random_packets_never_panic() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for len in 0..2000usize {
            let mut payload = Vec::with_capacity(len % 64);
            for _ in 0..len % 64 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                payload.push(state as u8);
            }
            let packet = crate::frame(9, &payload);
            let _ = items::<Bits>(&packet);
            let _ = items::<Bytes>(&packet);
        }
    }
}

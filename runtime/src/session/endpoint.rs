//! One peer of a session: bytes in, calls out; calls in, bytes out. It opens no socket.

use core::fmt;
use core::time::Duration;
use std::collections::BTreeMap;

use super::acks::{ReceivedLog, SentLog};
use super::answer::{Answer, AnswerToken, DroppedLog, Refusal, report_unanswered};
use super::baselines::{Baselines, Kept};
use super::config::SessionConfig;
use super::encoded::{Encoded, RawEncoded};
use super::error::{Cap, SessionError};
use super::header::{SESSION_HEADER_BYTES, Sequence, SessionHeader, sequence_newer, session_id};
use super::reliable::{InOrder, Outbox, Queued};
use super::requests::{HandledRequests, RequestCheck};
use super::traits::{SessionMessage, SessionProtocol, SessionResponse};
use crate::codec::Encoding;
use crate::delta::DeltaContext;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::framing::unframe;
use crate::packet::{
    Incoming, ItemHeader, ItemKind, Messages, PacketReader, PacketWriter, Pending, RequestId,
    Responses, SendError,
};
use crate::replication::{ReaderOf, WriterOf};
use crate::wire::{WireRead, WireWrite};

/// What a received packet hands the game, in the packet's order: `M` the messages received,
/// `R` the responses to this side's calls, `C` this side's calls.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery<M, R, C> {
    /// A message or a fire-and-forget call; a reliable message comes here once, in order.
    Message(M),
    /// A call that expects a response: the closure given to [`Endpoint::receive`] answers it
    /// ([`Answer`]: now, later through a token, or refused). Each request comes here once,
    /// however often the peer resent it.
    Request(M),
    /// A snapshot newer than any delivered before for its message id.
    Snapshot {
        /// The sequence of the packet that carried it.
        sequence: Sequence,
        /// The state, whole.
        message: M,
    },
    /// The response to a call of this side, with the call it answers (as it was sent, its
    /// request id set).
    Response {
        /// The call.
        call: C,
        /// Its response.
        response: R,
    },
    /// A call of this side the peer refused: its application said no, or nobody answered it
    /// ([`Refusal::UNANSWERED`]). Not an error of the transport: the call's answer.
    Refused {
        /// The call.
        call: C,
        /// Why.
        refusal: Refusal,
    },
}

/// What [`Endpoint::receive`] did with a packet.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Received {
    /// Deliveries handed to the game.
    pub delivered: usize,
    /// Items skipped: unknown ids (a newer peer), resends already handled, older snapshots.
    pub skipped: usize,
}

/// What [`Endpoint::flush`] built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Flushed {
    /// The packets to send, in order (at least one: it carries the acknowledgements).
    pub packets: Vec<Vec<u8>>,
    /// The message ids of the snapshots left out: alone in a packet, over the MTU. The game
    /// sends a smaller state (the endpoint does not split a snapshot).
    pub left_out: Vec<u32>,
    /// The snapshots sent: each one's message id and the sequence of the packet that carries
    /// it ([`Endpoint::sent_snapshot`] gives its mirror).
    pub snapshots: Vec<(u32, Sequence)>,
    /// The requests of the peer this flush refused by itself ([`Refusal::UNANSWERED`]) because
    /// their [`AnswerToken`] was dropped unanswered, or never taken with
    /// [`Endpoint::take_deferred`]: each one's RPC id and request id.
    pub unanswered: Vec<(u32, RequestId)>,
}

/// How much an endpoint holds, to check against its caps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Mirrors of sent snapshots.
    pub mirrors: usize,
    /// Received snapshot states.
    pub states: usize,
    /// Calls awaiting their response.
    pub pending_requests: usize,
    /// Responses not yet acknowledged.
    pub cached_answers: usize,
    /// Reliable messages not yet acknowledged.
    pub queued_reliable: usize,
    /// Reliable messages received ahead of one they follow.
    pub waiting_reliable: usize,
    /// Unreliable messages for the next packet.
    pub queued_messages: usize,
    /// Request ids remembered as handled.
    pub handled_requests: usize,
    /// Requests handed out to answer later ([`AnswerToken`]s), not yet answered.
    pub deferred_answers: usize,
}

/// A message to send: a value, or one encoded once for many endpoints.
#[derive(Debug, Clone)]
enum Outgoing<M> {
    Value(M),
    Encoded(RawEncoded),
}

impl<M> Outgoing<M> {
    fn id<E: Encoding>(&self) -> u32
    where
        M: SessionMessage<E>,
    {
        match self {
            Outgoing::Value(m) => m.id(),
            Outgoing::Encoded(e) => e.id(),
        }
    }

    fn encode_body<E: Encoding>(&self, w: &mut WriterOf<E>) -> Result<(), EncodeError>
    where
        M: SessionMessage<E>,
    {
        match self {
            Outgoing::Value(m) => m.encode_body(w),
            Outgoing::Encoded(e) => e.write_body::<E>(w),
        }
    }
}

/// A reliable item of the outbox.
#[derive(Debug, Clone)]
enum Reliable<M, A> {
    Message(u16, Outgoing<M>),
    Request(M),
    Answer(A),
    /// A refused request: its id, the RPC's id, why.
    Refusal(RequestId, u32, Refusal),
}

/// An item of a received packet, read and checked, not yet delivered.
enum Read<M, R> {
    Message(M),
    Request(RequestId, M),
    Reliable(u16, M),
    Snapshot { id: u32, tick: u32, message: M },
    Response(RequestId, u32, R),
    Refused(RequestId, u32, Refusal),
    Skipped,
}

/// A [`Delivery`] of the endpoint that receives `In` and sends `Out`.
pub type DeliveryOf<E, Out, In> = Delivery<
    <In as SessionProtocol<E>>::Message,
    <Out as SessionProtocol<E>>::Response,
    <Out as SessionProtocol<E>>::Message,
>;

/// A [`Read`] of the endpoint that receives `In` and sends `Out`.
type ReadOf<E, Out, In> =
    Read<<In as SessionProtocol<E>>::Message, <Out as SessionProtocol<E>>::Response>;

/// One peer of a session in encoding `E`: this side sends the protocol `Out` and receives
/// `In` (the same protocol for one spoken both ways), or, for a side of several protocols each
/// way, its generated links (`<Side>Endpoint`: every protocol it sends and receives, in one
/// endpoint; WIRE_FORMAT.md section 6, "Links"). A server holds one per client.
///
/// [`Endpoint::receive`] reads a packet in one pass (messages, requests, snapshots, responses)
/// and hands each to the game; [`Endpoint::send`], [`Endpoint::send_reliable`] and
/// [`Endpoint::send_snapshot`] queue what goes out; [`Endpoint::flush`] builds the packets.
/// The wire is WIRE_FORMAT.md, "Session packets"; the model is docs/REPLICATION.md, "Sessions".
pub struct Endpoint<E: Encoding, Out: SessionProtocol<E>, In: SessionProtocol<E>> {
    config: SessionConfig,
    out_version: usize,
    in_version: usize,
    sent: SentLog,
    received: ReceivedLog,
    /// The newest sequence the peer acknowledged.
    peer_ack: Option<Sequence>,
    started: Option<Duration>,
    last_heard: Option<Duration>,
    unreliable: Vec<Outgoing<Out::Message>>,
    outbox: Outbox<Reliable<Out::Message, In::Response>>,
    next_reliable: u16,
    snapshots: Vec<(u32, Out::Message)>,
    mirrors: Baselines<Out::Message>,
    pending: Pending,
    /// The calls awaiting their response, by request id: what a response is delivered with.
    calls: BTreeMap<RequestId, Out::Message>,
    issued: u64,
    handled: HandledRequests,
    in_order: InOrder<In::Message>,
    states: Baselines<In::Message>,
    /// Per message id, the sequence of the newest snapshot delivered.
    newest_snapshot: BTreeMap<u32, Sequence>,
    /// The requests to answer later with their tokens, not yet taken by the game.
    deferred: Vec<(AnswerToken<In::Response>, In::Message)>,
    /// Where this endpoint's tokens report their drop.
    dropped: DroppedLog,
    /// Tokens handed out and not yet answered (nor reported dropped).
    outstanding: usize,
}

impl<E: Encoding, Out: SessionProtocol<E>, In: SessionProtocol<E>> fmt::Debug
    for Endpoint<E, Out, In>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("out", &Out::NAME)
            .field("in", &In::NAME)
            .field("next_sequence", &self.sent.next_sequence())
            .field("usage", &self.usage())
            .finish()
    }
}

impl<E: Encoding, Out: SessionProtocol<E>, In: SessionProtocol<E>> Endpoint<E, Out, In> {
    /// An endpoint that sends version `out_version` of `Out` and receives version `in_version`
    /// of `In` (indices in their `VERSIONS`, oldest 0); `None` when either has no such version.
    #[must_use]
    pub fn new(config: SessionConfig, out_version: usize, in_version: usize) -> Option<Self> {
        if out_version >= Out::VERSIONS.len() || in_version >= In::VERSIONS.len() {
            return None;
        }
        Some(Self::build(config, out_version, in_version))
    }

    /// An endpoint of the newest versions of both protocols.
    #[must_use]
    pub fn newest(config: SessionConfig) -> Self {
        let out = Out::VERSIONS.len().saturating_sub(1);
        let incoming = In::VERSIONS.len().saturating_sub(1);
        Self::build(config, out, incoming)
    }

    fn build(config: SessionConfig, out_version: usize, in_version: usize) -> Self {
        Endpoint {
            out_version,
            in_version,
            sent: SentLog::default(),
            received: ReceivedLog::default(),
            peer_ack: None,
            started: None,
            last_heard: None,
            unreliable: Vec::new(),
            outbox: Outbox::default(),
            next_reliable: 0,
            snapshots: Vec::new(),
            mirrors: Baselines::new(config.kept_baselines),
            pending: Pending::default(),
            calls: BTreeMap::new(),
            issued: 0,
            handled: HandledRequests::new(config.pending_requests),
            in_order: InOrder::new(config.queued_reliable),
            states: Baselines::new(config.kept_baselines),
            newest_snapshot: BTreeMap::new(),
            deferred: Vec::new(),
            dropped: DroppedLog::default(),
            outstanding: 0,
            config,
        }
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The version of `Out` sent and of `In` received (indices in their `VERSIONS`).
    #[must_use]
    pub fn versions(&self) -> (usize, usize) {
        (self.out_version, self.in_version)
    }

    fn out_id(&self) -> u64 {
        Out::VERSIONS.get(self.out_version).copied().unwrap_or(0)
    }

    fn in_id(&self) -> u64 {
        In::VERSIONS.get(self.in_version).copied().unwrap_or(0)
    }

    /// How much the endpoint holds now.
    #[must_use]
    pub fn usage(&self) -> Usage {
        Usage {
            mirrors: self.mirrors.len(),
            states: self.states.len(),
            pending_requests: self.pending.len(),
            cached_answers: self.answers_queued(),
            queued_reliable: self.reliable_queued(),
            waiting_reliable: self.in_order.len(),
            queued_messages: self.unreliable.len(),
            handled_requests: self.handled.len(),
            deferred_answers: self.outstanding,
        }
    }

    fn answers_queued(&self) -> usize {
        self.outbox
            .count(|r| matches!(r, Reliable::Answer(_) | Reliable::Refusal(..)))
    }

    fn reliable_queued(&self) -> usize {
        self.outbox.count(|r| matches!(r, Reliable::Message(..)))
    }

    /// Whether the peer has been silent (no packet accepted) for longer than the timeout,
    /// counted from the first packet accepted or, before one, from the first call of
    /// [`Endpoint::receive`] or [`Endpoint::flush`]. A server drops such an endpoint.
    #[must_use]
    pub fn is_silent(&self, now: Duration) -> bool {
        let Some(since) = self.last_heard.or(self.started) else {
            return false;
        };
        now.saturating_sub(since) > self.config.timeout
    }

    /// The calls awaiting their response.
    #[must_use]
    pub fn pending(&self) -> &Pending {
        &self.pending
    }

    /// The mirror of the snapshot of message `id` sent in the packet `sequence`: the state the
    /// peer holds once it has that packet, while kept.
    #[must_use]
    pub fn sent_snapshot(&self, sequence: Sequence, id: u32) -> Option<&Out::Message> {
        self.mirrors.get(sequence, id).map(|k| &k.value)
    }

    fn check_version(&self, id: u32) -> Result<(), SessionError> {
        if Out::supports(self.out_version, id) {
            Ok(())
        } else {
            Err(SessionError::NotInVersion(id))
        }
    }

    /// Checks that an item of `id` and `kind` whose body `body` writes fits alone in a packet.
    fn check_fits(
        &self,
        id: u32,
        kind: ItemKind,
        body: impl FnOnce(&mut WriterOf<E>) -> Result<(), EncodeError>,
    ) -> Result<(), SessionError> {
        let mut scratch = PacketWriter::<E>::with_mtu(0, self.items_mtu());
        scratch.push(id, kind, body)?;
        Ok(())
    }

    fn items_mtu(&self) -> usize {
        self.config.mtu.saturating_sub(SESSION_HEADER_BYTES)
    }

    /// Queues a message for the next packet, sent once (unreliably); a call that expects a
    /// response is reliable: it gets a request id (returned), is resent until acknowledged, and
    /// its response comes as a [`Delivery::Response`].
    pub fn send(&mut self, mut message: Out::Message) -> Result<Option<RequestId>, SessionError> {
        self.check_version(message.id())?;
        if message.request().is_none() {
            self.check_fits(message.id(), ItemKind::Message, |w| message.encode_body(w))?;
            return self.queue(Outgoing::Value(message)).map(|()| None);
        }
        if self.pending.len() >= self.config.pending_requests {
            return Err(SessionError::Full(Cap::PendingRequests));
        }
        let kind = ItemKind::Request(RequestId::MAX);
        self.check_fits(message.id(), kind, |w| message.encode_body(w))?;
        let request = self.pending.start(message.id());
        self.issued += 1;
        message.set_request(request);
        self.calls.insert(request, message.clone());
        self.outbox.push(Reliable::Request(message));
        Ok(Some(request))
    }

    fn queue(&mut self, message: Outgoing<Out::Message>) -> Result<(), SessionError> {
        if self.unreliable.len() >= self.config.queued_messages {
            return Err(SessionError::Full(Cap::QueuedMessages));
        }
        self.unreliable.push(message);
        Ok(())
    }

    /// [`Endpoint::send`] of a message encoded once for many endpoints ([`Encoded::new`]):
    /// the packet gets the same bits, without encoding it again.
    pub fn send_encoded(&mut self, message: &Encoded<E, Out::Message>) -> Result<(), SessionError> {
        let raw = message.raw();
        self.check_version(raw.id())?;
        self.check_encoded_fits(raw, ItemKind::Message)?;
        self.queue(Outgoing::Encoded(raw.clone()))
    }

    /// [`Endpoint::check_fits`] of an encoded message: by its size alone when that leaves room
    /// for the longest framing, so that a broadcast writes nothing per peer before the flush.
    fn check_encoded_fits(&self, raw: &RawEncoded, kind: ItemKind) -> Result<(), SessionError> {
        // The present bit, the length and header VLQs (10 and 5 bytes at most), a session
        // field (3), the end marker, and a byte of padding or alignment each.
        const FRAMING_BITS: u64 = 8 * (1 + 10 + 5 + 3 + 1 + 1);
        if raw.max_bits() + FRAMING_BITS <= 8 * self.items_mtu() as u64 {
            return Ok(());
        }
        self.check_fits(raw.id(), kind, |w| raw.write_body::<E>(w))
    }

    /// [`Endpoint::send_reliable`] of a message encoded once for many endpoints.
    pub fn send_encoded_reliable(
        &mut self,
        message: &Encoded<E, Out::Message>,
    ) -> Result<(), SessionError> {
        let raw = message.raw();
        self.check_version(raw.id())?;
        self.check_encoded_fits(raw, ItemKind::Reliable(u16::MAX))?;
        self.queue_reliable(Outgoing::Encoded(raw.clone()))
    }

    /// Queues a message to be delivered once and in order: resent until acknowledged. A call
    /// that expects a response goes through [`Endpoint::send`] (it is reliable already).
    pub fn send_reliable(&mut self, message: Out::Message) -> Result<(), SessionError> {
        if message.request().is_some() {
            return self.send(message).map(|_| ());
        }
        self.check_version(message.id())?;
        let kind = ItemKind::Reliable(u16::MAX);
        self.check_fits(message.id(), kind, |w| message.encode_body(w))?;
        self.queue_reliable(Outgoing::Value(message))
    }

    fn queue_reliable(&mut self, message: Outgoing<Out::Message>) -> Result<(), SessionError> {
        if self.reliable_queued() >= self.config.queued_reliable {
            return Err(SessionError::Full(Cap::QueuedReliable));
        }
        let index = self.next_reliable;
        self.next_reliable = self.next_reliable.wrapping_add(1);
        self.outbox.push(Reliable::Message(index, message));
        Ok(())
    }

    /// Queues the state of tick `tick` of a snapshot message (a MESSAGE whose struct is a
    /// PUBLISHABLE_STRUCT) for the next packet: a delta against the newest state of it the
    /// peer acknowledged, in full when there is none or it is no longer kept. A newer state of
    /// the same message replaces one not yet flushed.
    pub fn send_snapshot(&mut self, tick: u32, message: Out::Message) -> Result<(), SessionError> {
        let id = message.id();
        self.check_version(id)?;
        if !message.is_snapshot() {
            return Err(SessionError::NotASnapshot(id));
        }
        self.snapshots.retain(|(_, m)| m.id() != id);
        self.snapshots.push((tick, message));
        Ok(())
    }

    /// Gives up on a call (no response is awaited any more; a late one is skipped).
    pub fn forget(&mut self, request: RequestId) {
        self.pending.forget(request);
        self.calls.remove(&request);
    }

    /// The requests the [`Endpoint::receive`] calls since the last take left to answer later
    /// ([`Answer::Later`]): each call with its token, in delivery order. Tokens not taken
    /// before the next [`Endpoint::flush`] are dropped there: their calls are refused
    /// ([`Flushed::unanswered`]).
    pub fn take_deferred(&mut self) -> Vec<(AnswerToken<In::Response>, In::Message)> {
        core::mem::take(&mut self.deferred)
    }

    /// Answers a request deferred with `token` (from this endpoint): `response` is sent as if
    /// the handler had returned it. A token of another endpoint, or a response to another RPC
    /// or request, is an error; the token is then dropped, and its own endpoint refuses the
    /// call.
    pub fn answer(
        &mut self,
        token: AnswerToken<In::Response>,
        response: In::Response,
    ) -> Result<(), SessionError> {
        self.check_owner(&token)?;
        if response.id() != token.id() || response.request() != token.request() {
            return Err(SessionError::AnswerMismatch {
                request: token.request(),
                id: token.id(),
            });
        }
        let kind = ItemKind::Response(token.request());
        self.check_fits(response.id(), kind, |w| {
            w.write_bool(false)?;
            response.encode_body(w)
        })?;
        let _ = token.consume();
        self.outstanding = self.outstanding.saturating_sub(1);
        self.outbox.push(Reliable::Answer(response));
        Ok(())
    }

    /// Refuses a request deferred with `token`: the caller receives `refusal` (a
    /// [`Delivery::Refused`]). Errors as [`Endpoint::answer`]'s, and a text over
    /// [`super::MAX_REFUSAL_TEXT`] bytes.
    pub fn refuse(
        &mut self,
        token: AnswerToken<In::Response>,
        refusal: Refusal,
    ) -> Result<(), SessionError> {
        self.check_owner(&token)?;
        let kind = ItemKind::Response(token.request());
        self.check_fits(token.id(), kind, |w| {
            w.write_bool(true)?;
            refusal.encode(w)
        })?;
        let (request, id) = token.consume();
        self.outstanding = self.outstanding.saturating_sub(1);
        self.outbox.push(Reliable::Refusal(request, id, refusal));
        Ok(())
    }

    /// A token of another endpoint is an error (it refuses its call there when dropped).
    fn check_owner(&self, token: &AnswerToken<In::Response>) -> Result<(), SessionError> {
        if token.belongs_to(&self.dropped) {
            Ok(())
        } else {
            Err(SessionError::ForeignToken(token.request()))
        }
    }

    /// Reads a packet from the peer and hands what it carries to `deliver`, which answers a
    /// [`Delivery::Request`] with an [`Answer`] (or the response as `Option<R>`) and returns
    /// [`Answer::None`] (or `None`) for the rest.
    /// A packet that is
    /// malformed, of another protocol or version, a duplicate, stale, acknowledges a packet
    /// never sent, or names a forged request or baseline is an error: nothing of it is
    /// delivered and it is not acknowledged.
    pub fn receive<F, A>(
        &mut self,
        now: Duration,
        packet: &[u8],
        mut deliver: F,
    ) -> Result<Received, SessionError>
    where
        F: FnMut(DeliveryOf<E, Out, In>) -> A,
        A: Into<Answer<In::Response, In::Message>>,
    {
        self.started.get_or_insert(now);
        let payload = unframe(session_id(self.in_id()), packet)?;
        let (header, items) = SessionHeader::split(payload)?;
        self.received.check(header.sequence)?;
        self.sent.check(&header)?;
        let read = self.read_items(header.sequence, items)?;
        let new_requests = read
            .iter()
            .filter(|r| matches!(r, Read::Request(..)))
            .count();
        if self.answers_queued() + self.outstanding + new_requests > self.config.cached_answers {
            return Err(SessionError::Full(Cap::CachedAnswers));
        }
        self.received.record(header.sequence);
        self.last_heard = Some(now);
        self.acknowledge(&header);
        let mut report = Received::default();
        for item in read {
            let delivered = self.deliver(header.sequence, item, &mut deliver);
            if delivered == 0 {
                report.skipped += 1;
            }
            report.delivered += delivered;
        }
        Ok(report)
    }

    fn acknowledge(&mut self, header: &SessionHeader) {
        if self
            .peer_ack
            .is_none_or(|seen| sequence_newer(header.ack, seen))
            && self.sent.was_sent(header.ack)
        {
            self.peer_ack = Some(header.ack);
        }
        let (keys, sequences) = self.sent.acknowledge(header);
        for key in keys {
            self.outbox.remove(key);
        }
        for sequence in sequences {
            self.mirrors.acknowledge(sequence);
        }
    }

    /// Reads and checks every item of a packet; changes nothing.
    fn read_items(
        &self,
        sequence: Sequence,
        items: &[u8],
    ) -> Result<Vec<ReadOf<E, Out, In>>, SessionError> {
        let mut reader = PacketReader::<E>::session_items(items);
        let mut read = Vec::new();
        let mut failure = None;
        loop {
            let item = reader.next_item(|header, r| match self.read_item(sequence, header, r) {
                Ok(item) => Ok(item),
                Err(SessionError::Decode(e)) => Err(e),
                Err(other) => {
                    let at = r.bits_read();
                    failure = Some(other);
                    // Ends the packet; `failure` says why.
                    Err(DecodeError::new(DecodeErrorKind::InvalidArgument, at))
                }
            });
            match item {
                Ok(Some(item)) => read.push(item),
                Ok(None) => break,
                Err(e) => return Err(failure.take().unwrap_or(SessionError::Decode(e))),
            }
        }
        Ok(read)
    }

    fn read_item(
        &self,
        sequence: Sequence,
        header: ItemHeader,
        r: &mut ReaderOf<'_, E>,
    ) -> Result<ReadOf<E, Out, In>, SessionError> {
        let as_message = ItemHeader {
            id: header.id,
            kind: ItemKind::Message,
        };
        Ok(match header.kind {
            ItemKind::Message => match In::Message::decode_item(header, r)? {
                Incoming::Known(m) => Read::Message(m),
                Incoming::Unknown(_) => Read::Skipped,
            },
            ItemKind::Request(request) => {
                if self.handled.check(request)? == RequestCheck::Handled {
                    return Ok(Read::Skipped);
                }
                match In::Message::decode_item(header, r)? {
                    Incoming::Known(m) => Read::Request(request, m),
                    Incoming::Unknown(_) => Read::Skipped,
                }
            }
            ItemKind::Reliable(index) => {
                if !self.in_order.check(index)? {
                    return Ok(Read::Skipped);
                }
                match In::Message::decode_item(as_message, r)? {
                    Incoming::Known(m) => Read::Reliable(index, m),
                    Incoming::Unknown(_) => Read::Skipped,
                }
            }
            ItemKind::Snapshot { age: 0, .. } => match In::Message::decode_item(as_message, r)? {
                Incoming::Known(m) if m.is_snapshot() => Read::Snapshot {
                    id: header.id,
                    tick: 0,
                    message: m,
                },
                Incoming::Known(_) => return Err(SessionError::NotASnapshot(header.id)),
                Incoming::Unknown(_) => Read::Skipped,
            },
            ItemKind::Snapshot { age, ticks } => {
                let base = sequence.wrapping_sub(age);
                let Some(baseline) = self.states.get(base, header.id) else {
                    return Err(SessionError::UnknownBaseline {
                        id: header.id,
                        sequence: base,
                    });
                };
                let ctx = DeltaContext::from_ticks(u64::from(ticks), self.config.tick_seconds);
                let message = In::Message::decode_delta_body(&baseline.value, &ctx, r)?;
                Read::Snapshot {
                    id: header.id,
                    tick: baseline.tick.wrapping_add(ticks),
                    message,
                }
            }
            ItemKind::Response(request) => {
                if !self.issued_request(request) {
                    return Err(SessionError::ForgedRequest(request));
                }
                if r.read_bool()? {
                    Read::Refused(request, header.id, Refusal::decode(r)?)
                } else {
                    match Out::Response::decode_response(header.id, request, r)? {
                        Some(response) => Read::Response(request, header.id, response),
                        None => Read::Skipped,
                    }
                }
            }
        })
    }

    /// Whether this side ever issued `request` (ids count up from 0).
    fn issued_request(&self, request: RequestId) -> bool {
        let next = self.issued as RequestId;
        let back = u64::from(next.wrapping_sub(request));
        back != 0 && back <= self.issued
    }

    /// Delivers one checked item; returns how many deliveries it made.
    fn deliver<F, A>(
        &mut self,
        sequence: Sequence,
        item: ReadOf<E, Out, In>,
        deliver: &mut F,
    ) -> usize
    where
        F: FnMut(DeliveryOf<E, Out, In>) -> A,
        A: Into<Answer<In::Response, In::Message>>,
    {
        match item {
            Read::Skipped => 0,
            Read::Message(message) => {
                deliver(Delivery::Message(message));
                1
            }
            Read::Request(request, message) => {
                // The same id twice in one packet: the second is a resend.
                if self.handled.check(request) != Ok(RequestCheck::New) {
                    return 0;
                }
                self.handled.record(request);
                let id = message.id();
                match deliver(Delivery::Request(message)).into() {
                    Answer::Now(response) => {
                        self.outbox.push(Reliable::Answer(response));
                    }
                    Answer::Refuse(refusal) => {
                        self.outbox.push(Reliable::Refusal(request, id, refusal));
                    }
                    Answer::Later(message) => {
                        let token = AnswerToken::new(request, id, self.dropped.clone());
                        self.deferred.push((token, message));
                        self.outstanding += 1;
                    }
                    Answer::None => {
                        // Nobody answers it: refused at the next flush, and reported.
                        report_unanswered(&self.dropped, request, id);
                        self.outstanding += 1;
                    }
                }
                1
            }
            Read::Reliable(index, message) => {
                if self.in_order.check(index) == Ok(true) {
                    self.in_order.insert(index, message);
                }
                let mut count = 0;
                while let Some(message) = self.in_order.pop() {
                    deliver(Delivery::Message(message));
                    count += 1;
                }
                count
            }
            Read::Snapshot { id, tick, message } => {
                let newest = self.newest_snapshot.get(&id).copied();
                let is_newest = newest.is_none_or(|n| sequence_newer(sequence, n));
                let delivered = is_newest.then(|| message.clone());
                self.states.insert(Kept {
                    sequence,
                    id,
                    tick,
                    acked: true,
                    value: message,
                });
                let Some(message) = delivered else {
                    return 0;
                };
                self.newest_snapshot.insert(id, sequence);
                deliver(Delivery::Snapshot { sequence, message });
                1
            }
            Read::Response(request, id, response) => {
                let Some(call) = self.complete(request, id) else {
                    return 0;
                };
                deliver(Delivery::Response { call, response });
                1
            }
            Read::Refused(request, id, refusal) => {
                let Some(call) = self.complete(request, id) else {
                    return 0;
                };
                deliver(Delivery::Refused { call, refusal });
                1
            }
        }
    }

    /// Completes the call `request` of the RPC `id`: the call, when it was awaited.
    fn complete(&mut self, request: RequestId, id: u32) -> Option<Out::Message> {
        self.pending.complete(request, id).ok()?;
        self.calls.remove(&request)
    }

    /// Refuses by itself the requests whose tokens were dropped (or never taken).
    fn refuse_dropped(&mut self, flushed: &mut Flushed) {
        self.deferred.clear();
        let dropped = core::mem::take(
            &mut *self
                .dropped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for (request, id) in dropped {
            self.outstanding = self.outstanding.saturating_sub(1);
            self.outbox
                .push(Reliable::Refusal(request, id, Refusal::unanswered()));
            flushed.unanswered.push((id, request));
        }
    }

    /// Whether a reliable item is to be sent in the next packet: never sent, its packet is no
    /// longer remembered, the peer acknowledged 3 later packets but not it, or `resend_after`
    /// packets went out since.
    fn is_due<T>(&self, queued: &Queued<T>) -> bool {
        let Some(last) = queued.last_sent else {
            return true;
        };
        match self.sent.find(last) {
            None => true,
            Some(packet) if packet.acked => false,
            Some(_) => {
                let overtaken = self
                    .peer_ack
                    .is_some_and(|ack| sequence_newer(ack, last.wrapping_add(2)));
                overtaken || self.sent.sent_since(last) >= self.config.resend_after
            }
        }
    }

    /// Builds the packets to send now: reliable items due, queued messages, then snapshots;
    /// always at least one packet (it carries the acknowledgements and keeps the peer from
    /// timing this side out).
    pub fn flush(&mut self, now: Duration) -> Flushed {
        self.started.get_or_insert(now);
        let mut build = Build {
            writer: PacketWriter::with_mtu(0, self.items_mtu()),
            keys: Vec::new(),
            flushed: Flushed::default(),
        };
        self.refuse_dropped(&mut build.flushed);
        for key in self.outbox.due(|q| self.is_due(q)) {
            let Some(item) = self.outbox.get(key).map(|q| q.item.clone()) else {
                continue;
            };
            let pushed = match &item {
                Reliable::Message(index, m) => {
                    let kind = ItemKind::Reliable(*index);
                    self.push_item(&mut build, m.id(), kind, |w| m.encode_body::<E>(w))
                }
                Reliable::Request(m) => {
                    let kind = ItemKind::Request(m.request().unwrap_or_default());
                    self.push_item(&mut build, m.id(), kind, |w| m.encode_body(w))
                }
                Reliable::Answer(a) => {
                    let kind = ItemKind::Response(a.request());
                    self.push_item(&mut build, a.id(), kind, |w| {
                        w.write_bool(false)?;
                        a.encode_body(w)
                    })
                }
                Reliable::Refusal(request, id, refusal) => {
                    let kind = ItemKind::Response(*request);
                    self.push_item(&mut build, *id, kind, |w| {
                        w.write_bool(true)?;
                        refusal.encode(w)
                    })
                }
            };
            // Every item was checked to fit alone when queued: a failure is not expected.
            if pushed.is_ok() {
                build.keys.push(key);
            }
        }
        for message in core::mem::take(&mut self.unreliable) {
            let id = message.id::<E>();
            let _ = self.push_item(&mut build, id, ItemKind::Message, |w| {
                message.encode_body::<E>(w)
            });
        }
        for (tick, message) in core::mem::take(&mut self.snapshots) {
            if self.push_snapshot(&mut build, tick, &message).is_err() {
                build.flushed.left_out.push(message.id());
            }
        }
        self.finish_packet(&mut build);
        build.flushed
    }

    /// Pushes an item into the packet being built; when that one is full, sends it and pushes
    /// the item into the next.
    fn push_item(
        &mut self,
        build: &mut Build<E>,
        id: u32,
        kind: ItemKind,
        body: impl Fn(&mut WriterOf<E>) -> Result<(), EncodeError>,
    ) -> Result<(), SendError> {
        match build.writer.push(id, kind, &body) {
            Err(SendError::PacketFull { .. }) => {
                self.finish_packet(build);
                build.writer.push(id, kind, &body)
            }
            other => other,
        }
    }

    /// Pushes a snapshot: a delta against the newest acknowledged mirror of its message, or in
    /// full; keeps its mirror under the sequence of the packet that carries it.
    fn push_snapshot(
        &mut self,
        build: &mut Build<E>,
        tick: u32,
        message: &Out::Message,
    ) -> Result<(), SendError> {
        let id = message.id();
        for _ in 0..2 {
            let sequence = self.sent.next_sequence();
            let baseline = self.mirrors.newest_acked(id).filter(|kept| {
                let age = sequence.wrapping_sub(kept.sequence);
                age != 0 && age < 0x8000
            });
            let mut mirror = None;
            let pushed = match baseline {
                Some(kept) => {
                    let age = sequence.wrapping_sub(kept.sequence);
                    let ticks = tick.wrapping_sub(kept.tick);
                    let ctx = DeltaContext::from_ticks(u64::from(ticks), self.config.tick_seconds);
                    build
                        .writer
                        .push(id, ItemKind::Snapshot { age, ticks }, |w| {
                            mirror = Some(message.encode_delta_body(&kept.value, &ctx, w)?);
                            Ok(())
                        })
                }
                None => {
                    let full = ItemKind::Snapshot { age: 0, ticks: 0 };
                    build
                        .writer
                        .push(id, full, |w| message.encode_body(w))
                        .and_then(|()| {
                            mirror = Some(message.sent_state()?);
                            Ok(())
                        })
                }
            };
            match pushed {
                Ok(()) => {
                    build.flushed.snapshots.push((id, sequence));
                    if let Some(value) = mirror {
                        self.mirrors.insert(Kept {
                            sequence,
                            id,
                            tick,
                            acked: false,
                            value,
                        });
                    }
                    return Ok(());
                }
                Err(SendError::PacketFull { .. }) => self.finish_packet(build),
                Err(other) => return Err(other),
            }
        }
        Err(SendError::MessageTooLarge {
            needed: usize::MAX,
            mtu: self.config.mtu,
        })
    }

    fn finish_packet(&mut self, build: &mut Build<E>) {
        let sequence = self.sent.next_sequence();
        let header = self.received.header(sequence).to_bytes();
        let packet = build
            .writer
            .finish_with_header(session_id(self.out_id()), &header)
            .to_vec();
        build.flushed.packets.push(packet);
        let keys = core::mem::take(&mut build.keys);
        for &key in &keys {
            self.outbox.sent(key, sequence);
        }
        self.sent.push(keys);
    }
}

/// The packets being built by a flush.
struct Build<E: Encoding> {
    writer: PacketWriter<E>,
    /// Reliable items in the packet being built.
    keys: Vec<u64>,
    flushed: Flushed,
}

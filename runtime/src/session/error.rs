//! What can go wrong in a session: every refused packet and every reached cap is a value.

use core::fmt;

use super::header::Sequence;
use crate::error::{DecodeError, EncodeError};
use crate::packet::{RequestId, SendError};

/// Why an endpoint refused a packet or something to send. A refused packet changes nothing
/// and is not acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionError {
    /// The packet is malformed, or of another protocol or version (CRC), or an item in it is.
    Decode(DecodeError),
    /// A packet of this sequence was read already (the network or an attacker repeated it).
    Duplicate(Sequence),
    /// The packet is older than the 32 sequences before the newest received.
    Stale(Sequence),
    /// The packet acknowledges a sequence this side never sent.
    AckNotSent(Sequence),
    /// A response to a request id this side never issued, or a request id far beyond what the
    /// peer may have pending.
    ForgedRequest(RequestId),
    /// A reliable message index far beyond what the peer may have queued.
    ForgedIndex(u16),
    /// A snapshot delta against a state this side does not hold (a forged or corrupt packet:
    /// a peer only uses acknowledged baselines).
    UnknownBaseline {
        /// The message id of the snapshot.
        id: u32,
        /// The sequence of the baseline's packet.
        sequence: Sequence,
    },
    /// A message, call or response cannot be encoded or does not fit in a packet.
    Send(SendError),
    /// A message that is not a snapshot (its struct is no PUBLISHABLE_STRUCT) given to
    /// `send_snapshot`, or a snapshot given to `send`.
    NotASnapshot(u32),
    /// The protocol version in use does not have this message or RPC.
    NotInVersion(u32),
    /// A cap of [`super::SessionConfig`] is reached: nothing was added.
    Full(Cap),
    /// An answer token of another endpoint (another peer): the request it names is not this
    /// peer's. Its own endpoint refuses the call.
    ForeignToken(RequestId),
    /// A response to another RPC or request than the token's: nothing was sent; the token was
    /// dropped, and the call is refused.
    AnswerMismatch {
        /// The token's request id.
        request: RequestId,
        /// The token's RPC id.
        id: u32,
    },
}

/// The caps of [`super::SessionConfig`], named in [`SessionError::Full`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cap {
    /// `pending_requests`: calls awaiting their response.
    PendingRequests,
    /// `cached_answers`: responses not yet acknowledged by the peer.
    CachedAnswers,
    /// `queued_reliable`: reliable messages not yet acknowledged (or, received, not yet
    /// deliverable in order).
    QueuedReliable,
    /// `queued_messages`: unreliable messages waiting for the next packet.
    QueuedMessages,
}

impl From<DecodeError> for SessionError {
    fn from(error: DecodeError) -> Self {
        SessionError::Decode(error)
    }
}

impl From<SendError> for SessionError {
    fn from(error: SendError) -> Self {
        SessionError::Send(error)
    }
}

impl From<EncodeError> for SessionError {
    fn from(error: EncodeError) -> Self {
        SessionError::Send(SendError::Encode(error))
    }
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Decode(e) => write!(f, "malformed session packet: {e}"),
            SessionError::Duplicate(s) => write!(f, "packet {s} was received already"),
            SessionError::Stale(s) => write!(f, "packet {s} is older than the ack window"),
            SessionError::AckNotSent(s) => {
                write!(
                    f,
                    "the packet acknowledges packet {s}, which was never sent"
                )
            }
            SessionError::ForgedRequest(r) => {
                write!(f, "request id {r} was never issued or is out of the window")
            }
            SessionError::ForgedIndex(i) => {
                write!(f, "reliable message index {i} is beyond the peer's queue")
            }
            SessionError::UnknownBaseline { id, sequence } => write!(
                f,
                "snapshot of message id {id} against packet {sequence}, whose state is not kept"
            ),
            SessionError::Send(e) => write!(f, "cannot send: {e}"),
            SessionError::NotASnapshot(id) => write!(
                f,
                "message id {id}: snapshots are the messages whose struct is a PUBLISHABLE_STRUCT, sent with send_snapshot"
            ),
            SessionError::NotInVersion(id) => {
                write!(f, "message id {id} is not in the protocol version in use")
            }
            SessionError::Full(cap) => write!(f, "the cap {cap:?} is reached"),
            SessionError::ForeignToken(r) => {
                write!(f, "the answer token of request {r} is another endpoint's")
            }
            SessionError::AnswerMismatch { request, id } => write!(
                f,
                "the answer is not a response of RPC id {id} to request {request}, as its token's"
            ),
        }
    }
}

impl std::error::Error for SessionError {}

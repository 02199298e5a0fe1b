//! What generated code gives an [`super::Endpoint`]: per PROTOCOL, its message enum, its
//! response enum and the version each entry came in.

use crate::codec::Encoding;
use crate::delta::DeltaContext;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::packet::{Messages, Protocol, RequestId, Responses};
use crate::replication::{ReaderOf, WriterOf};
use crate::wire::WireRead;

/// A PROTOCOL an endpoint speaks in encoding `E` (generated for its unit struct).
pub trait SessionProtocol<E: Encoding>: Protocol<E> {
    /// Its messages and calls (`<Protocol>Message`).
    type Message: SessionMessage<E>;
    /// The responses to its calls (`<Protocol>Response`, or [`NoResponse`]).
    type Response: SessionResponse<E>;

    /// The version (index in [`Protocol::VERSIONS`]) that added the message or RPC `id`; for a
    /// link, the first of its versions that has it.
    fn since(id: u32) -> Option<usize>;

    /// Whether the version `version` (index in [`Protocol::VERSIONS`]) has the message or RPC
    /// `id`. A protocol's versions are ordered, each a prefix of the next: `since(id) <=
    /// version`, the default. A link's are a product of its members' versions, not ordered:
    /// generated code answers per member.
    fn supports(version: usize, id: u32) -> bool {
        Self::since(id).is_some_and(|since| since <= version)
    }
}

/// A protocol's message enum as a session sends and receives it.
pub trait SessionMessage<E: Encoding>: Messages<E> + Clone {
    /// Its message or RPC id.
    fn id(&self) -> u32;

    /// The request id of a call that expects a response; `None` for anything else.
    fn request(&self) -> Option<RequestId>;

    /// Sets the request id of a call that expects a response (nothing for anything else).
    fn set_request(&mut self, request: RequestId);

    /// Writes the message or the call's parameters alone (the item's body).
    fn encode_body(&self, w: &mut WriterOf<E>) -> Result<(), EncodeError>;

    /// Whether it is a snapshot: a message whose struct is a PUBLISHABLE_STRUCT. None is,
    /// unless generated code says otherwise.
    fn is_snapshot(&self) -> bool {
        false
    }

    /// The state the receiver holds once it decoded the message sent in full (a snapshot's
    /// first mirror); a message that is no snapshot is its own.
    fn sent_state(&self) -> Result<Self, EncodeError> {
        Ok(self.clone())
    }

    /// Writes a snapshot as a delta against `baseline` (the same message) and returns the
    /// mirror. An error ([`crate::EncodeErrorKind::InvalidArgument`]) when it is no snapshot
    /// or `baseline` is another message.
    fn encode_delta_body(
        &self,
        baseline: &Self,
        ctx: &DeltaContext,
        w: &mut WriterOf<E>,
    ) -> Result<Self, EncodeError> {
        let _ = (baseline, ctx, w);
        Err(EncodeError::new(EncodeErrorKind::InvalidArgument, 0))
    }

    /// Reads a snapshot delta against `baseline`, a snapshot of the same message; an error
    /// ([`crate::DecodeErrorKind::InvalidArgument`]) when `baseline` is no snapshot.
    fn decode_delta_body(
        baseline: &Self,
        ctx: &DeltaContext,
        r: &mut ReaderOf<'_, E>,
    ) -> Result<Self, DecodeError> {
        let _ = (baseline, ctx);
        Err(DecodeError::new(
            DecodeErrorKind::InvalidArgument,
            WireRead::bits_read(r),
        ))
    }
}

/// A protocol's response enum as a session sends it back.
pub trait SessionResponse<E: Encoding>: Responses<E> + Clone {
    /// The id of the RPC it answers.
    fn id(&self) -> u32;

    /// The request id it answers.
    fn request(&self) -> RequestId;

    /// Writes the response struct (`f.response`, one field `value`).
    fn encode_body(&self, w: &mut WriterOf<E>) -> Result<(), EncodeError>;
}

/// The responses of a protocol without requests: there are none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoResponse {}

impl<E: Encoding> Responses<E> for NoResponse {
    fn decode_response(
        _id: u32,
        _request: RequestId,
        _r: &mut ReaderOf<'_, E>,
    ) -> Result<Option<Self>, DecodeError> {
        Ok(None)
    }
}

impl<E: Encoding> SessionResponse<E> for NoResponse {
    fn id(&self) -> u32 {
        match *self {}
    }

    fn request(&self) -> RequestId {
        match *self {}
    }

    fn encode_body(&self, _w: &mut WriterOf<E>) -> Result<(), EncodeError> {
        match *self {}
    }
}

//! How a handler answers a request: now, later (through a token), or not at all (a refusal
//! the caller receives as a value). WIRE_FORMAT.md, "Session packets", "Answers".

use core::fmt;
use core::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use crate::error::{DecodeError, DecodeErrorKind, EncodeError};
use crate::packet::RequestId;
use crate::vlq::DEFAULT_VLQ_GROUP_BITS;
use crate::wire::{WireRead, WireWrite};

/// The longest text of a [`Refusal`], in UTF-8 bytes.
pub const MAX_REFUSAL_TEXT: usize = 255;

/// A call refused by the application: a code the game defines and a short text it can show.
/// It travels in place of the response (1 bit, or a byte in a BYTESTREAM, tells them apart).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Refusal {
    /// What the game's codes mean is the game's; [`Refusal::UNANSWERED`] is the endpoint's.
    pub code: u32,
    /// At most [`MAX_REFUSAL_TEXT`] bytes of UTF-8.
    pub text: String,
}

impl Refusal {
    /// The code of the refusal an endpoint sends by itself for a request whose
    /// [`AnswerToken`] was dropped unanswered (or never taken): the caller is not left waiting.
    pub const UNANSWERED: u32 = u32::MAX;

    /// A refusal with `code` and `text`.
    pub fn new(code: u32, text: impl Into<String>) -> Self {
        Refusal {
            code,
            text: text.into(),
        }
    }

    /// The endpoint's refusal of a request nobody answered.
    #[must_use]
    pub fn unanswered() -> Self {
        Refusal::new(Refusal::UNANSWERED, "the peer did not answer this call")
    }

    /// Writes it: the code as VLQ(7), the text as a STRING of at most [`MAX_REFUSAL_TEXT`]
    /// bytes (its length in 8 bits, ALIGN, the bytes).
    pub fn encode<W: WireWrite>(&self, w: &mut W) -> Result<(), EncodeError> {
        w.write_vlq(u64::from(self.code), DEFAULT_VLQ_GROUP_BITS)?;
        w.write_str(&self.text, Some(MAX_REFUSAL_TEXT as u64))
    }

    /// Reads what [`Refusal::encode`] writes, with its checks.
    pub fn decode<'a, R: WireRead<'a>>(r: &mut R) -> Result<Self, DecodeError> {
        let at = r.bits_read();
        let code = r.read_vlq(DEFAULT_VLQ_GROUP_BITS)?;
        let code = u32::try_from(code)
            .map_err(|_| DecodeError::new(DecodeErrorKind::ValueOutOfRange, at))?;
        let text = r.read_str(Some(MAX_REFUSAL_TEXT as u64))?;
        Ok(Refusal::new(code, text))
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "refused ({}): {}", self.code, self.text)
    }
}

/// What the closure given to [`super::Endpoint::receive`] returns for a delivery (`R` the
/// responses it answers with, `M` the messages it receives). `Option<R>` converts into it
/// (`Some(r)` is [`Answer::Now`], `None` is [`Answer::None`]), so a closure that answers at
/// once returns the response as before.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<R, M> {
    /// Nothing: the delivery is no request. A request left without an answer is refused
    /// ([`Refusal::UNANSWERED`], reported in [`super::Flushed::unanswered`]).
    None,
    /// The response, queued at once.
    Now(R),
    /// The call is refused: the caller receives this instead of a response.
    Refuse(Refusal),
    /// The answer comes later: give the call back; the endpoint hands it with an
    /// [`AnswerToken`] ([`super::Endpoint::take_deferred`]), to give back with the response
    /// ([`super::Endpoint::answer`]) or a refusal ([`super::Endpoint::refuse`]).
    Later(M),
}

impl<R, M> From<Option<R>> for Answer<R, M> {
    fn from(answer: Option<R>) -> Self {
        match answer {
            Some(response) => Answer::Now(response),
            None => Answer::None,
        }
    }
}

/// The requests whose tokens were dropped unanswered, shared by an endpoint and its tokens.
pub(super) type DroppedLog = Arc<Mutex<Vec<(RequestId, u32)>>>;

/// Reports the request `request` of the RPC `id` unanswered: its endpoint refuses it at its
/// next flush.
pub(super) fn report_unanswered(log: &DroppedLog, request: RequestId, id: u32) {
    log.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push((request, id));
}

/// A request to answer later, typed by the responses of its protocol (`R`: the protocol's
/// `<Protocol>Response`). Give it back to the endpoint of the peer that called, with the
/// response ([`super::Endpoint::answer`]) or a refusal ([`super::Endpoint::refuse`]), after
/// as many ticks as it takes. A token dropped unanswered is not lost: the endpoint reports it
/// at its next flush ([`super::Flushed::unanswered`]) and refuses the call
/// ([`Refusal::UNANSWERED`]), so the caller is not left waiting.
#[must_use = "a dropped token refuses its call: answer it through its endpoint"]
pub struct AnswerToken<R> {
    request: RequestId,
    id: u32,
    /// Where the token reports its drop; `None` once answered.
    dropped: Option<DroppedLog>,
    response: PhantomData<fn() -> R>,
}

impl<R> AnswerToken<R> {
    pub(super) fn new(request: RequestId, id: u32, dropped: DroppedLog) -> Self {
        AnswerToken {
            request,
            id,
            dropped: Some(dropped),
            response: PhantomData,
        }
    }

    /// The caller's request id.
    #[must_use]
    pub fn request(&self) -> RequestId {
        self.request
    }

    /// The id of the RPC called.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Whether it was handed out by the endpoint that shares `log`.
    pub(super) fn belongs_to(&self, log: &DroppedLog) -> bool {
        self.dropped
            .as_ref()
            .is_some_and(|own| Arc::ptr_eq(own, log))
    }

    /// Marks it answered: its drop reports nothing.
    pub(super) fn consume(mut self) -> (RequestId, u32) {
        self.dropped = None;
        (self.request, self.id)
    }
}

impl<R> fmt::Debug for AnswerToken<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnswerToken")
            .field("request", &self.request)
            .field("id", &self.id)
            .finish()
    }
}

impl<R> Drop for AnswerToken<R> {
    fn drop(&mut self) {
        if let Some(log) = self.dropped.take() {
            report_unanswered(&log, self.request, self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EncodeErrorKind;
    use crate::{BitReader, BitWriter, ByteReader, ByteWriter};

    #[test]
    fn a_refusal_reads_back_in_both_styles() {
        let refusal = Refusal::new(42, "rate limited: 3 calls a second");
        let mut bits = BitWriter::new();
        bits.write_bool(true).unwrap();
        refusal.encode(&mut bits).unwrap();
        let bytes = bits.finish().to_vec();
        let mut r = BitReader::new(&bytes);
        assert!(r.read_bool().unwrap());
        assert_eq!(Refusal::decode(&mut r).unwrap(), refusal);
        let mut w = ByteWriter::new();
        refusal.encode(&mut w).unwrap();
        let bytes = w.finish().to_vec();
        assert_eq!(
            Refusal::decode(&mut ByteReader::new(&bytes)).unwrap(),
            refusal
        );
    }

    #[test]
    fn a_long_text_or_a_wide_code_is_an_error() {
        let long = Refusal::new(1, "x".repeat(MAX_REFUSAL_TEXT + 1));
        let error = long.encode(&mut BitWriter::new()).unwrap_err();
        assert_eq!(error.kind, EncodeErrorKind::LengthOverBound);
        let mut w = BitWriter::new();
        w.write_vlq(1 << 32, DEFAULT_VLQ_GROUP_BITS).unwrap();
        w.write_str("", None).unwrap();
        let bytes = w.finish().to_vec();
        let error = Refusal::decode(&mut BitReader::new(&bytes)).unwrap_err();
        assert_eq!(error.kind, DecodeErrorKind::ValueOutOfRange);
    }

    #[test]
    fn a_dropped_token_reports_itself_an_answered_one_does_not() {
        let log = DroppedLog::default();
        let answered = AnswerToken::<()>::new(1, 7, log.clone());
        assert!(answered.belongs_to(&log));
        assert!(!answered.belongs_to(&DroppedLog::default()));
        assert_eq!(answered.consume(), (1, 7));
        drop(AnswerToken::<()>::new(2, 7, log.clone()));
        assert_eq!(*log.lock().unwrap(), vec![(2, 7)]);
    }
}

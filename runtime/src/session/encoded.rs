//! A message encoded once and appended to the packets of many endpoints: a server that sends
//! the same chat line or event to 60 peers encodes it once, not 60 times.

use core::fmt;
use core::marker::PhantomData;
use std::sync::Arc;

use super::traits::SessionMessage;
use crate::codec::Encoding;
use crate::error::{EncodeError, EncodeErrorKind};
use crate::replication::{ReaderOf, WriterOf};
use crate::wire::{WireRead, WireWrite};

/// A message's body as it is written from one bit offset within a byte.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Body {
    /// The zero bits of the offset, then the body.
    bytes: Vec<u8>,
    /// The offset: where the body starts in `bytes`.
    offset: u32,
    /// The body's bits.
    bits: u64,
}

/// The body from each bit offset 0..8 a packet may give it, or one body when they are all
/// the same bits (no STRING, BYTES or ALIGN in the message aligns to the packet's bytes).
#[derive(Debug, PartialEq, Eq)]
enum Bodies {
    Same(Body),
    ByOffset(Vec<Body>),
}

/// A message encoded once (its body, the bits an item carries), to append to the packets of
/// many endpoints with [`super::Endpoint::send_encoded`] and
/// [`super::Endpoint::send_encoded_reliable`]: each packet gets the same bits as if the message
/// were given to each endpoint, without encoding it again. Cloning it shares the bytes.
///
/// A message whose body aligns to the packet's bytes (a STRING or BYTES in a BITSTREAM) has
/// bits that depend on where in a byte its item starts: it is encoded from each of the 8 bit
/// offsets once (at most 8 encodings, however many peers), and the packet takes the one of
/// its offset.
pub struct Encoded<E: Encoding, M> {
    raw: RawEncoded,
    types: PhantomData<fn() -> (E, M)>,
}

/// An [`Encoded`] without its types, as an endpoint queues it.
#[derive(Debug, Clone)]
pub(super) struct RawEncoded {
    id: u32,
    bodies: Arc<Bodies>,
}

impl<E: Encoding, M> Clone for Encoded<E, M> {
    fn clone(&self) -> Self {
        Encoded {
            raw: self.raw.clone(),
            types: PhantomData,
        }
    }
}

impl<E: Encoding, M> fmt::Debug for Encoded<E, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoded")
            .field("id", &self.raw.id)
            .field("bits", &self.bits(0))
            .finish()
    }
}

impl<E: Encoding, M: SessionMessage<E>> Encoded<E, M> {
    /// Encodes `message` (a message or a call without a response: a request is per peer, an
    /// error [`EncodeErrorKind::InvalidArgument`]).
    pub fn new(message: &M) -> Result<Self, EncodeError> {
        if message.request().is_some() {
            return Err(EncodeError::new(EncodeErrorKind::InvalidArgument, 0));
        }
        let offsets: u32 = if WriterOf::<E>::BYTE_STREAM { 1 } else { 8 };
        let first = body_at::<E, M>(message, 0)?;
        // An ALIGN pads to the next byte from any offset, so a body that aligns is one bit
        // shorter from offset 1 than from 0, or 7 longer: the same length is no alignment,
        // and the same bits from anywhere.
        let bodies = if offsets == 1 || body_at::<E, M>(message, 1)?.bits == first.bits {
            Bodies::Same(first)
        } else {
            let mut all = vec![first];
            for offset in 1..offsets {
                all.push(body_at::<E, M>(message, offset)?);
            }
            Bodies::ByOffset(all)
        };
        Ok(Encoded {
            raw: RawEncoded {
                id: message.id(),
                bodies: Arc::new(bodies),
            },
            types: PhantomData,
        })
    }
}

impl<E: Encoding, M> Encoded<E, M> {
    /// The message id.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.raw.id
    }

    /// The body's bits when its item's body starts at bit `offset` of the packet.
    #[must_use]
    pub fn bits(&self, offset: u64) -> u64 {
        self.raw.body(offset).bits
    }

    pub(super) fn raw(&self) -> &RawEncoded {
        &self.raw
    }
}

impl RawEncoded {
    /// The message id.
    pub(super) fn id(&self) -> u32 {
        self.id
    }

    /// The most bits its body takes from any offset.
    pub(super) fn max_bits(&self) -> u64 {
        match &*self.bodies {
            Bodies::Same(body) => body.bits,
            Bodies::ByOffset(all) => all.iter().map(|b| b.bits).max().unwrap_or(0),
        }
    }

    fn body(&self, offset: u64) -> &Body {
        match &*self.bodies {
            Bodies::Same(body) => body,
            Bodies::ByOffset(all) => &all[(offset % 8) as usize % all.len()],
        }
    }

    /// Appends the body at `w`'s position: the bits the message would write there.
    pub(super) fn write_body<E: Encoding>(&self, w: &mut WriterOf<E>) -> Result<(), EncodeError> {
        let before = w.bits_written();
        let body = self.body(before);
        let mut r = ReaderOf::<E>::from_bytes(&body.bytes);
        let mut left = body.bits;
        let mut copied = r.read_bits(body.offset).is_ok();
        while copied && left > 0 {
            let bits = left.min(56) as u32;
            copied = match r.read_bits(bits) {
                Ok(value) => w.write_bits(value, bits).is_ok(),
                Err(_) => false,
            };
            left -= u64::from(bits);
        }
        // The bytes are this body's own: a copy that fails is a bug, never the input.
        if !copied || w.bits_written() - before != body.bits {
            return Err(EncodeError::new(EncodeErrorKind::InvalidArgument, before));
        }
        Ok(())
    }
}

/// The body of `message` written after `offset` zero bits.
fn body_at<E: Encoding, M: SessionMessage<E>>(
    message: &M,
    offset: u32,
) -> Result<Body, EncodeError> {
    let mut w = WriterOf::<E>::default();
    w.write_bits(0, offset)?;
    message.encode_body(&mut w)?;
    let bits = w.bits_written() - u64::from(offset);
    Ok(Body {
        bytes: w.into_bytes(),
        offset,
        bits,
    })
}

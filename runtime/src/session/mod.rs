//! Sessions: one [`Endpoint`] per peer over two protocols (one each way, or one spoken both
//! ways), or over a link (a generated union of every protocol a side speaks each way). Packets
//! carry a sequence and acknowledgements ([`SessionHeader`]); requests, responses and reliable
//! messages are resent until acknowledged; a request is handled once and answered at once,
//! later ([`AnswerToken`]) or refused ([`Refusal`]), and the caller gets the answer with its
//! call; snapshot messages travel as deltas against the newest state the peer acknowledged; a
//! message for many peers is encoded once ([`Encoded`]). The endpoint opens no socket: bytes
//! in, calls out; calls in, bytes out. The wire is in docs/WIRE_FORMAT.md, "Session packets".

mod acks;
mod answer;
mod baselines;
mod config;
mod encoded;
mod endpoint;
mod error;
mod header;
mod link;
mod reliable;
mod requests;
mod traits;

pub use answer::{Answer, AnswerToken, MAX_REFUSAL_TEXT, Refusal};
pub use config::SessionConfig;
pub use encoded::Encoded;
pub use endpoint::{Delivery, DeliveryOf, Endpoint, Flushed, Received, Usage};
pub use error::{Cap, SessionError};
pub use header::{
    SESSION_HEADER_BYTES, Sequence, SessionHeader, sequence_newer, session_id, session_version,
};
pub use link::{link_id, link_item_id, link_member};
pub use traits::{NoResponse, SessionMessage, SessionProtocol, SessionResponse};

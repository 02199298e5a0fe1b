//! The limits and timings of a session.

use core::time::Duration;

/// What an [`super::Endpoint`] may hold and when it resends or gives up. Every queue has a cap;
/// reaching one is a [`super::SessionError::Full`], never growth.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    /// The largest packet, frame and session header included.
    pub mtu: usize,
    /// Snapshot states kept per peer: the sender's mirrors of the last snapshots it sent, and
    /// the receiver's states it may be asked to use as baselines.
    pub kept_baselines: usize,
    /// Calls awaiting their response; also how far ahead of the newest handled request id a
    /// peer's request may be.
    pub pending_requests: usize,
    /// Responses kept until the peer acknowledges them (the answers a resent request gets).
    pub cached_answers: usize,
    /// Reliable messages not yet acknowledged; also how far ahead of the next expected index a
    /// peer's reliable message may be.
    pub queued_reliable: usize,
    /// Unreliable messages waiting for the next packet.
    pub queued_messages: usize,
    /// A reliable item whose packet is not acknowledged after this many later packets is sent
    /// again (sooner when the peer acknowledged 3 later packets but not that one).
    pub resend_after: u16,
    /// A peer silent for this long is timed out ([`super::Endpoint::is_silent`]).
    pub timeout: Duration,
    /// Seconds per tick: a snapshot delta's `DeltaContext` is its ticks times this.
    pub tick_seconds: f64,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            mtu: 1200,
            kept_baselines: 32,
            pending_requests: 64,
            cached_answers: 64,
            queued_reliable: 256,
            queued_messages: 256,
            resend_after: 8,
            timeout: Duration::from_secs(5),
            tick_seconds: 1.0 / 30.0,
        }
    }
}

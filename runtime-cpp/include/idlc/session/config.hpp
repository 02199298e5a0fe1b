// idlc C++ runtime: the limits and timings of a session. Mirrors runtime/src/session/config.rs.
#ifndef IDLC_SESSION_CONFIG_HPP
#define IDLC_SESSION_CONFIG_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace idlc {

/// A point in time or a span of it, as an endpoint counts them (Rust's `Duration`): the game's
/// clock, from any origin.
using SessionTime = std::chrono::nanoseconds;

/// What an `Endpoint` may hold and when it resends or gives up. Every queue has a cap; reaching
/// one is a `SessionErrorKind::Full` status, never growth.
struct SessionConfig {
    /// The largest packet, frame and session header included.
    std::size_t mtu = 1200;
    /// Snapshot states kept per peer: the sender's mirrors of the last snapshots it sent, and
    /// the receiver's states it may be asked to use as baselines.
    std::size_t kept_baselines = 32;
    /// Calls awaiting their response; also how far ahead of the newest handled request id a
    /// peer's request may be.
    std::size_t pending_requests = 64;
    /// Responses kept until the peer acknowledges them (the answers a resent request gets).
    std::size_t cached_answers = 64;
    /// Reliable messages not yet acknowledged; also how far ahead of the next expected index a
    /// peer's reliable message may be.
    std::size_t queued_reliable = 256;
    /// Unreliable messages waiting for the next packet.
    std::size_t queued_messages = 256;
    /// A reliable item whose packet is not acknowledged after this many later packets is sent
    /// again (sooner when the peer acknowledged 3 later packets but not that one).
    std::uint16_t resend_after = 8;
    /// A peer silent for this long is timed out (`Endpoint::is_silent`).
    SessionTime timeout = std::chrono::seconds(5);
    /// Seconds per tick: a snapshot delta's `DeltaContext` is its ticks times this.
    double tick_seconds = 1.0 / 30.0;
};

} // namespace idlc

#endif // IDLC_SESSION_CONFIG_HPP

// idlc C++ runtime: what can go wrong in a session, every refused packet and every reached cap
// a value. Mirrors runtime/src/session/error.rs.
#ifndef IDLC_SESSION_ERROR_HPP
#define IDLC_SESSION_ERROR_HPP

#include <cstdint>
#include <string>
#include <utility>

#include "../packet.hpp"
#include "../status.hpp"
#include "header.hpp"

/// Returns the `SessionStatus` of `expr` from the enclosing function when it is an error.
#define IDLC_SESSION_TRY(expr)                                                                   \
    do {                                                                                         \
        ::idlc::SessionStatus idlc_session_status_ = (expr);                                     \
        if (!idlc_session_status_.ok()) {                                                        \
            return idlc_session_status_;                                                         \
        }                                                                                        \
    } while (false)

namespace idlc {

/// The caps of `SessionConfig`, named in a `Full` status (Rust's `Cap`).
enum class Cap : std::uint8_t {
    /// `pending_requests`: calls awaiting their response.
    PendingRequests,
    /// `cached_answers`: responses not yet acknowledged by the peer.
    CachedAnswers,
    /// `queued_reliable`: reliable messages not yet acknowledged (or, received, not yet
    /// deliverable in order).
    QueuedReliable,
    /// `queued_messages`: unreliable messages waiting for the next packet.
    QueuedMessages,
};

/// The cap's name as Rust writes it (`"PendingRequests"`).
constexpr const char* cap_name(Cap cap) noexcept {
    switch (cap) {
    case Cap::PendingRequests: return "PendingRequests";
    case Cap::CachedAnswers: return "CachedAnswers";
    case Cap::QueuedReliable: return "QueuedReliable";
    case Cap::QueuedMessages: return "QueuedMessages";
    }
    return "Unknown";
}

/// Why an endpoint refused a packet or something to send (Rust's `SessionError`), or `Ok`.
enum class SessionErrorKind : std::uint8_t {
    /// Nothing went wrong.
    Ok,
    /// The packet is malformed, or of another protocol or version (CRC), or an item in it is:
    /// `decode` says how.
    Decode,
    /// A packet of this `sequence` was read already.
    Duplicate,
    /// The packet (`sequence`) is older than the 32 sequences before the newest received.
    Stale,
    /// The packet acknowledges `sequence`, which this side never sent.
    AckNotSent,
    /// A response to a `request` id this side never issued, or a request id far beyond what
    /// the peer may have pending.
    ForgedRequest,
    /// A reliable message `index` far beyond what the peer may have queued.
    ForgedIndex,
    /// A snapshot delta of message `id` against the packet `sequence`, whose state this side
    /// does not hold.
    UnknownBaseline,
    /// A message, call or response cannot be encoded or does not fit in a packet: `send`.
    Send,
    /// A message `id` that is not a snapshot given to `send_snapshot` (or read as one).
    NotASnapshot,
    /// The protocol version in use does not have the message or RPC `id`.
    NotInVersion,
    /// The `cap` of `SessionConfig` is reached: nothing was added.
    Full,
    /// An answer token of another endpoint (another peer), or one answered already: the
    /// `request` it names is not this peer's. Its own endpoint refuses the call.
    ForeignToken,
    /// A response to another RPC than the token's (`request`, `id`): nothing was sent; the
    /// token was dropped, and the call is refused.
    AnswerMismatch,
};

/// The result of an endpoint's call: `ok()`, or Rust's `SessionError` as a value. A refused
/// packet changes nothing and is not acknowledged.
struct [[nodiscard]] SessionStatus {
    /// What went wrong; `Ok` when nothing did.
    SessionErrorKind kind = SessionErrorKind::Ok;
    /// The decoder's error (`Decode`).
    Status decode;
    /// The sender's error (`Send`).
    SendStatus send;
    /// The sequence (`Duplicate`, `Stale`, `AckNotSent`, `UnknownBaseline`).
    Sequence sequence = 0;
    /// The request id (`ForgedRequest`, `ForeignToken`, `AnswerMismatch`).
    RequestId request = 0;
    /// The reliable index (`ForgedIndex`).
    std::uint16_t index = 0;
    /// The message id (`UnknownBaseline`, `NotASnapshot`, `NotInVersion`, `AnswerMismatch`).
    std::uint32_t id = 0;
    /// The cap reached (`Full`).
    Cap cap = Cap::PendingRequests;

    /// Whether nothing went wrong.
    bool ok() const noexcept { return kind == SessionErrorKind::Ok; }

    /// A status of `kind` naming `sequence`.
    static SessionStatus of_sequence(SessionErrorKind kind, Sequence sequence) {
        SessionStatus s;
        s.kind = kind;
        s.sequence = sequence;
        return s;
    }
    /// A malformed packet.
    static SessionStatus decode_error(Status error) {
        SessionStatus s;
        s.kind = SessionErrorKind::Decode;
        s.decode = std::move(error);
        return s;
    }
    /// Something that cannot be sent.
    static SessionStatus send_error(SendStatus error) {
        SessionStatus s;
        s.kind = SessionErrorKind::Send;
        s.send = std::move(error);
        return s;
    }
    /// A forged request id.
    static SessionStatus forged_request(RequestId request) {
        SessionStatus s;
        s.kind = SessionErrorKind::ForgedRequest;
        s.request = request;
        return s;
    }
    /// A token of another endpoint.
    static SessionStatus foreign_token(RequestId request) {
        SessionStatus s = forged_request(request);
        s.kind = SessionErrorKind::ForeignToken;
        return s;
    }
    /// A response that is not the token's.
    static SessionStatus answer_mismatch(RequestId request, std::uint32_t id) {
        SessionStatus s = forged_request(request);
        s.kind = SessionErrorKind::AnswerMismatch;
        s.id = id;
        return s;
    }
    /// A forged reliable index.
    static SessionStatus forged_index(std::uint16_t index) {
        SessionStatus s;
        s.kind = SessionErrorKind::ForgedIndex;
        s.index = index;
        return s;
    }
    /// A status of `kind` naming the message `id`.
    static SessionStatus of_id(SessionErrorKind kind, std::uint32_t id) {
        SessionStatus s;
        s.kind = kind;
        s.id = id;
        return s;
    }
    /// A delta against a state not held.
    static SessionStatus unknown_baseline(std::uint32_t id, Sequence sequence) {
        SessionStatus s = of_sequence(SessionErrorKind::UnknownBaseline, sequence);
        s.id = id;
        return s;
    }
    /// A cap reached.
    static SessionStatus full(Cap cap) {
        SessionStatus s;
        s.kind = SessionErrorKind::Full;
        s.cap = cap;
        return s;
    }

    /// Rust's Display text.
    std::string to_string() const {
        switch (kind) {
        case SessionErrorKind::Ok:
            return "ok";
        case SessionErrorKind::Decode:
            return "malformed session packet: " + decode.to_string();
        case SessionErrorKind::Duplicate:
            return "packet " + std::to_string(sequence) + " was received already";
        case SessionErrorKind::Stale:
            return "packet " + std::to_string(sequence) + " is older than the ack window";
        case SessionErrorKind::AckNotSent:
            return "the packet acknowledges packet " + std::to_string(sequence) +
                   ", which was never sent";
        case SessionErrorKind::ForgedRequest:
            return "request id " + std::to_string(request) +
                   " was never issued or is out of the window";
        case SessionErrorKind::ForgedIndex:
            return "reliable message index " + std::to_string(index) +
                   " is beyond the peer's queue";
        case SessionErrorKind::UnknownBaseline:
            return "snapshot of message id " + std::to_string(id) + " against packet " +
                   std::to_string(sequence) + ", whose state is not kept";
        case SessionErrorKind::Send:
            return "cannot send: " + send.to_string();
        case SessionErrorKind::NotASnapshot:
            return "message id " + std::to_string(id) +
                   ": snapshots are the messages whose struct is a PUBLISHABLE_STRUCT, sent "
                   "with send_snapshot";
        case SessionErrorKind::NotInVersion:
            return "message id " + std::to_string(id) +
                   " is not in the protocol version in use";
        case SessionErrorKind::Full:
            return std::string("the cap ") + cap_name(cap) + " is reached";
        case SessionErrorKind::ForeignToken:
            return "the answer token of request " + std::to_string(request) +
                   " is another endpoint's";
        case SessionErrorKind::AnswerMismatch:
            return "the answer is not a response of RPC id " + std::to_string(id) +
                   " to request " + std::to_string(request) + ", as its token's";
        }
        return "unknown session error";
    }
};

} // namespace idlc

#endif // IDLC_SESSION_ERROR_HPP

// idlc C++ runtime: the request ids a session receiver handled: each request is handled once,
// however often it comes. Mirrors runtime/src/session/requests.rs.
#ifndef IDLC_SESSION_REQUESTS_HPP
#define IDLC_SESSION_REQUESTS_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>

#include "../packet.hpp"
#include "error.hpp"

namespace idlc {

/// What to do with an incoming request id.
enum class RequestCheck : std::uint8_t {
    /// Not handled yet: handle it.
    New,
    /// Handled already (a resend): its answer is queued or was acknowledged; drop it.
    Handled,
};

/// The request ids handled lately: the newest, and which of the `window` ids up to it were. A
/// peer with at most `window` calls pending has every id at or before `newest - window`
/// answered, so those are handled; an id more than `window` past the newest was never issued.
class HandledRequests {
public:
    /// A record for a peer with at most `window` calls pending.
    explicit HandledRequests(std::size_t window)
        : window_(static_cast<std::uint32_t>(window < 1             ? 1
                                             : window > (1u << 30) ? (1u << 30)
                                                                    : window)) {}

    /// Whether `request` is new or handled (`out`), or forged (ForgedRequest: too far ahead).
    /// Changes nothing.
    SessionStatus check(RequestId request, RequestCheck& out) const {
        out = RequestCheck::New;
        if (!newest_) {
            // The peer's first ids count from 0.
            return request < window_ ? SessionStatus{} : SessionStatus::forged_request(request);
        }
        RequestId ahead = static_cast<RequestId>(request - *newest_);
        if (ahead != 0 && ahead <= window_) {
            return SessionStatus{};
        }
        RequestId behind = static_cast<RequestId>(*newest_ - request);
        if (behind < window_) {
            out = handled_.count(request) != 0 ? RequestCheck::Handled : RequestCheck::New;
            return SessionStatus{};
        }
        if (behind < (1u << 31)) {
            out = RequestCheck::Handled;
            return SessionStatus{};
        }
        return SessionStatus::forged_request(request);
    }

    /// Records `request` as handled (after `check` said it is new).
    void record(RequestId request) {
        RequestId newest = request;
        if (newest_ && static_cast<RequestId>(request - *newest_) > window_) {
            newest = *newest_;
        }
        newest_ = newest;
        handled_.insert(request);
        for (auto it = handled_.begin(); it != handled_.end();) {
            if (static_cast<RequestId>(newest - *it) < window_) {
                ++it;
            } else {
                it = handled_.erase(it);
            }
        }
    }

    /// Ids remembered (at most the window).
    std::size_t size() const noexcept { return handled_.size(); }

private:
    std::uint32_t window_;
    std::optional<RequestId> newest_;
    std::set<RequestId> handled_;
};

} // namespace idlc

#endif // IDLC_SESSION_REQUESTS_HPP

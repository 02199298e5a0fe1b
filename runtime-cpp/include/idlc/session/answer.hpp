// idlc C++ runtime: how a handler answers a request: now, later (through a token), or not at all
// (a refusal: a code and a short text the caller receives in place of the response). Mirrors
// runtime/src/session/answer.rs (docs/WIRE_FORMAT.md, section 6, "Answers").
#ifndef IDLC_SESSION_ANSWER_HPP
#define IDLC_SESSION_ANSWER_HPP

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../status.hpp"
#include "../packet.hpp"
#include "../wire.hpp"

namespace idlc {

/// The longest text of a Refusal, in UTF-8 bytes.
inline constexpr std::uint64_t MAX_REFUSAL_TEXT = 255;

/// A call refused by the peer's application: a code the game defines and a short text.
struct Refusal {
    /// What the game's codes mean is the game's; UNANSWERED is the endpoint's.
    std::uint32_t code = 0;
    /// At most MAX_REFUSAL_TEXT bytes of UTF-8.
    std::string text;

    /// The code of the refusal an endpoint sends by itself for a request nobody answered.
    static constexpr std::uint32_t UNANSWERED = std::numeric_limits<std::uint32_t>::max();

    /// The endpoint's refusal of a request nobody answered.
    static Refusal unanswered() { return Refusal{UNANSWERED, "the peer did not answer this call"}; }
};

/// Writes a refusal: the code as VLQ(7), the text as a STRING of at most MAX_REFUSAL_TEXT bytes.
template <class W>
Status encode_refusal(const Refusal& refusal, W& w) {
    IDLC_TRY(w.write_vlq(refusal.code, 7));
    return write_str(w, refusal.text, Bound{MAX_REFUSAL_TEXT});
}

/// Reads what encode_refusal writes, with its checks (a code above 32 bits is ValueOutOfRange).
template <class R>
Status decode_refusal(R& r, Refusal& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t code = 0;
    IDLC_TRY(read_vlq(r, 7, code));
    if (code > std::numeric_limits<std::uint32_t>::max()) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    std::string_view text;
    IDLC_TRY(read_str(r, Bound{MAX_REFUSAL_TEXT}, text));
    out.code = static_cast<std::uint32_t>(code);
    out.text = std::string(text);
    return Status{};
}

/// What an `Answer` is (Rust's `Answer` variants).
enum class AnswerKind : std::uint8_t {
    /// Nothing: the delivery is no request. A request left without an answer is refused
    /// (Refusal::UNANSWERED, reported in `Flushed::unanswered`).
    None,
    /// The response (`response`), queued at once.
    Now,
    /// The call is refused (`refusal`): the caller receives it instead of a response.
    Refuse,
    /// The answer comes later: the call (`call`) is given back; the endpoint hands it with an
    /// `AnswerToken` (`take_deferred`), to give back with the response (`answer`) or a refusal
    /// (`refuse`).
    Later,
};

/// What the callable given to `Endpoint::receive` returns for a delivery (`R` the responses it
/// answers with, `M` the messages it receives). A `std::optional<R>` converts into it (a value
/// is Now, none is None), so a callable that answers at once returns the response as before.
template <class R, class M>
struct Answer {
    /// What it is.
    AnswerKind kind = AnswerKind::None;
    /// The response (Now).
    R response{};
    /// Why the call is refused (Refuse).
    Refusal refusal{};
    /// The call given back (Later).
    M call{};

    /// Nothing (a request left so is refused by the endpoint).
    Answer() = default;
    /// Now with the response, or None.
    Answer(std::optional<R> answer) { // NOLINT(google-explicit-constructor): as Rust's From
        if (answer) {
            kind = AnswerKind::Now;
            response = std::move(*answer);
        }
    }

    /// Nothing.
    static Answer none() { return Answer{}; }
    /// The response, queued at once.
    static Answer now(R response) {
        Answer a;
        a.kind = AnswerKind::Now;
        a.response = std::move(response);
        return a;
    }
    /// The call refused.
    static Answer refuse(Refusal refusal) {
        Answer a;
        a.kind = AnswerKind::Refuse;
        a.refusal = std::move(refusal);
        return a;
    }
    /// The answer later: the call given back, handed out with its token by `take_deferred`.
    static Answer later(M call) {
        Answer a;
        a.kind = AnswerKind::Later;
        a.call = std::move(call);
        return a;
    }
};

/// The requests whose tokens were dropped unanswered (each one's request id and RPC id), shared
/// by an endpoint and its tokens.
using DroppedLog = std::vector<std::pair<RequestId, std::uint32_t>>;

template <class E, class Out, class In>
class Endpoint;

/// A request to answer later, typed by the responses of its protocol (`R`). Move-only: give it
/// back to the endpoint that handed it out, with the response (`answer`) or a refusal
/// (`refuse`), after as many ticks as it takes. A token destroyed unanswered is not lost: the
/// endpoint reports it at its next flush (`Flushed::unanswered`) and refuses the call
/// (Refusal::UNANSWERED), so the caller is not left waiting. Rust's `AnswerToken<R>`.
template <class R>
class AnswerToken {
public:
    AnswerToken(AnswerToken&& other) noexcept
        : request_(other.request_), id_(other.id_), dropped_(std::move(other.dropped_)) {}
    AnswerToken& operator=(AnswerToken&& other) noexcept {
        if (this != &other) {
            report();
            request_ = other.request_;
            id_ = other.id_;
            dropped_ = std::move(other.dropped_);
        }
        return *this;
    }
    AnswerToken(const AnswerToken&) = delete;
    AnswerToken& operator=(const AnswerToken&) = delete;
    ~AnswerToken() { report(); }

    /// The caller's request id.
    RequestId request() const noexcept { return request_; }
    /// The id of the RPC called.
    std::uint32_t id() const noexcept { return id_; }

private:
    template <class E, class Out, class In>
    friend class Endpoint;

    AnswerToken(RequestId request, std::uint32_t id, std::shared_ptr<DroppedLog> dropped)
        : request_(request), id_(id), dropped_(std::move(dropped)) {}

    /// Whether it was handed out by the endpoint that shares `log` (and is not answered).
    bool belongs_to(const std::shared_ptr<DroppedLog>& log) const noexcept {
        return dropped_ != nullptr && dropped_ == log;
    }

    /// Marks it answered: its destruction reports nothing.
    void consume() noexcept { dropped_.reset(); }

    /// Reports an unanswered drop to its endpoint's log.
    void report() {
        if (dropped_ != nullptr) {
            dropped_->emplace_back(request_, id_);
            dropped_.reset();
        }
    }

    RequestId request_;
    std::uint32_t id_;
    /// Where the token reports its drop; null once answered (or moved from).
    std::shared_ptr<DroppedLog> dropped_;
};

} // namespace idlc

#endif // IDLC_SESSION_ANSWER_HPP

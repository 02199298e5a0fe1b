// idlc C++ runtime: a refused call (a code and a short text the peer's application sent in place
// of the response). Mirrors runtime/src/session/answer.rs's `Refusal` (docs/WIRE_FORMAT.md,
// section 6, "Answers").
#ifndef IDLC_SESSION_ANSWER_HPP
#define IDLC_SESSION_ANSWER_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "../status.hpp"
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

} // namespace idlc

#endif // IDLC_SESSION_ANSWER_HPP

// idlc C++ runtime: the session header in front of a session packet's items (sequence, ack and
// ack bits, WIRE.md "Session packets"), the session id a packet is framed with, and modular
// sequence comparison. Mirrors runtime/src/session/header.rs.
#ifndef IDLC_SESSION_HEADER_HPP
#define IDLC_SESSION_HEADER_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "../packet.hpp"
#include "../status.hpp"

namespace idlc {

/// Bytes of the session header, in both styles.
constexpr std::size_t SESSION_HEADER_BYTES = 8;

/// The number of a packet in a session: +1 per packet, wrapping at 65536.
using Sequence = std::uint16_t;

/// Whether `a` is newer than `b`, modulo 65536: `(a - b) mod 65536` is in `1..32768`.
constexpr bool sequence_newer(Sequence a, Sequence b) noexcept {
    Sequence distance = static_cast<Sequence>(a - b);
    return distance != 0 && distance < 0x8000;
}

/// The id a session packet of the protocol version `protocol_id` is framed with: distinct from
/// the plain packet's, so neither reader accepts the other's packets.
constexpr std::uint64_t session_id(std::uint64_t protocol_id) noexcept {
    constexpr char prefix[] = "idlc session 1\n";
    constexpr std::size_t prefix_size = sizeof(prefix) - 1;
    std::uint8_t text[prefix_size + 8] = {};
    for (std::size_t i = 0; i < prefix_size; ++i) {
        text[i] = static_cast<std::uint8_t>(prefix[i]);
    }
    for (std::size_t i = 0; i < 8; ++i) {
        text[prefix_size + i] = static_cast<std::uint8_t>(protocol_id >> (8 * i));
    }
    return protocol_hash(text, prefix_size + 8);
}

/// Which of `versions` (protocol ids, oldest first) frames the session packet `packet`: the
/// index of the newest that does, or none. What a server asks of a new peer's first packet.
inline std::optional<std::size_t> session_version(Versions versions, const std::uint8_t* packet,
                                                  std::size_t size) {
    for (std::size_t k = versions.size(); k-- > 0;) {
        const std::uint8_t* payload = nullptr;
        std::size_t payload_size = 0;
        if (unframe(session_id(versions.ids[k]), packet, size, payload, payload_size).ok()) {
            return k;
        }
    }
    return std::nullopt;
}

/// The header of a session packet.
struct SessionHeader {
    /// This packet's sequence.
    Sequence sequence = 0;
    /// The newest sequence received from the peer (65535 with no bits when none was).
    Sequence ack = 0xFFFF;
    /// Bit `i` set: the sequence `ack - 1 - i` was received too.
    std::uint32_t ack_bits = 0;

    /// The header of a session's first packet, before anything was received.
    static constexpr SessionHeader first() noexcept { return SessionHeader{0, 0xFFFF, 0}; }

    /// The 8 bytes on the wire: sequence, ack (u16 LE), ack bits (u32 LE).
    std::array<std::uint8_t, SESSION_HEADER_BYTES> to_bytes() const noexcept {
        std::array<std::uint8_t, SESSION_HEADER_BYTES> out{};
        out[0] = static_cast<std::uint8_t>(sequence);
        out[1] = static_cast<std::uint8_t>(sequence >> 8);
        out[2] = static_cast<std::uint8_t>(ack);
        out[3] = static_cast<std::uint8_t>(ack >> 8);
        for (std::size_t i = 0; i < 4; ++i) {
            out[4 + i] = static_cast<std::uint8_t>(ack_bits >> (8 * i));
        }
        return out;
    }

    /// Splits an unframed session payload into its header (`*this`) and its items; fewer than
    /// 8 bytes is UnexpectedEnd at the payload's end.
    Status split(const std::uint8_t* payload, std::size_t size, const std::uint8_t*& items,
                 std::size_t& items_size) {
        if (payload == nullptr || size < SESSION_HEADER_BYTES) {
            return Status::error(ErrorKind::UnexpectedEnd, static_cast<std::uint64_t>(size) * 8);
        }
        sequence = static_cast<Sequence>(payload[0] | payload[1] << 8);
        ack = static_cast<Sequence>(payload[2] | payload[3] << 8);
        ack_bits = 0;
        for (std::size_t i = 0; i < 4; ++i) {
            ack_bits |= static_cast<std::uint32_t>(payload[4 + i]) << (8 * i);
        }
        items = payload + SESSION_HEADER_BYTES;
        items_size = size - SESSION_HEADER_BYTES;
        return Status{};
    }

    /// Calls `each(Sequence)` with the sequences this header acknowledges: `ack`, then each
    /// `ack - 1 - i` whose bit is set; stops at the first call that returns true, and returns
    /// whether one did.
    template <class F>
    bool any_acknowledged(F&& each) const {
        if (each(ack)) {
            return true;
        }
        for (std::uint32_t i = 0; i < 32; ++i) {
            if ((ack_bits >> i & 1u) != 0 && each(static_cast<Sequence>(ack - 1 - i))) {
                return true;
            }
        }
        return false;
    }
};

} // namespace idlc

#endif // IDLC_SESSION_HEADER_HPP

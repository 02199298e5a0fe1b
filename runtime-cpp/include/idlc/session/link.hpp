// idlc C++ runtime: links, one session over every protocol a side sends (or receives) to the
// same peer (WIRE_FORMAT.md section 6, "Links"). Mirrors runtime/src/session/link.rs: the item
// ids of a link's packets, and `session_supports`, which a link's session struct answers per
// member and a protocol's from its `since` (Rust's provided `SessionProtocol::supports`). The
// link version ids are generated constants.
#ifndef IDLC_SESSION_LINK_HPP
#define IDLC_SESSION_LINK_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace idlc {

/// The item id, in a packet of a link of `members` protocols, of the entry `entry` of the
/// member `member` (its index among the link's members): `entry * members + member`.
constexpr std::uint32_t link_item_id(std::uint32_t entry, std::uint32_t member,
                                     std::uint32_t members) noexcept {
    return static_cast<std::uint32_t>(entry * members + member);
}

/// The member (index) and its entry id that the link item id `id` names: `(id % members, id /
/// members)`. `members` 0 reads as 1.
constexpr std::pair<std::uint32_t, std::uint32_t> link_member(std::uint32_t id,
                                                              std::uint32_t members) noexcept {
    std::uint32_t n = members == 0 ? 1 : members;
    return {id % n, id / n};
}

/// Whether the session struct `P` (a protocol's or a link's) has its own `supports`.
template <class P, class = void>
struct has_supports : std::false_type {};
template <class P>
struct has_supports<P, std::void_t<decltype(P::supports(std::size_t{}, std::uint32_t{}))>>
    : std::true_type {};

/// Whether the version `version` of `P` has the message or RPC `id`: `P::supports` where it has
/// one (a link), else `P::since(id) <= version` (a protocol's versions are ordered).
template <class P>
bool session_supports(std::size_t version, std::uint32_t id) noexcept {
    if constexpr (has_supports<P>::value) {
        return P::supports(version, id);
    } else {
        std::optional<std::size_t> since = P::since(id);
        return since && *since <= version;
    }
}

} // namespace idlc

#endif // IDLC_SESSION_LINK_HPP

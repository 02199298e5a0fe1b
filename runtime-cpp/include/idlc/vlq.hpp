// idlc C++ runtime: variable-length quantities, VLQ(n) (runtime/src/vlq.rs).
//
// A VLQ splits a value into groups of n payload bits, least significant first, each followed
// by a continuation bit. Writers emit the minimal encoding; readers reject anything else
// (OverlongVlq). In a BYTESTREAM a VLQ is LEB128 whatever n.
#ifndef IDLC_VLQ_HPP
#define IDLC_VLQ_HPP

#include <cstdint>

#include "int.hpp"
#include "status.hpp"

namespace idlc {

/// The group size of a plain `VLQ`, and of unbounded lengths and counts.
constexpr std::uint32_t DEFAULT_VLQ_GROUP_BITS = 7;

/// Largest group size `VLQ(n)` accepts (the smallest is 1).
constexpr std::uint32_t MAX_VLQ_GROUP_BITS = 32;

/// Whether `group_bits` is a valid `VLQ(n)` group size (1..=32).
constexpr bool valid_vlq_group_bits(std::uint32_t group_bits) noexcept {
    return group_bits >= 1 && group_bits <= MAX_VLQ_GROUP_BITS;
}

/// Groups of the minimal `VLQ(group_bits)` encoding of `value` (at least 1; 0 bits read as 1).
constexpr std::uint32_t vlq_groups(std::uint64_t value, std::uint32_t group_bits) noexcept {
    std::uint32_t n = group_bits == 0 ? 1 : group_bits;
    std::uint32_t used = 64 - leading_zeros(value);
    return used == 0 ? 1 : (used + n - 1) / n;
}

/// Bits the minimal `VLQ(group_bits)` encoding of `value` takes in a BITSTREAM.
constexpr std::uint64_t vlq_bits(std::uint64_t value, std::uint32_t group_bits) noexcept {
    std::uint32_t n = group_bits == 0 ? 1 : group_bits;
    return static_cast<std::uint64_t>(vlq_groups(value, n)) * (n + 1);
}

/// Most groups a reader accepts for a type of `type_bits` bits: `ceil(type_bits / group_bits)`.
constexpr std::uint32_t vlq_max_groups(std::uint32_t group_bits, std::uint32_t type_bits) noexcept {
    std::uint32_t n = group_bits == 0 ? 1 : group_bits;
    return (type_bits + n - 1) / n;
}

namespace detail {

/// Checks the arguments of a VLQ read (InvalidArgument at `at`).
inline Status check_vlq_args(std::uint32_t group_bits, std::uint32_t type_bits, std::uint64_t at) {
    if (valid_vlq_group_bits(group_bits) && type_bits >= 1 && type_bits <= 64) {
        return Status{};
    }
    return Status::error(ErrorKind::InvalidArgument, at);
}

/// Decodes one VLQ from a source of groups: `next_group(payload, more)` returns a Status (its
/// errors are passed on). Validates minimality and the type's width; its own errors are at
/// `start`. Group by group, as Rust's `decode_vlq`.
template <class NextGroup>
Status decode_vlq(std::uint32_t group_bits, std::uint32_t type_bits, std::uint64_t start,
                  NextGroup&& next_group, std::uint64_t& out) {
    std::uint32_t max_groups = vlq_max_groups(group_bits, type_bits);
    std::uint64_t value = 0;
    std::uint32_t shift = 0;
    for (std::uint32_t i = 0; i < max_groups; ++i) {
        std::uint64_t payload = 0;
        bool more = false;
        Status s = next_group(payload, more);
        if (!s.ok()) {
            return s;
        }
        // shift < type_bits <= 64 here.
        std::uint32_t room = type_bits - shift;
        if (room < group_bits && (payload & ~mask(room)) != 0) {
            return Status::error(ErrorKind::OverlongVlq, start);
        }
        if (!more) {
            if (i > 0 && payload == 0) {
                return Status::error(ErrorKind::OverlongVlq, start);
            }
            out = value | (payload << shift);
            return Status{};
        }
        value |= payload << shift;
        shift += group_bits;
    }
    return Status::error(ErrorKind::OverlongVlq, start);
}

} // namespace detail
} // namespace idlc

#endif // IDLC_VLQ_HPP

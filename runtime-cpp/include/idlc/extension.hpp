// idlc C++ runtime: helpers for `EXTEND f TO T` (runtime/src/extend.rs): the old slot keeps the
// old encoding, holding the low bits of an unsigned widening or the value saturated into the old
// range; the extension carries the rest. (The open extensions themselves, a present bit and a
// length, are the streams' `write_extension` / `read_extension` / `enter_extension`.)
#ifndef IDLC_EXTENSION_HPP
#define IDLC_EXTENSION_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "helpers.hpp"
#include "int.hpp"
#include "status.hpp"

namespace idlc {

/// The type's bits, zero-extended to 64 (`-1` as an int16_t is 0xffff).
template <class T>
constexpr std::uint64_t to_bit_pattern(T value) noexcept {
    static_assert(std::is_integral<T>::value, "an integer type");
    return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(value));
}

/// The `T` with bit pattern `bits`, when `bits` is no wider than `T`.
template <class T>
constexpr bool from_bit_pattern(std::uint64_t bits, T& out) noexcept {
    using U = std::make_unsigned_t<T>;
    if (bits > static_cast<std::uint64_t>(std::numeric_limits<U>::max())) {
        return false;
    }
    if constexpr (std::is_signed<T>::value) {
        out = static_cast<T>(sign_extend(bits, sizeof(T) * 8));
    } else {
        out = static_cast<T>(bits);
    }
    return true;
}

/// The value made of the low `bits` bits of `value` (the old slot of `UINT16 TO UINT32`).
template <class T>
constexpr T low_bits(T value, std::uint32_t bits) noexcept {
    T out = value;
    from_bit_pattern(to_bit_pattern(value) & mask(bits), out);
    return out;
}

/// `value` clamped into `min..=max` (`min` wins when `min > max`; NaN stays NaN).
template <class T>
constexpr T saturate(T value, T min, T max) noexcept {
    return value < min ? min : value > max ? max : value;
}

/// An enumerator saturated into an old enum's first `last + 1` enumerators (the old slot of
/// `EXTEND e TO Wider`): by index, through the generated `index_of` / `from_index`.
template <class E>
E saturate_enum(E value, std::uint64_t last) {
    std::uint64_t index = index_of(value);
    E out = value;
    (void)from_index(index < last ? index : last, out);
    return out;
}

/// A real clamped into an old range with open or closed ends: past an open end, the double
/// next to it inside. NaN stays NaN.
inline double saturate_real(double value, double min, double max, bool min_inclusive,
                            bool max_inclusive) noexcept {
    double low = min_inclusive ? min : detail::next_up(min);
    double high = max_inclusive ? max : detail::next_down(max);
    return saturate(value, low, high);
}

/// `saturate_real` of a real held as a float: the nearest float inside the old range.
inline float saturate_real_f32(float value, double min, double max, bool min_inclusive,
                               bool max_inclusive) noexcept {
    double real = saturate_real(static_cast<double>(value), min, max, min_inclusive, max_inclusive);
    return nearest_f32_inside(real, min, max, min_inclusive, max_inclusive);
}

/// Bits `low..low + width` of `value`'s bit pattern (the high bits an extension carries).
template <class T>
constexpr std::uint64_t bit_slice(T value, std::uint32_t low, std::uint32_t width) noexcept {
    return (low >= 64 ? 0 : to_bit_pattern(value) >> low) & mask(width);
}

/// `base` with `slice` placed at bit `low`: ValueOutOfRange (at the reader's position) when the
/// result does not fit `T`.
template <class R, class T>
Status with_bit_slice(const R& r, T base, std::uint64_t slice, std::uint32_t low, T& out) {
    std::uint64_t high = 0;
    if (slice != 0) {
        if (low >= 64 || ((slice << low) >> low) != slice) {
            return r.error(ErrorKind::ValueOutOfRange);
        }
        high = slice << low;
    }
    if (!from_bit_pattern(to_bit_pattern(base) | high, out)) {
        return r.error(ErrorKind::ValueOutOfRange);
    }
    return Status{};
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
inline std::string_view truncate_utf8(std::string_view text, std::uint64_t max) noexcept {
    std::size_t end = max < text.size() ? static_cast<std::size_t>(max) : text.size();
    while (end > 0 && end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
        --end;
    }
    return text.substr(0, end);
}

/// The first `max` bytes of `bytes` (the old slot of `EXTEND blob TO BYTES<n>`).
inline std::vector<std::uint8_t> truncated_bytes(const std::uint8_t* data, std::size_t size,
                                                 std::uint64_t max) {
    std::size_t end = max < size ? static_cast<std::size_t>(max) : size;
    return std::vector<std::uint8_t>(data, data + end);
}

} // namespace idlc

#endif // IDLC_EXTENSION_HPP

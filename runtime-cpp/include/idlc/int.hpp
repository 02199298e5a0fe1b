// idlc C++ runtime: integer helpers (runtime/src/int.rs): masks, bits_required, byte widths,
// zigzag, well-defined signed/unsigned conversions, float bit casts, and Int128, the portable
// stand-in for the i128 IDL bounds Rust's helpers take.
#ifndef IDLC_INT_HPP
#define IDLC_INT_HPP

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace idlc {

/// Number of leading zero bits of `x` (64 for 0). Portable: no compiler builtin.
constexpr std::uint32_t leading_zeros(std::uint64_t x) noexcept {
    std::uint32_t n = 0;
    if (x == 0) {
        return 64;
    }
    for (std::uint32_t step = 32; step > 0; step /= 2) {
        if ((x >> (64 - step)) == 0) {
            n += step;
            x <<= step;
        }
    }
    return n;
}

/// Mask of the low `bits` bits (`bits` in 0..=64; more gives all ones).
constexpr std::uint64_t mask(std::uint32_t bits) noexcept {
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

/// Bits needed to send any value of `min..=max` as `v - min`: 0 when `min >= max`.
constexpr std::uint32_t bits_required(std::uint64_t min, std::uint64_t max) noexcept {
    return max <= min ? 0 : 64 - leading_zeros(max - min);
}

/// `max - min` of a signed range as an unsigned offset (exact for every `min <= max`).
constexpr std::uint64_t range_span(std::int64_t min, std::int64_t max) noexcept {
    return static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min);
}

/// `bits_required` of a signed range: 0 when `min >= max`.
constexpr std::uint32_t bits_required_signed(std::int64_t min, std::int64_t max) noexcept {
    return max <= min ? 0 : bits_required(0, range_span(min, max));
}

/// Bytes a BYTESTREAM uses for `bits` bits: the smallest of 1, 2, 4, 8 (0 for 0 bits).
constexpr std::size_t byte_width(std::uint32_t bits) noexcept {
    return bits == 0 ? 0 : bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : 8;
}

/// The int64 with the bit pattern `u` (two's complement), without implementation-defined casts.
constexpr std::int64_t to_signed(std::uint64_t u) noexcept {
    return u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               ? static_cast<std::int64_t>(u)
               : -static_cast<std::int64_t>(~u) - 1;
}

/// Zigzag: 0, -1, 1, -2, 2, ... become 0, 1, 2, 3, 4, ...
constexpr std::uint64_t zigzag_encode(std::int64_t value) noexcept {
    return (static_cast<std::uint64_t>(value) << 1) ^ (value < 0 ? ~std::uint64_t{0} : 0);
}

/// Inverse of zigzag_encode.
constexpr std::int64_t zigzag_decode(std::uint64_t value) noexcept {
    return to_signed((value >> 1) ^ (std::uint64_t{0} - (value & 1)));
}

/// The IEEE-754 bits of a float.
inline std::uint32_t f32_to_bits(float value) noexcept {
    static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559, "IEEE-754 float");
    std::uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

/// The float with IEEE-754 bits `bits` (NaN payloads kept).
inline float f32_from_bits(std::uint32_t bits) noexcept {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

/// The IEEE-754 bits of a double.
inline std::uint64_t f64_to_bits(double value) noexcept {
    static_assert(sizeof(double) == 8 && std::numeric_limits<double>::is_iec559, "IEEE-754 double");
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

/// The double with IEEE-754 bits `bits` (NaN payloads kept).
inline double f64_from_bits(std::uint64_t bits) noexcept {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

/// A 128-bit two's-complement integer, just enough for the IDL bounds Rust's helpers take as
/// `i128` (every INT64 and UINT64 range exact): construction from any integer, comparison,
/// addition and subtraction (wrapping), and narrowing to a C++ integer type.
struct Int128 {
    /// High 64 bits (two's complement).
    std::uint64_t hi = 0;
    /// Low 64 bits.
    std::uint64_t lo = 0;

    /// Zero.
    constexpr Int128() noexcept = default;

    /// The value of any built-in integer.
    template <class T, class = std::enable_if_t<std::is_integral<T>::value>>
    constexpr Int128(T value) noexcept // NOLINT: implicit on purpose, like Rust's i128::from
        : hi(is_negative(value) ? ~std::uint64_t{0} : 0), lo(static_cast<std::uint64_t>(value)) {}

    /// Whether an integer is below zero (no always-false comparison for unsigned types).
    template <class T>
    static constexpr bool is_negative(T value) noexcept {
        if constexpr (std::is_signed<T>::value) {
            return value < 0;
        } else {
            (void)value;
            return false;
        }
    }

    /// From its two halves.
    static constexpr Int128 from_parts(std::uint64_t high, std::uint64_t low) noexcept {
        Int128 v;
        v.hi = high;
        v.lo = low;
        return v;
    }

    /// Whether the value is negative.
    constexpr bool negative() const noexcept { return (hi >> 63) != 0; }

    /// Whether the value lies in 0..=u64::MAX.
    constexpr bool fits_u64() const noexcept { return hi == 0; }

    /// Whether the value lies in i64::MIN..=i64::MAX.
    constexpr bool fits_i64() const noexcept {
        return (hi == 0 && (lo >> 63) == 0) || (hi == ~std::uint64_t{0} && (lo >> 63) == 1);
    }

    friend constexpr bool operator==(Int128 a, Int128 b) noexcept {
        return a.hi == b.hi && a.lo == b.lo;
    }
    friend constexpr bool operator!=(Int128 a, Int128 b) noexcept { return !(a == b); }
    friend constexpr bool operator<(Int128 a, Int128 b) noexcept {
        if (a.hi != b.hi) {
            return to_signed(a.hi) < to_signed(b.hi);
        }
        return a.lo < b.lo;
    }
    friend constexpr bool operator>(Int128 a, Int128 b) noexcept { return b < a; }
    friend constexpr bool operator<=(Int128 a, Int128 b) noexcept { return !(b < a); }
    friend constexpr bool operator>=(Int128 a, Int128 b) noexcept { return !(a < b); }
    friend constexpr Int128 operator+(Int128 a, Int128 b) noexcept {
        std::uint64_t lo = a.lo + b.lo;
        return from_parts(a.hi + b.hi + (lo < a.lo ? 1 : 0), lo);
    }
    friend constexpr Int128 operator-(Int128 a, Int128 b) noexcept {
        return from_parts(a.hi - b.hi - (a.lo < b.lo ? 1 : 0), a.lo - b.lo);
    }
};

/// `value` as a `T` when `T` holds it (Rust's `T::from_i128`).
template <class T>
constexpr bool narrow(Int128 value, T& out) noexcept {
    static_assert(std::is_integral<T>::value, "an integer type");
    if (value < Int128(std::numeric_limits<T>::min()) ||
        value > Int128(std::numeric_limits<T>::max())) {
        return false;
    }
    out = std::is_signed<T>::value ? static_cast<T>(to_signed(value.lo)) : static_cast<T>(value.lo);
    return true;
}

/// The low `bits` bits of `raw`, sign-extended from bit `bits - 1` (0 for 0 bits).
constexpr std::int64_t sign_extend(std::uint64_t raw, std::uint32_t bits) noexcept {
    if (bits == 0) {
        return 0;
    }
    std::uint64_t m = mask(bits);
    raw &= m;
    return ((raw >> (bits - 1)) & 1) != 0 ? -static_cast<std::int64_t>(~raw & m) - 1
                                          : static_cast<std::int64_t>(raw);
}

} // namespace idlc

#endif // IDLC_INT_HPP

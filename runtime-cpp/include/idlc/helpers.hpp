// idlc C++ runtime: the free functions generated code calls for ranged and fixed-width integers,
// VLQ integers, enums, NUMERIC ranges (f64 and f32), wide bools, bounded lengths and aligned
// bytes (runtime/src/helpers.rs). IDL bounds are Int128, as Rust takes them as i128, so every
// INT64 and UINT64 range is exact; the value's C++ type is a template parameter.
#ifndef IDLC_HELPERS_HPP
#define IDLC_HELPERS_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "fixed_point.hpp"
#include "int.hpp"
#include "status.hpp"
#include "wire.hpp"

namespace idlc {

namespace detail {

/// `max - min` when it is a valid span (min <= max, and it fits 64 bits).
inline bool span_u64(Int128 min, Int128 max, std::uint64_t& out) noexcept {
    if (min > max) {
        return false;
    }
    Int128 d = max - min;
    if (!d.fits_u64()) {
        return false;
    }
    out = d.lo;
    return true;
}

/// The IEEE-754 layout of F (float or double): its bits as an unsigned integer.
template <class F>
struct FloatBits;

template <>
struct FloatBits<float> {
    using Bits = std::uint32_t;
    static Bits to(float x) noexcept { return f32_to_bits(x); }
    static float from(Bits b) noexcept { return f32_from_bits(b); }
};

template <>
struct FloatBits<double> {
    using Bits = std::uint64_t;
    static Bits to(double x) noexcept { return f64_to_bits(x); }
    static double from(Bits b) noexcept { return f64_from_bits(b); }
};

/// Rust's `next_up` (`up`) or `next_down` of a float or double: the neighbour towards +inf
/// (-inf); NaN and the infinity in that direction stay; a zero steps to the smallest subnormal.
template <class F>
F next_toward(F x, bool up) noexcept {
    using B = typename FloatBits<F>::Bits;
    const B sign = static_cast<B>(B{1} << (sizeof(B) * 8 - 1));
    const B inf = FloatBits<F>::to(std::numeric_limits<F>::infinity());
    B bits = FloatBits<F>::to(x);
    if (x != x || bits == (up ? inf : static_cast<B>(inf | sign))) {
        return x;
    }
    B abs = static_cast<B>(bits & ~sign);
    if (abs == 0) {
        return FloatBits<F>::from(up ? B{1} : static_cast<B>(sign | 1));
    }
    // Away from zero when the direction and the sign agree.
    bool away = (bits == abs) == up;
    return FloatBits<F>::from(away ? static_cast<B>(bits + 1) : static_cast<B>(bits - 1));
}

/// Rust's `next_up`.
template <class F>
F next_up(F x) noexcept {
    return next_toward(x, true);
}

/// Rust's `next_down`.
template <class F>
F next_down(F x) noexcept {
    return next_toward(x, false);
}

/// Whether `v` lies in the range with its open or closed ends (false for NaN).
inline bool in_numeric_range(double v, double min, double max, bool min_inclusive,
                             bool max_inclusive) noexcept {
    bool above = min_inclusive ? v >= min : v > min;
    bool below = max_inclusive ? v <= max : v < max;
    return above && below;
}

/// NotANumber, ValueOutOfRange, or Ok.
inline ErrorKind numeric_kind(double value, double min, double max, bool min_inclusive,
                              bool max_inclusive) noexcept {
    if (value != value) {
        return ErrorKind::NotANumber;
    }
    return in_numeric_range(value, min, max, min_inclusive, max_inclusive)
               ? ErrorKind::Ok
               : ErrorKind::ValueOutOfRange;
}

/// Whether the real `single` stands for (real_of_f32) lies in the range; it is put in `real`.
inline bool f32_stands_for(float single, double min, double max, bool min_inclusive,
                           bool max_inclusive, double& real) noexcept {
    real = real_of_f32(single, min, max);
    return in_numeric_range(real, min, max, min_inclusive, max_inclusive);
}

/// The f32 sent for a real of the range (Rust's `numeric_as_f32`), or the error kind.
inline ErrorKind numeric_as_f32(double value, double min, double max, bool min_inclusive,
                                bool max_inclusive, float& out) noexcept {
    ErrorKind kind = numeric_kind(value, min, max, min_inclusive, max_inclusive);
    if (kind != ErrorKind::Ok) {
        return kind;
    }
    float single = static_cast<float>(value);
    double real = 0.0;
    if (f32_stands_for(single, min, max, min_inclusive, max_inclusive, real)) {
        out = single;
        return ErrorKind::Ok;
    }
    float inward = (single == static_cast<float>(max) || static_cast<double>(single) > max)
                       ? next_down(single)
                       : next_up(single);
    if (f32_stands_for(inward, min, max, min_inclusive, max_inclusive, real)) {
        out = inward;
        return ErrorKind::Ok;
    }
    return ErrorKind::ValueOutOfRange;
}

} // namespace detail

/// An integer `INT[min,max]` as `value - min` in `bits` bits (a BYTESTREAM rounds up to bytes).
/// InvalidArgument when the span does not fit 64 bits; ValueOutOfRange outside the range.
template <class W, class T>
Status write_ranged(W& w, T value, Int128 min, Int128 max, std::uint32_t bits) {
    std::uint64_t span = 0;
    if (!detail::span_u64(min, max, span)) {
        return w.error(ErrorKind::InvalidArgument);
    }
    Int128 v(value);
    if (v < min || v > max) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    return w.write_bits((v - min).lo, bits);
}

/// Reads what `write_ranged` wrote: ValueOutOfRange above the span or when `T` cannot hold it.
template <class R, class T>
Status read_ranged(R& r, Int128 min, Int128 max, std::uint32_t bits, T& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t span = 0;
    if (!detail::span_u64(min, max, span)) {
        return r.error(ErrorKind::InvalidArgument);
    }
    std::uint64_t offset = 0;
    IDLC_TRY(r.read_bits(bits, offset));
    if (offset > span) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    if (!narrow(min + Int128(offset), out)) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    return Status{};
}

/// The bit pattern of a fixed-width integer (`BIT(n)`, UINTn / INTn): the value must lie in
/// `[min, max]` and fit `bits` bits (two's complement when `is_signed`).
template <class W, class T>
Status fixed_bits(const W& w, T value, Int128 min, Int128 max, std::uint32_t bits, bool is_signed,
                  std::uint64_t& out) {
    if (bits > 64) {
        return w.error(ErrorKind::InvalidArgument);
    }
    Int128 v(value);
    bool fits;
    if (is_signed) {
        // -2^(bits-1) <= v < 2^(bits-1), or v == 0 for 0 bits.
        Int128 half = bits == 0 ? Int128(0) : Int128(std::uint64_t{1} << (bits - 1));
        fits = bits == 0 ? v == Int128(0) : v >= Int128(0) - half && v < half;
    } else {
        fits = !v.negative() && v <= Int128(mask(bits));
    }
    if (v < min || v > max || !fits) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    out = v.lo & mask(bits);
    return Status{};
}

/// A fixed-width integer in `bits` bits (see `fixed_bits`).
template <class W, class T>
Status write_fixed(W& w, T value, Int128 min, Int128 max, std::uint32_t bits, bool is_signed) {
    std::uint64_t pattern = 0;
    IDLC_TRY(fixed_bits(w, value, min, max, bits, is_signed, pattern));
    return w.write_bits(pattern, bits);
}

/// The value of a fixed-width pattern (sign-extended when `is_signed`), when it lies in
/// `[min, max]` and `T` holds it.
template <class T>
bool fixed_value(std::uint64_t raw, Int128 min, Int128 max, std::uint32_t bits, bool is_signed,
                 T& out) {
    Int128 v = is_signed && bits > 0 && bits <= 64 ? Int128(sign_extend(raw, bits)) : Int128(raw);
    if (v < min || v > max) {
        return false;
    }
    return narrow(v, out);
}

/// Reads what `write_fixed` wrote: ValueOutOfRange outside `[min, max]` or `T`.
template <class R, class T>
Status read_fixed(R& r, Int128 min, Int128 max, std::uint32_t bits, bool is_signed, T& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t raw = 0;
    IDLC_TRY(r.read_bits(bits, raw));
    if (!fixed_value(raw, min, max, bits, is_signed, out)) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    return Status{};
}

/// How an integer maps to the unsigned value of its VLQ.
enum class VlqMode {
    /// The value itself (non-negative ranges).
    Plain,
    /// Zigzag of the value (`VLQ` on a signed type).
    ZigZag,
    /// `value - min` (a range whose minimum is not 0).
    Offset,
};

/// An integer `INT[min,max]` with a VLQ rule in `mode`: ValueOutOfRange outside the range or
/// when the mapping does not fit 64 bits.
template <class W, class T>
Status write_vlq_int(W& w, T value, VlqMode mode, Int128 min, Int128 max,
                     std::uint32_t group_bits) {
    Int128 v(value);
    if (v < min || v > max) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    std::uint64_t mapped = 0;
    switch (mode) {
    case VlqMode::Plain:
        if (!v.fits_u64()) {
            return w.error(ErrorKind::ValueOutOfRange);
        }
        mapped = v.lo;
        break;
    case VlqMode::ZigZag:
        if (!v.fits_i64()) {
            return w.error(ErrorKind::ValueOutOfRange);
        }
        mapped = zigzag_encode(to_signed(v.lo));
        break;
    case VlqMode::Offset: {
        Int128 d = v - min;
        if (!d.fits_u64()) {
            return w.error(ErrorKind::ValueOutOfRange);
        }
        mapped = d.lo;
        break;
    }
    }
    return w.write_vlq(mapped, group_bits);
}

/// Reads what `write_vlq_int` wrote; the type takes at most `max_groups` groups
/// (InvalidArgument for 0).
template <class R, class T>
Status read_vlq_int(R& r, VlqMode mode, Int128 min, Int128 max, std::uint32_t group_bits,
                    std::uint32_t max_groups, T& out) {
    std::uint64_t start = r.bits_read();
    if (max_groups == 0) {
        return r.error(ErrorKind::InvalidArgument);
    }
    std::uint64_t product = static_cast<std::uint64_t>(max_groups) * group_bits;
    std::uint32_t type_bits = product > 64 ? 64 : static_cast<std::uint32_t>(product);
    std::uint64_t raw = 0;
    IDLC_TRY(r.read_vlq_width(group_bits, type_bits, raw));
    Int128 v;
    switch (mode) {
    case VlqMode::Plain: v = Int128(raw); break;
    case VlqMode::ZigZag: v = Int128(zigzag_decode(raw)); break;
    case VlqMode::Offset: v = min + Int128(raw); break;
    }
    if (v < min || v > max || !narrow(v, out)) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    return Status{};
}

/// An enumerator's index in `bits` bits (BadEnumerator unless `0 <= index < count`).
template <class W, class T>
Status write_enum(W& w, T index, std::uint64_t count, std::uint32_t bits) {
    Int128 i(index);
    if (!i.fits_u64() || i.lo >= count) {
        return w.error(ErrorKind::BadEnumerator);
    }
    return w.write_bits(i.lo, bits);
}

/// Checks a real against its NUMERIC range (NotANumber, ValueOutOfRange) at the writer's
/// position.
template <class W>
Status check_numeric(const W& w, double value, double min, double max, bool min_inclusive,
                     bool max_inclusive) {
    ErrorKind kind = detail::numeric_kind(value, min, max, min_inclusive, max_inclusive);
    return kind == ErrorKind::Ok ? Status{} : w.error(kind);
}

/// The f32 a real of the range is sent as (the nearest f32 that stands for a value inside).
template <class W>
Status check_numeric_f32(const W& w, double value, double min, double max, bool min_inclusive,
                         bool max_inclusive, float& out) {
    ErrorKind kind = detail::numeric_as_f32(value, min, max, min_inclusive, max_inclusive, out);
    return kind == ErrorKind::Ok ? Status{} : w.error(kind);
}

/// The nearest f32 inside the range, or the plain conversion when there is none.
inline float nearest_f32_inside(double value, double min, double max, bool min_inclusive,
                                bool max_inclusive) noexcept {
    float out = 0.0f;
    if (detail::numeric_as_f32(value, min, max, min_inclusive, max_inclusive, out) ==
        ErrorKind::Ok) {
        return out;
    }
    return static_cast<float>(value);
}

/// Checks an f32 field's value against its range (as the real it stands for).
template <class W>
Status check_f32_in_range(const W& w, float value, double min, double max, bool min_inclusive,
                          bool max_inclusive) {
    if (value != value) {
        return w.error(ErrorKind::NotANumber);
    }
    double real = 0.0;
    if (!detail::f32_stands_for(value, min, max, min_inclusive, max_inclusive, real)) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    return Status{};
}

/// The real a decoded f32 stands for, ValueOutOfRange (at the reader's position) outside.
template <class R>
Status float32_real(const R& r, float single, double min, double max, bool min_inclusive,
                    bool max_inclusive, double& out) {
    double real = 0.0;
    if (!detail::f32_stands_for(single, min, max, min_inclusive, max_inclusive, real)) {
        return r.error(ErrorKind::ValueOutOfRange);
    }
    out = real;
    return Status{};
}

/// A decoded real checked against its range (ValueOutOfRange at the reader's position).
template <class R>
Status numeric_in_range(const R& r, double value, double min, double max, bool min_inclusive,
                        bool max_inclusive) {
    return detail::in_numeric_range(value, min, max, min_inclusive, max_inclusive)
               ? Status{}
               : r.error(ErrorKind::ValueOutOfRange);
}

/// A FLOAT32 field held as f32, checked against its range after the read.
template <class R>
Status read_f32_in_range(R& r, double min, double max, bool min_inclusive, bool max_inclusive,
                         float& out) {
    float raw = 0.0f;
    IDLC_TRY(read_f32(r, raw));
    double real = 0.0;
    IDLC_TRY(float32_real(r, raw, min, max, min_inclusive, max_inclusive, real));
    out = raw;
    return Status{};
}

/// A FLOAT32 field held as f64: the real the f32 stands for.
template <class R>
Status read_f32_real_in_range(R& r, double min, double max, bool min_inclusive, bool max_inclusive,
                              double& out) {
    float raw = 0.0f;
    IDLC_TRY(read_f32(r, raw));
    return float32_real(r, raw, min, max, min_inclusive, max_inclusive, out);
}

/// A FLOAT64 field checked against its range after the read.
template <class R>
Status read_f64_in_range(R& r, double min, double max, bool min_inclusive, bool max_inclusive,
                         double& out) {
    double raw = 0.0;
    IDLC_TRY(read_f64(r, raw));
    IDLC_TRY(numeric_in_range(r, raw, min, max, min_inclusive, max_inclusive));
    out = raw;
    return Status{};
}

/// A BOOL in `bits` bits (`BIT(n)`), as 0 or 1.
template <class W>
Status write_wide_bool(W& w, bool value, std::uint32_t bits) {
    return write_ranged(w, value ? 1 : 0, 0, 1, bits);
}

/// Reads what `write_wide_bool` wrote (ValueOutOfRange for anything but 0 and 1).
template <class R>
Status read_wide_bool(R& r, std::uint32_t bits, bool& out) {
    std::uint8_t v = 0;
    IDLC_TRY(read_ranged(r, 0, 1, bits, v));
    out = v == 1;
    return Status{};
}

/// A bounded length or count in `bits` bits (LengthOverBound above `max`).
template <class W>
Status write_bounded_length(W& w, std::uint64_t len, std::uint64_t max, std::uint32_t bits) {
    if (len > max) {
        return w.error(ErrorKind::LengthOverBound);
    }
    return w.write_bits(len, bits);
}

/// Reads what `write_bounded_length` wrote (LengthOverBound above `max`).
template <class R>
Status read_bounded_length(R& r, std::uint64_t max, std::uint32_t bits, std::uint64_t& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t len = 0;
    IDLC_TRY(r.read_bits(bits, len));
    if (len > max) {
        return Status::error(ErrorKind::LengthOverBound, start);
    }
    out = len;
    return Status{};
}

/// ALIGN, then the bytes (their length was written before, elsewhere).
template <class W>
Status write_aligned_bytes(W& w, const std::uint8_t* data, std::size_t size) {
    return w.write_raw_bytes(data, size);
}

/// ALIGN, then `len` bytes borrowed from the input.
template <class R>
Status read_aligned_bytes(R& r, std::uint64_t len, const std::uint8_t*& data) {
    return r.read_raw_bytes(len, data);
}

/// ALIGN, then `len` bytes of UTF-8 (BadUtf8 at the position before the padding).
template <class R>
Status read_aligned_str(R& r, std::uint64_t len, std::string_view& out) {
    std::uint64_t start = r.bits_read();
    const std::uint8_t* data = nullptr;
    IDLC_TRY(r.read_raw_bytes(len, data));
    if (!valid_utf8(data, static_cast<std::size_t>(len))) {
        return Status::error(ErrorKind::BadUtf8, start);
    }
    out = std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(len));
    return Status{};
}

/// Bytes already read as UTF-8 text (BadUtf8 at the reader's position).
template <class R>
Status utf8(const R& r, const std::uint8_t* data, std::size_t size, std::string_view& out) {
    if (!valid_utf8(data, size)) {
        return r.error(ErrorKind::BadUtf8);
    }
    out = std::string_view(reinterpret_cast<const char*>(data), size);
    return Status{};
}

/// An array of `N` copies of `value`: the default of an ARRAY whose element's default is not
/// its zero (an enum whose first enumerator is not 0, a range without 0).
template <class T, std::size_t N>
std::array<T, N> filled(const T& value) {
    std::array<T, N> out;
    out.fill(value);
    return out;
}

} // namespace idlc

#endif // IDLC_HELPERS_HPP

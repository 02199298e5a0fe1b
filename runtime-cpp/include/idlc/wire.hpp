// idlc C++ runtime: the wire operations Rust provides on its WireWrite / WireRead traits
// (runtime/src/wire.rs), as free function templates over the stream: they work with BitWriter /
// BitReader and ByteWriter / ByteReader alike. Generated code calls one of these per field.
//
// Writers: `Status write_x(W& w, value, params...)`. Readers: `Status read_x(R& r, params...,
// T& out)`; `out` is assigned only on success. Errors carry Rust's kind and bit offset.
#ifndef IDLC_WIRE_HPP
#define IDLC_WIRE_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bit_stream.hpp"
#include "byte_stream.hpp"
#include "fixed_point.hpp"
#include "int.hpp"
#include "status.hpp"
#include "vlq.hpp"

namespace idlc {

/// An optional declared maximum (of a length or count): `std::nullopt` when unbounded.
using Bound = std::optional<std::uint64_t>;

/// Bits a field of `bits` bits takes in stream `S`: `bits` in a BITSTREAM, whole bytes in a
/// BYTESTREAM.
template <class S>
constexpr std::uint64_t width_bits(std::uint32_t bits) noexcept {
    return S::byte_stream ? static_cast<std::uint64_t>(byte_width(bits)) * 8 : bits;
}

/// Whether `size` bytes at `data` are valid UTF-8 (the rules of Rust's `str::from_utf8`: no
/// overlong forms, no surrogates, nothing above U+10FFFF).
inline bool valid_utf8(const std::uint8_t* data, std::size_t size) noexcept {
    std::size_t i = 0;
    while (i < size) {
        std::uint8_t b = data[i];
        if (b < 0x80) {
            ++i;
            continue;
        }
        std::size_t extra;
        std::uint8_t lo = 0x80, hi = 0xBF;
        if (b >= 0xC2 && b <= 0xDF) {
            extra = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            extra = 2;
            lo = b == 0xE0 ? 0xA0 : 0x80;
            hi = b == 0xED ? 0x9F : 0xBF;
        } else if (b >= 0xF0 && b <= 0xF4) {
            extra = 3;
            lo = b == 0xF0 ? 0x90 : 0x80;
            hi = b == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (size - i - 1 < extra) {
            return false;
        }
        if (data[i + 1] < lo || data[i + 1] > hi) {
            return false;
        }
        for (std::size_t k = 2; k <= extra; ++k) {
            if (data[i + k] < 0x80 || data[i + k] > 0xBF) {
                return false;
            }
        }
        i += extra + 1;
    }
    return true;
}

/// `count` fits the bits left when each element needs `min_element_bits` (at least 1 when
/// unbounded, so that zero-size elements cannot make a reader loop past the input).
inline bool fitting_count(std::uint64_t count, Bound max, std::uint64_t min_element_bits,
                          std::uint64_t bits_remaining, std::size_t& out) noexcept {
    std::uint64_t per = !max.has_value() && min_element_bits == 0 ? 1 : min_element_bits;
    if (per != 0 && count > bits_remaining / per) {
        return false;
    }
    if (count > static_cast<std::uint64_t>(~std::size_t{0})) {
        return false;
    }
    out = static_cast<std::size_t>(count);
    return true;
}

namespace detail {

/// A ValueOutOfRange error of a read turned into BadEnumerator (an enumerator index).
inline Status as_bad_enumerator(Status s) {
    if (s.kind == ErrorKind::ValueOutOfRange) {
        s.kind = ErrorKind::BadEnumerator;
    }
    return s;
}

} // namespace detail

// ---- Writing ----------------------------------------------------------------------------------

/// `INT[min,max]` (unsigned) as `value - min` in `bits_required(min, max)` bits.
template <class W>
Status write_uint_ranged(W& w, std::uint64_t value, std::uint64_t min, std::uint64_t max) {
    if (value < min || value > max) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    return w.write_bits(value - min, bits_required(min, max));
}

/// `INT[min,max]` (signed) as `value - min` in `bits_required_signed(min, max)` bits.
template <class W>
Status write_int_ranged(W& w, std::int64_t value, std::int64_t min, std::int64_t max) {
    if (value < min || value > max) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    return w.write_bits(range_span(min, value), bits_required(0, range_span(min, max)));
}

/// A signed value as a zigzag-mapped `VLQ(group_bits)`.
template <class W>
Status write_vlq_signed(W& w, std::int64_t value, std::uint32_t group_bits) {
    return w.write_vlq(zigzag_encode(value), group_bits);
}

/// `INT[min,max]` with a VLQ rule: `value - min` as an unsigned `VLQ(group_bits)`.
template <class W>
Status write_vlq_ranged(W& w, std::int64_t value, std::int64_t min, std::int64_t max,
                        std::uint32_t group_bits) {
    if (value < min || value > max) {
        return w.error(ErrorKind::ValueOutOfRange);
    }
    return w.write_vlq(range_span(min, value), group_bits);
}

/// FLOAT32: the raw IEEE-754 bits (-0.0 and NaN payloads kept).
template <class W>
Status write_f32(W& w, float value) {
    return w.write_bits(f32_to_bits(value), 32);
}

/// FLOAT64: the raw IEEE-754 bits.
template <class W>
Status write_f64(W& w, double value) {
    return w.write_bits(f64_to_bits(value), 64);
}

/// A value with a prepared quantizer: its step in `fp.bits()` bits.
template <class W>
Status write_quantized(W& w, const FixedPoint& fp, double value) {
    std::uint64_t q = 0;
    ErrorKind kind = fp.quantize(value, q);
    if (kind != ErrorKind::Ok) {
        return w.error(kind);
    }
    return w.write_bits(q, fp.bits());
}

/// `FIXED_POINT(resolution)` of `NUMERIC[min,max]`; unusable parameters are InvalidArgument.
template <class W>
Status write_fixed_point(W& w, double value, double min, double max, double resolution) {
    FixedPoint fp = FixedPoint::make(min, max, resolution);
    if (!fp.valid()) {
        return w.error(ErrorKind::InvalidArgument);
    }
    return write_quantized(w, fp, value);
}

/// An enumerator index in `bits_required(0, count - 1)` bits (BadEnumerator when >= count).
template <class W>
Status write_enum_index(W& w, std::uint64_t index, std::uint64_t count) {
    if (index >= count) {
        return w.error(ErrorKind::BadEnumerator);
    }
    return w.write_bits(index, bits_required(0, count - 1));
}

/// An OPTIONAL's presence bit.
template <class W>
Status write_presence(W& w, bool present) {
    return w.write_bool(present);
}

/// A length or count: in `bits_required(0, max)` bits when bounded (LengthOverBound above it),
/// else as VLQ(7).
template <class W>
Status write_count(W& w, std::uint64_t count, Bound max) {
    if (max.has_value()) {
        if (count > *max) {
            return w.error(ErrorKind::LengthOverBound);
        }
        return w.write_bits(count, bits_required(0, *max));
    }
    return w.write_vlq(count, DEFAULT_VLQ_GROUP_BITS);
}

/// BYTES: the length (`write_count`), then ALIGN and the raw bytes.
template <class W>
Status write_bytes(W& w, const std::uint8_t* data, std::size_t size, Bound max) {
    IDLC_TRY(write_count(w, size, max));
    return w.write_raw_bytes(data, size);
}

/// STRING: as BYTES (the text must be UTF-8: the writer does not check, as Rust's `&str`
/// guarantees it there).
template <class W>
Status write_str(W& w, std::string_view value, Bound max) {
    return write_bytes(w, reinterpret_cast<const std::uint8_t*>(value.data()), value.size(), max);
}

/// A CHECK marker: CHECK_VALUE in 32 bits.
template <class W>
Status write_check(W& w) {
    return w.write_bits(CHECK_VALUE, 32);
}

/// A run of BOOLs, each as `write_bool` writes it.
template <class W>
Status write_bool_slice(W& w, const bool* bools, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
        IDLC_TRY(w.write_bool(bools[i]));
    }
    return Status{};
}

// ---- Reading ----------------------------------------------------------------------------------

/// `INT[min,max]` (unsigned): ValueOutOfRange above `max - min`.
template <class R>
Status read_uint_ranged(R& r, std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
    if (min > max) {
        return r.error(ErrorKind::InvalidArgument);
    }
    std::uint64_t start = r.bits_read();
    std::uint64_t offset = 0;
    IDLC_TRY(r.read_bits(bits_required(min, max), offset));
    if (offset > max - min) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    out = min + offset;
    return Status{};
}

/// `INT[min,max]` (signed).
template <class R>
Status read_int_ranged(R& r, std::int64_t min, std::int64_t max, std::int64_t& out) {
    if (min > max) {
        return r.error(ErrorKind::InvalidArgument);
    }
    std::uint64_t start = r.bits_read();
    std::uint64_t span = range_span(min, max);
    std::uint64_t offset = 0;
    IDLC_TRY(r.read_bits(bits_required(0, span), offset));
    if (offset > span) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    out = to_signed(static_cast<std::uint64_t>(min) + offset);
    return Status{};
}

/// A `VLQ(group_bits)` of a 64-bit type.
template <class R>
Status read_vlq(R& r, std::uint32_t group_bits, std::uint64_t& out) {
    return r.read_vlq_width(group_bits, 64, out);
}

/// An unbounded length or count: VLQ(7).
template <class R>
Status read_vlq_length(R& r, std::uint64_t& out) {
    return r.read_vlq_width(DEFAULT_VLQ_GROUP_BITS, 64, out);
}

/// A zigzag-mapped `VLQ(group_bits)` of a 64-bit type.
template <class R>
Status read_vlq_signed(R& r, std::uint32_t group_bits, std::int64_t& out) {
    std::uint64_t raw = 0;
    IDLC_TRY(r.read_vlq_width(group_bits, 64, raw));
    out = zigzag_decode(raw);
    return Status{};
}

/// A zigzag-mapped `VLQ(group_bits)` of a type of `type_bits` bits.
template <class R>
Status read_vlq_signed_width(R& r, std::uint32_t group_bits, std::uint32_t type_bits,
                             std::int64_t& out) {
    std::uint64_t raw = 0;
    IDLC_TRY(r.read_vlq_width(group_bits, type_bits, raw));
    out = zigzag_decode(raw);
    return Status{};
}

/// `INT[min,max]` with a VLQ rule (`value - min`).
template <class R>
Status read_vlq_ranged(R& r, std::int64_t min, std::int64_t max, std::uint32_t group_bits,
                       std::int64_t& out) {
    if (min > max) {
        return r.error(ErrorKind::InvalidArgument);
    }
    std::uint64_t start = r.bits_read();
    std::uint64_t span = range_span(min, max);
    std::uint32_t type_bits = bits_required(0, span);
    std::uint64_t offset = 0;
    IDLC_TRY(r.read_vlq_width(group_bits, type_bits < 1 ? 1 : type_bits, offset));
    if (offset > span) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    out = to_signed(static_cast<std::uint64_t>(min) + offset);
    return Status{};
}

/// FLOAT32, raw bits.
template <class R>
Status read_f32(R& r, float& out) {
    std::uint64_t raw = 0;
    IDLC_TRY(r.read_bits(32, raw));
    out = f32_from_bits(static_cast<std::uint32_t>(raw));
    return Status{};
}

/// FLOAT64, raw bits.
template <class R>
Status read_f64(R& r, double& out) {
    std::uint64_t raw = 0;
    IDLC_TRY(r.read_bits(64, raw));
    out = f64_from_bits(raw);
    return Status{};
}

/// A step index of a prepared quantizer: ValueOutOfRange when it is not a valid step.
template <class R>
Status read_quantized(R& r, const FixedPoint& fp, std::uint64_t& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t q = 0;
    IDLC_TRY(read_uint_ranged(r, 0, fp.steps(), q));
    if (!fp.is_step(q)) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    out = q;
    return Status{};
}

/// The value of a step read with a prepared quantizer.
template <class R>
Status read_dequantized(R& r, const FixedPoint& fp, double& out) {
    std::uint64_t q = 0;
    IDLC_TRY(read_quantized(r, fp, q));
    out = fp.dequantize(q);
    return Status{};
}

/// `FIXED_POINT(resolution)` of `NUMERIC[min,max]`; unusable parameters are InvalidArgument.
template <class R>
Status read_fixed_point(R& r, double min, double max, double resolution, double& out) {
    FixedPoint fp = FixedPoint::make(min, max, resolution);
    if (!fp.valid()) {
        return r.error(ErrorKind::InvalidArgument);
    }
    return read_dequantized(r, fp, out);
}

/// An enumerator's index in `bits` bits: BadEnumerator when `>= count` (and for bits a
/// BYTESTREAM has set above `bits`).
template <class R>
Status read_enum(R& r, std::uint64_t count, std::uint32_t bits, std::uint64_t& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t index = 0;
    Status s = r.read_bits(bits, index);
    if (!s.ok()) {
        return detail::as_bad_enumerator(std::move(s));
    }
    if (index >= count) {
        return Status::error(ErrorKind::BadEnumerator, start);
    }
    out = index;
    return Status{};
}

/// An enumerator index in `bits_required(0, count - 1)` bits: BadEnumerator when `>= count`.
template <class R>
Status read_enum_index(R& r, std::uint64_t count, std::uint64_t& out) {
    if (count == 0) {
        return r.error(ErrorKind::BadEnumerator);
    }
    return read_enum(r, count, bits_required(0, count - 1), out);
}

/// An OPTIONAL's presence bit.
template <class R>
Status read_presence(R& r, bool& out) {
    return r.read_bool(out);
}

/// A fence's present bit: false (nothing read) at the end of the input.
template <class R>
Status read_fence_present(R& r, bool& out) {
    return r.read_fence_present(out);
}

/// A length or count written by `write_count` (LengthOverBound above a bound).
template <class R>
Status read_length(R& r, Bound max, std::uint64_t& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t len = 0;
    if (max.has_value()) {
        IDLC_TRY(r.read_bits(bits_required(0, *max), len));
        if (len > *max) {
            return Status::error(ErrorKind::LengthOverBound, start);
        }
    } else {
        IDLC_TRY(read_vlq_length(r, len));
    }
    out = len;
    return Status{};
}

/// A SEQUENCE's count, checked against the bits left (each element needs `min_element_bits`)
/// before anything is allocated: LengthOverBound otherwise.
template <class R>
Status read_count(R& r, Bound max, std::uint64_t min_element_bits, std::size_t& out) {
    std::uint64_t start = r.bits_read();
    std::uint64_t count = 0;
    IDLC_TRY(read_length(r, max, count));
    if (!fitting_count(count, max, min_element_bits, r.bits_remaining(), out)) {
        return Status::error(ErrorKind::LengthOverBound, start);
    }
    return Status{};
}

/// A SEQUENCE's count read with its own rule (`read_elements` in Rust), checked against the bits
/// left as `read_count` checks it: LengthOverBound at the reader's position otherwise.
template <class R>
Status fitting_elements(const R& r, std::uint64_t count, Bound max, std::uint64_t min_element_bits,
                        std::size_t& out) {
    if (!fitting_count(count, max, min_element_bits, r.bits_remaining(), out)) {
        return r.error(ErrorKind::LengthOverBound);
    }
    return Status{};
}

/// Skips an open extension point this reader knows no fields of (Rust's `skip_extension`): the
/// present bit and, when it is set, the extension; the end of the input is an absent extension,
/// like an absent segment after a FENCE.
template <class R>
Status skip_extension(R& r) {
    if (r.bits_remaining() == 0) {
        return Status{};
    }
    bool present = false;
    return r.read_extension(present, [](R&) { return Status{}; });
}

/// A run of fixed-width fields read as one word: UnexpectedEnd at its start unless all its
/// `bits` are left (a reader checks none of its fields before it has them all).
template <class R>
Status check_run(const R& r, std::uint64_t bits) {
    if (r.bits_remaining() < bits) {
        return r.error(ErrorKind::UnexpectedEnd);
    }
    return Status{};
}

/// An ARRAY of `len` elements fits the bits left when each needs `min_element_bits`:
/// UnexpectedEnd at the reader's position otherwise (Rust's `read_array`).
template <class R>
Status check_array(const R& r, std::uint64_t len, std::uint64_t min_element_bits) {
    if (min_element_bits != 0 && len > r.bits_remaining() / min_element_bits) {
        return r.error(ErrorKind::UnexpectedEnd);
    }
    return Status{};
}

/// BYTES: the length, then ALIGN and the bytes, borrowed from the input (`data`, `size`).
template <class R>
Status read_bytes(R& r, Bound max, const std::uint8_t*& data, std::size_t& size) {
    std::uint64_t start = r.bits_read();
    std::uint64_t len = 0;
    IDLC_TRY(read_length(r, max, len));
    if (len > r.bits_remaining() / 8) {
        return Status::error(ErrorKind::UnexpectedEnd, start);
    }
    const std::uint8_t* p = nullptr;
    IDLC_TRY(r.read_raw_bytes(len, p));
    data = p;
    size = static_cast<std::size_t>(len);
    return Status{};
}

/// STRING: as BYTES, then BadUtf8 (at the length's offset) unless the bytes are UTF-8.
template <class R>
Status read_str(R& r, Bound max, std::string_view& out) {
    std::uint64_t start = r.bits_read();
    const std::uint8_t* data = nullptr;
    std::size_t size = 0;
    IDLC_TRY(read_bytes(r, max, data, size));
    if (!valid_utf8(data, size)) {
        return Status::error(ErrorKind::BadUtf8, start);
    }
    out = std::string_view(reinterpret_cast<const char*>(data), size);
    return Status{};
}

/// A CHECK marker: CheckMismatch unless it holds CHECK_VALUE.
template <class R>
Status read_check(R& r) {
    std::uint64_t start = r.bits_read();
    std::uint64_t v = 0;
    IDLC_TRY(r.read_bits(32, v));
    if (v != CHECK_VALUE) {
        return Status::error(ErrorKind::CheckMismatch, start);
    }
    return Status{};
}

} // namespace idlc

#endif // IDLC_WIRE_HPP

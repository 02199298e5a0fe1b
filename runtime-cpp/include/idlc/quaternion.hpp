// idlc C++ runtime: QUATERNION, its default encoding (four raw FLOAT32s) and
// `SMALLEST_THREE(n)` (runtime/src/quat.rs; WIRE.md): the index of the largest component in 2
// bits, the other three in n bits each, each one of the 2^n steps of [-1/sqrt(2), 1/sqrt(2)].
//
// The same bits as the Rust runtime on every input: every sum of products is a chain of
// std::fma (so a compiler's contraction of `a * b + c` changes nothing), the rest is IEEE
// division, sqrt and rounding, which C++ and Rust compute alike.
#ifndef IDLC_QUATERNION_HPP
#define IDLC_QUATERNION_HPP

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "diff.hpp"
#include "status.hpp"
#include "wire.hpp"

namespace idlc {

/// A rotation as a unit quaternion (x, y, z, w): the C++ type of the IDL's QUATERNION. The
/// default is the identity.
struct Quaternion {
    float x = 0.0f;
    float y = 0.0f;
    float z = 0.0f;
    float w = 1.0f;

    /// The components in wire order: x, y, z, w.
    std::array<float, 4> to_array() const noexcept { return {x, y, z, w}; }

    /// The quaternion of components in wire order.
    static Quaternion from_array(const std::array<float, 4>& c) noexcept {
        return Quaternion{c[0], c[1], c[2], c[3]};
    }

    /// Whether every component has the same bits as `other`'s.
    bool same_bits(const Quaternion& other) const noexcept {
        std::array<float, 4> a = to_array(), b = other.to_array();
        for (std::size_t i = 0; i < 4; ++i) {
            if (f32_to_bits(a[i]) != f32_to_bits(b[i])) {
                return false;
            }
        }
        return true;
    }

    friend bool operator==(const Quaternion& a, const Quaternion& b) noexcept {
        return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
    }
    friend bool operator!=(const Quaternion& a, const Quaternion& b) noexcept { return !(a == b); }
};

/// A QUATERNION without a rule: four raw FLOAT32s, x, y, z, w.
template <class W>
Status write_quaternion_f32(W& w, const Quaternion& q) {
    IDLC_TRY(write_f32(w, q.x));
    IDLC_TRY(write_f32(w, q.y));
    IDLC_TRY(write_f32(w, q.z));
    return write_f32(w, q.w);
}

/// Reads what `write_quaternion_f32` wrote; `out` is assigned only on success.
template <class R>
Status read_quaternion_f32(R& r, Quaternion& out) {
    Quaternion q;
    IDLC_TRY(read_f32(r, q.x));
    IDLC_TRY(read_f32(r, q.y));
    IDLC_TRY(read_f32(r, q.z));
    IDLC_TRY(read_f32(r, q.w));
    out = q;
    return Status{};
}

/// What SMALLEST_THREE(n) sends: the index of the largest component and the steps of the other
/// three, in x, y, z, w order.
struct SmallestThreeCode {
    std::uint8_t index = 0;
    std::array<std::uint64_t, 3> steps{};

    friend bool operator==(const SmallestThreeCode& a, const SmallestThreeCode& b) noexcept {
        return a.index == b.index && a.steps == b.steps;
    }
    friend bool operator!=(const SmallestThreeCode& a, const SmallestThreeCode& b) noexcept {
        return !(a == b);
    }
};

/// How far from unit length a quaternion the encoder takes may be: |length² - 1| at most this.
constexpr double UNIT_TOLERANCE = 1e-3;

/// `SMALLEST_THREE(n)`, n in 2..=24 (another width makes every call InvalidArgument).
class SmallestThree {
public:
    constexpr explicit SmallestThree(std::uint32_t bits) noexcept : bits_(bits) {}

    /// Bits per component.
    constexpr std::uint32_t bits() const noexcept { return bits_; }

    /// Bits of the whole code in a BITSTREAM: 2 + 3n.
    constexpr std::uint32_t code_bits() const noexcept { return 2 + 3 * bits_; }

    /// The largest step: 2^n - 1.
    constexpr std::uint64_t last_step() const noexcept { return (std::uint64_t{1} << bits_) - 1; }

    /// The code sent for `q` in `out`: the nearest when valid, else the valid code of the least
    /// rotation (each component at its floor, ceiling or one step beyond; as the Rust runtime). NotANumber for a NaN or infinite component,
    /// ValueOutOfRange farther from unit length than UNIT_TOLERANCE, InvalidArgument for a
    /// width outside 2..=24. `out` is assigned only on success.
    ErrorKind encode(const Quaternion& q, SmallestThreeCode& out) const {
        SmallestThreeCode nearest_code;
        ErrorKind kind = nearest(q, nearest_code);
        if (kind != ErrorKind::Ok) {
            return kind;
        }
        Quaternion back;
        if (accepts(nearest_code, back)) {
            out = nearest_code;
            return ErrorKind::Ok;
        }
        std::array<double, 4> c;
        kind = unit(q, c);
        if (kind != ErrorKind::Ok) {
            return kind;
        }
        bool found = false;
        double best_dot = 0.0;
        SmallestThreeCode best;
        for (std::size_t index = 0; index < 4; ++index) {
            double sign = c[index] < 0.0 ? -1.0 : 1.0;
            std::array<double, 3> at = others(c, index, sign);
            for (double& v : at) {
                v = position(v);
            }
            for (std::uint32_t choice = 0; choice < 64; ++choice) {
                SmallestThreeCode code;
                code.index = static_cast<std::uint8_t>(index);
                for (std::size_t k = 0; k < 3; ++k) {
                    code.steps[k] = around(at[k], (choice >> (2 * k)) & 3u);
                }
                if (!accepts(code, back)) {
                    continue;
                }
                std::array<float, 4> b = back.to_array();
                double dot = 0.0;
                for (std::size_t i = 0; i < 4; ++i) {
                    dot = std::fma(c[i], static_cast<double>(b[i]), dot);
                }
                dot = std::fabs(dot);
                if (!found || dot > best_dot) {
                    found = true;
                    best_dot = dot;
                    best = code;
                }
            }
        }
        if (!found) {
            return ErrorKind::ValueOutOfRange;
        }
        out = best;
        return ErrorKind::Ok;
    }

    /// The unit quaternion `code` stands for, when valid (what re-encodes to it).
    bool decode(const SmallestThreeCode& code, Quaternion& out) const { return accepts(code, out); }

    /// The quaternion a receiver holds after `q` is sent.
    ErrorKind sent(const Quaternion& q, Quaternion& out) const {
        SmallestThreeCode code;
        ErrorKind kind = encode(q, code);
        if (kind != ErrorKind::Ok) {
            return kind;
        }
        return rebuild(code, out) ? ErrorKind::Ok : ErrorKind::ValueOutOfRange;
    }

    /// Whether `baseline` is sent as `sent` (a quaternion as the receiver holds it): its code
    /// rebuilds to the same bits; false when it cannot be sent. What a delta encoder asks of a
    /// baseline that is not a value as sent (an identity, a game's own rotation).
    bool sends_as(const Quaternion& baseline, const Quaternion& sent) const {
        Quaternion held;
        return this->sent(baseline, held) == ErrorKind::Ok && held.same_bits(sent);
    }

    /// Writes `q`: the index in 2 bits and the three steps in n bits each, in one word when they
    /// fit 64 bits (else the index with the first step, then the other two).
    template <class W>
    Status write(W& w, const Quaternion& q) const {
        SmallestThreeCode code;
        ErrorKind kind = encode(q, code);
        if (kind != ErrorKind::Ok) {
            return w.error(kind);
        }
        return write_code(w, code);
    }

    /// Writes a valid code as `write` does.
    template <class W>
    Status write_code(W& w, const SmallestThreeCode& code) const {
        const std::uint32_t n = bits_;
        const std::uint64_t index = code.index;
        if (code_bits() <= 64) {
            return w.write_bits(index | (code.steps[0] << 2) | (code.steps[1] << (2 + n)) |
                                    (code.steps[2] << (2 + 2 * n)),
                                code_bits());
        }
        IDLC_TRY(w.write_bits(index | (code.steps[0] << 2), 2 + n));
        return w.write_bits(code.steps[1] | (code.steps[2] << n), 2 * n);
    }

    /// Reads a code as `write_code` wrote it, unchecked but for its steps' range.
    template <class R>
    Status read_code(R& r, SmallestThreeCode& out) const {
        if (!valid()) {
            return Status::error(ErrorKind::InvalidArgument, r.bits_read());
        }
        const std::uint32_t n = bits_;
        const std::uint64_t mask = last_step();
        std::uint64_t index = 0, a = 0, bc = 0;
        if (code_bits() <= 64) {
            std::uint64_t v = 0;
            IDLC_TRY(r.read_bits(code_bits(), v));
            index = v & 3u;
            a = (v >> 2) & mask;
            bc = v >> (2 + n);
        } else {
            std::uint64_t v = 0;
            IDLC_TRY(r.read_bits(2 + n, v));
            index = v & 3u;
            a = v >> 2;
            IDLC_TRY(r.read_bits(2 * n, bc));
        }
        out.index = static_cast<std::uint8_t>(index);
        out.steps = {a, bc & mask, (bc >> n) & mask};
        return Status{};
    }

    /// Reads what `write` wrote: a unit quaternion; ValueOutOfRange at the code's first bit for
    /// a code no encoder sends. `out` is assigned only on success.
    template <class R>
    Status read(R& r, Quaternion& out) const {
        std::uint64_t start = r.bits_read();
        SmallestThreeCode code;
        IDLC_TRY(read_code(r, code));
        Quaternion q;
        if (!accepts(code, q)) {
            return Status::error(ErrorKind::ValueOutOfRange, start);
        }
        out = q;
        return Status{};
    }

    /// The code of a baseline's quaternion, the reference of `DELTA DIFF(..)
    /// SMALLEST_THREE(n)`; false when it has none.
    bool reference(const Quaternion& baseline, SmallestThreeCode& out) const {
        return encode(baseline, out) == ErrorKind::Ok;
    }

    /// Writes `q` against the reference (`has_reference` false: none): the same-index bit, then
    /// the three steps as tiered differences, or the whole code.
    template <class W>
    Status write_diff(W& w, const Diff& diff, const Quaternion& q, bool has_reference,
                      const SmallestThreeCode& reference) const {
        SmallestThreeCode code;
        ErrorKind kind = encode(q, code);
        if (kind != ErrorKind::Ok) {
            return w.error(kind);
        }
        bool same = has_reference && reference.index == code.index;
        IDLC_TRY(w.write_bool(same));
        if (!same) {
            return write_code(w, code);
        }
        for (std::size_t k = 0; k < 3; ++k) {
            bool carried = false;
            IDLC_TRY(diff.write(w, code.steps[k], reference.steps[k], carried));
            if (!carried) {
                IDLC_TRY(w.write_bits(code.steps[k], bits_));
            }
        }
        return Status{};
    }

    /// Reads what `write_diff` wrote against the same reference. `diff` is the DIFF of one
    /// component's steps: `Diff{tiers, 0, last_step(), false}`.
    template <class R>
    Status read_diff(R& r, const Diff& diff, bool has_reference,
                     const SmallestThreeCode& reference, Quaternion& out) const {
        std::uint64_t start = r.bits_read();
        bool same = false;
        IDLC_TRY(r.read_bool(same));
        if (!same) {
            Quaternion q;
            IDLC_TRY(read(r, q));
            SmallestThreeCode again;
            if (has_reference && encode(q, again) == ErrorKind::Ok &&
                again.index == reference.index) {
                return Status::error(ErrorKind::ValueOutOfRange, start);
            }
            out = q;
            return Status{};
        }
        if (!has_reference) {
            return Status::error(ErrorKind::ValueOutOfRange, start);
        }
        if (!valid()) {
            return Status::error(ErrorKind::InvalidArgument, r.bits_read());
        }
        SmallestThreeCode code;
        code.index = reference.index;
        for (std::size_t k = 0; k < 3; ++k) {
            std::uint64_t at = r.bits_read();
            bool carried = false;
            std::uint64_t step = 0;
            IDLC_TRY(diff.read(r, reference.steps[k], carried, step));
            if (!carried) {
                IDLC_TRY(r.read_bits(bits_, step));
                IDLC_TRY(diff.check_escaped(step, reference.steps[k], at));
            }
            code.steps[k] = step;
        }
        Quaternion q;
        if (!accepts(code, q)) {
            return Status::error(ErrorKind::ValueOutOfRange, start);
        }
        out = q;
        return Status{};
    }

private:
    static constexpr double FRAC_1_SQRT_2 = 0.70710678118654752440;
    static constexpr double NORMALIZE_ABOVE = 1.0 / 1048576.0;

    std::uint32_t bits_;

    constexpr bool valid() const noexcept { return bits_ >= 2 && bits_ <= 24; }

    template <std::size_t N>
    static double sum_squares(const std::array<double, N>& v) {
        double acc = 0.0;
        for (double x : v) {
            acc = std::fma(x, x, acc);
        }
        return acc;
    }

    double position(double v) const {
        double last = static_cast<double>(last_step());
        double p = (v / FRAC_1_SQRT_2 + 1.0) * last / 2.0;
        return p < 0.0 ? 0.0 : (p > last ? last : p);
    }

    /// A step near the position `p`: its floor, its ceiling, the step below the floor, the
    /// step above the ceiling, for `choice` 0 to 3; clamped to the steps.
    std::uint64_t around(double p, std::uint32_t choice) const {
        std::uint64_t floor = static_cast<std::uint64_t>(std::floor(p));
        std::uint64_t ceil = static_cast<std::uint64_t>(std::ceil(p));
        std::uint64_t step = choice == 0 ? floor
                             : choice == 1 ? ceil
                             : choice == 2 ? (floor == 0 ? 0 : floor - 1)
                                           : ceil + 1;
        return step < last_step() ? step : last_step();
    }

    double component(std::uint64_t step) const {
        std::int64_t twice =
            2 * static_cast<std::int64_t>(step) - static_cast<std::int64_t>(last_step());
        return static_cast<double>(twice) / static_cast<double>(last_step()) * FRAC_1_SQRT_2;
    }

    /// The widest code whose rebuilt quaternion re-encodes to its own steps whenever it
    /// re-encodes to its own index (as quat.rs's SAME_STEPS_BITS).
    static constexpr std::uint32_t SAME_STEPS_BITS = 20;

    /// `q`'s components as doubles.
    static std::array<double, 4> widened(const Quaternion& q) {
        std::array<float, 4> f = q.to_array();
        std::array<double, 4> c;
        for (std::size_t i = 0; i < 4; ++i) {
            c[i] = static_cast<double>(f[i]);
        }
        return c;
    }

    static ErrorKind unit(const Quaternion& q, std::array<double, 4>& out) {
        std::array<double, 4> c = widened(q);
        for (double v : c) {
            if (!std::isfinite(v)) {
                return ErrorKind::NotANumber;
            }
        }
        double length2 = sum_squares(c);
        double off = std::fabs(length2 - 1.0);
        if (off > UNIT_TOLERANCE) {
            return ErrorKind::ValueOutOfRange;
        }
        if (off > NORMALIZE_ABOVE) {
            double scale = 1.0 / std::sqrt(length2);
            for (double& v : c) {
                v = v * scale;
            }
        }
        out = c;
        return ErrorKind::Ok;
    }

    /// The index of the largest component (the first of equals).
    static std::size_t largest(const std::array<double, 4>& c) {
        std::size_t index = 0;
        for (std::size_t i = 1; i < 4; ++i) {
            if (std::fabs(c[i]) > std::fabs(c[index])) {
                index = i;
            }
        }
        return index;
    }

    static std::array<double, 3> others(const std::array<double, 4>& c, std::size_t index,
                                        double sign) {
        std::array<double, 3> out{};
        std::size_t k = 0;
        for (std::size_t i = 0; i < 4; ++i) {
            if (i != index) {
                out[k++] = c[i] * sign;
            }
        }
        return out;
    }

    ErrorKind nearest(const Quaternion& q, SmallestThreeCode& out) const {
        if (!valid()) {
            return ErrorKind::InvalidArgument;
        }
        std::array<double, 4> c;
        ErrorKind kind = unit(q, c);
        if (kind != ErrorKind::Ok) {
            return kind;
        }
        std::size_t index = largest(c);
        double sign = c[index] < 0.0 ? -1.0 : 1.0;
        std::array<double, 3> o = others(c, index, sign);
        out.index = static_cast<std::uint8_t>(index);
        for (std::size_t k = 0; k < 3; ++k) {
            out.steps[k] = static_cast<std::uint64_t>(std::round(position(o[k])));
        }
        return ErrorKind::Ok;
    }

    bool rebuild(const SmallestThreeCode& code, Quaternion& out) const {
        if (!valid() || code.index > 3) {
            return false;
        }
        std::array<double, 3> o;
        for (std::size_t k = 0; k < 3; ++k) {
            if (code.steps[k] > last_step()) {
                return false;
            }
            o[k] = component(code.steps[k]);
        }
        double sum = sum_squares(o);
        if (sum > 1.0) {
            return false;
        }
        std::array<float, 4> c;
        std::size_t k = 0;
        for (std::size_t i = 0; i < 4; ++i) {
            double v = i == code.index ? std::sqrt(1.0 - sum) : o[k++];
            c[i] = static_cast<float>(v);
        }
        out = Quaternion::from_array(c);
        return true;
    }

    bool accepts(const SmallestThreeCode& code, Quaternion& out) const {
        Quaternion q;
        if (!rebuild(code, q)) {
            return false;
        }
        if (bits_ > SAME_STEPS_BITS) {
            SmallestThreeCode again;
            if (nearest(q, again) != ErrorKind::Ok || again != code) {
                return false;
            }
        } else {
            // Up to SAME_STEPS_BITS bits the re-encode can change only the index (quat.rs,
            // `accepts`, has the proof): the same `largest` over the same doubles.
            if (largest(widened(q)) != code.index) {
                return false;
            }
        }
        out = q;
        return true;
    }
};

} // namespace idlc

#endif // IDLC_QUATERNION_HPP

// idlc C++ runtime: FIXED_POINT quantization (runtime/src/fixed.rs), with the same floating-point
// operations, in the same order, as Rust, and no contraction into FMA whatever the flags.
#ifndef IDLC_FIXED_POINT_HPP
#define IDLC_FIXED_POINT_HPP

#include <cstdint>
#include <limits>

#include "int.hpp"
#include "status.hpp"

#if defined(_MSC_VER) && !defined(__clang__)
#define IDLC_NOINLINE __declspec(noinline)
#elif defined(__GNUC__) || defined(__clang__)
#define IDLC_NOINLINE __attribute__((noinline))
#else
#define IDLC_NOINLINE
#define IDLC_NO_NOINLINE 1
#endif

namespace idlc {

/// Largest number of steps a fixed-point range may have: 2^53.
constexpr std::uint64_t MAX_FIXED_POINT_STEPS = std::uint64_t{1} << 53;

namespace detail {

/// `a * b`, rounded to a double, as a value the caller cannot fuse with a following addition:
/// Rust never contracts `min + q * r` into an FMA, and neither may a C++ compiler given
/// `-ffp-contract=fast` (GCC's default outside ISO mode), which ignores `#pragma STDC
/// FP_CONTRACT`. A product returned from a function that is not inlined is a rounded double
/// (a volatile round trip where no noinline attribute is known).
IDLC_NOINLINE inline double rounded_product(double a, double b) noexcept {
#if defined(IDLC_NO_NOINLINE)
    volatile double p = a * b;
    return p;
#else
    return a * b;
#endif
}

/// Whether a double is finite (no reliance on <cmath> classification under any flags).
constexpr bool is_finite(double x) noexcept {
    return x == x && x != std::numeric_limits<double>::infinity() &&
           x != -std::numeric_limits<double>::infinity();
}

/// `x.round()` (half away from zero) for `0 <= x <= 2^53 + 0.5`, as Rust's round_non_negative.
constexpr std::uint64_t round_non_negative(double x) noexcept {
    std::int64_t t = static_cast<std::int64_t>(x);
    return static_cast<std::uint64_t>(x - static_cast<double>(t) >= 0.5 ? t + 1 : t);
}

} // namespace detail

/// Whether `fixed_point_steps` accepts the parameters, and if so the largest step index:
/// `round((max - min) / resolution)`. False for a non-finite value, `min > max`,
/// `resolution <= 0`, or more than MAX_FIXED_POINT_STEPS steps.
inline bool fixed_point_steps(double min, double max, double resolution,
                              std::uint64_t& steps) noexcept {
    if (!(detail::is_finite(min) && detail::is_finite(max) && detail::is_finite(resolution))) {
        return false;
    }
    if (min > max || resolution <= 0.0) {
        return false;
    }
    double s = (max - min) / resolution;
    if (s != s || s > static_cast<double>(MAX_FIXED_POINT_STEPS)) {
        return false;
    }
    steps = detail::round_non_negative(s);
    return true;
}

/// A fixed-point quantizer for one NUMERIC field with FIXED_POINT(resolution), as Rust's
/// `FixedPoint`: step `q` stands for `min + q * resolution` capped at `max`; the valid steps
/// are `first()..=steps()`, those whose value lies inside the range (open ends excluded).
class FixedPoint {
public:
    /// An unusable quantizer (`valid()` is false); use `make` or `make_with_ends`.
    FixedPoint() = default;

    /// A quantizer of the closed range `[min, max]`; `valid()` is false when Rust's
    /// `FixedPoint::new` gives None.
    static FixedPoint make(double min, double max, double resolution) noexcept {
        return make_with_ends(min, max, resolution, true, true);
    }

    /// A quantizer of a range with open or closed ends; `valid()` is false when Rust's
    /// `FixedPoint::with_ends` gives None.
    static FixedPoint make_with_ends(double min, double max, double resolution, bool min_inclusive,
                                     bool max_inclusive) noexcept {
        FixedPoint fp;
        std::uint64_t rounded = 0;
        if (!fixed_point_steps(min, max, resolution, rounded)) {
            return fp;
        }
        fp.min_ = min;
        fp.max_ = max;
        fp.resolution_ = resolution;
        fp.min_inclusive_ = min_inclusive;
        fp.max_inclusive_ = max_inclusive;
        fp.first_ = 0;
        fp.last_ = rounded;
        while (fp.last_ > 0 && !fp.admits(fp.dequantize(fp.last_))) {
            --fp.last_;
        }
        while (fp.first_ <= fp.last_ && !fp.admits(fp.dequantize(fp.first_))) {
            ++fp.first_;
        }
        if (fp.first_ > fp.last_ || !fp.admits(fp.dequantize(fp.last_))) {
            return FixedPoint{};
        }
        fp.bits_ = bits_required(0, fp.last_);
        fp.valid_ = true;
        return fp;
    }

    /// Whether the parameters were usable.
    bool valid() const noexcept { return valid_; }
    /// The lower end of the range.
    double min() const noexcept { return min_; }
    /// The upper end of the range.
    double max() const noexcept { return max_; }
    /// The size of one step.
    double resolution() const noexcept { return resolution_; }
    /// The smallest valid step index.
    std::uint64_t first() const noexcept { return first_; }
    /// The largest valid step index.
    std::uint64_t steps() const noexcept { return last_; }
    /// Bits a step index takes in a BITSTREAM: `bits_required(0, steps())`.
    std::uint32_t bits() const noexcept { return bits_; }

    /// Whether `value` lies inside the range, with its open or closed ends (false for NaN).
    bool admits(double value) const noexcept {
        bool above_min = min_inclusive_ ? value >= min_ : value > min_;
        bool below_max = max_inclusive_ ? value <= max_ : value < max_;
        return above_min && below_max;
    }

    /// Whether `q` is a valid step index.
    bool is_step(std::uint64_t q) const noexcept { return first_ <= q && q <= last_; }

    /// ErrorKind::Ok when `value` can be sent, else NotANumber or ValueOutOfRange.
    ErrorKind check(double value) const noexcept {
        if (value != value) {
            return ErrorKind::NotANumber;
        }
        return admits(value) ? ErrorKind::Ok : ErrorKind::ValueOutOfRange;
    }

    /// The step index of `value` (nearest, clamped into the valid steps) in `q`, or the error
    /// kind of `check`.
    ErrorKind quantize(double value, std::uint64_t& q) const noexcept {
        ErrorKind kind = check(value);
        if (kind != ErrorKind::Ok) {
            return kind;
        }
        double x = (value - min_) / resolution_;
        q = clamp_step(detail::round_non_negative(x));
        return ErrorKind::Ok;
    }

    /// The valid step nearest to any value, NaN and values outside the range included.
    std::uint64_t nearest_step(double value) const noexcept {
        double x = (value - min_) / resolution_;
        if (x != x || x <= 0.0) {
            return first_;
        }
        if (x >= static_cast<double>(last_)) {
            return last_;
        }
        return clamp_step(detail::round_non_negative(x));
    }

    /// The value of step `q`: `min + q * resolution`, capped at `max` (q is not checked).
    double dequantize(std::uint64_t q) const noexcept {
        const std::uint64_t cap = std::uint64_t{1} << 62;
        std::uint64_t c = q > cap ? cap : q;
        double value = min_ + detail::rounded_product(
                                  static_cast<double>(static_cast<std::int64_t>(c)), resolution_);
        return value > max_ ? max_ : value;
    }

    /// Whether `baseline` is sent as step `q` (false when it cannot be sent): what a delta
    /// encoder asks of a baseline off the steps when the value it sends differs from it.
    bool sends_as(double baseline, std::uint64_t q) const noexcept {
        std::uint64_t y = 0;
        return quantize(baseline, y) == ErrorKind::Ok && y == q;
    }

private:
    std::uint64_t clamp_step(std::uint64_t q) const noexcept {
        return q < first_ ? first_ : q > last_ ? last_ : q;
    }

    double min_ = 0.0;
    double max_ = 0.0;
    double resolution_ = 1.0;
    bool min_inclusive_ = true;
    bool max_inclusive_ = true;
    bool valid_ = false;
    std::uint64_t first_ = 0;
    std::uint64_t last_ = 0;
    std::uint32_t bits_ = 0;
};

/// The real an f32 field's value stands for (Rust's `real_of_f32`): the f32 nearest to an end
/// of the range stands for that end, any other value for itself.
inline double real_of_f32(float value, double min, double max) noexcept {
    double real = static_cast<double>(value);
    auto exact = [](double end) { return static_cast<double>(static_cast<float>(end)) == end; };
    bool infinite = value == std::numeric_limits<float>::infinity() ||
                    value == -std::numeric_limits<float>::infinity();
    if ((exact(min) && exact(max)) || infinite || real == min || real == max) {
        return real;
    }
    if (value == static_cast<float>(min)) {
        return min;
    }
    if (value == static_cast<float>(max)) {
        return max;
    }
    return real;
}

} // namespace idlc

#endif // IDLC_FIXED_POINT_HPP

// idlc C++ runtime: delta and dead-reckoning support (runtime/src/delta.rs): the baseline
// context, extrapolation on quantized steps (the same IEEE-754 operations as Rust, in the same
// order, never fused), and the index gaps of DELTA SEQUENCE.
#ifndef IDLC_DELTA_HPP
#define IDLC_DELTA_HPP

#include <cstdint>

#include "fixed_point.hpp"
#include "int.hpp"
#include "status.hpp"
#include "wire.hpp"

namespace idlc {

/// What a delta or dead-reckoning encode / decode needs besides the two states: the time in
/// seconds since the baseline, the same value on both sides (derive it from ticks).
struct DeltaContext {
    /// Seconds since the baseline.
    double elapsed = 0.0;

    /// A context `ticks` ticks of `tick_seconds` after the baseline.
    static DeltaContext from_ticks(std::uint64_t ticks, double tick_seconds) noexcept {
        DeltaContext ctx;
        ctx.elapsed = static_cast<double>(ticks) * tick_seconds;
        return ctx;
    }
};

namespace detail {

/// Rust's `f64::round` (half away from zero, the sign of a zero kept) without libm.
inline double round_half_away(double x) noexcept {
    double a = x < 0.0 ? -x : x;
    if (a < 4503599627370496.0) {
        std::int64_t t = static_cast<std::int64_t>(x);
        double frac = x - static_cast<double>(t);
        // Flags, not branches: the fraction of an extrapolated position is as random as the
        // position.
        std::int64_t r = t + static_cast<std::int64_t>(frac >= 0.5) -
                         static_cast<std::int64_t>(frac <= -0.5);
        double rounded = static_cast<double>(r);
        // copysign(rounded, x), without <cmath>.
        std::uint64_t bits = (f64_to_bits(rounded) & 0x7fffffffffffffffull) |
                             (f64_to_bits(x) & 0x8000000000000000ull);
        return f64_from_bits(bits);
    }
    return x;
}

} // namespace detail

/// One axis of a DEAD_RECKONING block: a quantized position and its quantized velocity.
struct DeadReckoningAxis {
    /// The position field's quantizer.
    FixedPoint position;
    /// The velocity field's quantizer (units of position per second).
    FixedPoint velocity;

    /// The position step both sides hold `ctx.elapsed` seconds after a baseline of
    /// (`pos_step`, `vel_step`): `clamp(pos_step + round(v * elapsed / r), first, steps)`.
    std::uint64_t extrapolate(std::uint64_t pos_step, std::uint64_t vel_step,
                              const DeltaContext& ctx) const noexcept {
        std::uint64_t first = position.first(), steps = position.steps();
        std::uint64_t base = pos_step < first ? first : pos_step > steps ? steps : pos_step;
        double v = velocity.dequantize(vel_step);
        if (v == 0.0) {
            return base;
        }
        double scaled = v * ctx.elapsed;
        double displacement = detail::round_half_away(scaled / position.resolution());
        if (!detail::is_finite(displacement)) {
            return base;
        }
        double q = static_cast<double>(base) + displacement;
        if (q <= static_cast<double>(first)) {
            return first;
        }
        if (q >= static_cast<double>(steps)) {
            return steps;
        }
        return static_cast<std::uint64_t>(q);
    }

    /// The extrapolated position value.
    double predict(std::uint64_t pos_step, std::uint64_t vel_step,
                   const DeltaContext& ctx) const noexcept {
        return position.dequantize(extrapolate(pos_step, vel_step, ctx));
    }

    /// `predict` from unquantized values, each taken to its nearest step.
    double predict_from(double pos, double vel, const DeltaContext& ctx) const noexcept {
        return predict(position.nearest_step(pos), velocity.nearest_step(vel), ctx);
    }

    /// `extrapolate` from a baseline's values rather than its steps (each taken to its nearest
    /// valid step first, as `predict_from` does): the reference of a position's `DIFF` in a
    /// dead-reckoning block.
    std::uint64_t extrapolate_from(double pos, double vel, const DeltaContext& ctx) const noexcept {
        return extrapolate(position.nearest_step(pos), velocity.nearest_step(vel), ctx);
    }

    /// Whether the receiver's extrapolation is further than `deviation` from the true position.
    bool needs_update(double true_position, std::uint64_t pos_step, std::uint64_t vel_step,
                      const DeltaContext& ctx, double deviation) const noexcept;
};

/// Whether `|actual - predicted| > deviation`, a NaN anywhere counting as exceeding.
inline bool exceeds_deviation(double actual, double predicted, double deviation) noexcept {
    double d = actual - predicted;
    double a = d < 0.0 ? -d : d;
    return !(a <= deviation);
}

inline bool DeadReckoningAxis::needs_update(double true_position, std::uint64_t pos_step,
                                            std::uint64_t vel_step, const DeltaContext& ctx,
                                            double deviation) const noexcept {
    return exceeds_deviation(true_position, predict(pos_step, vel_step, ctx), deviation);
}

/// The group size of the VLQ of an index gap (`gap - 1`) in a BITSTREAM.
constexpr std::uint32_t INDEX_GAP_GROUP_BITS = 3;

/// A DELTA SEQUENCE index gap: a BITSTREAM sends a 1 for gap 0, else a 0 and `gap - 1` as
/// VLQ(3); a BYTESTREAM sends the gap as LEB128.
template <class W>
Status write_index_gap(W& w, std::uint64_t gap) {
    if (W::byte_stream) {
        return w.write_vlq(gap, 7);
    }
    if (gap == 0) {
        return w.write_bool(true);
    }
    IDLC_TRY(w.write_bool(false));
    return w.write_vlq(gap - 1, INDEX_GAP_GROUP_BITS);
}

/// Reads what `write_index_gap` wrote.
template <class R>
Status read_index_gap(R& r, std::uint64_t& out) {
    if (R::byte_stream) {
        return read_vlq(r, 7, out);
    }
    bool zero = false;
    IDLC_TRY(r.read_bool(zero));
    if (zero) {
        out = 0;
        return Status{};
    }
    std::uint64_t start = r.bits_read();
    std::uint64_t gap = 0;
    IDLC_TRY(read_vlq(r, INDEX_GAP_GROUP_BITS, gap));
    if (gap == ~std::uint64_t{0}) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    out = gap + 1;
    return Status{};
}

} // namespace idlc

#endif // IDLC_DELTA_HPP

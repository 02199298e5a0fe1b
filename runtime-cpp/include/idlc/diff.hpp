// idlc C++ runtime: `DIFF(b1, ..., bk)`, a changed value sent as its difference to a reference,
// in tiers (runtime/src/diff.rs; WIRE.md, "Delta and dead reckoning").
//
// Values are taken as steps: a FIXED_POINT value's step `q`, an integer's `v - origin` (its
// range's `min`), an enumerator's index. The difference `d = now - reference` travels after a tier selector in the
// first tier whose `b_i` bits hold `zigzag(d)`; when none does, the selector's escape, and the
// value by its own rule follows. On a range that wraps around (an open upper end, such as an
// angle in `[0, 360)`) the difference is taken the shortest way around. Differences are Int128:
// steps are 64-bit, so a difference needs 65 bits and its zigzag 66.
#ifndef IDLC_DIFF_HPP
#define IDLC_DIFF_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "int.hpp"
#include "status.hpp"

namespace idlc {

/// The tiers of a `DIFF(b1, ..., bk)` rule and the steps of the range it applies to. It holds a
/// pointer to the tiers, which must outlive it (generated code keeps both at namespace scope):
///
/// ```cpp
/// inline constexpr std::uint32_t X_TIERS[] = {4, 8};
/// inline constexpr idlc::Diff X_DIFF{X_TIERS, 0, 2000000, false}; // DIFF(4, 8), steps 0..=2e6
/// inline constexpr idlc::Diff HP_DIFF = idlc::Diff{X_TIERS, 0, 200, false}.with_origin(-100);
/// ```
class Diff {
public:
    /// The rule with the `count` tiers at `tiers` (each 1..=64 bits; the compiler checks them)
    /// over the steps `first..=last`; `wraps` when the range has an open upper end, so that the
    /// difference is taken modulo the number of steps.
    constexpr Diff(const std::uint32_t* tiers, std::size_t count, std::uint64_t first,
                   std::uint64_t last, bool wraps) noexcept
        : tiers_(tiers), count_(count), origin_(), first_(first), last_(last), wraps_(wraps) {}

    /// The rule with the tiers of an array (an lvalue: a temporary's tiers would dangle).
    template <class T, std::size_t N,
              class = std::enable_if_t<std::is_same<std::remove_const_t<T>, std::uint32_t>::value>>
    constexpr Diff(T (&tiers)[N], std::uint64_t first, std::uint64_t last, bool wraps) noexcept
        : Diff(tiers, N, first, last, wraps) {}

    /// The rule with `origin`, the integer value of step 0 (an integer rule's `min`: its steps
    /// are `v - origin`).
    constexpr Diff with_origin(Int128 origin) const noexcept {
        Diff out = *this;
        out.origin_ = origin;
        return out;
    }

    /// The step of the integer `v` (`v - origin`) in `out`, when it is one of `first..=last`:
    /// what the encoder sends. False for a value outside (the error a full write of it gives).
    constexpr bool step(Int128 v, std::uint64_t& out) const noexcept {
        Int128 s;
        if (!checked_sub(v, origin_, s) || !s.fits_u64() || s.lo < first_ || s.lo > last_) {
            return false;
        }
        out = s.lo;
        return true;
    }

    /// The step nearest the integer `v`: a reference taken from a baseline, which a game may
    /// have built with any value (both sides compute the same).
    constexpr std::uint64_t reference(Int128 v) const noexcept {
        Int128 s = saturating_sub(v, origin_);
        if (s <= Int128(first_)) {
            return first_;
        }
        if (s >= Int128(last_)) {
            return last_;
        }
        return s.lo;
    }

    /// The integer value of `step`: `origin + step`.
    constexpr Int128 value(std::uint64_t step) const noexcept { return origin_ + Int128(step); }

    /// The tiers, in bits (`tier_count()` of them).
    constexpr const std::uint32_t* tiers() const noexcept { return tiers_; }

    /// The number of tiers.
    constexpr std::size_t tier_count() const noexcept { return count_; }

    /// The difference the encoder sends for `now` against `reference`: `now - reference`, or on
    /// a range that wraps around the shortest way, in `(-n/2, n/2]` for `n` steps.
    constexpr Int128 difference(std::uint64_t now, std::uint64_t reference) const noexcept {
        if (!wrapping()) {
            return Int128(now) - Int128(reference);
        }
        std::uint64_t d = sub_mod(reduce(now), reduce(reference));
        std::uint64_t span = last_ - first_;
        std::uint64_t half = (span >> 1) + (span & 1);
        return d > half ? Int128(d) - Int128(span) - Int128(1) : Int128(d);
    }

    /// The tier (its index) that holds the difference `d`: the first whose bits hold
    /// `zigzag(d)`; `std::nullopt` for the escape.
    constexpr std::optional<std::size_t> tier_of(Int128 d) const noexcept {
        Int128 zz = zigzag(d);
        for (std::size_t i = 0; i < count_; ++i) {
            if (fits(zz, tiers_[i])) {
                return i;
            }
        }
        return std::nullopt;
    }

    /// Writes `now` against `reference`: the selector and the difference when a tier holds it
    /// (`carried` true), else the escape alone (`carried` false: the caller writes the value by
    /// its rule). `carried` is assigned only on success; errors are the writer's.
    template <class W>
    Status write(W& w, std::uint64_t now, std::uint64_t reference, bool& carried) const {
        Int128 d = difference(now, reference);
        std::optional<std::size_t> tier = tier_of(d);
        IDLC_TRY(write_selector(w, tier));
        if (tier.has_value()) {
            // tier_of said that zigzag(d) has at most the tier's bits.
            IDLC_TRY(w.write_bits(zigzag(d).lo, tiers_[*tier]));
        }
        carried = tier.has_value();
        return Status{};
    }

    /// Reads what `write` wrote against `reference`: `carried` true and the `step` when a tier
    /// carried the difference, `carried` false on the escape (`step` untouched: the caller
    /// reads the value by its rule and checks it with `check_escaped`). A difference another
    /// tier should have carried, or one that leads outside `first..=last`, is ValueOutOfRange
    /// at the selector: only what re-encodes to the same bits is accepted. Other errors are the
    /// reader's; nothing is assigned on an error.
    template <class R>
    Status read(R& r, std::uint64_t reference, bool& carried, std::uint64_t& step) const {
        std::uint64_t start = r.bits_read();
        std::optional<std::size_t> tier;
        IDLC_TRY(read_selector(r, tier));
        if (!tier.has_value()) {
            carried = false;
            return Status{};
        }
        std::uint64_t zz = 0;
        IDLC_TRY(r.read_bits(tiers_[*tier], zz));
        Int128 d = unzigzag(zz);
        std::uint64_t to = 0;
        if (tier_of(d) != tier || !apply(reference, d, to) || difference(to, reference) != d) {
            return Status::error(ErrorKind::ValueOutOfRange, start);
        }
        carried = true;
        step = to;
        return Status{};
    }

    /// Checks a value read after the escape (its step `now`): the encoder escapes only what no
    /// tier holds, so a difference a tier holds is ValueOutOfRange at `start`, the bit where the
    /// selector began.
    Status check_escaped(std::uint64_t now, std::uint64_t reference, std::uint64_t start) const {
        if (tier_of(difference(now, reference)).has_value()) {
            return Status::error(ErrorKind::ValueOutOfRange, start);
        }
        return Status{};
    }

    /// `write` of the integer `now` (an enumerator: its index) against the baseline's
    /// `reference` (taken to a step by `reference()`). A value outside the steps is
    /// ValueOutOfRange at the writer's position, the error its full write gives, before
    /// anything is written.
    template <class W>
    Status write_int(W& w, Int128 now, Int128 reference, bool& carried) const {
        std::uint64_t s = 0;
        if (!step(now, s)) {
            return w.error(ErrorKind::ValueOutOfRange);
        }
        return write(w, s, this->reference(reference), carried);
    }

    /// `read` of an integer against the baseline's `reference`: `carried` true and the value
    /// in `out` when a tier carried it, `carried` false on the escape (`check_escaped_int`
    /// checks what follows). ValueOutOfRange at the selector when `T` cannot hold the value;
    /// nothing is assigned on an error.
    template <class R, class T>
    Status read_int(R& r, Int128 reference, bool& carried, T& out) const {
        std::uint64_t start = r.bits_read();
        bool tier = false;
        std::uint64_t s = 0;
        IDLC_TRY(read(r, this->reference(reference), tier, s));
        if (tier) {
            T v{};
            if (!narrow(value(s), v)) {
                return Status::error(ErrorKind::ValueOutOfRange, start);
            }
            out = v;
        }
        carried = tier;
        return Status{};
    }

    /// `check_escaped` of an integer read after the escape, against the baseline's `reference`
    /// (both taken to steps by `reference()`).
    Status check_escaped_int(Int128 now, Int128 reference, std::uint64_t start) const {
        return check_escaped(this->reference(now), this->reference(reference), start);
    }

private:
    /// `a - b` in `out`, false when it overflows 128 bits.
    static constexpr bool checked_sub(Int128 a, Int128 b, Int128& out) noexcept {
        out = a - b;
        return a.negative() == b.negative() || out.negative() == a.negative();
    }

    /// `a - b`, held at the 128-bit ends where it overflows.
    static constexpr Int128 saturating_sub(Int128 a, Int128 b) noexcept {
        Int128 out;
        if (checked_sub(a, b, out)) {
            return out;
        }
        return a.negative() ? Int128::from_parts(std::uint64_t{1} << 63, 0)
                            : Int128::from_parts(~(std::uint64_t{1} << 63), ~std::uint64_t{0});
    }

    /// Whether the difference is taken around the range: it wraps and has steps.
    constexpr bool wrapping() const noexcept { return wraps_ && first_ <= last_; }

    /// The number of steps modulo 2^64: 0 stands for 2^64 (the range of every u64).
    constexpr std::uint64_t modulus() const noexcept { return last_ - first_ + 1; }

    /// `x` modulo the number of steps.
    constexpr std::uint64_t reduce(std::uint64_t x) const noexcept {
        return modulus() == 0 ? x : x % modulus();
    }

    /// `a - b` modulo the number of steps, for `a` and `b` already reduced.
    constexpr std::uint64_t sub_mod(std::uint64_t a, std::uint64_t b) const noexcept {
        return a - b + (a < b ? modulus() : 0);
    }

    /// `d` modulo the number of steps, for `|d| < 2^64`.
    constexpr std::uint64_t reduce_signed(Int128 d) const noexcept {
        return d.negative() ? sub_mod(0, reduce((Int128() - d).lo)) : reduce(d.lo);
    }

    /// The step `d` leads to from `reference` (around the range when it wraps), when it is one
    /// of `first..=last`; `|d| < 2^64`.
    constexpr bool apply(std::uint64_t reference, Int128 d, std::uint64_t& out) const noexcept {
        if (wrapping()) {
            std::uint64_t offset = sub_mod(reduce(reference), reduce(first_));
            out = first_ + sub_mod(offset, sub_mod(0, reduce_signed(d)));
            return true;
        }
        Int128 step = Int128(reference) + d;
        if (!step.fits_u64() || step.lo < first_ || step.lo > last_) {
            return false;
        }
        out = step.lo;
        return true;
    }

    template <class W>
    Status write_selector(W& w, std::optional<std::size_t> tier) const {
        std::size_t index = tier.value_or(count_);
        if (W::byte_stream) {
            return w.write_bits(static_cast<std::uint64_t>(index), 8);
        }
        for (std::size_t i = 0; i < index; ++i) {
            IDLC_TRY(w.write_bool(true));
        }
        if (tier.has_value()) {
            IDLC_TRY(w.write_bool(false));
        }
        return Status{};
    }

    template <class R>
    Status read_selector(R& r, std::optional<std::size_t>& tier) const {
        if (R::byte_stream) {
            std::uint64_t start = r.bits_read();
            std::uint64_t index = 0;
            IDLC_TRY(r.read_bits(8, index));
            if (index > count_) {
                return Status::error(ErrorKind::ValueOutOfRange, start);
            }
            if (index < count_) {
                tier = static_cast<std::size_t>(index);
            }
            return Status{};
        }
        for (std::size_t i = 0; i < count_; ++i) {
            bool one = false;
            IDLC_TRY(r.read_bool(one));
            if (!one) {
                tier = i;
                return Status{};
            }
        }
        return Status{};
    }

    /// `zigzag(d)` over 128 bits: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
    static constexpr Int128 zigzag(Int128 d) noexcept {
        std::uint64_t sign = d.negative() ? ~std::uint64_t{0} : 0;
        return Int128::from_parts(((d.hi << 1) | (d.lo >> 63)) ^ sign, (d.lo << 1) ^ sign);
    }

    static constexpr Int128 unzigzag(std::uint64_t zz) noexcept {
        Int128 half(zz >> 1);
        return (zz & 1) != 0 ? Int128() - half - Int128(1) : half;
    }

    /// Whether `zz` (taken as unsigned) has at most `bits` significant bits.
    static constexpr bool fits(Int128 zz, std::uint32_t bits) noexcept {
        if (bits >= 128) {
            return false;
        }
        if (bits >= 64) {
            return (zz.hi >> (bits - 64)) == 0;
        }
        return zz.hi == 0 && (zz.lo >> bits) == 0;
    }

    const std::uint32_t* tiers_;
    std::size_t count_;
    Int128 origin_;
    std::uint64_t first_;
    std::uint64_t last_;
    bool wraps_;
};

} // namespace idlc

#endif // IDLC_DIFF_HPP

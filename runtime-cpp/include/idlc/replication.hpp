// idlc C++ runtime: what generated delta encoders and decoders call besides the full-form
// operations (runtime/src/replication.rs): a FIXED_POINT step computed once for the comparison
// with the baseline and the write, the value a receiver holds once a value is sent, the
// comparisons "as sent", and the DELTA SEQUENCE coding (changed-bit, count, listed elements by
// index gaps, each listed element in full or as a delta against the baseline's).
#ifndef IDLC_REPLICATION_HPP
#define IDLC_REPLICATION_HPP

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "delta.hpp"
#include "fixed_point.hpp"
#include "status.hpp"
#include "wire.hpp"

namespace idlc {

/// The step `value` is sent as (Rust's `quantize_fixed_point`), its error at the writer's
/// position: what a delta encoder computes before it writes anything of the field.
template <class W>
Status quantize_at(const W& w, const FixedPoint& fp, double value, std::uint64_t& step) {
    ErrorKind kind = fp.quantize(value, step);
    if (kind != ErrorKind::Ok) {
        return w.error(kind);
    }
    return Status{};
}

/// The value a receiver holds once a value is sent: `write` writes it (a callable
/// `Status(W&)`) into a scratch writer and `read` reads it back (`Status(R&)`) into where the
/// caller wants it. A failed write is the error, at `outer`'s position.
template <class W, class R, class Write, class Read>
Status sent_value(const W& outer, Write&& write, Read&& read) {
    W scratch;
    Status written = write(scratch);
    if (!written.ok()) {
        return std::move(written).at_bit(outer.bits_written());
    }
    const std::vector<std::uint8_t>& bytes = scratch.finish();
    R r(bytes.data(), bytes.size());
    if (!read(r).ok()) {
        return outer.error(ErrorKind::InvalidArgument);
    }
    return Status{};
}

/// Whether two containers (a `std::vector` or `std::array`) hold the same elements as sent,
/// element by element with `same`.
template <class C, class Same>
bool same_elements(const C& a, const C& b, Same&& same) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!same(a[i], b[i])) {
            return false;
        }
    }
    return true;
}

/// `same_elements` of two custom collections (the design source's four members).
template <class C, class Same>
bool same_collections(const C& a, const C& b, Same&& same) {
    std::size_t n = a.idl_serialize_collection_get_size();
    if (n != b.idl_serialize_collection_get_size()) {
        return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!same(a.idl_serialize_collection_get_item(i), b.idl_serialize_collection_get_item(i))) {
            return false;
        }
    }
    return true;
}

/// Whether two OPTIONALs (`std::optional` or `std::unique_ptr`) are both absent, or both
/// present and the same as sent with `same`.
template <class P, class Same>
bool same_present(const P& a, const P& b, Same&& same) {
    if (!a || !b) {
        return !a && !b;
    }
    return same(*a, *b);
}

/// A custom collection's elements, in order.
template <class T, class C>
std::vector<T> collection_elements(const C& collection) {
    std::vector<T> out;
    std::size_t n = collection.idl_serialize_collection_get_size();
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        out.push_back(collection.idl_serialize_collection_get_item(i));
    }
    return out;
}

/// A custom collection made of `elements`.
template <class C, class T>
C collection_of(const std::vector<T>& elements) {
    C out{};
    out.idl_deserialize_collection_reserve_size(elements.size());
    for (const T& element : elements) {
        out.idl_deserialize_collection_add_item(element);
    }
    return out;
}

/// Writes a DELTA SEQUENCE (Rust's `write_delta_sequence_into`): its changed-bit; when an
/// element differs from the baseline's at its index (`same(element, base, index, unchanged)`, a
/// `Status`), one is added, or one is removed: the count (`write_count(w, n)`), the number of
/// listed elements, their index gaps, then each listed element (`write_item(w, element, base,
/// index, slot)`, `base` null past the baseline's end), which sets the receiver's element in
/// `slot`. `mirror` becomes what the receiver holds. An error of `same` is at the bit where the
/// sequence begins.
template <class W, class T, class WriteCount, class Same, class WriteItem>
Status write_delta_sequence(W& w, const std::vector<T>& baseline, const std::vector<T>& current,
                            std::vector<T>& mirror, WriteCount&& write_count, Same&& same,
                            WriteItem&& write_item) {
    const std::uint64_t start = w.bits_written();
    std::vector<std::uint64_t> listed;
    for (std::size_t i = 0; i < current.size(); ++i) {
        bool unchanged = false;
        if (i < baseline.size()) {
            Status s = same(current[i], baseline[i], unchanged);
            if (!s.ok()) {
                return std::move(s).at_bit(start).at_index(i);
            }
        }
        if (!unchanged) {
            listed.push_back(i);
        }
    }
    if (listed.empty() && baseline.size() <= current.size()) {
        IDLC_TRY(w.write_bool(false));
        mirror = baseline;
        return Status{};
    }
    IDLC_TRY(w.write_bool(true));
    IDLC_TRY(write_count(w, static_cast<std::uint64_t>(current.size())));
    IDLC_TRY(w.write_bits(listed.size(), bits_required(0, current.size())));
    std::uint64_t next = 0;
    for (std::uint64_t index : listed) {
        IDLC_TRY(write_index_gap(w, index - next));
        next = index + 1;
    }
    mirror.resize(current.size());
    std::size_t at = 0;
    for (std::size_t i = 0; i < current.size(); ++i) {
        const T* base = i < baseline.size() ? &baseline[i] : nullptr;
        if (at < listed.size() && listed[at] == i) {
            ++at;
            IDLC_TRY(write_item(w, current[i], base, i, mirror[i]));
        } else if (base != nullptr) {
            mirror[i] = *base;
        }
    }
    return Status{};
}

/// Reads what `write_delta_sequence` wrote (Rust's `read_delta_sequence_into`) into `state`:
/// `read_count(r, n)` reads the count, `read_item(r, base, index, slot)` a listed element that
/// has a baseline element, `read_new(r, index, slot)` one past the baseline's end. Each listed
/// element needs `min_element_bits` and its gap's bit: a count or list the input cannot hold is
/// LengthOverBound, an index past the count or a new element not listed ValueOutOfRange.
template <class R, class T, class ReadCount, class ReadItem, class ReadNew>
Status read_delta_sequence(R& r, const std::vector<T>& baseline, std::vector<T>& state,
                           ReadCount&& read_count, std::uint64_t min_element_bits,
                           ReadItem&& read_item, ReadNew&& read_new) {
    bool changed = false;
    IDLC_TRY(r.read_bool(changed));
    if (!changed) {
        state = baseline;
        return Status{};
    }
    const std::uint64_t start = r.bits_read();
    std::uint64_t count = 0;
    IDLC_TRY(read_count(r, count));
    std::uint64_t listed_count = 0;
    IDLC_TRY(read_uint_ranged(r, 0, count, listed_count));
    const std::uint64_t base_len = baseline.size();
    const std::uint64_t new_elements = count > base_len ? count - base_len : 0;
    const std::uint64_t per = min_element_bits == ~std::uint64_t{0} ? min_element_bits
                                                                    : min_element_bits + 1;
    const bool fits = listed_count <= r.bits_remaining() / per;
    if (!fits || new_elements > listed_count) {
        return Status::error(ErrorKind::LengthOverBound, start);
    }
    std::vector<std::uint64_t> listed;
    listed.reserve(static_cast<std::size_t>(listed_count));
    std::uint64_t next = 0;
    std::uint64_t listed_new = 0;
    for (std::uint64_t k = 0; k < listed_count; ++k) {
        const std::uint64_t at = r.bits_read();
        std::uint64_t gap = 0;
        IDLC_TRY(read_index_gap(r, gap));
        if (gap > ~std::uint64_t{0} - next || next + gap >= count) {
            return Status::error(ErrorKind::ValueOutOfRange, at);
        }
        const std::uint64_t index = next + gap;
        if (index >= base_len) {
            ++listed_new;
        }
        listed.push_back(index);
        next = index + 1;
    }
    if (listed_new != new_elements) {
        return Status::error(ErrorKind::ValueOutOfRange, start);
    }
    const std::size_t n = static_cast<std::size_t>(count);
    std::vector<T> out(n);
    std::size_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const bool is_listed = at < listed.size() && listed[at] == i;
        if (is_listed) {
            ++at;
        }
        if (i >= baseline.size()) {
            IDLC_TRY(read_new(r, i, out[i]));
        } else if (is_listed) {
            IDLC_TRY(read_item(r, baseline[i], i, out[i]));
        } else {
            out[i] = baseline[i];
        }
    }
    state = std::move(out);
    return Status{};
}

} // namespace idlc

#endif // IDLC_REPLICATION_HPP

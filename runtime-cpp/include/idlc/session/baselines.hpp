// idlc C++ runtime: the snapshot states a session side keeps, by the sequence of the packet
// that carried them: the sender's mirrors (what the peer holds once it has a packet) and the
// receiver's states. Mirrors runtime/src/session/baselines.rs.
#ifndef IDLC_SESSION_BASELINES_HPP
#define IDLC_SESSION_BASELINES_HPP

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

#include "header.hpp"

namespace idlc {

/// A kept snapshot state.
template <class T>
struct Kept {
    /// The sequence of the packet that carried it.
    Sequence sequence = 0;
    /// Its message id.
    std::uint32_t id = 0;
    /// The tick of the state (the sender's count; the receiver keeps its own sum of deltas).
    std::uint32_t tick = 0;
    /// Whether the peer acknowledged the packet (the sender's side).
    bool acked = false;
    /// The state.
    T value;
};

/// At most `cap` kept states, the oldest dropped first.
template <class T>
class Baselines {
public:
    /// A ring of at most `cap` states (at least 1, at most 16384: sequences must not wrap
    /// within it).
    explicit Baselines(std::size_t cap) : cap_(cap < 1 ? 1 : cap > 16384 ? 16384 : cap) {}

    /// Keeps a state; drops the oldest when the ring is full.
    void insert(Kept<T> kept) {
        if (kept_.size() == cap_) {
            kept_.pop_front();
        }
        kept_.push_back(std::move(kept));
    }

    /// The state of message `id` carried by the packet `sequence`; null when not kept.
    const Kept<T>* get(Sequence sequence, std::uint32_t id) const noexcept {
        for (auto k = kept_.rbegin(); k != kept_.rend(); ++k) {
            if (k->sequence == sequence && k->id == id) {
                return &*k;
            }
        }
        return nullptr;
    }

    /// Marks the states carried by the packet `sequence` as acknowledged.
    void acknowledge(Sequence sequence) noexcept {
        for (Kept<T>& k : kept_) {
            if (k.sequence == sequence) {
                k.acked = true;
            }
        }
    }

    /// The newest acknowledged state of message `id`, the baseline of its next delta; null
    /// when there is none.
    const Kept<T>* newest_acked(std::uint32_t id) const noexcept {
        for (auto k = kept_.rbegin(); k != kept_.rend(); ++k) {
            if (k->id == id && k->acked) {
                return &*k;
            }
        }
        return nullptr;
    }

    /// States kept.
    std::size_t size() const noexcept { return kept_.size(); }

private:
    std::size_t cap_;
    std::deque<Kept<T>> kept_;
};

} // namespace idlc

#endif // IDLC_SESSION_BASELINES_HPP

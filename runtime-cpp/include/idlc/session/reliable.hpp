// idlc C++ runtime: reliable session items: the sender's outbox (resent until a packet carrying
// them is acknowledged) and the receiver's in-order buffer of reliable messages. Mirrors
// runtime/src/session/reliable.rs.
#ifndef IDLC_SESSION_RELIABLE_HPP
#define IDLC_SESSION_RELIABLE_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "error.hpp"
#include "header.hpp"

namespace idlc {

/// An item of the outbox, with the packet that carried it last.
template <class T>
struct Queued {
    /// The item.
    T item;
    /// The sequence of the last packet that carried it; none before its first send.
    std::optional<Sequence> last_sent;
};

/// The reliable items not yet acknowledged, oldest first, by key.
template <class T>
class Outbox {
public:
    /// Queues an item; returns its key.
    std::uint64_t push(T item) {
        std::uint64_t key = next_key_++;
        queued_.emplace(key, Queued<T>{std::move(item), std::nullopt});
        return key;
    }

    /// Drops the item of `key` (its packet was acknowledged).
    void remove(std::uint64_t key) { queued_.erase(key); }

    /// The keys of the items for which `due(const Queued<T>&)` says yes, oldest first.
    template <class F>
    std::vector<std::uint64_t> due(F&& is_due) const {
        std::vector<std::uint64_t> keys;
        for (const auto& entry : queued_) {
            if (is_due(entry.second)) {
                keys.push_back(entry.first);
            }
        }
        return keys;
    }

    /// The item of `key`; null when there is none.
    const Queued<T>* get(std::uint64_t key) const {
        auto found = queued_.find(key);
        return found == queued_.end() ? nullptr : &found->second;
    }

    /// Records that the packet `sequence` carried the item of `key`.
    void sent(std::uint64_t key, Sequence sequence) {
        auto found = queued_.find(key);
        if (found != queued_.end()) {
            found->second.last_sent = sequence;
        }
    }

    /// How many queued items `what(const T&)` counts.
    template <class F>
    std::size_t count(F&& what) const {
        std::size_t n = 0;
        for (const auto& entry : queued_) {
            n += what(entry.second.item) ? 1 : 0;
        }
        return n;
    }

private:
    std::uint64_t next_key_ = 0;
    std::map<std::uint64_t, Queued<T>> queued_;
};

/// Reliable messages received, delivered in index order, each once. Holds those that came
/// before the ones they follow, at most `cap`.
template <class T>
class InOrder {
public:
    /// A buffer for a peer with at most `cap` reliable messages unacknowledged.
    explicit InOrder(std::size_t cap)
        : cap_(static_cast<std::uint16_t>(cap < 1 ? 1 : cap > 0x4000 ? 0x4000 : cap)) {}

    /// Whether the message of `index` is new (`is_new` true), delivered or waiting already
    /// (false), or beyond the peer's queue (ForgedIndex). Changes nothing.
    SessionStatus check(std::uint16_t index, bool& is_new) const {
        is_new = false;
        std::uint16_t ahead = static_cast<std::uint16_t>(index - next_);
        if (ahead >= 0x8000) {
            return SessionStatus{};
        }
        if (ahead >= cap_) {
            return SessionStatus::forged_index(index);
        }
        is_new = waiting_.find(ahead) == waiting_.end();
        return SessionStatus{};
    }

    /// Keeps the message of `index` (after `check` said it is new).
    void insert(std::uint16_t index, T message) {
        std::uint16_t ahead = static_cast<std::uint16_t>(index - next_);
        if (ahead < cap_) {
            waiting_.emplace(ahead, std::move(message));
        }
    }

    /// The next message in order, if it came.
    std::optional<T> pop() {
        auto first = waiting_.find(0);
        if (first == waiting_.end()) {
            return std::nullopt;
        }
        std::optional<T> message(std::move(first->second));
        waiting_.erase(first);
        next_ = static_cast<std::uint16_t>(next_ + 1);
        std::map<std::uint16_t, T> moved;
        for (auto& entry : waiting_) {
            moved.emplace(static_cast<std::uint16_t>(entry.first - 1), std::move(entry.second));
        }
        waiting_ = std::move(moved);
        return message;
    }

    /// Messages waiting for the ones before them.
    std::size_t size() const noexcept { return waiting_.size(); }

private:
    std::uint16_t cap_;
    std::uint16_t next_ = 0;
    std::map<std::uint16_t, T> waiting_;
};

} // namespace idlc

#endif // IDLC_SESSION_RELIABLE_HPP

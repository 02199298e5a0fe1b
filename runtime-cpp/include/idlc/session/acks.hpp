// idlc C++ runtime: which packets each side of a session received: the receiver's window of
// sequences (what its headers acknowledge) and the sender's log of the packets it sent (what an
// acknowledgement frees). Mirrors runtime/src/session/acks.rs.
#ifndef IDLC_SESSION_ACKS_HPP
#define IDLC_SESSION_ACKS_HPP

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "error.hpp"
#include "header.hpp"

namespace idlc {

/// The sequences received from the peer: the newest and a bit per each of the 32 before it.
class ReceivedLog {
public:
    /// Whether a packet of `sequence` may be read: Duplicate, or Stale for one older than the 32
    /// sequences before the newest. Records nothing.
    SessionStatus check(Sequence sequence) const {
        if (!newest_) {
            return SessionStatus{};
        }
        if (sequence == *newest_) {
            return SessionStatus::of_sequence(SessionErrorKind::Duplicate, sequence);
        }
        if (sequence_newer(sequence, *newest_)) {
            return SessionStatus{};
        }
        Sequence back = static_cast<Sequence>(*newest_ - sequence);
        if (back > 32) {
            return SessionStatus::of_sequence(SessionErrorKind::Stale, sequence);
        }
        if ((bits_ >> (back - 1) & 1u) != 0) {
            return SessionStatus::of_sequence(SessionErrorKind::Duplicate, sequence);
        }
        return SessionStatus{};
    }

    /// Records `sequence` as received (after `check` allowed it).
    void record(Sequence sequence) noexcept {
        if (!newest_) {
            newest_ = sequence;
            return;
        }
        if (sequence_newer(sequence, *newest_)) {
            std::uint32_t shift = static_cast<Sequence>(sequence - *newest_);
            std::uint32_t moved = shift >= 32 ? 0 : bits_ << shift;
            std::uint32_t old_newest = shift <= 32 ? 1u << (shift - 1) : 0;
            bits_ = moved | old_newest;
            newest_ = sequence;
        } else {
            std::uint32_t back = static_cast<Sequence>(*newest_ - sequence);
            if (back >= 1 && back <= 32) {
                bits_ |= 1u << (back - 1);
            }
        }
    }

    /// The header acknowledging what was received, for a packet of `sequence`.
    SessionHeader header(Sequence sequence) const noexcept {
        if (!newest_) {
            SessionHeader h = SessionHeader::first();
            h.sequence = sequence;
            return h;
        }
        return SessionHeader{sequence, *newest_, bits_};
    }

private:
    std::optional<Sequence> newest_;
    std::uint32_t bits_ = 0;
};

/// A packet this side sent: its sequence, whether the peer acknowledged it, and the keys of the
/// reliable items it carried.
struct SentPacket {
    /// The packet's sequence.
    Sequence sequence = 0;
    /// Whether the peer acknowledged it.
    bool acked = false;
    /// The reliable items it carried (`Outbox` keys).
    std::vector<std::uint64_t> items;
};

/// The packets sent lately, oldest first, at most `CAPACITY`; and how many were sent in all,
/// which tells a forged acknowledgement from one of an evicted packet.
class SentLog {
public:
    /// Packets remembered: an item whose packet left the log is resent.
    static constexpr std::size_t CAPACITY = 256;

    /// The sequence of the next packet.
    Sequence next_sequence() const noexcept { return static_cast<Sequence>(total_); }

    /// Records a packet sent with the next sequence, carrying the reliable items `items`.
    Sequence push(std::vector<std::uint64_t> items) {
        Sequence sequence = next_sequence();
        if (packets_.size() == CAPACITY) {
            packets_.pop_front();
        }
        packets_.push_back(SentPacket{sequence, false, std::move(items)});
        ++total_;
        return sequence;
    }

    /// Whether a packet of `sequence` was ever sent (by the count sent so far).
    bool was_sent(Sequence sequence) const noexcept {
        if (total_ == 0) {
            return false;
        }
        Sequence last = static_cast<Sequence>(next_sequence() - 1);
        if (sequence_newer(sequence, last)) {
            return false;
        }
        return static_cast<std::uint64_t>(static_cast<Sequence>(last - sequence)) < total_;
    }

    /// Checks that `header` acknowledges no sequence after the last this side sent (AckNotSent
    /// names the first). One before the first packet is let through: a peer that has received
    /// nothing acknowledges 65535 with no bits. Changes nothing.
    SessionStatus check(const SessionHeader& header) const {
        Sequence last = static_cast<Sequence>(next_sequence() - 1);
        Sequence forged = 0;
        bool found = header.any_acknowledged([&](Sequence s) {
            forged = s;
            return sequence_newer(s, last);
        });
        if (found) {
            return SessionStatus::of_sequence(SessionErrorKind::AckNotSent, forged);
        }
        return SessionStatus{};
    }

    /// Marks the packets `header` acknowledges; appends the reliable item keys they carried to
    /// `items` and the sequences newly acknowledged to `sequences`.
    void acknowledge(const SessionHeader& header, std::vector<std::uint64_t>& items,
                     std::vector<Sequence>& sequences) {
        (void)header.any_acknowledged([&](Sequence sequence) {
            SentPacket* packet = find_mut(sequence);
            if (packet != nullptr && !packet->acked) {
                packet->acked = true;
                items.insert(items.end(), packet->items.begin(), packet->items.end());
                packet->items.clear();
                sequences.push_back(sequence);
            }
            return false;
        });
    }

    /// The packet of `sequence`, while remembered; null otherwise.
    const SentPacket* find(Sequence sequence) const noexcept {
        std::optional<std::size_t> at = index_of(sequence);
        return at ? &packets_[*at] : nullptr;
    }

    /// Packets sent after the packet of `sequence` (0 for the last one).
    std::uint16_t sent_since(Sequence sequence) const noexcept {
        std::uint16_t after = static_cast<Sequence>(next_sequence() - sequence);
        return after == 0 ? 0 : static_cast<std::uint16_t>(after - 1);
    }

private:
    SentPacket* find_mut(Sequence sequence) noexcept {
        std::optional<std::size_t> at = index_of(sequence);
        return at ? &packets_[*at] : nullptr;
    }

    std::optional<std::size_t> index_of(Sequence sequence) const noexcept {
        if (packets_.empty()) {
            return std::nullopt;
        }
        std::size_t at = static_cast<Sequence>(sequence - packets_.front().sequence);
        if (at < packets_.size()) {
            return at;
        }
        return std::nullopt;
    }

    std::deque<SentPacket> packets_;
    std::uint64_t total_ = 0;
};

} // namespace idlc

#endif // IDLC_SESSION_ACKS_HPP

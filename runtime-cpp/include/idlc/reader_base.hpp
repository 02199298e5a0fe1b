// idlc C++ runtime: what BitReader and ByteReader share (runtime/src/wire.rs provided methods
// and the extension reads of bit.rs / byte.rs): the position, open extensions, fences and the
// nesting depth. Positions are in the stream's units: bits for a BITSTREAM, bytes for a
// BYTESTREAM; offsets in errors are always bits.
#ifndef IDLC_READER_BASE_HPP
#define IDLC_READER_BASE_HPP

#include <cstddef>
#include <cstdint>

#include "status.hpp"
#include "vlq.hpp"

namespace idlc {

/// How deeply structs that contain themselves may nest in one message (`enter`).
constexpr std::uint32_t MAX_DECODE_DEPTH = 128;

namespace detail {

/// The part of a reader that does not depend on its stream. `Derived` provides `read_bool`
/// and `read_vlq_width`; `Unit` is the bits per position (1 or 8).
template <class Derived, std::uint32_t Unit>
class ReaderBase {
public:
    /// Bits consumed so far.
    std::uint64_t bits_read() const noexcept { return pos_ * Unit; }

    /// Bits left to read (up to the end of the input or of the current extension).
    std::uint64_t bits_remaining() const noexcept { return (end_ - pos_) * Unit; }

    /// An error of `kind` at the current position.
    Status error(ErrorKind kind) const { return Status::error(kind, bits_read()); }

    /// Reads a fence's present bit: false (and nothing read) at the end of the input.
    Status read_fence_present(bool& out) {
        if (end_ == pos_) {
            out = false;
            return Status{};
        }
        return self().read_bool(out);
    }

    /// Reads an open extension: the present bit, then (when set) its VLQ(7) length (bits in a
    /// BITSTREAM, bytes in a BYTESTREAM) and its content with `f(Derived&) -> Status` on a
    /// reader that ends where the extension does; whatever `f` leaves unread is skipped.
    /// `present` tells whether there was one.
    template <class F>
    Status read_extension(bool& present, F&& f) {
        present = false;
        bool bit = false;
        IDLC_TRY(self().read_bool(bit));
        if (!bit) {
            return Status{};
        }
        std::uint64_t len = 0;
        IDLC_TRY(extension_length(len));
        Derived inner = self();
        inner.end_ = pos_ + len;
        IDLC_TRY(f(inner));
        pos_ += len;
        present = true;
        return Status{};
    }

    /// Starts reading an open extension in place: reads the present bit (a reader at its end
    /// finds none) and the length, and limits this reader to the extension. When `present`,
    /// call `leave_extension(outer_end)` after reading what is known of it.
    Status enter_extension(bool& present, std::uint64_t& outer_end) {
        present = false;
        bool bit = false;
        IDLC_TRY(read_fence_present(bit));
        if (!bit) {
            return Status{};
        }
        std::uint64_t len = 0;
        IDLC_TRY(extension_length(len));
        outer_end = end_;
        end_ = pos_ + len;
        present = true;
        return Status{};
    }

    /// Ends an extension begun by `enter_extension`: skips what is left of it.
    void leave_extension(std::uint64_t outer_end) noexcept {
        pos_ = end_;
        end_ = outer_end > end_ ? outer_end : end_;
    }

    /// Enters a nested struct decode: TooDeep beyond MAX_DECODE_DEPTH levels.
    Status enter() {
        if (depth_ >= MAX_DECODE_DEPTH) {
            return error(ErrorKind::TooDeep);
        }
        ++depth_;
        return Status{};
    }

    /// Leaves a nested struct decode begun by `enter`.
    void leave() noexcept { depth_ = depth_ == 0 ? 0 : depth_ - 1; }

protected:
    /// A reader of `size` bytes at `data` (null allowed when `size` is 0).
    ReaderBase(const std::uint8_t* data, std::size_t size) noexcept
        : data_(data), size_(data == nullptr ? 0 : size), pos_(0),
          end_(static_cast<std::uint64_t>(size_) * (8 / Unit)) {}

    /// The length of an open extension (after its present bit), checked against the input:
    /// UnexpectedEnd at the length's offset when it claims more than is left.
    Status extension_length(std::uint64_t& len) {
        std::uint64_t start = bits_read();
        IDLC_TRY(self().read_vlq_width(DEFAULT_VLQ_GROUP_BITS, 64, len));
        if (len > end_ - pos_) {
            return Status::error(ErrorKind::UnexpectedEnd, start);
        }
        return Status{};
    }

    Derived& self() noexcept { return static_cast<Derived&>(*this); }

    /// The input.
    const std::uint8_t* data_;
    /// Its length in bytes.
    std::size_t size_;
    /// The next position (in units). Invariant: `pos_ <= end_ <= size_ * 8 / Unit`.
    std::uint64_t pos_;
    /// Where this reader's input ends (in units).
    std::uint64_t end_;
    /// How many nested struct decodes are under way.
    std::uint32_t depth_ = 0;
};

} // namespace detail
} // namespace idlc

#endif // IDLC_READER_BASE_HPP

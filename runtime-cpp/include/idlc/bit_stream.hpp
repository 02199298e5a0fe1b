// idlc C++ runtime: BITSTREAM, BitWriter and BitReader (runtime/src/bit.rs).
//
// Bits are packed LSB-first into little-endian bytes: the first bit written is bit 0 of byte 0.
// The writer collects bits in a 64-bit scratch word and appends it 8 bytes at a time; the reader
// loads up to 8 bytes at a time wherever it is, zero-extended at the end of the input.
#ifndef IDLC_BIT_STREAM_HPP
#define IDLC_BIT_STREAM_HPP

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "int.hpp"
#include "reader_base.hpp"
#include "status.hpp"
#include "vlq.hpp"

namespace idlc {

/// The 32-bit value a `CHECK` marker writes and the reader verifies.
constexpr std::uint32_t CHECK_VALUE = 0x1D1CC0DEu;

/// Writes a BITSTREAM. Reuse one writer across messages with `clear()`: it keeps its
/// allocation. Produces the same bytes as Rust's `BitWriter` for the same calls.
class BitWriter {
public:
    /// `true` for a BYTESTREAM; this is a BITSTREAM.
    static constexpr bool byte_stream = false;

    /// An empty writer.
    BitWriter() = default;

    /// An empty writer with room for `bytes` bytes.
    static BitWriter with_capacity(std::size_t bytes) {
        BitWriter w;
        w.buf_.reserve(bytes);
        return w;
    }

    /// Bytes the buffer holds without reallocating.
    std::size_t capacity() const noexcept { return buf_.capacity(); }

    /// Bits written so far.
    std::uint64_t bits_written() const noexcept {
        return static_cast<std::uint64_t>(buf_.size()) * 8 + used_;
    }

    /// An error of `kind` at the current position.
    Status error(ErrorKind kind) const { return Status::error(kind, bits_written()); }

    /// Pads the message with zero bits to a whole byte and returns everything written. Writing
    /// may go on afterwards (from the byte boundary).
    const std::vector<std::uint8_t>& finish() {
        pad_and_flush();
        return buf_;
    }

    /// `finish()`, then hands over the buffer (the writer is left empty).
    std::vector<std::uint8_t> into_bytes() {
        pad_and_flush();
        std::vector<std::uint8_t> out = std::move(buf_);
        clear();
        return out;
    }

    /// Empties the writer for reuse, keeping its allocation.
    void clear() noexcept {
        buf_.clear();
        scratch_ = 0;
        used_ = 0;
    }

    /// Forgets everything written after the first `bits` bits (nothing when fewer were written).
    void truncate(std::uint64_t bits) {
        if (bits >= bits_written()) {
            return;
        }
        std::uint64_t whole = static_cast<std::uint64_t>(buf_.size()) * 8;
        if (bits >= whole) {
            used_ = static_cast<std::uint32_t>(bits - whole);
            scratch_ &= mask(used_);
            return;
        }
        std::size_t byte = static_cast<std::size_t>(bits / 8);
        used_ = static_cast<std::uint32_t>(bits % 8);
        scratch_ = static_cast<std::uint64_t>(buf_[byte]) & mask(used_);
        buf_.resize(byte);
    }

    /// Writes the low `bits` bits of `value` (`bits` in 0..=64). Bits set above `bits` are
    /// ValueOutOfRange; `bits > 64` is InvalidArgument.
    Status write_bits(std::uint64_t value, std::uint32_t bits) {
        if (bits > 64) {
            return error(ErrorKind::InvalidArgument);
        }
        if ((value & ~mask(bits)) != 0) {
            return error(ErrorKind::ValueOutOfRange);
        }
        put(value, bits);
        return Status{};
    }

    /// Writes a BOOL: 1 bit.
    Status write_bool(bool value) {
        put(value ? 1 : 0, 1);
        return Status{};
    }

    /// Writes `value` as `VLQ(group_bits)` (`group_bits` in 1..=32, else InvalidArgument).
    Status write_vlq(std::uint64_t value, std::uint32_t group_bits) {
        if (!valid_vlq_group_bits(group_bits)) {
            return error(ErrorKind::InvalidArgument);
        }
        std::uint32_t n = group_bits;
        std::uint64_t rest = value;
        for (;;) {
            std::uint64_t payload = rest & mask(n);
            rest = n >= 64 ? 0 : rest >> n;
            bool more = rest != 0;
            put(payload | (static_cast<std::uint64_t>(more ? 1 : 0) << n), n + 1);
            if (!more) {
                return Status{};
            }
        }
    }

    /// ALIGN: zero bits up to the next byte boundary.
    Status align() {
        used_ = (used_ + 7) / 8 * 8;
        if (used_ == 64) {
            append_word(scratch_);
            scratch_ = 0;
            used_ = 0;
        }
        return Status{};
    }

    /// Aligns, then copies `size` bytes in bulk (no length is written).
    Status write_raw_bytes(const std::uint8_t* data, std::size_t size) {
        pad_and_flush();
        if (size > 0) {
            buf_.insert(buf_.end(), data, data + size);
        }
        return Status{};
    }

    /// Writes an open extension: a present bit 1, the extension's length in bits as VLQ(7),
    /// then what `f(BitWriter&) -> Status` writes. On failure nothing is written and the error's
    /// offset is where it would have been in this stream.
    template <class F>
    Status write_extension(F&& f) {
        std::uint32_t phase = static_cast<std::uint32_t>((bits_written() + 1) % 8);
        BitWriter ext;
        ext.used_ = phase;
        std::uint64_t at = bits_written() + 1;
        Status s = f(ext);
        if (!s.ok()) {
            std::uint64_t off = s.bit_offset >= phase ? s.bit_offset - phase : 0;
            s.bit_offset = off > ~std::uint64_t{0} - at ? ~std::uint64_t{0} : off + at;
            return s;
        }
        put(1, 1);
        IDLC_TRY(write_vlq(ext.bits_written() - phase, DEFAULT_VLQ_GROUP_BITS));
        append_phased(ext, phase);
        return Status{};
    }

private:
    /// Appends `bits` bits of `value` (`bits <= 64`, no bit of `value` at or above `bits` set).
    void put(std::uint64_t value, std::uint32_t bits) {
        scratch_ |= value << used_; // used_ < 64
        std::uint32_t total = used_ + bits;
        if (total >= 64) {
            append_word(scratch_);
            // The bits of `value` that did not fit; none when used_ == 0.
            scratch_ = used_ == 0 ? 0 : value >> (64 - used_);
            used_ = total - 64;
        } else {
            used_ = total;
        }
    }

    /// Appends the 8 bytes of `word`, little-endian.
    void append_word(std::uint64_t word) {
        std::uint8_t bytes[8];
        for (int i = 0; i < 8; ++i) {
            bytes[i] = static_cast<std::uint8_t>(word >> (8 * i));
        }
        buf_.insert(buf_.end(), bytes, bytes + 8);
    }

    /// Moves the whole bytes of the scratch word into the buffer.
    void flush_bytes() {
        std::uint32_t n = used_ / 8; // <= 7
        for (std::uint32_t i = 0; i < n; ++i) {
            buf_.push_back(static_cast<std::uint8_t>(scratch_ >> (8 * i)));
        }
        scratch_ = n == 0 ? scratch_ : scratch_ >> (n * 8);
        used_ -= n * 8;
    }

    /// Pads with zero bits to a byte boundary and moves all pending bits to the buffer.
    void pad_and_flush() {
        used_ = (used_ + 7) / 8 * 8;
        if (used_ == 64) {
            append_word(scratch_);
            scratch_ = 0;
            used_ = 0;
        } else {
            flush_bytes();
        }
    }

    /// Appends the bits of `other` after its first `phase` bits (zero placeholders: `other`
    /// started at the bit phase this writer has now, so ALIGN inside it padded alike).
    void append_phased(const BitWriter& other, std::uint32_t phase) {
        flush_bytes();
        (void)phase; // now used_ == phase: the placeholders sit over the pending bits
        if (!other.buf_.empty()) {
            scratch_ |= other.buf_[0];
            used_ = 8;
            flush_bytes();
            buf_.insert(buf_.end(), other.buf_.begin() + 1, other.buf_.end());
            put(other.scratch_, other.used_);
        } else {
            scratch_ |= other.scratch_;
            used_ = other.used_;
        }
    }

    std::vector<std::uint8_t> buf_;
    std::uint64_t scratch_ = 0;
    std::uint32_t used_ = 0;
};

/// Reads a BITSTREAM from `size` bytes at `data` (not owned: they must outlive the reader).
/// Every read is bounds-checked; failures give Rust's `DecodeError` kind and bit offset.
class BitReader : public detail::ReaderBase<BitReader, 1> {
public:
    /// `true` for a BYTESTREAM; this is a BITSTREAM.
    static constexpr bool byte_stream = false;

    /// A reader at the first bit of `data` (`data` may be null when `size` is 0).
    BitReader(const std::uint8_t* data, std::size_t size) noexcept : ReaderBase(data, size) {}

    /// A reader of a whole vector.
    explicit BitReader(const std::vector<std::uint8_t>& bytes) noexcept
        : BitReader(bytes.data(), bytes.size()) {}

    /// Reads `bits` bits (0..=64) into `out`.
    Status read_bits(std::uint32_t bits, std::uint64_t& out) {
        if (bits > 64) {
            return error(ErrorKind::InvalidArgument);
        }
        if (bits > bits_remaining()) {
            return error(ErrorKind::UnexpectedEnd);
        }
        out = take(bits);
        return Status{};
    }

    /// The next `min(bits, 56)` bits without consuming them, zero beyond the end.
    std::uint64_t peek_bits(std::uint32_t bits) const noexcept {
        std::uint32_t b = bits < 56 ? bits : 56;
        std::uint64_t avail = bits_remaining() < b ? bits_remaining() : b;
        return peek_at(pos_) & mask(static_cast<std::uint32_t>(avail));
    }

    /// Reads a BOOL (1 bit).
    Status read_bool(bool& out) {
        if (pos_ >= end_) {
            return error(ErrorKind::UnexpectedEnd);
        }
        out = ((data_[pos_ >> 3] >> (pos_ & 7)) & 1) != 0;
        ++pos_;
        return Status{};
    }

    /// Reads `count` (<= 64) BOOLs as the low bits of a word, the first in bit 0.
    Status read_bool_bits(std::uint32_t count, std::uint64_t& out) { return read_bits(count, out); }

    /// Reads a `VLQ(group_bits)` of a type of `type_bits` bits (1..=64).
    Status read_vlq_width(std::uint32_t group_bits, std::uint32_t type_bits, std::uint64_t& out) {
        std::uint64_t start = pos_;
        IDLC_TRY(detail::check_vlq_args(group_bits, type_bits, start));
        std::uint32_t group_len = group_bits + 1;
        return detail::decode_vlq(
            group_bits, type_bits, start,
            [&](std::uint64_t& payload, bool& more) {
                if (group_len > bits_remaining()) {
                    return Status::error(ErrorKind::UnexpectedEnd, start);
                }
                std::uint64_t group = take(group_len);
                payload = group & mask(group_bits);
                more = (group >> group_bits) != 0;
                return Status{};
            },
            out);
    }

    /// ALIGN: skips to the next byte boundary; the padding must be zero.
    Status align() { return skip_padding(false); }

    /// Aligns, then borrows the next `len` bytes (`out` points into the input).
    Status read_raw_bytes(std::uint64_t len, const std::uint8_t*& out) {
        IDLC_TRY(skip_padding(false));
        if (len > bits_remaining() / 8) {
            return error(ErrorKind::UnexpectedEnd);
        }
        out = data_ == nullptr ? nullptr : data_ + (pos_ >> 3);
        pos_ += len * 8;
        return Status{};
    }

    /// Skips `bits` bits.
    Status skip_bits(std::uint64_t bits) {
        if (bits > bits_remaining()) {
            return error(ErrorKind::UnexpectedEnd);
        }
        pos_ += bits;
        return Status{};
    }

    /// Ends a message: the padding to the next byte boundary (or the input's end) must be zero.
    Status finish() { return skip_padding(true); }

    /// `finish()`, then requires the input to be exhausted (TrailingBytes otherwise).
    Status expect_end() {
        IDLC_TRY(finish());
        if (bits_remaining() != 0) {
            return error(ErrorKind::TrailingBytes);
        }
        return Status{};
    }

private:
    /// Up to 8 bytes from `byte` on, little-endian, zero beyond the input.
    std::uint64_t word_at(std::uint64_t byte) const noexcept {
        std::uint64_t word = 0;
        if (byte >= size_) {
            return 0;
        }
        std::uint64_t left = size_ - byte;
        std::uint32_t n = left < 8 ? static_cast<std::uint32_t>(left) : 8;
        const std::uint8_t* p = data_ + byte;
        for (std::uint32_t i = 0; i < n; ++i) {
            word |= static_cast<std::uint64_t>(p[i]) << (8 * i);
        }
        return word;
    }

    /// At least 57 bits from bit `pos` on (zero beyond the input).
    std::uint64_t peek_at(std::uint64_t pos) const noexcept {
        return word_at(pos >> 3) >> (pos & 7);
    }

    /// Consumes `bits` (<= 64, checked by the caller against bits_remaining) bits.
    std::uint64_t take(std::uint32_t bits) noexcept {
        if (bits <= 56) {
            std::uint64_t value = peek_at(pos_) & mask(bits);
            pos_ += bits;
            return value;
        }
        std::uint64_t low = peek_at(pos_) & mask(32);
        pos_ += 32;
        std::uint64_t high = peek_at(pos_) & mask(bits - 32);
        pos_ += bits - 32;
        return low | (high << 32);
    }

    /// Skips the zero padding to the next byte boundary (to the end when `limit_to_end`).
    Status skip_padding(bool limit_to_end) {
        std::uint32_t pad = static_cast<std::uint32_t>((8 - (pos_ & 7)) & 7);
        if (pad > bits_remaining()) {
            if (limit_to_end) {
                pad = static_cast<std::uint32_t>(bits_remaining());
            } else {
                return error(ErrorKind::UnexpectedEnd);
            }
        }
        std::uint64_t at = pos_;
        if (take(pad) != 0) {
            return Status::error(ErrorKind::BadPadding, at);
        }
        return Status{};
    }
};

} // namespace idlc

#endif // IDLC_BIT_STREAM_HPP

// idlc C++ runtime: BYTESTREAM, ByteWriter and ByteReader (runtime/src/byte.rs).
//
// Every field is rounded up to whole bytes: an integer of `bits` bits takes the smallest of 1,
// 2, 4, 8 bytes (little-endian), a BOOL one byte (0 or 1), a VLQ is LEB128, ALIGN is a no-op.
// Offsets are still counted in bits (8 per byte), as in Rust.
#ifndef IDLC_BYTE_STREAM_HPP
#define IDLC_BYTE_STREAM_HPP

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "int.hpp"
#include "reader_base.hpp"
#include "status.hpp"
#include "vlq.hpp"

namespace idlc {

/// Writes a BYTESTREAM. Produces the same bytes as Rust's `ByteWriter` for the same calls.
class ByteWriter {
public:
    /// `true`: this is a BYTESTREAM.
    static constexpr bool byte_stream = true;

    /// An empty writer.
    ByteWriter() = default;

    /// An empty writer with room for `bytes` bytes.
    static ByteWriter with_capacity(std::size_t bytes) {
        ByteWriter w;
        w.buf_.reserve(bytes);
        return w;
    }

    /// Bytes the buffer holds without reallocating.
    std::size_t capacity() const noexcept { return buf_.capacity(); }

    /// Bits written so far, 8 per byte.
    std::uint64_t bits_written() const noexcept {
        return static_cast<std::uint64_t>(buf_.size()) * 8;
    }

    /// An error of `kind` at the current position.
    Status error(ErrorKind kind) const { return Status::error(kind, bits_written()); }

    /// Everything written (a byte stream needs no padding).
    const std::vector<std::uint8_t>& finish() const noexcept { return buf_; }

    /// Hands over the buffer (the writer is left empty).
    std::vector<std::uint8_t> into_bytes() {
        std::vector<std::uint8_t> out = std::move(buf_);
        buf_.clear();
        return out;
    }

    /// Empties the writer for reuse, keeping its allocation.
    void clear() noexcept { buf_.clear(); }

    /// Forgets everything after the first `bits` bits, rounded up to a whole byte.
    void truncate(std::uint64_t bits) {
        std::uint64_t bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
        if (bytes < buf_.size()) {
            buf_.resize(static_cast<std::size_t>(bytes));
        }
    }

    /// Writes the low `bits` bits of `value` in `byte_width(bits)` bytes.
    Status write_bits(std::uint64_t value, std::uint32_t bits) {
        if (bits > 64) {
            return error(ErrorKind::InvalidArgument);
        }
        if ((value & ~mask(bits)) != 0) {
            return error(ErrorKind::ValueOutOfRange);
        }
        std::size_t n = byte_width(bits);
        for (std::size_t i = 0; i < n; ++i) {
            buf_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
        }
        return Status{};
    }

    /// Writes a BOOL: one byte, 0 or 1.
    Status write_bool(bool value) {
        buf_.push_back(value ? 1 : 0);
        return Status{};
    }

    /// Writes `value` as LEB128 (`group_bits` must still be valid, 1..=32).
    Status write_vlq(std::uint64_t value, std::uint32_t group_bits) {
        if (!valid_vlq_group_bits(group_bits)) {
            return error(ErrorKind::InvalidArgument);
        }
        put_leb128(value);
        return Status{};
    }

    /// ALIGN: nothing in a byte stream.
    Status align() { return Status{}; }

    /// Copies `size` bytes (no length is written).
    Status write_raw_bytes(const std::uint8_t* data, std::size_t size) {
        if (size > 0) {
            buf_.insert(buf_.end(), data, data + size);
        }
        return Status{};
    }

    /// Writes an open extension: a byte 1, the extension's length in bytes as LEB128, then what
    /// `f(ByteWriter&) -> Status` writes. On failure nothing is written.
    template <class F>
    Status write_extension(F&& f) {
        ByteWriter ext;
        std::uint64_t at = bits_written();
        Status s = f(ext);
        if (!s.ok()) {
            s.bit_offset =
                s.bit_offset > ~std::uint64_t{0} - at ? ~std::uint64_t{0} : s.bit_offset + at;
            return s;
        }
        buf_.push_back(1);
        put_leb128(ext.buf_.size());
        buf_.insert(buf_.end(), ext.buf_.begin(), ext.buf_.end());
        return Status{};
    }

private:
    void put_leb128(std::uint64_t value) {
        std::uint64_t rest = value;
        for (;;) {
            std::uint8_t byte = static_cast<std::uint8_t>(rest & 0x7f);
            rest >>= 7;
            if (rest == 0) {
                buf_.push_back(byte);
                return;
            }
            buf_.push_back(static_cast<std::uint8_t>(byte | 0x80));
        }
    }

    std::vector<std::uint8_t> buf_;
};

/// Reads a BYTESTREAM from `size` bytes at `data` (not owned), bounds-checking every read.
class ByteReader : public detail::ReaderBase<ByteReader, 8> {
public:
    /// `true`: this is a BYTESTREAM.
    static constexpr bool byte_stream = true;

    /// A reader at the first byte of `data` (`data` may be null when `size` is 0).
    ByteReader(const std::uint8_t* data, std::size_t size) noexcept : ReaderBase(data, size) {}

    /// A reader of a whole vector.
    explicit ByteReader(const std::vector<std::uint8_t>& bytes) noexcept
        : ByteReader(bytes.data(), bytes.size()) {}

    /// Reads an integer of `bits` bits (`byte_width(bits)` bytes); bits set above `bits` are
    /// ValueOutOfRange.
    Status read_bits(std::uint32_t bits, std::uint64_t& out) {
        if (bits > 64) {
            return error(ErrorKind::InvalidArgument);
        }
        std::uint64_t start = bits_read();
        std::size_t n = byte_width(bits);
        if (n > end_ - pos_) {
            return error(ErrorKind::UnexpectedEnd);
        }
        std::uint64_t value = 0;
        for (std::size_t i = 0; i < n; ++i) {
            value |= static_cast<std::uint64_t>(data_[pos_ + i]) << (8 * i);
        }
        pos_ += n;
        if ((value & ~mask(bits)) != 0) {
            return Status::error(ErrorKind::ValueOutOfRange, start);
        }
        out = value;
        return Status{};
    }

    /// The next `min(bits, 56)` bits (up to 7 bytes) without consuming them, zero beyond the end.
    std::uint64_t peek_bits(std::uint32_t bits) const noexcept {
        std::uint64_t word = 0;
        std::uint64_t left = end_ - pos_;
        std::size_t n = left < 8 ? static_cast<std::size_t>(left) : 8;
        for (std::size_t i = 0; i < n; ++i) {
            word |= static_cast<std::uint64_t>(data_[pos_ + i]) << (8 * i);
        }
        return word & mask(bits < 56 ? bits : 56);
    }

    /// Reads a BOOL: a byte 0 or 1 (anything else is ValueOutOfRange).
    Status read_bool(bool& out) {
        if (pos_ >= end_) {
            return error(ErrorKind::UnexpectedEnd);
        }
        std::uint8_t b = data_[pos_++];
        if (b > 1) {
            return Status::error(ErrorKind::ValueOutOfRange, bits_read() - 8);
        }
        out = b == 1;
        return Status{};
    }

    /// Reads `count` (<= 64) BOOLs as the low bits of a word, the first in bit 0.
    Status read_bool_bits(std::uint32_t count, std::uint64_t& out) {
        if (count > 64) {
            return error(ErrorKind::InvalidArgument);
        }
        std::uint64_t word = 0;
        for (std::uint32_t i = 0; i < count; ++i) {
            bool b = false;
            IDLC_TRY(read_bool(b));
            word |= static_cast<std::uint64_t>(b ? 1 : 0) << i;
        }
        out = word;
        return Status{};
    }

    /// Reads a LEB128 of a type of `type_bits` bits (`group_bits` must be valid).
    Status read_vlq_width(std::uint32_t group_bits, std::uint32_t type_bits, std::uint64_t& out) {
        std::uint64_t start = bits_read();
        IDLC_TRY(detail::check_vlq_args(group_bits, type_bits, start));
        return detail::decode_vlq(
            DEFAULT_VLQ_GROUP_BITS, type_bits, start,
            [&](std::uint64_t& payload, bool& more) {
                if (pos_ >= end_) {
                    return Status::error(ErrorKind::UnexpectedEnd, start);
                }
                std::uint8_t b = data_[pos_++];
                payload = b & 0x7f;
                more = (b & 0x80) != 0;
                return Status{};
            },
            out);
    }

    /// ALIGN: nothing in a byte stream.
    Status align() { return Status{}; }

    /// Borrows the next `len` bytes (`out` points into the input).
    Status read_raw_bytes(std::uint64_t len, const std::uint8_t*& out) {
        if (len > end_ - pos_) {
            return error(ErrorKind::UnexpectedEnd);
        }
        out = data_ == nullptr ? nullptr : data_ + pos_;
        pos_ += len;
        return Status{};
    }

    /// Skips `bits` bits, a whole number of bytes (else InvalidArgument).
    Status skip_bits(std::uint64_t bits) {
        if (bits % 8 != 0) {
            return error(ErrorKind::InvalidArgument);
        }
        const std::uint8_t* ignored = nullptr;
        return read_raw_bytes(bits / 8, ignored);
    }

    /// Ends a message (a byte stream has no padding to check).
    Status finish() { return Status{}; }

    /// Requires the input to be exhausted (TrailingBytes otherwise).
    Status expect_end() {
        if (bits_remaining() != 0) {
            return error(ErrorKind::TrailingBytes);
        }
        return Status{};
    }
};

} // namespace idlc

#endif // IDLC_BYTE_STREAM_HPP

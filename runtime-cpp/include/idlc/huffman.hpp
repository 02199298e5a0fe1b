// idlc C++ runtime: HUFFMAN enums (runtime/src/helpers.rs write_huffman / read_huffman).
// In a BITSTREAM the enumerator's prefix code; in a BYTESTREAM its index, as any enum.
#ifndef IDLC_HUFFMAN_HPP
#define IDLC_HUFFMAN_HPP

#include <cstddef>
#include <cstdint>

#include "int.hpp"
#include "status.hpp"
#include "wire.hpp"

namespace idlc {

/// One enumerator's prefix code: its low `len` bits, the first sent in bit 0.
struct HuffmanCode {
    /// The code's bits (LSB first).
    std::uint64_t code;
    /// The code's length in bits (0 for an enum of one enumerator).
    std::uint32_t len;
};

/// The enumerator of index `index` (one of `count` codes): its code in a BITSTREAM
/// (InvalidArgument for a code longer than 64 bits or with bits above its length), its index in
/// `bits_required(0, count - 1)` bits in a BYTESTREAM. BadEnumerator when there is no such code.
template <class W, class T>
Status write_huffman(W& w, T index, const HuffmanCode* codes, std::size_t count) {
    Int128 i(index);
    if (!i.fits_u64() || i.lo >= count) {
        return w.error(ErrorKind::BadEnumerator);
    }
    const HuffmanCode& c = codes[static_cast<std::size_t>(i.lo)];
    if (W::byte_stream) {
        return w.write_bits(i.lo, bits_required(0, count == 0 ? 0 : count - 1));
    }
    if (c.len > 64 || (c.code & ~mask(c.len)) != 0) {
        return w.error(ErrorKind::InvalidArgument);
    }
    return w.write_bits(c.code, c.len);
}

/// `write_huffman` with the codes as an array.
template <class W, class T, std::size_t N>
Status write_huffman(W& w, T index, const HuffmanCode (&codes)[N]) {
    return write_huffman(w, index, codes, N);
}

/// Reads an enumerator written by `write_huffman`: its index. BadEnumerator when no code
/// matches (UnexpectedEnd when the input ends before the longest code could).
template <class R>
Status read_huffman(R& r, const HuffmanCode* codes, std::size_t count, std::uint64_t& out) {
    std::uint64_t start = r.bits_read();
    if (R::byte_stream) {
        return read_enum(r, count, bits_required(0, count == 0 ? 0 : count - 1), out);
    }
    std::uint32_t longest = 0;
    for (std::size_t i = 0; i < count; ++i) {
        longest = codes[i].len > longest ? codes[i].len : longest;
    }
    longest = longest > 64 ? 64 : longest;
    if (longest <= 56) {
        // A prefix code: one look-ahead holds the longest code.
        std::uint64_t ahead = r.peek_bits(longest);
        std::uint64_t left = r.bits_remaining();
        for (std::size_t i = 0; i < count; ++i) {
            if (codes[i].len <= left && (ahead & mask(codes[i].len)) == codes[i].code) {
                IDLC_TRY(r.skip_bits(codes[i].len));
                out = i;
                return Status{};
            }
        }
        return Status::error(longest > left ? ErrorKind::UnexpectedEnd : ErrorKind::BadEnumerator,
                             start);
    }
    std::uint64_t acc = 0;
    for (std::uint32_t len = 0; len <= longest; ++len) {
        if (len > 0) {
            bool bit = false;
            IDLC_TRY(r.read_bool(bit));
            acc |= static_cast<std::uint64_t>(bit ? 1 : 0) << (len - 1);
        }
        for (std::size_t i = 0; i < count; ++i) {
            if (codes[i].len == len && codes[i].code == acc) {
                out = i;
                return Status{};
            }
        }
    }
    return Status::error(ErrorKind::BadEnumerator, start);
}

/// `read_huffman` with the codes as an array.
template <class R, std::size_t N>
Status read_huffman(R& r, const HuffmanCode (&codes)[N], std::uint64_t& out) {
    return read_huffman(r, codes, N, out);
}

} // namespace idlc

#endif // IDLC_HUFFMAN_HPP

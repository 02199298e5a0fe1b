// idlc C++ runtime: error kinds and the Status every wire operation returns.
// Mirrors runtime/src/error.rs (EncodeErrorKind, DecodeErrorKind, the field path text).
#ifndef IDLC_STATUS_HPP
#define IDLC_STATUS_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace idlc {

/// What went wrong: the variants of Rust's EncodeErrorKind and DecodeErrorKind in one enum
/// (ValueOutOfRange, BadEnumerator, LengthOverBound and InvalidArgument are in both), plus
/// `Ok` for a Status that holds no error.
enum class ErrorKind : std::uint8_t {
    /// No error.
    Ok = 0,
    /// The input ended (or an extension's declared length ended) before the value did.
    UnexpectedEnd,
    /// A value is outside the range its type allows (encode or decode).
    ValueOutOfRange,
    /// An enumerator index is not below the enum's count.
    BadEnumerator,
    /// A length or count is above its declared maximum or the bits left.
    LengthOverBound,
    /// A VLQ is longer than its type needs or not minimal.
    OverlongVlq,
    /// Padding bits (ALIGN, or the end of a message) are not zero.
    BadPadding,
    /// A STRING is not valid UTF-8.
    BadUtf8,
    /// A CHECK marker does not hold the expected value.
    CheckMismatch,
    /// The CRC32 of a framed packet does not match.
    CrcMismatch,
    /// Whole bytes are left after the end of the message where none were expected.
    TrailingBytes,
    /// The caller asked for something impossible (more than 64 bits, a bad VLQ group size, ...).
    InvalidArgument,
    /// Structs that contain themselves are nested too deeply.
    TooDeep,
    /// A NaN was given where a number in a range is required (encode only).
    NotANumber,
};

/// The enumerator's name as written in Rust (`"UnexpectedEnd"`), `"Ok"` for no error.
constexpr const char* error_kind_name(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::Ok: return "Ok";
    case ErrorKind::UnexpectedEnd: return "UnexpectedEnd";
    case ErrorKind::ValueOutOfRange: return "ValueOutOfRange";
    case ErrorKind::BadEnumerator: return "BadEnumerator";
    case ErrorKind::LengthOverBound: return "LengthOverBound";
    case ErrorKind::OverlongVlq: return "OverlongVlq";
    case ErrorKind::BadPadding: return "BadPadding";
    case ErrorKind::BadUtf8: return "BadUtf8";
    case ErrorKind::CheckMismatch: return "CheckMismatch";
    case ErrorKind::CrcMismatch: return "CrcMismatch";
    case ErrorKind::TrailingBytes: return "TrailingBytes";
    case ErrorKind::InvalidArgument: return "InvalidArgument";
    case ErrorKind::TooDeep: return "TooDeep";
    case ErrorKind::NotANumber: return "NotANumber";
    }
    return "Unknown";
}

/// The short description Rust's `as_str` gives (`"unexpected end of input"`).
constexpr const char* error_kind_text(ErrorKind kind) noexcept {
    switch (kind) {
    case ErrorKind::Ok: return "ok";
    case ErrorKind::UnexpectedEnd: return "unexpected end of input";
    case ErrorKind::ValueOutOfRange: return "value out of range";
    case ErrorKind::BadEnumerator: return "unknown enumerator";
    case ErrorKind::LengthOverBound: return "length over bound";
    case ErrorKind::OverlongVlq: return "over-long VLQ";
    case ErrorKind::BadPadding: return "non-zero padding";
    case ErrorKind::BadUtf8: return "invalid UTF-8";
    case ErrorKind::CheckMismatch: return "CHECK marker mismatch";
    case ErrorKind::CrcMismatch: return "CRC32 mismatch";
    case ErrorKind::TrailingBytes: return "trailing bytes after the message";
    case ErrorKind::InvalidArgument: return "invalid argument";
    case ErrorKind::TooDeep: return "structs nested too deeply";
    case ErrorKind::NotANumber: return "NaN";
    }
    return "unknown error";
}

/// The result of every fallible operation: `ok()`, or what went wrong (`kind`), where (the bit
/// offset, as Rust's EncodeError / DecodeError give it) and in which field (`field`, the same
/// path text as Rust's errors: `Player.buffs[3].kind`; empty when ok or not named yet).
///
/// Nothing is allocated unless an error is named (`in_field`, `at_index`).
struct [[nodiscard]] Status {
    /// What went wrong; ErrorKind::Ok when nothing did.
    ErrorKind kind = ErrorKind::Ok;
    /// Encode: bits written before the value that failed. Decode: where that value begins.
    std::uint64_t bit_offset = 0;
    /// The path of the field being encoded or decoded (IDL names); empty when unnamed.
    std::string field;

    /// Whether this is success.
    bool ok() const noexcept { return kind == ErrorKind::Ok; }

    /// A success.
    static Status success() noexcept { return Status{}; }

    /// An error of `kind` at `bit_offset`, with no field path.
    static Status error(ErrorKind kind, std::uint64_t bit_offset) {
        Status s;
        s.kind = kind;
        s.bit_offset = bit_offset;
        return s;
    }

    /// Names the field the error happened in, from the struct that holds it (`Struct.field`):
    /// replaces the first segment of the path so far and keeps the rest, as Rust's `in_field`.
    /// Does nothing on success.
    Status& in_field(std::string_view at) & {
        if (!ok()) {
            std::string out(at);
            if (!field.empty()) {
                out.append(field, root_len(field), std::string::npos);
            }
            field = std::move(out);
        }
        return *this;
    }

    /// `in_field` of a temporary: the Status itself, by value (a success is a new one, so that
    /// the success path of `IDLC_TRY(f().in_field(".."))` moves no string).
    Status in_field(std::string_view at) && {
        if (ok()) {
            return Status{};
        }
        return std::move(in_field(at));
    }

    /// Adds the index of the sequence or array element the error happened in (after the first
    /// segment of the path), as Rust's `at_index`. Does nothing on success.
    Status& at_index(std::size_t index) & {
        if (!ok()) {
            std::size_t root = root_len(field);
            std::string out = field.substr(0, root);
            out += '[';
            out += std::to_string(index);
            out += ']';
            out.append(field, root, std::string::npos);
            field = std::move(out);
        }
        return *this;
    }

    /// `at_index` of a temporary, by value (see `in_field`).
    Status at_index(std::size_t index) && {
        if (ok()) {
            return Status{};
        }
        return std::move(at_index(index));
    }

    /// Moves the error to `offset` (Rust's `at_bit`). Does nothing on success.
    Status& at_bit(std::uint64_t offset) & {
        if (!ok()) {
            bit_offset = offset;
        }
        return *this;
    }

    /// `at_bit` of a temporary, by value (see `in_field`).
    Status at_bit(std::uint64_t offset) && {
        if (ok()) {
            return Status{};
        }
        return std::move(at_bit(offset));
    }

    /// The text of Rust's Display: `value out of range at bit 3 in Player.hp` (`ok` on success).
    std::string to_string() const {
        if (ok()) {
            return "ok";
        }
        std::string out = error_kind_text(kind);
        out += " at bit ";
        out += std::to_string(bit_offset);
        if (!field.empty()) {
            out += " in ";
            out += field;
        }
        return out;
    }

private:
    /// Where the first segment of a path ends (the name of the struct whose codec began it).
    static std::size_t root_len(const std::string& path) noexcept {
        std::size_t at = path.find_first_of(".[ ");
        return at == std::string::npos ? path.size() : at;
    }
};

/// Returns from the enclosing function when `expr` (a Status) is an error.
#define IDLC_TRY(expr)                                                                             \
    do {                                                                                           \
        ::idlc::Status idlc_try_status_ = (expr);                                                  \
        if (!idlc_try_status_.ok()) {                                                              \
            return idlc_try_status_;                                                               \
        }                                                                                          \
    } while (false)

} // namespace idlc

#endif // IDLC_STATUS_HPP

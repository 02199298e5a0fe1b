// idlc C++ runtime: what generated code gives an `idlc::Endpoint` (runtime/src/session/
// traits.rs's twin). Per PROTOCOL, `<Protocol>Session<E>` (cppgen/protocol/session.rs) is a
// struct of static members: `Writer`, `Reader`, `Message` (a `std::variant` of its entries'
// structs), `Response` (a `std::variant` of its response structs, or `NoResponse`), `NAME`,
// `versions()`, `since(id)`, `id(m)`, `expects_response(m)`, `is_snapshot(m)`,
// `encode_body(m, w)`, `sent_state(m, state)`, `encode_delta_body(m, baseline, ctx, w, mirror)`,
// `decode_item(header, r, m, known)`, `decode_delta_body(baseline, ctx, r, state)`,
// `response_id(a)`, `encode_response(a, w)` and `decode_response(id, r, a, known)`.
#ifndef IDLC_SESSION_TRAITS_HPP
#define IDLC_SESSION_TRAITS_HPP

#include <utility>
#include <vector>

#include "../status.hpp"

namespace idlc {

/// The responses of a protocol without requests: none is ever made (Rust's `NoResponse`).
struct NoResponse {};

/// The value the receiver holds once `value` is sent with the codec `C` (`Codec<T, E>`): it
/// encoded and decoded again (Rust's `Codec::sent`). A value that does not decode back is
/// InvalidArgument.
template <class C, class T>
Status codec_sent(const T& value, T& out) {
    typename C::Writer w;
    IDLC_TRY(C::encode(value, w));
    const std::vector<std::uint8_t>& bytes = w.finish();
    typename C::Reader r(bytes.data(), bytes.size());
    T decoded;
    Status read = C::decode(decoded, r);
    if (!read.ok()) {
        return Status::error(ErrorKind::InvalidArgument, read.bit_offset);
    }
    out = std::move(decoded);
    return Status{};
}

} // namespace idlc

#endif // IDLC_SESSION_TRAITS_HPP

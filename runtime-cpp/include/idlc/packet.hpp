// idlc C++ runtime: the packet layer of protocols, mirroring runtime/src/framing.rs and
// runtime/src/packet.rs (WIRE.md "Packets"; docs/CPP.md "Protocols"). A packet is
// `crc32 || payload`, the CRC-32/ISO-HDLC of the 8 little-endian bytes of the protocol id and
// the payload; the payload is a run of items, each an open extension (a 1 bit, its length as a
// VLQ(7), the item), ended by a 0 bit or by the end of the data. An item is a header VLQ(7)
// (`id << 2 | tag`), the request id (VLQ(7)) of a request or response (or a session item's
// fields, WIRE.md "Session packets"), then the message.
#ifndef IDLC_PACKET_HPP
#define IDLC_PACKET_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "status.hpp"
#include "vlq.hpp"
#include "wire.hpp"

namespace idlc {

/// Bytes framing adds in front of a payload (the CRC).
constexpr std::size_t FRAME_HEADER_BYTES = 4;

namespace detail {

/// The table of CRC-32/ISO-HDLC (reflected polynomial 0xEDB88320), one entry per byte value.
constexpr std::array<std::uint32_t, 256> crc32_table() noexcept {
    std::array<std::uint32_t, 256> table{};
    for (std::uint32_t n = 0; n < 256; ++n) {
        std::uint32_t c = n;
        for (int k = 0; k < 8; ++k) {
            c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        }
        table[n] = c;
    }
    return table;
}

inline constexpr std::array<std::uint32_t, 256> CRC32_TABLE = crc32_table();

/// Feeds `size` bytes into a running CRC register (not yet inverted at the end).
inline std::uint32_t crc32_update(std::uint32_t reg, const std::uint8_t* data,
                                  std::size_t size) noexcept {
    for (std::size_t i = 0; i < size; ++i) {
        reg = CRC32_TABLE[(reg ^ data[i]) & 0xFFu] ^ (reg >> 8);
    }
    return reg;
}

} // namespace detail

/// CRC-32/ISO-HDLC (zlib's, Ethernet's) of `size` bytes: `crc32("123456789") == 0xCBF43926`.
inline std::uint32_t crc32(const std::uint8_t* data, std::size_t size) noexcept {
    return ~detail::crc32_update(0xFFFFFFFFu, data, size);
}

/// The CRC32 of a packet: over the 8 little-endian bytes of `protocol_id`, then the payload.
inline std::uint32_t packet_crc(std::uint64_t protocol_id, const std::uint8_t* payload,
                                std::size_t size) noexcept {
    std::uint8_t id[8];
    for (int i = 0; i < 8; ++i) {
        id[i] = static_cast<std::uint8_t>(protocol_id >> (8 * i));
    }
    std::uint32_t reg = detail::crc32_update(0xFFFFFFFFu, id, 8);
    return ~detail::crc32_update(reg, payload, size);
}

/// Appends the framed `payload` to `out`: its CRC32 (4 bytes, little-endian), then the payload.
inline void frame_into(std::uint64_t protocol_id, const std::uint8_t* payload, std::size_t size,
                       std::vector<std::uint8_t>& out) {
    std::uint32_t crc = packet_crc(protocol_id, payload, size);
    out.reserve(out.size() + FRAME_HEADER_BYTES + size);
    for (int i = 0; i < 4; ++i) {
        out.push_back(static_cast<std::uint8_t>(crc >> (8 * i)));
    }
    if (size > 0) {
        out.insert(out.end(), payload, payload + size);
    }
}

/// The framed `payload`.
inline std::vector<std::uint8_t> frame(std::uint64_t protocol_id, const std::uint8_t* payload,
                                       std::size_t size) {
    std::vector<std::uint8_t> out;
    frame_into(protocol_id, payload, size, out);
    return out;
}

/// Checks a framed packet and points `payload` / `payload_size` at its payload (inside
/// `packet`). Fewer than 4 bytes is UnexpectedEnd at the packet's end; a wrong CRC (corruption,
/// or another protocol id) is CrcMismatch at bit 0.
inline Status unframe(std::uint64_t protocol_id, const std::uint8_t* packet, std::size_t size,
                      const std::uint8_t*& payload, std::size_t& payload_size) {
    if (packet == nullptr || size < FRAME_HEADER_BYTES) {
        return Status::error(ErrorKind::UnexpectedEnd,
                             packet == nullptr ? 0 : static_cast<std::uint64_t>(size) * 8);
    }
    std::uint32_t crc = 0;
    for (std::size_t i = 0; i < FRAME_HEADER_BYTES; ++i) {
        crc |= static_cast<std::uint32_t>(packet[i]) << (8 * i);
    }
    const std::uint8_t* rest = packet + FRAME_HEADER_BYTES;
    std::size_t rest_size = size - FRAME_HEADER_BYTES;
    if (crc != packet_crc(protocol_id, rest, rest_size)) {
        return Status::error(ErrorKind::CrcMismatch, 0);
    }
    payload = rest;
    payload_size = rest_size;
    return Status{};
}

/// FNV-1a, 64 bits: the hash protocol ids are derived with from the normalized schema text.
constexpr std::uint64_t protocol_hash(const std::uint8_t* bytes, std::size_t size) noexcept {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < size; ++i) {
        hash ^= bytes[i];
        hash *= 0x00000100000001b3ull;
    }
    return hash;
}

/// The request id of an RPC call that expects a response; the response carries it back.
using RequestId = std::uint32_t;

/// What a packet item is: the low two bits of its header.
enum class ItemTag : std::uint8_t {
    /// A MESSAGE, or the call of an RPC without a response type.
    Message = 0,
    /// The call of an RPC `f(..) -> T`: a request id follows the header.
    Request = 1,
    /// The response to a request: the request id follows the header, then the `T`.
    Response = 2,
    /// In a session packet only (wire tag 3): a message sent reliably, with its `index` in the
    /// reliable stream (WIRE_FORMAT.md, "Session packets").
    Reliable = 3,
    /// In a session packet only (wire tag 3): a snapshot, in full (`age` 0) or as a delta
    /// against the snapshot of the same id `age` sequences before, `ticks` ticks older.
    Snapshot = 4,
};

/// An item's kind and, for a request or response, its request id (Rust's `ItemKind`); for a
/// session item, its reliable index or its snapshot's age and ticks.
struct ItemKind {
    /// Message, request, response, or a session item.
    ItemTag tag = ItemTag::Message;
    /// The request id (0 for a message).
    RequestId request = 0;
    /// A reliable message's index in the reliable stream (`Reliable`).
    std::uint16_t index = 0;
    /// Sequences back to a snapshot delta's baseline; 0 for a full state (`Snapshot`).
    std::uint16_t age = 0;
    /// Ticks between a snapshot delta's baseline and its state (`Snapshot`).
    std::uint32_t ticks = 0;

    /// A message.
    static constexpr ItemKind message() noexcept { return ItemKind{ItemTag::Message, 0, 0, 0, 0}; }
    /// The call `request` of an RPC with a response.
    static constexpr ItemKind request_of(RequestId id) noexcept {
        return ItemKind{ItemTag::Request, id, 0, 0, 0};
    }
    /// The response to `request`.
    static constexpr ItemKind response_to(RequestId id) noexcept {
        return ItemKind{ItemTag::Response, id, 0, 0, 0};
    }
    /// The reliable message of `index` (a session item).
    static constexpr ItemKind reliable(std::uint16_t index) noexcept {
        return ItemKind{ItemTag::Reliable, 0, index, 0, 0};
    }
    /// A snapshot `age` packets and `ticks` ticks after its baseline; `age` 0 is a full state
    /// (a session item).
    static constexpr ItemKind snapshot(std::uint16_t age, std::uint32_t ticks) noexcept {
        return ItemKind{ItemTag::Snapshot, 0, 0, age, age == 0 ? 0 : ticks};
    }
    /// The tag on the wire: the low two bits of the item's header (3 for a session item).
    constexpr std::uint64_t wire_tag() const noexcept {
        return tag == ItemTag::Snapshot ? 3 : static_cast<std::uint64_t>(tag);
    }
    /// Same tag, request id, index, age and ticks.
    friend constexpr bool operator==(ItemKind a, ItemKind b) noexcept {
        return a.tag == b.tag && a.request == b.request && a.index == b.index &&
               a.age == b.age && a.ticks == b.ticks;
    }
    /// Not `==`.
    friend constexpr bool operator!=(ItemKind a, ItemKind b) noexcept { return !(a == b); }
};

/// The header of a packet item: the message id (its place in the PROTOCOL) and its kind.
struct ItemHeader {
    /// The message or RPC id: declaration order in the PROTOCOL, from 0.
    std::uint32_t id = 0;
    /// Message, request or response.
    ItemKind kind;
};

/// Why a message could not be added to a packet (Rust's `SendError`), or `Ok`.
enum class SendErrorKind : std::uint8_t {
    /// It was added.
    Ok,
    /// The message itself cannot be encoded: `encode` says why.
    Encode,
    /// The packet would exceed its MTU with this message: it was not added. Send the packet
    /// and add the message to the next one.
    PacketFull,
    /// The message alone exceeds the MTU: no packet can carry it.
    MessageTooLarge,
    /// The protocol version in use has no such message or RPC (a newer version added it).
    NotInVersion,
};

/// The result of adding a message to a packet: `ok()`, or Rust's `SendError` as a value.
struct [[nodiscard]] SendStatus {
    /// What went wrong; `Ok` when the message was added.
    SendErrorKind kind = SendErrorKind::Ok;
    /// The encoder's error (`Encode`).
    Status encode;
    /// The bytes the packet would take (`PacketFull`, frame header included), or a packet
    /// holding only this message (`MessageTooLarge`).
    std::size_t needed = 0;
    /// The packet's limit (`PacketFull`, `MessageTooLarge`).
    std::size_t mtu = 0;
    /// The message or RPC id (`NotInVersion`).
    std::uint32_t id = 0;
    /// The protocol version in use (`NotInVersion`).
    std::uint64_t protocol_id = 0;

    /// Whether the message was added.
    bool ok() const noexcept { return kind == SendErrorKind::Ok; }

    /// Rust's Display text.
    std::string to_string() const {
        switch (kind) {
        case SendErrorKind::Ok:
            return "ok";
        case SendErrorKind::Encode:
            return "cannot encode the message: " + encode.to_string();
        case SendErrorKind::PacketFull:
            return "the packet would take " + std::to_string(needed) +
                   " bytes with this message, over its MTU of " + std::to_string(mtu) +
                   ": send it and start another";
        case SendErrorKind::MessageTooLarge:
            return "the message alone takes " + std::to_string(needed) +
                   " bytes in a packet, over the MTU of " + std::to_string(mtu);
        case SendErrorKind::NotInVersion: {
            static const char digits[] = "0123456789abcdef";
            std::string hex;
            std::uint64_t v = protocol_id;
            do {
                hex.insert(hex.begin(), digits[v & 15u]);
                v >>= 4;
            } while (v != 0);
            return "message id " + std::to_string(id) + " is not part of the protocol version 0x" +
                   hex + " in use (a newer version added it)";
        }
        }
        return "unknown send error";
    }

    /// The failure of encoding the message.
    static SendStatus encode_error(Status error) {
        SendStatus s;
        s.kind = SendErrorKind::Encode;
        s.encode = std::move(error);
        return s;
    }
    /// A message the version in use lacks.
    static SendStatus not_in_version(std::uint32_t id, std::uint64_t protocol_id) {
        SendStatus s;
        s.kind = SendErrorKind::NotInVersion;
        s.id = id;
        s.protocol_id = protocol_id;
        return s;
    }
};

/// No MTU: packets of any size.
constexpr std::size_t NO_MTU = ~std::size_t{0};

namespace detail {

/// The bytes of a packet whose payload is `bits` long: the frame header and whole bytes.
inline std::size_t packet_bytes_of(std::uint64_t bits) noexcept {
    std::uint64_t bytes = bits / 8 + (bits % 8 != 0 ? 1 : 0);
    if (bytes > static_cast<std::uint64_t>(NO_MTU - FRAME_HEADER_BYTES)) {
        return NO_MTU;
    }
    return FRAME_HEADER_BYTES + static_cast<std::size_t>(bytes);
}

} // namespace detail

/// Builds packets of one protocol version with the writer `W` (`BitWriter` or `ByteWriter`, as
/// the encoding's style): `push` items, then `finish` returns the framed packet and starts the
/// next. Keeps its buffers. Mirrors Rust's `PacketWriter`.
template <class W>
class PacketWriter {
public:
    /// A writer of packets of the protocol version `protocol_id`, never over `mtu` bytes.
    explicit PacketWriter(std::uint64_t protocol_id = 0, std::size_t mtu = NO_MTU)
        : protocol_id_(protocol_id), mtu_(mtu) {}

    /// The protocol version the packets are framed with.
    std::uint64_t protocol_id() const noexcept { return protocol_id_; }
    /// Frames the next packets with another protocol version (after a negotiation).
    void set_protocol_id(std::uint64_t protocol_id) noexcept { protocol_id_ = protocol_id; }
    /// The MTU (`NO_MTU` when there is none).
    std::size_t mtu() const noexcept { return mtu_; }
    /// Items in the packet being built.
    std::size_t size() const noexcept { return items_; }
    /// Whether the packet being built holds no item.
    bool empty() const noexcept { return items_ == 0; }
    /// The bytes the packet would take if it were finished now, frame header included.
    std::size_t packet_bytes() const noexcept {
        return detail::packet_bytes_of(writer_.bits_written());
    }

    /// Adds an item: the header, the request id of a request or response, then what
    /// `body(W&) -> Status` writes. Nothing is added when `body` fails or the packet would
    /// exceed its MTU.
    template <class F>
    SendStatus push(std::uint32_t id, ItemKind kind, F&& body) {
        std::uint64_t start = writer_.bits_written();
        Status written = writer_.write_extension([&](W& w) -> Status {
            IDLC_TRY(w.write_vlq(static_cast<std::uint64_t>(id) << 2 | kind.wire_tag(),
                                 DEFAULT_VLQ_GROUP_BITS));
            switch (kind.tag) {
            case ItemTag::Message:
                break;
            case ItemTag::Request:
            case ItemTag::Response:
                IDLC_TRY(w.write_vlq(kind.request, DEFAULT_VLQ_GROUP_BITS));
                break;
            case ItemTag::Reliable:
                IDLC_TRY(w.write_vlq(static_cast<std::uint64_t>(kind.index) << 1,
                                     DEFAULT_VLQ_GROUP_BITS));
                break;
            case ItemTag::Snapshot:
                IDLC_TRY(w.write_vlq(static_cast<std::uint64_t>(kind.age) << 1 | 1u,
                                     DEFAULT_VLQ_GROUP_BITS));
                if (kind.age != 0) {
                    IDLC_TRY(w.write_vlq(kind.ticks, DEFAULT_VLQ_GROUP_BITS));
                }
                break;
            }
            return body(w);
        });
        if (!written.ok()) {
            writer_.truncate(start);
            return SendStatus::encode_error(std::move(written));
        }
        std::size_t needed = packet_bytes();
        if (needed > mtu_) {
            std::size_t alone = detail::packet_bytes_of(writer_.bits_written() - start);
            writer_.truncate(start);
            SendStatus s;
            s.mtu = mtu_;
            if (items_ == 0 || alone > mtu_) {
                s.kind = SendErrorKind::MessageTooLarge;
                s.needed = alone;
            } else {
                s.kind = SendErrorKind::PacketFull;
                s.needed = needed;
            }
            return s;
        }
        ++items_;
        return SendStatus{};
    }

    /// Ends the packet: returns it framed and starts an empty one. An empty packet is 4 bytes.
    const std::vector<std::uint8_t>& finish() {
        framed_.clear();
        const std::vector<std::uint8_t>& payload = writer_.finish();
        frame_into(protocol_id_, payload.data(), payload.size(), framed_);
        writer_.clear();
        items_ = 0;
        return framed_;
    }

    /// Ends a session packet: `header` (`header_size` bytes, WIRE_FORMAT.md, "Session
    /// packets") then the items, framed with `frame_id` (the session id of the protocol
    /// version); starts an empty packet. The MTU counts the items only: give the writer the
    /// packet's MTU less the header.
    const std::vector<std::uint8_t>& finish_with_header(std::uint64_t frame_id,
                                                        const std::uint8_t* header,
                                                        std::size_t header_size) {
        const std::vector<std::uint8_t>& items = writer_.finish();
        payload_.clear();
        payload_.reserve(header_size + items.size());
        payload_.insert(payload_.end(), header, header + header_size);
        payload_.insert(payload_.end(), items.begin(), items.end());
        framed_.clear();
        frame_into(frame_id, payload_.data(), payload_.size(), framed_);
        writer_.clear();
        items_ = 0;
        return framed_;
    }

    /// Drops the items added since the last `finish`.
    void clear() noexcept {
        writer_.clear();
        items_ = 0;
    }

private:
    W writer_;
    std::vector<std::uint8_t> payload_;
    std::vector<std::uint8_t> framed_;
    std::uint64_t protocol_id_;
    std::size_t mtu_;
    std::size_t items_ = 0;
};

/// Reads the items of one packet with the reader `R` (`BitReader` or `ByteReader`). `open`
/// checks the frame; `next_item` hands each item to a callable. The packet's bytes are borrowed
/// and must outlive the reader. Mirrors Rust's `PacketReader`.
template <class R>
class PacketReader {
public:
    /// A reader of nothing: `open` it.
    PacketReader() noexcept : reader_(nullptr, 0) {}

    /// Checks the frame of `packet` for the protocol version `protocol_id` (CrcMismatch,
    /// UnexpectedEnd) and starts reading its payload.
    Status open(std::uint64_t protocol_id, const std::uint8_t* packet, std::size_t size) {
        const std::uint8_t* payload = nullptr;
        std::size_t payload_size = 0;
        done_ = true;
        IDLC_TRY(unframe(protocol_id, packet, size, payload, payload_size));
        reader_ = R(payload, payload_size);
        done_ = false;
        session_ = false;
        return Status{};
    }

    /// Starts reading the items of a session packet: `items` is the payload after the session
    /// header (already unframed); session items (reliable messages, snapshots) are read too.
    void open_session_items(const std::uint8_t* items, std::size_t size) {
        reader_ = R(items, size);
        done_ = false;
        session_ = true;
    }

    /// Reads the next item: `item(const ItemHeader&, R&) -> Status` gets its header and a
    /// reader limited to the item (what it leaves unread, a newer writer's tail, is skipped).
    /// `got` is false after the last item. After an error the packet is abandoned: every later
    /// call gives no item. Bit offsets count from the start of the payload, as Rust's do.
    template <class F>
    Status next_item(bool& got, F&& item) {
        got = false;
        if (done_) {
            return Status{};
        }
        Status s = read_item(got, item);
        if (!s.ok() || !got) {
            done_ = true;
            got = false;
        }
        return s;
    }

private:
    template <class F>
    Status read_item(bool& got, F& item) {
        if (reader_.bits_remaining() == 0) {
            return Status{};
        }
        bool present = false;
        IDLC_TRY(reader_.read_extension(present, [&](R& r) -> Status {
            std::uint64_t at = r.bits_read();
            std::uint64_t header = 0;
            IDLC_TRY(read_vlq_length(r, header));
            if ((header >> 2) > 0xFFFFFFFFull) {
                return Status::error(ErrorKind::ValueOutOfRange, at);
            }
            ItemHeader h;
            h.id = static_cast<std::uint32_t>(header >> 2);
            std::uint64_t tag = header & 3u;
            if (tag == 3 && session_) {
                IDLC_TRY(read_session_fields(r, h.kind));
            } else if (tag != 0) {
                std::uint64_t request_at = r.bits_read();
                std::uint64_t request = 0;
                IDLC_TRY(read_vlq_length(r, request));
                if (request > 0xFFFFFFFFull || tag == 3) {
                    return Status::error(ErrorKind::ValueOutOfRange, request_at);
                }
                h.kind = ItemKind{tag == 1 ? ItemTag::Request : ItemTag::Response,
                                  static_cast<RequestId>(request), 0, 0, 0};
            }
            return item(static_cast<const ItemHeader&>(h), r);
        }));
        if (!present) {
            // The end marker: only the padding of the last byte may follow.
            return reader_.expect_end();
        }
        got = true;
        return Status{};
    }

    /// What follows the header of a session item (tag 3): `x`, then the ticks of a delta.
    static Status read_session_fields(R& r, ItemKind& kind) {
        std::uint64_t at = r.bits_read();
        std::uint64_t x = 0;
        IDLC_TRY(read_vlq_length(r, x));
        if ((x >> 1) > 0xFFFFu) {
            return Status::error(ErrorKind::ValueOutOfRange, at);
        }
        std::uint16_t number = static_cast<std::uint16_t>(x >> 1);
        if ((x & 1u) == 0) {
            kind = ItemKind::reliable(number);
            return Status{};
        }
        std::uint64_t ticks = 0;
        if (number != 0) {
            IDLC_TRY(read_vlq_length(r, ticks));
            if (ticks > 0xFFFFFFFFull) {
                return Status::error(ErrorKind::ValueOutOfRange, at);
            }
        }
        kind = ItemKind::snapshot(number, static_cast<std::uint32_t>(ticks));
        return Status{};
    }

    R reader_;
    bool done_ = true;
    /// Items of tag 3 (session items) are read, not refused.
    bool session_ = false;
};

/// What a generated receiver's `dispatch` did with one packet.
struct Dispatched {
    /// Items decoded and handed to the handler.
    std::size_t handled = 0;
    /// Items skipped: ids this version does not know, or items of the other direction.
    std::size_t unknown = 0;
    /// Responses written for requests in the packet.
    std::size_t responses = 0;
};

/// Why a receiver could not handle a packet (Rust's `DispatchError`), or `Ok`.
enum class DispatchErrorKind : std::uint8_t {
    /// Every item was handled.
    Ok,
    /// The packet is malformed (items before the bad one were handled): `decode` says how.
    Decode,
    /// A response the handler returned cannot be sent at all (`reply` says why); every item of
    /// the packet was still handled; the first such failure is reported.
    Reply,
};

/// The result of a generated receiver's `dispatch`.
struct [[nodiscard]] DispatchStatus {
    /// What went wrong; `Ok` when nothing did.
    DispatchErrorKind kind = DispatchErrorKind::Ok;
    /// The decoder's error (`Decode`).
    Status decode;
    /// The reply's error (`Reply`).
    SendStatus reply;

    /// Whether every item was handled and every response written.
    bool ok() const noexcept { return kind == DispatchErrorKind::Ok; }
    /// Rust's Display text.
    std::string to_string() const {
        switch (kind) {
        case DispatchErrorKind::Ok:
            return "ok";
        case DispatchErrorKind::Decode:
            return "malformed packet: " + decode.to_string();
        case DispatchErrorKind::Reply:
            return "cannot reply: " + reply.to_string();
        }
        return "unknown dispatch error";
    }
    /// A malformed packet.
    static DispatchStatus decode_error(Status error) {
        DispatchStatus s;
        s.kind = DispatchErrorKind::Decode;
        s.decode = std::move(error);
        return s;
    }
    /// A response that cannot be sent.
    static DispatchStatus reply_error(SendStatus error) {
        DispatchStatus s;
        s.kind = DispatchErrorKind::Reply;
        s.reply = std::move(error);
        return s;
    }
};

/// The reply packets of a receiver: a response that does not fit in the packet being built
/// closes it and starts the next, so no answer is lost to a full packet. Mirrors Rust's
/// `Replies`.
template <class W>
class Replies {
public:
    /// Reply packets of the protocol version `protocol_id`, each at most `mtu` bytes.
    explicit Replies(std::uint64_t protocol_id = 0, std::size_t mtu = NO_MTU)
        : packet_(protocol_id, mtu) {}

    /// Frames the next packets with another protocol version (after a negotiation).
    void set_protocol_id(std::uint64_t protocol_id) noexcept {
        packet_.set_protocol_id(protocol_id);
    }

    /// Adds the response of the RPC `id` to `request`, written by `body(W&) -> Status` (called
    /// again when the first packet was full). Fails only when the response cannot be sent at all.
    template <class F>
    SendStatus push(std::uint32_t id, RequestId request, F&& body) {
        ItemKind kind = ItemKind::response_to(request);
        SendStatus s = packet_.push(id, kind, body);
        if (s.kind == SendErrorKind::PacketFull) {
            ready_.push_back(packet_.finish());
            return packet_.push(id, kind, body);
        }
        return s;
    }

    /// Whether no reply waits to be sent.
    bool empty() const noexcept { return ready_.empty() && packet_.empty(); }

    /// The next reply packet (framed), oldest first, or null when every one was handed out.
    /// The pointer is valid until the next call.
    const std::vector<std::uint8_t>* next_packet() {
        if (!ready_.empty()) {
            out_ = std::move(ready_.front());
            ready_.pop_front();
            return &out_;
        }
        if (packet_.empty()) {
            return nullptr;
        }
        return &packet_.finish();
    }

private:
    PacketWriter<W> packet_;
    std::deque<std::vector<std::uint8_t>> ready_;
    std::vector<std::uint8_t> out_;
};

/// Why a response could not be paired with its request (Rust's `ResponseError`).
enum class ResponseErrorKind : std::uint8_t {
    /// Paired.
    Ok,
    /// The response is malformed (`decode`): its request stays pending.
    Decode,
    /// A response to a request id that is not pending (never sent, or answered already).
    UnknownRequest,
    /// A response of another RPC than the one the request called.
    WrongResponse,
};

/// One response that could not be paired, or `Ok`.
struct ResponseError {
    /// What went wrong.
    ResponseErrorKind kind = ResponseErrorKind::Ok;
    /// The decoder's error (`Decode`).
    Status decode;
    /// The request id the response carries.
    RequestId request = 0;
    /// The id of the RPC the request called (`WrongResponse`).
    std::uint32_t expected = 0;
    /// The id the response carries (`WrongResponse`).
    std::uint32_t got = 0;

    /// Whether the response was paired.
    bool ok() const noexcept { return kind == ResponseErrorKind::Ok; }
    /// Rust's Display text.
    std::string to_string() const {
        switch (kind) {
        case ResponseErrorKind::Ok:
            return "ok";
        case ResponseErrorKind::Decode:
            return "malformed response packet: " + decode.to_string();
        case ResponseErrorKind::UnknownRequest:
            return "a response to request " + std::to_string(request) + ", which is not pending";
        case ResponseErrorKind::WrongResponse:
            return "request " + std::to_string(request) + " called RPC id " +
                   std::to_string(expected) + " but the response is of RPC id " +
                   std::to_string(got);
        }
        return "unknown response error";
    }
};

/// The requests a caller sent and awaits responses to: request id → RPC id. Request ids count
/// up from 0 (wrapping); a response pairs with a pending request of the same RPC, once.
class Pending {
public:
    /// Starts a request of the RPC `rpc_id` and returns its request id.
    RequestId start(std::uint32_t rpc_id) {
        RequestId request = next_;
        next_ = static_cast<RequestId>(next_ + 1u);
        waiting_.emplace_back(request, rpc_id);
        return request;
    }

    /// Pairs a response of the RPC `rpc_id` with the pending `request`, which is then no
    /// longer pending. A wrong RPC leaves the request pending.
    ResponseError complete(RequestId request, std::uint32_t rpc_id) {
        std::size_t at = 0;
        ResponseError e = position(request, rpc_id, at);
        if (e.ok()) {
            waiting_[at] = waiting_.back();
            waiting_.pop_back();
        }
        return e;
    }

    /// Whether a response of the RPC `rpc_id` to `request` would pair (`complete` without
    /// completing it).
    ResponseError expects(RequestId request, std::uint32_t rpc_id) const {
        std::size_t at = 0;
        return position(request, rpc_id, at);
    }

    /// Whether `request` awaits its response.
    bool contains(RequestId request) const noexcept {
        for (const auto& w : waiting_) {
            if (w.first == request) {
                return true;
            }
        }
        return false;
    }

    /// Gives up on a request (a timeout): its response, if it comes, is then unknown.
    void forget(RequestId request) {
        std::vector<std::pair<RequestId, std::uint32_t>> kept;
        kept.reserve(waiting_.size());
        for (const auto& w : waiting_) {
            if (w.first != request) {
                kept.push_back(w);
            }
        }
        waiting_ = std::move(kept);
    }

    /// Requests awaiting their response.
    std::size_t size() const noexcept { return waiting_.size(); }
    /// Whether no request awaits its response.
    bool empty() const noexcept { return waiting_.empty(); }

private:
    ResponseError position(RequestId request, std::uint32_t rpc_id, std::size_t& at) const {
        ResponseError e;
        e.request = request;
        for (std::size_t i = 0; i < waiting_.size(); ++i) {
            if (waiting_[i].first == request) {
                if (waiting_[i].second != rpc_id) {
                    e.kind = ResponseErrorKind::WrongResponse;
                    e.expected = waiting_[i].second;
                    e.got = rpc_id;
                    return e;
                }
                at = i;
                return e;
            }
        }
        e.kind = ResponseErrorKind::UnknownRequest;
        return e;
    }

    RequestId next_ = 0;
    std::vector<std::pair<RequestId, std::uint32_t>> waiting_;
};

/// Reads the responses in `packet` (framed for `protocol_id`) with the reader `R`: each whose
/// request is pending for its RPC goes to `decode(const ItemHeader&, R&, bool& known) ->
/// Status`, which decodes it, completes the request (`pending.complete`) and hands the value
/// on (`known` false: no such RPC with a response); a response to a request that is not pending
/// or of another RPC goes to `error(const ResponseError&)`, as does one whose body is malformed
/// (its request stays pending), and the rest of the packet is still read. Items that are not responses are
/// skipped. `count` is how many responses there were; a packet whose framing or item headers
/// are malformed is an error. Mirrors Rust's `read_responses`.
template <class R, class Decode, class OnError>
Status read_responses(std::uint64_t protocol_id, const std::uint8_t* packet, std::size_t size,
                      Pending& pending, Decode&& decode, OnError&& error, std::size_t& count) {
    count = 0;
    PacketReader<R> reader;
    IDLC_TRY(reader.open(protocol_id, packet, size));
    for (;;) {
        bool got = false;
        IDLC_TRY(reader.next_item(got, [&](const ItemHeader& header, R& r) -> Status {
            if (header.kind.tag != ItemTag::Response) {
                return Status{};
            }
            ++count;
            RequestId request = header.kind.request;
            ResponseError e = pending.expects(request, header.id);
            if (!e.ok()) {
                error(static_cast<const ResponseError&>(e));
                return Status{};
            }
            bool known = true;
            Status s = decode(header, r, known);
            if (!s.ok() || !known) {
                ResponseError d;
                d.kind = s.ok() ? ResponseErrorKind::UnknownRequest : ResponseErrorKind::Decode;
                d.decode = std::move(s);
                d.request = request;
                error(static_cast<const ResponseError&>(d));
            }
            return Status{};
        }));
        if (!got) {
            return Status{};
        }
    }
}

/// The ids of a protocol's versions in one encoding, oldest first (a generated protocol's
/// `versions_with<E>()`): a view of a constant array.
struct Versions {
    /// The ids.
    const std::uint64_t* ids = nullptr;
    /// How many.
    std::size_t count = 0;

    /// The first id.
    const std::uint64_t* begin() const noexcept { return ids; }
    /// Past the last id.
    const std::uint64_t* end() const noexcept { return ids + count; }
    /// How many.
    std::size_t size() const noexcept { return count; }
    /// The newest version's id (0 when there is none).
    std::uint64_t newest() const noexcept { return count == 0 ? 0 : ids[count - 1]; }
    /// The index of `id` among them, if it is one.
    std::optional<std::size_t> index_of(std::uint64_t id) const noexcept {
        for (std::size_t i = 0; i < count; ++i) {
            if (ids[i] == id) {
                return i;
            }
        }
        return std::nullopt;
    }
};

/// The version two peers share: the newest protocol id both lists hold (each oldest first), as
/// its index in `ours` and its id; none when the peers share no version.
inline std::optional<std::pair<std::size_t, std::uint64_t>> negotiate(
    const std::uint64_t* ours, std::size_t ours_count, const std::uint64_t* theirs,
    std::size_t theirs_count) noexcept {
    for (std::size_t k = ours_count; k-- > 0;) {
        for (std::size_t j = 0; j < theirs_count; ++j) {
            if (theirs[j] == ours[k]) {
                return std::make_pair(k, ours[k]);
            }
        }
    }
    return std::nullopt;
}

/// `negotiate` of our versions and a list the peer sent.
inline std::optional<std::pair<std::size_t, std::uint64_t>> negotiate(
    Versions ours, const std::vector<std::uint64_t>& theirs) noexcept {
    return negotiate(ours.ids, ours.count, theirs.data(), theirs.size());
}

} // namespace idlc

#endif // IDLC_PACKET_HPP

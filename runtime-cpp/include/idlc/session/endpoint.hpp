// idlc C++ runtime: one peer of a session: bytes in, calls out; calls in, bytes out. It opens
// no socket. Mirrors runtime/src/session/endpoint.rs, byte for byte on the wire (WIRE.md,
// "Session packets"; docs/CPP.md, "Sessions").
#ifndef IDLC_SESSION_ENDPOINT_HPP
#define IDLC_SESSION_ENDPOINT_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "../delta.hpp"
#include "../packet.hpp"
#include "../status.hpp"
#include "acks.hpp"
#include "baselines.hpp"
#include "config.hpp"
#include "answer.hpp"
#include "error.hpp"
#include "header.hpp"
#include "link.hpp"
#include "reliable.hpp"
#include "requests.hpp"

namespace idlc {

/// What a received packet hands the game (Rust's `Delivery` variants).
enum class DeliveryKind : std::uint8_t {
    /// A message or a fire-and-forget call; a reliable message comes here once, in order.
    Message,
    /// A call that expects a response: the callable given to `Endpoint::receive` returns it.
    /// Each request comes here once, however often the peer resent it.
    Request,
    /// A snapshot newer than any delivered before for its message id.
    Snapshot,
    /// The response to a call of this side, with the call it answers.
    Response,
    /// A call of this side the peer refused (`refusal`): its application said no, or nobody
    /// answered it (Refusal::UNANSWERED). The call's answer, not a transport error.
    Refused,
};

/// One delivery of a received packet, in the packet's order: `message` for a Message, Request
/// or Snapshot, `call` and `response` for a Response, `call` and `refusal` for a Refused call
/// (`M` the messages received, `R` the responses to this side's calls, `C` this side's calls).
template <class M, class R, class C = M>
struct Delivery {
    /// What it is.
    DeliveryKind kind = DeliveryKind::Message;
    /// The sequence of the packet that carried a Snapshot.
    Sequence sequence = 0;
    /// The request id of a Request (its response answers it), of a Response or of a Refused call.
    RequestId request = 0;
    /// The message, call or state (Message, Request, Snapshot).
    M message{};
    /// The call of this side, as it was sent (Response, Refused).
    C call{};
    /// The response (Response).
    R response{};
    /// Why the call was refused (Refused).
    Refusal refusal{};
};

/// What `Endpoint::receive` did with a packet.
struct Received {
    /// Deliveries handed to the game.
    std::size_t delivered = 0;
    /// Items skipped: unknown ids (a newer peer), resends already handled, older snapshots.
    std::size_t skipped = 0;
};

/// What `Endpoint::flush` built.
struct Flushed {
    /// The packets to send, in order (at least one: it carries the acknowledgements).
    std::vector<std::vector<std::uint8_t>> packets;
    /// The message ids of the snapshots left out: alone in a packet, over the MTU. The game
    /// sends a smaller state (the endpoint does not split a snapshot).
    std::vector<std::uint32_t> left_out;
    /// The snapshots sent: each one's message id and the sequence of the packet that carries
    /// it (`sent_snapshot` gives its mirror).
    std::vector<std::pair<std::uint32_t, Sequence>> snapshots;
    /// The requests of the peer this flush refused by itself (Refusal::UNANSWERED) because
    /// their `AnswerToken` was destroyed unanswered, or never taken with `take_deferred`: each
    /// one's RPC id and request id.
    std::vector<std::pair<std::uint32_t, RequestId>> unanswered;
};

/// How much an endpoint holds, to check against its caps.
struct Usage {
    /// Mirrors of sent snapshots.
    std::size_t mirrors = 0;
    /// Received snapshot states.
    std::size_t states = 0;
    /// Calls awaiting their response.
    std::size_t pending_requests = 0;
    /// Responses not yet acknowledged.
    std::size_t cached_answers = 0;
    /// Reliable messages not yet acknowledged.
    std::size_t queued_reliable = 0;
    /// Reliable messages received ahead of one they follow.
    std::size_t waiting_reliable = 0;
    /// Unreliable messages for the next packet.
    std::size_t queued_messages = 0;
    /// Request ids remembered as handled.
    std::size_t handled_requests = 0;
    /// Requests handed out to answer later (`AnswerToken`s), not yet answered.
    std::size_t deferred_answers = 0;
};

/// One peer of a session in the encoding `E`: this side sends the protocol `Out` and receives
/// `In` (the same for one spoken both ways), each a generated `<Protocol>Session<E>`. A server
/// holds one per client. `receive` reads a packet in one pass (messages, requests, snapshots,
/// responses) and hands each to the game; `send`, `send_reliable` and `send_snapshot` queue what
/// goes out; `flush` builds the packets. Rust's `Endpoint<E, Out, In>`.
template <class E, class Out, class In>
class Endpoint {
public:
    /// The encoding's writer.
    using Writer = typename Out::Writer;
    /// The encoding's reader.
    using Reader = typename In::Reader;
    /// A message or call this side sends (`Out::Message`, a `std::variant` of its structs).
    using OutMessage = typename Out::Message;
    /// A message or call this side receives.
    using InMessage = typename In::Message;
    /// A response to a call of this side (delivered).
    using OutResponse = typename Out::Response;
    /// A response to a call of the peer (what the delivery callable answers with).
    using InResponse = typename In::Response;
    /// What `receive` hands the game.
    using DeliveryOf = Delivery<InMessage, OutResponse, OutMessage>;
    /// What the delivery callable may return (or a `std::optional<InResponse>`).
    using AnswerOf = Answer<InResponse, InMessage>;
    /// A request of the peer to answer later.
    using Token = AnswerToken<InResponse>;

    /// An endpoint of the newest versions of both protocols.
    explicit Endpoint(SessionConfig config = SessionConfig{})
        : Endpoint(config, newest_of(Out::versions()), newest_of(In::versions())) {}

    /// An endpoint that sends version `out_version` of `Out` and receives version `in_version`
    /// of `In` (indices in their `versions()`, oldest 0); none when either has no such version.
    static std::optional<Endpoint> create(SessionConfig config, std::size_t out_version,
                                          std::size_t in_version) {
        if (out_version >= Out::versions().size() || in_version >= In::versions().size()) {
            return std::nullopt;
        }
        return Endpoint(config, out_version, in_version);
    }

    /// The configuration.
    const SessionConfig& config() const noexcept { return config_; }
    /// The version of `Out` sent and of `In` received (indices in their `versions()`).
    std::pair<std::size_t, std::size_t> versions() const noexcept {
        return {out_version_, in_version_};
    }
    /// The calls awaiting their response.
    const Pending& pending() const noexcept { return pending_; }
    /// Gives up on a call (no response is awaited any more; a late one is skipped).
    void forget(RequestId request) {
        pending_.forget(request);
        calls_.erase(request);
    }

    /// How much the endpoint holds now.
    Usage usage() const {
        Usage u;
        u.mirrors = mirrors_.size();
        u.states = states_.size();
        u.pending_requests = pending_.size();
        u.cached_answers = answers_queued();
        u.queued_reliable = reliable_queued();
        u.waiting_reliable = in_order_.size();
        u.queued_messages = unreliable_.size();
        u.handled_requests = handled_.size();
        u.deferred_answers = outstanding_;
        return u;
    }

    /// Whether the peer has been silent (no packet accepted) for longer than the timeout,
    /// counted from the first packet accepted or, before one, from the first call of `receive`
    /// or `flush`. A server drops such an endpoint.
    bool is_silent(SessionTime now) const noexcept {
        std::optional<SessionTime> since = last_heard_ ? last_heard_ : started_;
        if (!since) {
            return false;
        }
        SessionTime silent = now > *since ? now - *since : SessionTime::zero();
        return silent > config_.timeout;
    }

    /// The mirror of the snapshot of message `id` sent in the packet `sequence`: the state the
    /// peer holds once it has that packet, while kept; null otherwise.
    const OutMessage* sent_snapshot(Sequence sequence, std::uint32_t id) const noexcept {
        const Kept<OutMessage>* kept = mirrors_.get(sequence, id);
        return kept == nullptr ? nullptr : &kept->value;
    }

    /// Queues a message for the next packet, sent once (unreliably); a call that expects a
    /// response is reliable: it gets a request id (set in `request`), is resent until
    /// acknowledged, and its response comes as a Response delivery.
    SessionStatus send(OutMessage message, std::optional<RequestId>& request) {
        request.reset();
        std::uint32_t id = Out::id(message);
        IDLC_SESSION_TRY(check_version(id));
        if (!Out::expects_response(message)) {
            IDLC_SESSION_TRY(check_fits(message, ItemKind::message()));
            if (unreliable_.size() >= config_.queued_messages) {
                return SessionStatus::full(Cap::QueuedMessages);
            }
            unreliable_.push_back(std::move(message));
            return SessionStatus{};
        }
        if (pending_.size() >= config_.pending_requests) {
            return SessionStatus::full(Cap::PendingRequests);
        }
        IDLC_SESSION_TRY(check_fits(message, ItemKind::request_of(0xFFFFFFFFu)));
        RequestId started = pending_.start(id);
        ++issued_;
        calls_[started] = message;
        OutItem item;
        item.kind = OutItem::Request;
        item.request = started;
        item.message = std::move(message);
        outbox_.push(std::move(item));
        request = started;
        return SessionStatus{};
    }

    /// `send` without the request id.
    SessionStatus send(OutMessage message) {
        std::optional<RequestId> request;
        return send(std::move(message), request);
    }

    /// Queues a message to be delivered once and in order: resent until acknowledged. A call
    /// that expects a response goes through `send` (it is reliable already).
    SessionStatus send_reliable(OutMessage message) {
        if (Out::expects_response(message)) {
            return send(std::move(message));
        }
        std::uint32_t id = Out::id(message);
        IDLC_SESSION_TRY(check_version(id));
        if (reliable_queued() >= config_.queued_reliable) {
            return SessionStatus::full(Cap::QueuedReliable);
        }
        IDLC_SESSION_TRY(check_fits(message, ItemKind::reliable(0xFFFFu)));
        OutItem item;
        item.kind = OutItem::Message;
        item.index = next_reliable_;
        next_reliable_ = static_cast<std::uint16_t>(next_reliable_ + 1);
        item.message = std::move(message);
        outbox_.push(std::move(item));
        return SessionStatus{};
    }

    /// Queues the state of tick `tick` of a snapshot message (a MESSAGE whose struct is a
    /// PUBLISHABLE_STRUCT) for the next packet: a delta against the newest state of it the peer
    /// acknowledged, in full when there is none or it is no longer kept. A newer state of the
    /// same message replaces one not yet flushed.
    SessionStatus send_snapshot(std::uint32_t tick, OutMessage message) {
        std::uint32_t id = Out::id(message);
        IDLC_SESSION_TRY(check_version(id));
        if (!Out::is_snapshot(message)) {
            return SessionStatus::of_id(SessionErrorKind::NotASnapshot, id);
        }
        std::vector<std::pair<std::uint32_t, OutMessage>> kept;
        for (auto& queued : snapshots_) {
            if (Out::id(queued.second) != id) {
                kept.push_back(std::move(queued));
            }
        }
        kept.emplace_back(tick, std::move(message));
        snapshots_ = std::move(kept);
        return SessionStatus{};
    }

    /// The requests the `receive` calls since the last take left to answer later
    /// (AnswerKind::Later): each one's token and call, in delivery order. Tokens not taken
    /// before the next `flush` are dropped there: their calls are refused (`Flushed::unanswered`).
    std::vector<std::pair<Token, InMessage>> take_deferred() {
        std::vector<std::pair<Token, InMessage>> taken = std::move(deferred_);
        deferred_.clear();
        return taken;
    }

    /// Answers a request deferred with `token` (from this endpoint): `response` is sent as if the
    /// callable had returned it. A token of another endpoint (ForeignToken), or a response to
    /// another RPC (AnswerMismatch), is an error; the token is then dropped, and its own endpoint
    /// refuses the call.
    SessionStatus answer(Token token, InResponse response) {
        IDLC_SESSION_TRY(check_token(token, In::response_id(response)));
        IDLC_SESSION_TRY(check_fits(In::response_id(response),
                                    ItemKind::response_to(token.request()),
                                    [&](Writer& w) { return write_answer(response, w); }));
        token.consume();
        outstanding_ = outstanding_ > 0 ? outstanding_ - 1 : 0;
        OutItem item;
        item.kind = OutItem::Answer;
        item.request = token.request();
        item.answer = std::move(response);
        outbox_.push(std::move(item));
        return SessionStatus{};
    }

    /// Refuses a request deferred with `token`: the caller receives `refusal` (a Refused
    /// delivery). Errors as `answer`'s, and a text over MAX_REFUSAL_TEXT bytes.
    SessionStatus refuse(Token token, Refusal refusal) {
        IDLC_SESSION_TRY(check_token(token, token.id()));
        IDLC_SESSION_TRY(check_fits(token.id(), ItemKind::response_to(token.request()),
                                    [&](Writer& w) { return write_refusal(refusal, w); }));
        token.consume();
        outstanding_ = outstanding_ > 0 ? outstanding_ - 1 : 0;
        push_refusal(token.request(), token.id(), std::move(refusal));
        return SessionStatus{};
    }

    /// Reads a packet from the peer and hands what it carries to `deliver`, a callable of
    /// `DeliveryOf&&` that answers a Request with an `AnswerOf` (now, refused, or later) or a
    /// `std::optional<InResponse>` (the response, or none), and returns none for the rest. A packet that is malformed, of another protocol or version, a
    /// duplicate, stale, acknowledges a packet never sent, or names a forged request or
    /// baseline is an error: nothing of it is delivered and it is not acknowledged.
    template <class F>
    SessionStatus receive(SessionTime now, const std::uint8_t* packet, std::size_t size,
                          F&& deliver, Received& report) {
        report = Received{};
        if (!started_) {
            started_ = now;
        }
        const std::uint8_t* payload = nullptr;
        std::size_t payload_size = 0;
        Status framed = unframe(session_id(in_id()), packet, size, payload, payload_size);
        if (!framed.ok()) {
            return SessionStatus::decode_error(std::move(framed));
        }
        SessionHeader header;
        const std::uint8_t* items = nullptr;
        std::size_t items_size = 0;
        Status split = header.split(payload, payload_size, items, items_size);
        if (!split.ok()) {
            return SessionStatus::decode_error(std::move(split));
        }
        IDLC_SESSION_TRY(received_.check(header.sequence));
        IDLC_SESSION_TRY(sent_.check(header));
        std::vector<Read> read;
        IDLC_SESSION_TRY(read_items(header.sequence, items, items_size, read));
        std::size_t new_requests = 0;
        for (const Read& r : read) {
            new_requests += r.kind == Read::Request ? 1 : 0;
        }
        if (answers_queued() + outstanding_ + new_requests > config_.cached_answers) {
            return SessionStatus::full(Cap::CachedAnswers);
        }
        received_.record(header.sequence);
        last_heard_ = now;
        acknowledge(header);
        for (Read& item : read) {
            std::size_t delivered = deliver_item(header.sequence, item, deliver);
            if (delivered == 0) {
                ++report.skipped;
            }
            report.delivered += delivered;
        }
        return SessionStatus{};
    }

    /// `receive` without the report.
    template <class F>
    SessionStatus receive(SessionTime now, const std::uint8_t* packet, std::size_t size,
                          F&& deliver) {
        Received report;
        return receive(now, packet, size, std::forward<F>(deliver), report);
    }

    /// Builds the packets to send now: reliable items due, queued messages, then snapshots;
    /// always at least one packet (it carries the acknowledgements and keeps the peer from
    /// timing this side out).
    Flushed flush(SessionTime now) {
        if (!started_) {
            started_ = now;
        }
        Build build{PacketWriter<Writer>(0, items_mtu()), {}, Flushed{}};
        refuse_dropped(build.flushed);
        std::vector<std::uint64_t> due =
            outbox_.due([&](const Queued<OutItem>& queued) { return is_due(queued); });
        for (std::uint64_t key : due) {
            const Queued<OutItem>* queued = outbox_.get(key);
            if (queued == nullptr) {
                continue;
            }
            OutItem item = queued->item;
            SendStatus pushed;
            switch (item.kind) {
            case OutItem::Message:
                pushed = push_item(build, Out::id(item.message), ItemKind::reliable(item.index),
                                   [&](Writer& w) { return Out::encode_body(item.message, w); });
                break;
            case OutItem::Request:
                pushed = push_item(build, Out::id(item.message),
                                   ItemKind::request_of(item.request),
                                   [&](Writer& w) { return Out::encode_body(item.message, w); });
                break;
            case OutItem::Answer:
                pushed = push_item(build, In::response_id(item.answer),
                                   ItemKind::response_to(item.request),
                                   [&](Writer& w) { return write_answer(item.answer, w); });
                break;
            case OutItem::Refusal:
                pushed = push_item(build, item.id, ItemKind::response_to(item.request),
                                   [&](Writer& w) { return write_refusal(item.refusal, w); });
                break;
            }
            // Every item was checked to fit alone when queued: a failure is not expected.
            if (pushed.ok()) {
                build.keys.push_back(key);
            }
        }
        std::vector<OutMessage> unreliable = std::move(unreliable_);
        unreliable_.clear();
        for (const OutMessage& message : unreliable) {
            (void)push_item(build, Out::id(message), ItemKind::message(),
                            [&](Writer& w) { return Out::encode_body(message, w); });
        }
        std::vector<std::pair<std::uint32_t, OutMessage>> snapshots = std::move(snapshots_);
        snapshots_.clear();
        for (const auto& snapshot : snapshots) {
            if (!push_snapshot(build, snapshot.first, snapshot.second).ok()) {
                build.flushed.left_out.push_back(Out::id(snapshot.second));
            }
        }
        finish_packet(build);
        return std::move(build.flushed);
    }

private:
    /// A reliable item of the outbox (Rust's `Reliable`): a reliable message, a request, an
    /// answer to one of the peer's requests, or its refusal (of the RPC `id`).
    struct OutItem {
        enum Kind : std::uint8_t { Message, Request, Answer, Refusal };
        Kind kind = Message;
        std::uint16_t index = 0;
        RequestId request = 0;
        std::uint32_t id = 0;
        OutMessage message{};
        InResponse answer{};
        idlc::Refusal refusal{};
    };

    /// An item of a received packet, read and checked, not yet delivered (Rust's `Read`).
    struct Read {
        enum Kind : std::uint8_t {
            Message,
            Request,
            Reliable,
            Snapshot,
            Response,
            Refused,
            Skipped
        };
        Kind kind = Skipped;
        RequestId request = 0;
        std::uint16_t index = 0;
        std::uint32_t id = 0;
        std::uint32_t tick = 0;
        InMessage message{};
        OutResponse response{};
        Refusal refusal{};
    };

    /// The packets being built by a flush.
    struct Build {
        PacketWriter<Writer> writer;
        /// Reliable items in the packet being built.
        std::vector<std::uint64_t> keys;
        Flushed flushed;
    };

    Endpoint(SessionConfig config, std::size_t out_version, std::size_t in_version)
        : config_(config),
          out_version_(out_version),
          in_version_(in_version),
          mirrors_(config.kept_baselines),
          handled_(config.pending_requests),
          in_order_(config.queued_reliable),
          states_(config.kept_baselines) {}

    static std::size_t newest_of(Versions versions) noexcept {
        return versions.size() == 0 ? 0 : versions.size() - 1;
    }

    std::uint64_t out_id() const noexcept {
        Versions v = Out::versions();
        return out_version_ < v.size() ? v.ids[out_version_] : 0;
    }

    std::uint64_t in_id() const noexcept {
        Versions v = In::versions();
        return in_version_ < v.size() ? v.ids[in_version_] : 0;
    }

    std::size_t answers_queued() const {
        return outbox_.count([](const OutItem& i) {
            return i.kind == OutItem::Answer || i.kind == OutItem::Refusal;
        });
    }

    std::size_t reliable_queued() const {
        return outbox_.count([](const OutItem& i) { return i.kind == OutItem::Message; });
    }

    std::size_t items_mtu() const noexcept {
        return config_.mtu > SESSION_HEADER_BYTES ? config_.mtu - SESSION_HEADER_BYTES : 0;
    }

    SessionStatus check_version(std::uint32_t id) const {
        if (session_supports<Out>(out_version_, id)) {
            return SessionStatus{};
        }
        return SessionStatus::of_id(SessionErrorKind::NotInVersion, id);
    }

    /// Checks that `message` fits alone in a packet under the item kind `kind`.
    SessionStatus check_fits(const OutMessage& message, ItemKind kind) const {
        return check_fits(Out::id(message), kind,
                          [&](Writer& w) { return Out::encode_body(message, w); });
    }

    /// Checks that an item of `id` and `kind` whose body `body` writes fits alone in a packet.
    template <class F>
    SessionStatus check_fits(std::uint32_t id, ItemKind kind, F&& body) const {
        PacketWriter<Writer> scratch(0, items_mtu());
        SendStatus s = scratch.push(id, kind, body);
        return s.ok() ? SessionStatus{} : SessionStatus::send_error(std::move(s));
    }

    /// Writes the body of an answer: its status (a response follows, not refused), the response.
    static Status write_answer(const InResponse& response, Writer& w) {
        IDLC_TRY(w.write_bool(false));
        return In::encode_response(response, w);
    }

    /// Writes the body of a refusal: its status (refused), the refusal.
    static Status write_refusal(const idlc::Refusal& refusal, Writer& w) {
        IDLC_TRY(w.write_bool(true));
        return encode_refusal(refusal, w);
    }

    /// Queues the refusal of the peer's `request` of the RPC `id`.
    void push_refusal(RequestId request, std::uint32_t id, idlc::Refusal refusal) {
        OutItem item;
        item.kind = OutItem::Refusal;
        item.request = request;
        item.id = id;
        item.refusal = std::move(refusal);
        outbox_.push(std::move(item));
    }

    /// A token of this endpoint, for a response of the RPC `id`.
    SessionStatus check_token(const Token& token, std::uint32_t id) const {
        if (!token.belongs_to(dropped_)) {
            return SessionStatus::foreign_token(token.request());
        }
        if (id != token.id()) {
            return SessionStatus::answer_mismatch(token.request(), token.id());
        }
        return SessionStatus{};
    }

    /// Refuses by itself the requests whose tokens were dropped (or never taken).
    void refuse_dropped(Flushed& flushed) {
        // In delivery order (the order a vector destroys its elements in is unspecified).
        for (auto& untaken : deferred_) {
            untaken.first.report();
        }
        deferred_.clear();
        DroppedLog dropped = std::move(*dropped_);
        dropped_->clear();
        for (const auto& [request, id] : dropped) {
            outstanding_ = outstanding_ > 0 ? outstanding_ - 1 : 0;
            push_refusal(request, id, idlc::Refusal::unanswered());
            flushed.unanswered.emplace_back(id, request);
        }
    }

    void acknowledge(const SessionHeader& header) {
        if ((!peer_ack_ || sequence_newer(header.ack, *peer_ack_)) && sent_.was_sent(header.ack)) {
            peer_ack_ = header.ack;
        }
        std::vector<std::uint64_t> keys;
        std::vector<Sequence> sequences;
        sent_.acknowledge(header, keys, sequences);
        for (std::uint64_t key : keys) {
            outbox_.remove(key);
        }
        for (Sequence sequence : sequences) {
            mirrors_.acknowledge(sequence);
        }
    }

    /// Reads and checks every item of a packet; changes nothing.
    SessionStatus read_items(Sequence sequence, const std::uint8_t* items, std::size_t size,
                             std::vector<Read>& read) const {
        PacketReader<Reader> reader;
        reader.open_session_items(items, size);
        SessionStatus failure;
        for (;;) {
            bool got = false;
            Read item;
            Status s = reader.next_item(got, [&](const ItemHeader& header, Reader& r) -> Status {
                SessionStatus checked = read_item(sequence, header, r, item);
                if (checked.ok()) {
                    return Status{};
                }
                if (checked.kind == SessionErrorKind::Decode) {
                    return std::move(checked.decode);
                }
                std::uint64_t at = r.bits_read();
                failure = std::move(checked);
                // Ends the packet; `failure` says why.
                return Status::error(ErrorKind::InvalidArgument, at);
            });
            if (!s.ok()) {
                if (!failure.ok()) {
                    return failure;
                }
                return SessionStatus::decode_error(std::move(s));
            }
            if (!got) {
                return SessionStatus{};
            }
            read.push_back(std::move(item));
        }
    }

    SessionStatus read_item(Sequence sequence, const ItemHeader& header, Reader& r,
                            Read& out) const {
        ItemHeader as_message{header.id, ItemKind::message()};
        out.id = header.id;
        switch (header.kind.tag) {
        case ItemTag::Message:
            return decode_message(header, r, Read::Message, out);
        case ItemTag::Request: {
            RequestCheck check = RequestCheck::New;
            IDLC_SESSION_TRY(handled_.check(header.kind.request, check));
            if (check == RequestCheck::Handled) {
                return SessionStatus{};
            }
            out.request = header.kind.request;
            return decode_message(header, r, Read::Request, out);
        }
        case ItemTag::Reliable: {
            bool is_new = false;
            IDLC_SESSION_TRY(in_order_.check(header.kind.index, is_new));
            if (!is_new) {
                return SessionStatus{};
            }
            out.index = header.kind.index;
            return decode_message(as_message, r, Read::Reliable, out);
        }
        case ItemTag::Snapshot:
            if (header.kind.age == 0) {
                IDLC_SESSION_TRY(decode_message(as_message, r, Read::Snapshot, out));
                if (out.kind == Read::Snapshot && !In::is_snapshot(out.message)) {
                    return SessionStatus::of_id(SessionErrorKind::NotASnapshot, header.id);
                }
                out.tick = 0;
                return SessionStatus{};
            }
            return read_delta(sequence, header, r, out);
        case ItemTag::Response: {
            if (!issued_request(header.kind.request)) {
                return SessionStatus::forged_request(header.kind.request);
            }
            bool refused = false;
            Status status = r.read_bool(refused);
            if (status.ok() && refused) {
                status = decode_refusal(r, out.refusal);
                if (status.ok()) {
                    out.kind = Read::Refused;
                    out.request = header.kind.request;
                    return SessionStatus{};
                }
            }
            if (!status.ok()) {
                return SessionStatus::decode_error(std::move(status));
            }
            bool known = false;
            Status s = Out::decode_response(header.id, r, out.response, known);
            if (!s.ok()) {
                return SessionStatus::decode_error(std::move(s));
            }
            if (known) {
                out.kind = Read::Response;
                out.request = header.kind.request;
            }
            return SessionStatus{};
        }
        }
        return SessionStatus{};
    }

    /// Decodes a message or call of `In`: `out` becomes `kind`, or stays Skipped for an item
    /// this version does not know.
    SessionStatus decode_message(const ItemHeader& header, Reader& r, typename Read::Kind kind,
                                 Read& out) const {
        bool known = false;
        Status s = In::decode_item(header, r, out.message, known);
        if (!s.ok()) {
            return SessionStatus::decode_error(std::move(s));
        }
        if (known) {
            out.kind = kind;
        }
        return SessionStatus{};
    }

    /// Reads a snapshot delta against the state of the packet `sequence - age`.
    SessionStatus read_delta(Sequence sequence, const ItemHeader& header, Reader& r,
                             Read& out) const {
        Sequence base = static_cast<Sequence>(sequence - header.kind.age);
        const Kept<InMessage>* baseline = states_.get(base, header.id);
        if (baseline == nullptr) {
            return SessionStatus::unknown_baseline(header.id, base);
        }
        DeltaContext ctx = DeltaContext::from_ticks(header.kind.ticks, config_.tick_seconds);
        Status s = In::decode_delta_body(baseline->value, ctx, r, out.message);
        if (!s.ok()) {
            return SessionStatus::decode_error(std::move(s));
        }
        out.kind = Read::Snapshot;
        out.tick = static_cast<std::uint32_t>(baseline->tick + header.kind.ticks);
        return SessionStatus{};
    }

    /// Whether this side ever issued `request` (ids count up from 0).
    bool issued_request(RequestId request) const noexcept {
        RequestId next = static_cast<RequestId>(issued_);
        std::uint64_t back = static_cast<RequestId>(next - request);
        return back != 0 && back <= issued_;
    }

    /// Delivers one checked item; returns how many deliveries it made.
    template <class F>
    std::size_t deliver_item(Sequence sequence, Read& item, F& deliver) {
        switch (item.kind) {
        case Read::Skipped:
            return 0;
        case Read::Message:
            (void)deliver(delivery(DeliveryKind::Message, std::move(item.message)));
            return 1;
        case Read::Request: {
            RequestCheck check = RequestCheck::Handled;
            // The same id twice in one packet: the second is a resend.
            if (!handled_.check(item.request, check).ok() || check != RequestCheck::New) {
                return 0;
            }
            handled_.record(item.request);
            DeliveryOf d = delivery(DeliveryKind::Request, std::move(item.message));
            d.request = item.request;
            AnswerOf answer(deliver(std::move(d)));
            switch (answer.kind) {
            case AnswerKind::Now: {
                OutItem queued;
                queued.kind = OutItem::Answer;
                queued.request = item.request;
                queued.answer = std::move(answer.response);
                outbox_.push(std::move(queued));
                break;
            }
            case AnswerKind::Refuse:
                push_refusal(item.request, item.id, std::move(answer.refusal));
                break;
            case AnswerKind::Later:
                deferred_.emplace_back(Token(item.request, item.id, dropped_),
                                       std::move(answer.call));
                ++outstanding_;
                break;
            case AnswerKind::None:
                // Nobody answers it: refused at the next flush, and reported.
                Token(item.request, item.id, dropped_).report();
                ++outstanding_;
                break;
            }
            return 1;
        }
        case Read::Reliable: {
            bool is_new = false;
            if (in_order_.check(item.index, is_new).ok() && is_new) {
                in_order_.insert(item.index, std::move(item.message));
            }
            std::size_t count = 0;
            while (std::optional<InMessage> message = in_order_.pop()) {
                (void)deliver(delivery(DeliveryKind::Message, std::move(*message)));
                ++count;
            }
            return count;
        }
        case Read::Snapshot: {
            auto newest = newest_snapshot_.find(item.id);
            bool is_newest =
                newest == newest_snapshot_.end() || sequence_newer(sequence, newest->second);
            std::optional<InMessage> delivered;
            if (is_newest) {
                delivered = item.message;
            }
            states_.insert(Kept<InMessage>{sequence, item.id, item.tick, true,
                                           std::move(item.message)});
            if (!delivered) {
                return 0;
            }
            newest_snapshot_[item.id] = sequence;
            DeliveryOf d = delivery(DeliveryKind::Snapshot, std::move(*delivered));
            d.sequence = sequence;
            (void)deliver(std::move(d));
            return 1;
        }
        case Read::Response:
        case Read::Refused: {
            if (!pending_.complete(item.request, item.id).ok()) {
                return 0;
            }
            auto call = calls_.find(item.request);
            if (call == calls_.end()) {
                return 0;
            }
            DeliveryOf d;
            d.call = std::move(call->second);
            calls_.erase(call);
            d.kind =
                item.kind == Read::Refused ? DeliveryKind::Refused : DeliveryKind::Response;
            d.request = item.request;
            d.response = std::move(item.response);
            d.refusal = std::move(item.refusal);
            (void)deliver(std::move(d));
            return 1;
        }
        }
        return 0;
    }

    static DeliveryOf delivery(DeliveryKind kind, InMessage message) {
        DeliveryOf d;
        d.kind = kind;
        d.message = std::move(message);
        return d;
    }

    /// Whether a reliable item is to be sent in the next packet: never sent, its packet is no
    /// longer remembered, the peer acknowledged 3 later packets but not it, or `resend_after`
    /// packets went out since.
    bool is_due(const Queued<OutItem>& queued) const noexcept {
        if (!queued.last_sent) {
            return true;
        }
        Sequence last = *queued.last_sent;
        const SentPacket* packet = sent_.find(last);
        if (packet == nullptr) {
            return true;
        }
        if (packet->acked) {
            return false;
        }
        bool overtaken =
            peer_ack_ && sequence_newer(*peer_ack_, static_cast<Sequence>(last + 2));
        return overtaken || sent_.sent_since(last) >= config_.resend_after;
    }

    /// Pushes an item into the packet being built; when that one is full, sends it and pushes
    /// the item into the next.
    template <class F>
    SendStatus push_item(Build& build, std::uint32_t id, ItemKind kind, F&& body) {
        SendStatus s = build.writer.push(id, kind, body);
        if (s.kind == SendErrorKind::PacketFull) {
            finish_packet(build);
            return build.writer.push(id, kind, body);
        }
        return s;
    }

    /// Pushes a snapshot: a delta against the newest acknowledged mirror of its message, or in
    /// full; keeps its mirror under the sequence of the packet that carries it.
    SendStatus push_snapshot(Build& build, std::uint32_t tick, const OutMessage& message) {
        std::uint32_t id = Out::id(message);
        for (int attempt = 0; attempt < 2; ++attempt) {
            Sequence sequence = sent_.next_sequence();
            const Kept<OutMessage>* kept = mirrors_.newest_acked(id);
            if (kept != nullptr) {
                Sequence age = static_cast<Sequence>(sequence - kept->sequence);
                if (age == 0 || age >= 0x8000) {
                    kept = nullptr;
                }
            }
            std::optional<OutMessage> mirror;
            SendStatus pushed;
            if (kept != nullptr) {
                Sequence age = static_cast<Sequence>(sequence - kept->sequence);
                std::uint32_t ticks = static_cast<std::uint32_t>(tick - kept->tick);
                DeltaContext ctx = DeltaContext::from_ticks(ticks, config_.tick_seconds);
                pushed = build.writer.push(id, ItemKind::snapshot(age, ticks), [&](Writer& w) {
                    OutMessage state;
                    IDLC_TRY(Out::encode_delta_body(message, kept->value, ctx, w, state));
                    mirror = std::move(state);
                    return Status{};
                });
            } else {
                pushed = build.writer.push(id, ItemKind::snapshot(0, 0), [&](Writer& w) {
                    return Out::encode_body(message, w);
                });
                if (pushed.ok()) {
                    OutMessage state;
                    Status s = Out::sent_state(message, state);
                    if (!s.ok()) {
                        return SendStatus::encode_error(std::move(s));
                    }
                    mirror = std::move(state);
                }
            }
            if (pushed.ok()) {
                build.flushed.snapshots.emplace_back(id, sequence);
                if (mirror) {
                    mirrors_.insert(Kept<OutMessage>{sequence, id, tick, false, std::move(*mirror)});
                }
                return pushed;
            }
            if (pushed.kind != SendErrorKind::PacketFull) {
                return pushed;
            }
            finish_packet(build);
        }
        SendStatus s;
        s.kind = SendErrorKind::MessageTooLarge;
        s.needed = NO_MTU;
        s.mtu = config_.mtu;
        return s;
    }

    void finish_packet(Build& build) {
        Sequence sequence = sent_.next_sequence();
        auto header = received_.header(sequence).to_bytes();
        build.flushed.packets.push_back(build.writer.finish_with_header(
            session_id(out_id()), header.data(), header.size()));
        std::vector<std::uint64_t> keys = std::move(build.keys);
        build.keys.clear();
        for (std::uint64_t key : keys) {
            outbox_.sent(key, sequence);
        }
        sent_.push(std::move(keys));
    }

    SessionConfig config_;
    std::size_t out_version_;
    std::size_t in_version_;
    SentLog sent_;
    ReceivedLog received_;
    /// The newest sequence the peer acknowledged.
    std::optional<Sequence> peer_ack_;
    std::optional<SessionTime> started_;
    std::optional<SessionTime> last_heard_;
    std::vector<OutMessage> unreliable_;
    Outbox<OutItem> outbox_;
    std::uint16_t next_reliable_ = 0;
    std::vector<std::pair<std::uint32_t, OutMessage>> snapshots_;
    Baselines<OutMessage> mirrors_;
    Pending pending_;
    /// The calls awaiting their response, by request id: what a response is delivered with.
    std::map<RequestId, OutMessage> calls_;
    std::uint64_t issued_ = 0;
    HandledRequests handled_;
    InOrder<InMessage> in_order_;
    Baselines<InMessage> states_;
    /// Per message id, the sequence of the newest snapshot delivered.
    std::map<std::uint32_t, Sequence> newest_snapshot_;
    /// The requests to answer later with their tokens, not yet taken by the game.
    std::vector<std::pair<Token, InMessage>> deferred_;
    /// Where this endpoint's tokens report their drop.
    std::shared_ptr<DroppedLog> dropped_ = std::make_shared<DroppedLog>();
    /// Tokens handed out and not yet answered (nor reported dropped).
    std::size_t outstanding_ = 0;
};

} // namespace idlc

#endif // IDLC_SESSION_ENDPOINT_HPP

// A C++ client of the UDP demo (tests/src/arena_udp/, docs/TUTORIAL.md) that plays against the
// Rust server: plain BSD sockets and the headers `idlc gen` writes for the "Client" side of
// schemas/arena_udp.idl in C++ (schemas/arena_udp_client.cpp.map), once per seed encoding:
//
//   idlc gen ../shared/seed-examples/character.idl schemas/item.idl schemas/world.idl
//       schemas/arena_udp.idl -e ../shared/seed-examples/myencoding1.enc
//       -e schemas/arena_udp_e1.enc -m schemas/arena_udp_client.cpp.map --side Client
//       --namespace arena_udp::e1 -o arena_udp_e1_client.hpp
//
// and the same with myencoding2.enc, arena_udp_e2.enc, `arena_udp::e2` and arena_udp_e2_client.hpp
// (dead reckoning). It does what the Rust client does (game_client.rs): says `hello` in the oldest
// version of UdpClientToServer, negotiates the newest versions both sides speak
// (`idlc::negotiate`), decodes every Snapshot against the World of its baseline tick and
// acknowledges it, steers its Character (`move_to`, numbered, sent again until the server counts
// it) and uses items (`use_item`, asked again under the same use id until answered), and once
// the server sends End and everything is confirmed says `bye`. Every wait has a deadline.
//
//   arena_client e1|e2 PORT [read_timeout_ms=20] [resend_after_ms=150] [join_timeout_ms=2000]
//                [deadline_ms=8000] [use_every=6] [turn_every=20]
//
// At the end it prints what it holds, one line each, for the test (tests/tests/arena_udp.rs) to
// hold against the server's records: `joined <character id> <version index from 1> <versions>`,
// `counts <name>=<value> ...` (ClientCounts' fields), `use <use id> <item id> <0|1> <left>` per
// answered `use_item`, `world <tick> <hex>` per decoded World (its full form, to compare with the
// server's mirror of that tick) and `error <text>` per thing that went wrong. Exit status 0 when
// it ran (errors included), 2 on bad arguments.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arena_udp_e1_client.hpp"
#include "arena_udp_e2_client.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

/// The largest packet any side sends (udp.rs's MTU).
constexpr std::size_t MTU = 1200;

/// The items a client asks to use, in turn (game_client.rs's USES).
constexpr std::uint32_t USES[4] = {1, 2, 2, 7};

struct Config {
    Millis read_timeout{20};
    Millis resend_after{150};
    Millis join_timeout{2000};
    Millis deadline{8000};
    std::uint32_t use_every = 6;
    std::uint32_t turn_every = 20;
};

/// ClientCounts (report.rs), printed under the same names.
struct Counts {
    std::uint32_t snapshots = 0;
    std::uint32_t snapshots_skipped = 0;
    std::uint32_t packets_sent = 0;
    std::uint64_t bytes_sent = 0;
    std::uint32_t acks = 0;
    std::uint32_t moves = 0;
    std::uint32_t moves_resent = 0;
    std::uint32_t uses = 0;
    std::uint32_t uses_resent = 0;
    std::uint32_t uses_answered = 0;
    std::uint32_t late_responses = 0;
    std::uint32_t ignored_packets = 0;
};

/// The velocity the client asks for after its `turn`-th turn (sim.rs's `client_velocity`).
std::pair<double, double> client_velocity(std::uint16_t character_id, std::uint32_t turn) {
    double heading = static_cast<double>(character_id) * 1.3 + static_cast<double>(turn) * 0.9;
    return {3.0 * std::cos(heading), 3.0 * std::sin(heading)};
}

std::string hex(const std::vector<std::uint8_t>& bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (std::uint8_t b : bytes) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out.empty() ? "-" : out;
}

/// A UDP socket on 127.0.0.1 (a port the OS picks) and the server's address.
class Socket {
public:
    explicit Socket(std::uint16_t server_port) {
        fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
        sockaddr_in local{};
        local.sin_family = AF_INET;
        local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        local.sin_port = 0;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
            error_ = std::string("cannot bind a UDP socket: ") + std::strerror(errno);
        }
        server_.sin_family = AF_INET;
        server_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        server_.sin_port = htons(server_port);
    }
    ~Socket() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;

    /// Why the socket cannot be used; empty when it can.
    const std::string& error() const { return error_; }

    /// Sends a datagram to the server.
    bool send(const std::vector<std::uint8_t>& packet, std::string& error) {
        ssize_t sent = ::sendto(fd_, packet.data(), packet.size(), 0,
                                reinterpret_cast<const sockaddr*>(&server_), sizeof server_);
        if (sent < 0) {
            error = "cannot send " + std::to_string(packet.size()) + " bytes: " + std::strerror(errno);
            return false;
        }
        return true;
    }

    /// Waits for one datagram from the server until `until`, blocking at most `step` at a time:
    /// its length, or none once `until` has passed. Datagrams from elsewhere are dropped.
    std::optional<std::size_t> receive_until(std::uint8_t* buffer, std::size_t size, Clock::time_point until,
                                             Millis step, std::string& error) {
        for (;;) {
            Clock::time_point now = Clock::now();
            if (now >= until) {
                return std::nullopt;
            }
            auto left = std::chrono::duration_cast<Millis>(until - now);
            int wait = static_cast<int>(std::max<long long>(1, std::min(left, step).count()));
            pollfd p{fd_, POLLIN, 0};
            int ready = ::poll(&p, 1, wait);
            if (ready < 0 && errno != EINTR) {
                error = std::string("cannot wait for a packet: ") + std::strerror(errno);
                return std::nullopt;
            }
            if (ready <= 0) {
                continue;
            }
            sockaddr_in from{};
            socklen_t from_size = sizeof from;
            ssize_t got = ::recvfrom(fd_, buffer, size, 0, reinterpret_cast<sockaddr*>(&from), &from_size);
            if (got < 0) {
                // An ICMP "port unreachable" from a server that already left, or a signal.
                if (errno == ECONNREFUSED || errno == EINTR || errno == EAGAIN) {
                    continue;
                }
                error = std::string("cannot receive: ") + std::strerror(errno);
                return std::nullopt;
            }
            if (from.sin_addr.s_addr == server_.sin_addr.s_addr && from.sin_port == server_.sin_port) {
                return static_cast<std::size_t>(got);
            }
        }
    }

private:
    int fd_ = -1;
    sockaddr_in server_{};
    std::string error_;
};

/// The generated types of one build (`Net`: the namespace `idlc gen` wrote them in).
#define ARENA_NET(name, ns)                                                 \
    struct name {                                                           \
        using Encoding = ns::DefaultEncoding;                               \
        using World = ns::World;                                            \
        using Hello = ns::Hello;                                            \
        using HelloReply = ns::HelloReply;                                  \
        using MoveTo = ns::MoveTo;                                          \
        using UseResult = ns::UseResult;                                    \
        using Snapshot = ns::Snapshot;                                      \
        using End = ns::End;                                                \
        using ClientToServer = ns::UdpClientToServer;                       \
        using ServerToClient = ns::UdpServerToClient;                       \
        using Sender = ns::UdpClientToServerSender<>;                       \
        using Receiver = ns::UdpServerToClientReceiver<>;                   \
        using Handler = ns::UdpServerToClientHandler;                       \
        using ResponseHandler = ns::UdpClientToServerResponseHandler;       \
    }

ARENA_NET(E1, arena_udp::e1);
ARENA_NET(E2, arena_udp::e2);

/// A client: joins, acknowledges, steers, uses items, leaves (game_client.rs, step by step).
template <class Net>
class Client {
    using E = typename Net::Encoding;
    using World = typename Net::World;
    using MoveTo = typename Net::MoveTo;

public:
    Client(const Config& config, std::uint16_t server_port)
        : config_(config), socket_(server_port), sender_(oldest_c2s(), MTU), receiver_(oldest_s2c()),
          responses_(*this) {}

    /// Plays until the match is over and everything is confirmed, then prints what it holds.
    void run() {
        Clock::time_point deadline = Clock::now() + config_.deadline;
        if (!socket_.error().empty()) {
            errors_.push_back(socket_.error());
        } else if (join(deadline)) {
            play(deadline);
        }
        print();
    }

private:
    struct PendingUse {
        std::uint32_t item_id = 0;
        idlc::RequestId request = 0;
        Clock::time_point sent_at;
    };
    struct UseRecord {
        std::uint32_t item_id = 0;
        bool used = false;
        unsigned left = 0;
    };

    static std::uint64_t oldest_c2s() { return Net::ClientToServer::template versions_with<E>().ids[0]; }
    static std::uint64_t oldest_s2c() { return Net::ServerToClient::template versions_with<E>().ids[0]; }

    /// The handler of UdpServerToClient: decodes each Snapshot against the World of its baseline.
    class Inbox : public Net::Handler {
    public:
        void snapshot(typename Net::Snapshot message) override {
            moves_handled = std::max(moves_handled, message.moves_handled);
            auto baseline = worlds.find(message.baseline_tick);
            if (message.tick <= latest || baseline == worlds.end()) {
                ++skipped;  // older than one decoded already (reordered), or unknown baseline
                return;
            }
            // Seconds since the baseline, from tick counts: the same number as the server's.
            std::uint32_t ticks = message.tick - std::min(message.tick, message.baseline_tick);
            idlc::DeltaContext ctx = idlc::DeltaContext::from_ticks(ticks, tick_seconds);
            idlc::BitReader r(message.world.data(), message.world.size());
            World world;
            idlc::Status s = world.decode_delta(baseline->second, ctx, r);
            if (!s.ok()) {
                errors.push_back("tick " + std::to_string(message.tick) + ": " + s.to_string());
                return;
            }
            worlds[message.tick] = std::move(world);
            latest = message.tick;
            new_ticks.push_back(message.tick);
            ++decoded;
        }
        void end(typename Net::End message) override {
            moves_handled = std::max(moves_handled, message.moves_handled);
            ended = true;
            ++ends;
        }

        double tick_seconds = 1.0;
        /// Tick 0, the first baseline, is the empty World: both sides start from it.
        std::map<std::uint32_t, World> worlds{{0, World{}}};
        std::uint32_t latest = 0;
        std::vector<std::uint32_t> new_ticks;
        std::uint32_t decoded = 0;
        std::uint32_t moves_handled = 0;
        bool ended = false;
        std::uint32_t ends = 0;
        std::uint32_t skipped = 0;
        std::vector<std::string> errors;
    };

    /// The handler of the responses to UdpClientToServer's requests.
    class Responses : public Net::ResponseHandler {
    public:
        explicit Responses(Client& client) : client_(client) {}
        void hello(idlc::RequestId, typename Net::HelloReply value) override {
            if (client_.joined_) {
                ++client_.counts_.late_responses;  // the answer to a hello asked again
            } else {
                client_.reply_ = std::move(value);
            }
        }
        void use_item(idlc::RequestId request, typename Net::UseResult value) override {
            client_.on_use_result(request, value.used, value.left);
        }
        void error(const idlc::ResponseError& failure) override {
            if (failure.kind == idlc::ResponseErrorKind::UnknownRequest) {
                ++client_.counts_.late_responses;  // a request asked again since (`forget`)
            } else {
                client_.errors_.push_back("a response: " + failure.to_string());
            }
        }

    private:
        Client& client_;
    };

    /// Says `hello` in the oldest version until the server answers, then switches both
    /// protocols to the newest version both sides speak.
    bool join(Clock::time_point deadline) {
        idlc::Versions ours_c2s = Net::ClientToServer::template versions_with<E>();
        idlc::Versions ours_s2c = Net::ServerToClient::template versions_with<E>();
        typename Net::Hello hello;
        hello.server_to_client.assign(ours_s2c.begin(), ours_s2c.end());
        hello.client_to_server.assign(ours_c2s.begin(), ours_c2s.end());
        Clock::time_point give_up = std::min(Clock::now() + config_.join_timeout, deadline);
        for (;;) {
            idlc::RequestId request = 0;
            idlc::SendStatus called = sender_.call_hello(hello, request);
            if (!called.ok()) {
                errors_.push_back("hello: " + called.to_string());
                return false;
            }
            if (!send(sender_.finish())) {
                return false;
            }
            Clock::time_point resend_at = std::min(Clock::now() + config_.resend_after, give_up);
            while (std::optional<std::size_t> got = receive(resend_at)) {
                std::size_t count = 0;
                if (!sender_.read_responses(buffer_, *got, responses_, count).ok()) {
                    ++counts_.ignored_packets;
                }
                if (reply_) {
                    return joined(*reply_, ours_c2s, ours_s2c);
                }
            }
            if (!io_error_.empty()) {
                return false;
            }
            if (Clock::now() >= give_up) {
                errors_.push_back("no answer to hello within " + std::to_string(config_.join_timeout.count()) +
                                  " ms");
                return false;
            }
            // Unanswered: ask again; an answer to this request is now an unknown one.
            sender_.forget(request);
        }
    }

    bool joined(const typename Net::HelloReply& reply, idlc::Versions ours_c2s, idlc::Versions ours_s2c) {
        auto c2s = idlc::negotiate(ours_c2s, reply.client_to_server);
        auto s2c = idlc::negotiate(ours_s2c, reply.server_to_client);
        if (!c2s || !s2c) {
            errors_.push_back("the server shares no version of a protocol");
            return false;
        }
        if (!reply.character_id) {
            errors_.push_back("the server has no Character for us");
            return false;
        }
        character_id_ = *reply.character_id;
        version_ = {c2s->first + 1, ours_c2s.size()};
        sender_.set_version(c2s->second);
        receiver_.set_version(s2c->second);
        inbox_.tick_seconds = 1.0 / static_cast<double>(std::max<std::uint16_t>(reply.tick_hz, 1));
        tick_interval_ = Millis(1000 / std::max<std::uint16_t>(reply.tick_hz, 1));
        next_use_at_ = std::max<std::uint32_t>(config_.use_every, 1);
        joined_ = true;
        return true;
    }

    /// Per packet from the server: acknowledges new Snapshots, steers and uses items; sends again
    /// what is unconfirmed for too long; once the match is over and everything is confirmed, leaves.
    void play(Clock::time_point deadline) {
        for (;;) {
            Clock::time_point now = Clock::now();
            if (now >= deadline) {
                errors_.push_back("the deadline passed with " + std::to_string(moves_.size()) +
                                  " move_to and " + std::to_string(uses_.size()) + " use_item unconfirmed");
                return;
            }
            if (std::optional<std::size_t> got = receive(std::min(now + config_.read_timeout, deadline))) {
                on_packet(*got);
            }
            if (!io_error_.empty()) {
                return;
            }
            std::vector<std::uint32_t> ticks;
            std::swap(ticks, inbox_.new_ticks);
            for (std::uint32_t tick : ticks) {
                if (!push([&] { return sender_.ack(tick); })) {
                    return;
                }
                ++counts_.acks;
                if (!inbox_.ended && !act()) {
                    return;
                }
            }
            while (!moves_.empty() && moves_.front().first.seq < inbox_.moves_handled) {
                moves_.pop_front();
            }
            if (!resend() || !flush()) {
                return;
            }
            if (inbox_.ended && moves_.empty() && uses_.empty()) {
                leave(deadline);
                return;
            }
        }
    }

    /// A packet of UdpServerToClient goes to the inbox; any other is a reply packet of
    /// UdpClientToServer (the responses to `use_item`).
    void on_packet(std::size_t size) {
        idlc::DispatchStatus d = receiver_.dispatch(buffer_, size, inbox_);
        if (d.ok()) {
            return;
        }
        if (d.kind == idlc::DispatchErrorKind::Decode && d.decode.kind == idlc::ErrorKind::CrcMismatch) {
            std::size_t count = 0;
            if (!sender_.read_responses(buffer_, size, responses_, count).ok()) {
                ++counts_.ignored_packets;  // neither protocol in its version: a late answer to a hello
            }
            return;
        }
        errors_.push_back("a packet from the server: " + d.to_string());
    }

    void on_use_result(idlc::RequestId request, bool used, unsigned left) {
        auto pending = std::find_if(uses_.begin(), uses_.end(),
                                    [&](const auto& u) { return u.second.request == request; });
        if (pending == uses_.end()) {
            ++counts_.late_responses;
            return;
        }
        answered_[pending->first] = UseRecord{pending->second.item_id, used, left};
        uses_.erase(pending);
        ++counts_.uses_answered;
    }

    /// What the player does on each new Snapshot: steers (a new velocity every `turn_every`
    /// Snapshots), and every `use_every` Snapshots uses an item.
    bool act() {
        std::uint32_t n = counts_.acks;
        auto [vx, vy] = client_velocity(character_id_, n / std::max<std::uint32_t>(config_.turn_every, 1));
        MoveTo call;
        call.seq = counts_.moves;
        call.vx = vx;
        call.vy = vy;
        if (!push([&] { return sender_.call_move_to(call); })) {
            return false;
        }
        moves_.emplace_back(call, Clock::now());
        ++counts_.moves;
        if (n >= next_use_at_) {
            next_use_at_ = n + std::max<std::uint32_t>(config_.use_every, 1);
            std::uint32_t use_id = counts_.uses;
            std::uint32_t item_id = USES[use_id % 4];
            idlc::RequestId request = 0;
            if (!push([&] { return sender_.use_item(use_id, item_id, request); })) {
                return false;
            }
            uses_[use_id] = PendingUse{item_id, request, Clock::now()};
            ++counts_.uses;
        }
        return true;
    }

    /// Sends again the `move_to`s unconfirmed and every `use_item` unanswered for `resend_after`
    /// (go-back-N for the moves: the server takes them in order only).
    bool resend() {
        Clock::time_point now = Clock::now();
        auto due = [&](Clock::time_point at) { return now - at >= config_.resend_after; };
        if (!moves_.empty() && due(moves_.front().second)) {
            for (auto& move : moves_) {
                if (!push([&] { return sender_.call_move_to(move.first); })) {
                    return false;
                }
                move.second = now;
                ++counts_.moves_resent;
            }
        }
        for (auto& entry : uses_) {
            PendingUse& pending = entry.second;
            if (!due(pending.sent_at)) {
                continue;
            }
            sender_.forget(pending.request);
            idlc::RequestId request = 0;
            if (!push([&] { return sender_.use_item(entry.first, pending.item_id, request); })) {
                return false;
            }
            pending.request = request;
            pending.sent_at = now;
            ++counts_.uses_resent;
        }
        return true;
    }

    /// Adds a call to the packet being built; when the packet is full, sends it and adds the call
    /// to the next.
    template <class Add>
    bool push(Add add) {
        idlc::SendStatus s = add();
        if (s.kind == idlc::SendErrorKind::PacketFull) {
            if (!flush()) {
                return false;
            }
            s = add();
        }
        if (!s.ok()) {
            errors_.push_back(s.to_string());
            return false;
        }
        return true;
    }

    /// Sends the packet being built, if it holds anything.
    bool flush() { return sender_.empty() || send(sender_.finish()); }

    bool send(const std::vector<std::uint8_t>& packet) {
        if (!socket_.send(packet, io_error_)) {
            errors_.push_back(io_error_);
            return false;
        }
        ++counts_.packets_sent;
        counts_.bytes_sent += packet.size();
        return true;
    }

    std::optional<std::size_t> receive(Clock::time_point until) {
        std::optional<std::size_t> got =
            socket_.receive_until(buffer_, sizeof buffer_, until, config_.read_timeout, io_error_);
        if (!io_error_.empty() && !got) {
            errors_.push_back(io_error_);
        }
        return got;
    }

    /// Says `bye`, and again while the server keeps sending End; done after three quiet ticks.
    void leave(Clock::time_point deadline) {
        Clock::time_point give_up = std::min(Clock::now() + config_.join_timeout, deadline);
        for (;;) {
            if (!push([&] { return sender_.bye(); }) || !flush()) {
                return;
            }
            Clock::time_point quiet_until = Clock::now() + 3 * tick_interval_;
            std::uint32_t ends = inbox_.ends;
            while (inbox_.ends == ends) {
                std::optional<std::size_t> got = receive(quiet_until);
                if (!got) {
                    return;
                }
                on_packet(*got);
            }
            if (Clock::now() >= give_up) {
                return;
            }
        }
    }

    void print() {
        counts_.snapshots = inbox_.decoded;
        counts_.snapshots_skipped = inbox_.skipped;
        errors_.insert(errors_.end(), inbox_.errors.begin(), inbox_.errors.end());
        if (joined_) {
            std::printf("joined %u %zu %zu\n", static_cast<unsigned>(character_id_), version_.first,
                        version_.second);
        }
        const Counts& c = counts_;
        std::printf("counts snapshots=%u snapshots_skipped=%u packets_sent=%u bytes_sent=%llu acks=%u "
                    "moves=%u moves_resent=%u uses=%u uses_resent=%u uses_answered=%u late_responses=%u "
                    "ignored_packets=%u\n",
                    c.snapshots, c.snapshots_skipped, c.packets_sent, static_cast<unsigned long long>(c.bytes_sent),
                    c.acks, c.moves, c.moves_resent, c.uses, c.uses_resent, c.uses_answered, c.late_responses,
                    c.ignored_packets);
        for (const auto& [use_id, record] : answered_) {
            std::printf("use %u %u %d %u\n", use_id, record.item_id, record.used ? 1 : 0, record.left);
        }
        std::vector<std::uint8_t> bytes;
        for (const auto& [tick, world] : inbox_.worlds) {
            if (tick == 0) {
                continue;
            }
            idlc::Status s = world.to_bytes(bytes);
            if (!s.ok()) {
                std::printf("error the World of tick %u does not encode: %s\n", tick, s.to_string().c_str());
                continue;
            }
            std::printf("world %u %s\n", tick, hex(bytes).c_str());
        }
        for (const std::string& e : errors_) {
            std::printf("error %s\n", e.c_str());
        }
    }

    Config config_;
    Socket socket_;
    typename Net::Sender sender_;
    typename Net::Receiver receiver_;
    Inbox inbox_;
    Responses responses_;
    std::optional<typename Net::HelloReply> reply_;
    bool joined_ = false;
    std::uint16_t character_id_ = 0;
    std::pair<std::size_t, std::size_t> version_{0, 0};
    Millis tick_interval_{33};
    /// `move_to`s the server has not confirmed yet, oldest first, with when each was last sent.
    std::deque<std::pair<MoveTo, Clock::time_point>> moves_;
    /// `use_item`s not answered yet, by use id.
    std::map<std::uint32_t, PendingUse> uses_;
    std::map<std::uint32_t, UseRecord> answered_;
    std::uint32_t next_use_at_ = 1;
    Counts counts_;
    std::vector<std::string> errors_;
    std::string io_error_;
    std::uint8_t buffer_[2048] = {};
};

/// `key=value` with a value in 0..=10^9.
bool option(const char* arg, const char* key, long long& out) {
    std::size_t n = std::strlen(key);
    if (std::strncmp(arg, key, n) != 0 || arg[n] != '=') {
        return false;
    }
    char* end = nullptr;
    long long value = std::strtoll(arg + n + 1, &end, 10);
    if (end == arg + n + 1 || *end != '\0' || value < 0 || value > 1000000000) {
        return false;
    }
    out = value;
    return true;
}

int usage() {
    std::fprintf(stderr,
                 "usage: arena_client e1|e2 PORT [read_timeout_ms=N] [resend_after_ms=N] "
                 "[join_timeout_ms=N] [deadline_ms=N] [use_every=N] [turn_every=N]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        return usage();
    }
    std::string encoding = argv[1];
    char* end = nullptr;
    long port = std::strtol(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || port <= 0 || port > 65535) {
        return usage();
    }
    Config config;
    for (int i = 3; i < argc; ++i) {
        long long v = 0;
        if (option(argv[i], "read_timeout_ms", v)) {
            config.read_timeout = Millis(v);
        } else if (option(argv[i], "resend_after_ms", v)) {
            config.resend_after = Millis(v);
        } else if (option(argv[i], "join_timeout_ms", v)) {
            config.join_timeout = Millis(v);
        } else if (option(argv[i], "deadline_ms", v)) {
            config.deadline = Millis(v);
        } else if (option(argv[i], "use_every", v)) {
            config.use_every = static_cast<std::uint32_t>(v);
        } else if (option(argv[i], "turn_every", v)) {
            config.turn_every = static_cast<std::uint32_t>(v);
        } else {
            return usage();
        }
    }
    auto server_port = static_cast<std::uint16_t>(port);
    if (encoding == "e1") {
        Client<E1>(config, server_port).run();
    } else if (encoding == "e2") {
        Client<E2>(config, server_port).run();
    } else {
        return usage();
    }
    return 0;
}

// A C++ client of the UDP demo (tests/src/arena_udp/, docs/TUTORIAL.md) that plays against the
// Rust server over a session: plain BSD sockets, the C++ session runtime (idlc/session.hpp) and
// the headers `idlc gen` writes for the "Client" side of schemas/arena_udp.idl in C++
// (schemas/arena_udp_client.cpp.map), once per seed encoding:
//
//   idlc gen ../shared/seed-examples/character.idl schemas/item.idl schemas/arena_udp.idl
//       -e ../shared/seed-examples/myencoding1.enc -e schemas/arena_udp_e1.enc
//       -m schemas/arena_udp_client.cpp.map --side Client --namespace arena_udp::e1
//       -o arena_udp_e1_client.hpp
//
// and the same with myencoding2.enc, arena_udp_e2.enc, `arena_udp::e2` and arena_udp_e2_client.hpp
// (dead reckoning). It does what the Rust client does (game_client.rs): one endpoint
// (`UdpClientToServerEndpoint<UdpServerToClientSession>`) that says `hello` (a request), steers
// its Character on each of its ticks (`move_to`, sent reliably) and uses items (`use_item`, a
// request answered once), keeps every World it is delivered, and once the match is over and
// everything it sent is acknowledged says `bye`. What it sends goes through a link that loses,
// duplicates and reorders datagrams on purpose, as the Rust sides' do. Every wait has a deadline.
//
//   arena_client e1|e2 PORT [read_timeout_ms=20] [join_timeout_ms=2000] [deadline_ms=8000]
//                [use_every=6] [turn_every=20] [tick_hz=30] [seed=N] [loss=P]
//                [duplication=P] [reordering=P]
//
// At the end it prints what it holds, one line each, for the test (tests/tests/arena_udp.rs) to
// hold against the server's records: `joined <character id> <version from 1> <versions>`,
// `counts <name>=<value> ...` (ClientCounts' fields), `use <item id> <0|1> <left>` per answered
// `use_item`, `world <tick> <hex>` per World delivered (its full form, to compare with the
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

/// What the network does to each datagram sent (mod.rs's `Network`).
struct Network {
    double loss = 0.0;
    double duplication = 0.0;
    double reordering = 0.0;
};

struct Config {
    Millis read_timeout{20};
    Millis join_timeout{2000};
    Millis deadline{8000};
    std::uint32_t use_every = 6;
    std::uint32_t turn_every = 20;
    std::uint32_t tick_hz = 30;
    std::uint64_t seed = 0;
    Network network;
};

/// ClientCounts (report.rs), printed under the same names.
struct Counts {
    std::uint32_t snapshots = 0;
    std::uint32_t packets_sent = 0;
    std::uint64_t bytes_sent = 0;
    std::uint32_t packets_received = 0;
    std::uint32_t packets_refused = 0;
    std::uint32_t moves = 0;
    std::uint32_t uses = 0;
    std::uint32_t uses_answered = 0;
    std::uint32_t chats = 0;
};

/// The refusal code of a `use_item` of an item the Character does not hold (NO_SUCH_ITEM in
/// tests/src/arena_udp/mod.rs).
constexpr std::uint32_t NO_SUCH_ITEM = 1;

/// A `use_item` answer: the item asked for, whether it was used, what is left.
struct UseRecord {
    std::uint32_t item_id = 0;
    bool used = false;
    unsigned left = 0;
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

/// A seeded stream of doubles in [0, 1) (SplitMix64).
class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    /// Whether something of `probability` happens.
    bool happens(double probability) {
        state_ += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = state_;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return probability > 0.0 && static_cast<double>(z >> 11) * 0x1.0p-53 < probability;
    }

private:
    std::uint64_t state_;
};

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

/// The network between the client and the server, made bad on purpose (udp.rs's `Link`): each
/// datagram may be lost, held back behind the next one, or sent twice.
class Link {
public:
    Link(Network network, std::uint64_t seed) : network_(network), random_(seed) {}

    bool send(Socket& socket, const std::vector<std::uint8_t>& packet, std::string& error) {
        if (random_.happens(network_.loss)) {
            return true;
        }
        if (!held_ && random_.happens(network_.reordering)) {
            held_ = packet;
            return true;
        }
        if (!socket.send(packet, error)) {
            return false;
        }
        if (random_.happens(network_.duplication) && !socket.send(packet, error)) {
            return false;
        }
        if (held_) {
            std::vector<std::uint8_t> late = std::move(*held_);
            held_.reset();
            return socket.send(late, error);
        }
        return true;
    }

private:
    Network network_;
    Random random_;
    std::optional<std::vector<std::uint8_t>> held_;
};

/// The generated types of one build (`Net`: the namespace `idlc gen` wrote them in).
#define ARENA_NET(name, ns)                                                                  \
    struct name {                                                                            \
        using World = ns::World;                                                             \
        using Hello = ns::Hello;                                                             \
        using Bye = ns::Bye;                                                                 \
        using MoveTo = ns::MoveTo;                                                           \
        using UseItem = ns::UseItem;                                                         \
        using Snapshot = ns::Snapshot;                                                       \
        using End = ns::End;                                                                 \
        using Chat = ns::Chat;                                                               \
        using HelloResponse = ns::HelloResponse;                                             \
        using UseItemResponse = ns::UseItemResponse;                                         \
        using ClientToServer = ns::UdpClientToServer;                                        \
        using Endpoint = ns::UdpClientToServerEndpoint<ns::UdpServerToClientSession>;        \
        using Session = ns::UdpClientToServerSession<>;                                      \
        using Response = ns::UdpClientToServerResponse;                                      \
        using Delivery = Endpoint::DeliveryOf;                                               \
        using Answer = std::optional<ns::UdpServerToClientResponse>;                         \
    }

ARENA_NET(E1, arena_udp::e1);
ARENA_NET(E2, arena_udp::e2);

/// A client: joins, steers, uses items, leaves (game_client.rs, step by step).
template <class Net>
class Client {
    using World = typename Net::World;

public:
    Client(const Config& config, std::uint16_t server_port, std::uint64_t index)
        : config_(config), socket_(server_port), endpoint_(session(config)),
          link_(config.network, config.seed ^ (0xc1 + index)) {}

    /// Plays until the match is over and everything is acknowledged, then prints what it holds.
    void run() {
        if (!socket_.error().empty()) {
            errors_.push_back(socket_.error());
        } else {
            play();
        }
        print();
    }

private:
    /// The sessions' settings (mod.rs's `Config::session`): the same on both sides.
    static idlc::SessionConfig session(const Config& config) {
        idlc::SessionConfig s;
        s.mtu = MTU;
        s.resend_after = 4;
        s.timeout = config.join_timeout;
        s.tick_seconds = 1.0 / static_cast<double>(std::max<std::uint32_t>(config.tick_hz, 1));
        return s;
    }

    /// The session clock: the time since the client started.
    idlc::SessionTime now() const { return Clock::now() - started_; }

    /// Says `hello`, then on each of its ticks reads what came, acts and sends; once the match
    /// is over and everything it sent is acknowledged, says `bye` and waits for its
    /// acknowledgement.
    void play() {
        Clock::time_point deadline = started_ + config_.deadline;
        if (!call(typename Net::Hello{})) {
            return;
        }
        auto interval = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(1.0 / static_cast<double>(std::max<std::uint32_t>(config_.tick_hz, 1))));
        Clock::time_point next = Clock::now();
        std::uint32_t ticks = 0;
        bool said_bye = false;
        for (;;) {
            next += interval;
            receive_until(std::min(next, deadline));
            if (!io_error_.empty()) {
                return;
            }
            idlc::Usage usage = endpoint_.usage();
            if (Clock::now() >= deadline) {
                errors_.push_back("the deadline passed with " + std::to_string(usage.pending_requests) +
                                  " requests and " + std::to_string(usage.queued_reliable) +
                                  " reliable messages unacknowledged");
                return;
            }
            if (character_id_ && !ended_) {
                ++ticks;
                if (!act(ticks)) {
                    return;
                }
            }
            bool settled = usage.pending_requests == 0 && usage.queued_reliable == 0;
            if (ended_ && settled) {
                if (said_bye) {
                    return;  // the bye is acknowledged
                }
                if (!check(endpoint_.send_reliable(typename Net::Bye{}))) {
                    return;
                }
                said_bye = true;
            }
            if (!flush()) {
                return;
            }
        }
    }

    /// What the player does on its `tick`: steers (a new velocity every `turn_every` ticks),
    /// and every `use_every` ticks uses an item.
    bool act(std::uint32_t tick) {
        auto [vx, vy] = client_velocity(*character_id_, tick / std::max<std::uint32_t>(config_.turn_every, 1));
        typename Net::MoveTo move;
        move.vx = vx;
        move.vy = vy;
        if (!check(endpoint_.send_reliable(move))) {
            return false;
        }
        ++counts_.moves;
        if (tick % std::max<std::uint32_t>(config_.use_every, 1) == 0) {
            typename Net::UseItem use;
            use.item_id = USES[counts_.uses % 4];
            std::optional<idlc::RequestId> request = call(use);
            if (!request) {
                return false;
            }
            uses_[*request] = use.item_id;
            ++counts_.uses;
        }
        return true;
    }

    /// Sends a call that expects a response; its request id.
    template <class Call>
    std::optional<idlc::RequestId> call(Call c) {
        std::optional<idlc::RequestId> request;
        if (!check(endpoint_.send(std::move(c), request))) {
            return std::nullopt;
        }
        if (!request) {
            errors_.push_back("a request got no request id");
        }
        return request;
    }

    bool check(const idlc::SessionStatus& s) {
        if (!s.ok()) {
            errors_.push_back(s.to_string());
        }
        return s.ok();
    }

    /// Hands every datagram from the server that comes before `until` to the endpoint.
    void receive_until(Clock::time_point until) {
        while (std::optional<std::size_t> got =
                   socket_.receive_until(buffer_, sizeof buffer_, until, config_.read_timeout, io_error_)) {
            idlc::SessionStatus s = endpoint_.receive(
                now(), buffer_, *got, [this](typename Net::Delivery&& d) { return deliver(std::move(d)); });
            if (s.ok()) {
                ++counts_.packets_received;
            } else {
                ++counts_.packets_refused;
                if (s.kind != idlc::SessionErrorKind::Duplicate && s.kind != idlc::SessionErrorKind::Stale) {
                    errors_.push_back("a packet from the server: " + s.to_string());
                }
            }
        }
        if (!io_error_.empty()) {
            errors_.push_back(io_error_);
        }
    }

    /// What the endpoint delivers: Snapshots (each newer than the last), the End, answers.
    typename Net::Answer deliver(typename Net::Delivery&& d) {
        switch (d.kind) {
        case idlc::DeliveryKind::Snapshot:
            if (auto* snapshot = std::get_if<typename Net::Snapshot>(&d.message)) {
                worlds_[snapshot->world.tick] = std::move(snapshot->world);
                ++counts_.snapshots;
            }
            break;
        case idlc::DeliveryKind::Message:
            if (std::get_if<typename Net::End>(&d.message)) {
                ended_ = true;
            } else if (auto* line = std::get_if<typename Net::Chat>(&d.message)) {
                if (last_chat_ && line->tick <= *last_chat_) {
                    errors_.push_back("chat line of tick " + std::to_string(line->tick) +
                                      " out of order");
                }
                last_chat_ = line->tick;
                ++counts_.chats;
            }
            break;
        case idlc::DeliveryKind::Response:
            if (auto* hello = std::get_if<typename Net::HelloResponse>(&d.response)) {
                character_id_ = hello->value;
            } else if (auto* use = std::get_if<typename Net::UseItemResponse>(&d.response)) {
                auto pending = uses_.find(d.request);
                if (pending == uses_.end()) {
                    errors_.push_back("an answer to no call: " + std::to_string(d.request));
                } else {
                    answered_.push_back(UseRecord{pending->second, use->value.used, use->value.left});
                    uses_.erase(pending);
                    ++counts_.uses_answered;
                }
            }
            break;
        case idlc::DeliveryKind::Request:
            errors_.push_back("the server sent a request");
            break;
        case idlc::DeliveryKind::Refused: {
            // The server refuses the use of an item the Character does not hold.
            auto pending = uses_.find(d.request);
            if (pending == uses_.end() || d.refusal.code != NO_SUCH_ITEM) {
                errors_.push_back("the server refused call " + std::to_string(d.request) + ": " +
                                  d.refusal.text);
            } else {
                answered_.push_back(UseRecord{pending->second, false, 0});
                uses_.erase(pending);
                ++counts_.uses_answered;
            }
            break;
        }
        }
        return std::nullopt;
    }

    /// Sends the packets the endpoint builds: what is queued, what is due again, the
    /// acknowledgements.
    bool flush() {
        for (const std::vector<std::uint8_t>& packet : endpoint_.flush(now()).packets) {
            if (!link_.send(socket_, packet, io_error_)) {
                errors_.push_back(io_error_);
                return false;
            }
            ++counts_.packets_sent;
            counts_.bytes_sent += packet.size();
        }
        return true;
    }

    void print() {
        if (character_id_) {
            std::size_t versions = Net::Session::versions().size();
            std::printf("joined %u %zu %zu\n", static_cast<unsigned>(*character_id_),
                        endpoint_.versions().first + 1, versions);
        }
        const Counts& c = counts_;
        std::printf("counts snapshots=%u packets_sent=%u bytes_sent=%llu packets_received=%u "
                    "packets_refused=%u moves=%u uses=%u uses_answered=%u chats=%u\n",
                    c.snapshots, c.packets_sent, static_cast<unsigned long long>(c.bytes_sent),
                    c.packets_received, c.packets_refused, c.moves, c.uses, c.uses_answered,
                    c.chats);
        for (const UseRecord& record : answered_) {
            std::printf("use %u %d %u\n", record.item_id, record.used ? 1 : 0, record.left);
        }
        std::vector<std::uint8_t> bytes;
        for (const auto& [tick, world] : worlds_) {
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
    Clock::time_point started_ = Clock::now();
    typename Net::Endpoint endpoint_;
    Link link_;
    std::optional<std::uint16_t> character_id_;
    bool ended_ = false;
    std::optional<std::uint32_t> last_chat_;
    /// The World of every tick delivered.
    std::map<std::uint32_t, World> worlds_;
    /// The `use_item`s awaiting their answer: the item asked for, by request id.
    std::map<idlc::RequestId, std::uint32_t> uses_;
    std::vector<UseRecord> answered_;
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

/// `key=value` with a value in 0..=2^64-1.
bool option(const char* arg, const char* key, std::uint64_t& out) {
    std::size_t n = std::strlen(key);
    if (std::strncmp(arg, key, n) != 0 || arg[n] != '=') {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(arg + n + 1, &end, 10);
    if (end == arg + n + 1 || *end != '\0' || errno != 0 || arg[n + 1] == '-') {
        return false;
    }
    out = value;
    return true;
}

/// `key=value` with a probability in [0, 1].
bool option(const char* arg, const char* key, double& out) {
    std::size_t n = std::strlen(key);
    if (std::strncmp(arg, key, n) != 0 || arg[n] != '=') {
        return false;
    }
    char* end = nullptr;
    double value = std::strtod(arg + n + 1, &end);
    if (end == arg + n + 1 || *end != '\0' || !(value >= 0.0 && value <= 1.0)) {
        return false;
    }
    out = value;
    return true;
}

int usage() {
    std::fprintf(stderr,
                 "usage: arena_client e1|e2 PORT [read_timeout_ms=N] [join_timeout_ms=N] [deadline_ms=N] "
                 "[use_every=N] [turn_every=N] [tick_hz=N] [seed=N] [loss=P] [duplication=P] "
                 "[reordering=P]\n");
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
        } else if (option(argv[i], "join_timeout_ms", v)) {
            config.join_timeout = Millis(v);
        } else if (option(argv[i], "deadline_ms", v)) {
            config.deadline = Millis(v);
        } else if (option(argv[i], "use_every", v)) {
            config.use_every = static_cast<std::uint32_t>(v);
        } else if (option(argv[i], "turn_every", v)) {
            config.turn_every = static_cast<std::uint32_t>(v);
        } else if (option(argv[i], "tick_hz", v)) {
            config.tick_hz = static_cast<std::uint32_t>(v);
        } else if (option(argv[i], "seed", config.seed) || option(argv[i], "loss", config.network.loss) ||
                   option(argv[i], "duplication", config.network.duplication) ||
                   option(argv[i], "reordering", config.network.reordering)) {
        } else {
            return usage();
        }
    }
    auto server_port = static_cast<std::uint16_t>(port);
    // The C++ client is the last of the demo's clients: its link's seed differs from theirs.
    constexpr std::uint64_t index = 99;
    if (encoding == "e1") {
        Client<E1>(config, server_port, index).run();
    } else if (encoding == "e2") {
        Client<E2>(config, server_port, index).run();
    } else {
        return usage();
    }
    return 0;
}

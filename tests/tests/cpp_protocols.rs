//! Packets between Rust and C++ (docs/CPP.md, "Protocols"): every message and RPC of the bundled
//! protocols (the arena's three, edge's two, the Lobbies of derives and markers), in every
//! encoding of their C++ header sets and in each version, sent by the generated Rust code
//! (`Messages::encode_item`, as a sender's stubs do) and dispatched by the generated C++
//! receiver, whose handler sends each message again through the generated C++ sender: the
//! C++ packet must be the Rust packet byte for byte, and the Rust code must read it back to the
//! same values. The C++ receiver answers the requests with given values: the Rust code reads its
//! reply packets (`read_responses`) as those values; for ArenaPing and Edges, whose Rust side
//! receives too, they are the generated Rust receiver's replies byte for byte, and the C++
//! sender reads the Rust reply packets to the same values. Hostile packets (the
//! Rust packets with bits flipped and framed again, cut short, random payloads) get the same
//! verdict from the C++ receiver as from the Rust reader: the items read, or the error kind at
//! the same bit. The driver is built by g++ (-O0: an optimized build takes three times as long
//! and tests nothing more) and by clang++ with ASan and UBSan where its runtimes link (the
//! hostile packets run under it).

mod common;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use idlc::interpret::{self, sample::Rng};
use idlc::ir::{EntryKind, response_struct_name};
use idlc_runtime::{
    Codec, DecodeError, Encoding, Incoming, ItemHeader, ItemKind, Messages, PacketWriter, Pending,
    Responses, Style, WireRead, WireWrite, read_packet, read_responses,
};

use common::cpp::{
    CompiledSet, Driver, HEX, UNHEX, build, header_sets, include_header, present, wire_hex,
};
use common::hex;

/// A protocol of a header set in one encoding, with its Rust twin.
struct Case {
    set: &'static str,
    protocol: &'static str,
    encoding: &'static str,
    run: fn(&Driver, &CompiledSet, &'static str, &'static str) -> usize,
}

/// The reply packets of the generated Rust receiver of a protocol to a packet, its handler
/// answering the requests with the given values (in full form), in order.
type RustReplies = fn(u64, &[u8], &[Vec<u8>]) -> Vec<Vec<u8>>;

macro_rules! case {
    ($set:literal, $module:ident, $protocol:literal, $encoding:literal, $marker:ident, $message:ident, $response:ty) => {
        case!(
            $set, $module, $protocol, $encoding, $marker, $message, $response, None
        )
    };
    ($set:literal, $module:ident, $protocol:literal, $encoding:literal, $marker:ident, $message:ident, $response:ty, $replies:expr) => {
        Case {
            set: $set,
            protocol: $protocol,
            encoding: $encoding,
            run: |driver, compiled, protocol, encoding| {
                run::<idlc_tests::$module::$marker, idlc_tests::$module::$message, $response>(
                    driver, compiled, protocol, encoding, $replies,
                )
            },
        }
    };
}

/// Answers from a queue (the default value when it runs dry).
struct Answers<T>(std::collections::VecDeque<T>);

impl<T: Default> Answers<T> {
    fn next(&mut self) -> T {
        self.0.pop_front().unwrap_or_default()
    }
}

/// The values of answers in full form, as the response struct `S` holds them.
fn answer_values<E: Encoding, S: Codec<E>, T>(
    answers: &[Vec<u8>],
    value: fn(S) -> T,
) -> Answers<T> {
    Answers(
        answers
            .iter()
            .map(|a| value(S::decode_from(&mut reader::<E>(a)).expect("a valid answer")))
            .collect(),
    )
}

impl idlc_tests::arena_client::ArenaPingHandler for Answers<u64> {
    fn ping(&mut self, _call: idlc_tests::arena_client::Ping) -> u64 {
        self.next()
    }
}

impl idlc_tests::edge::EdgesHandler for Answers<idlc_tests::edge::Nesting> {
    fn nothing(&mut self, _call: idlc_tests::edge::Nothing) {}
    fn everything(&mut self, _call: idlc_tests::edge::Everything) -> idlc_tests::edge::Nesting {
        self.next()
    }
}

/// `fn $name<E>(version, packet, answers)`: the reply packets of `$module::$receiver` to the
/// packet, its handler answering with the values of `$module::$response` structs.
macro_rules! rust_replies {
    ($name:ident, $module:ident, $receiver:ident, $response:ident, [$($sent:ident),*]) => {
        fn $name<E: Encoding>(version: u64, packet: &[u8], answers: &[Vec<u8>]) -> Vec<Vec<u8>>
        where
            $(idlc_tests::$module::$sent: Codec<E>,)*
            idlc_tests::$module::$response: Codec<E>,
        {
            use idlc_tests::$module as m;
            let mut handler = answer_values::<E, m::$response, _>(answers, |r| r.value);
            let mut receiver = m::$receiver::<E>::with_encoding(version);
            receiver.dispatch(packet, &mut handler).expect("dispatched");
            std::iter::from_fn(|| receiver.replies().map(<[u8]>::to_vec)).collect()
        }
    };
}

rust_replies!(
    ping_replies,
    arena_client,
    ArenaPingReceiver,
    PingResponse,
    [Ping]
);
rust_replies!(
    edges_replies,
    edge,
    EdgesReceiver,
    EverythingResponse,
    [Nothing, Everything]
);

/// The responses of a protocol without any: none decodes.
#[derive(Debug, PartialEq)]
enum NoResponses {}

impl<E: Encoding> Responses<E> for NoResponses {
    fn decode_response(
        _id: u32,
        _request: idlc_runtime::RequestId,
        _r: &mut <E::Style as Style>::Reader<'_>,
    ) -> Result<Option<Self>, DecodeError> {
        Ok(None)
    }
}

fn cases() -> Vec<Case> {
    use idlc_tests::{arena_client as ac, arena_server as asv, edge};
    let mut cases = Vec::new();
    macro_rules! client {
        ($encoding:literal, $marker:ident) => {
            cases.extend([
                case!(
                    "arena_client",
                    arena_client,
                    "ArenaServerToClient",
                    $encoding,
                    $marker,
                    ArenaServerToClientMessage,
                    NoResponses
                ),
                case!(
                    "arena_client",
                    arena_client,
                    "ArenaClientToServer",
                    $encoding,
                    $marker,
                    ArenaClientToServerMessage,
                    ac::ArenaClientToServerResponse
                ),
                case!(
                    "arena_client",
                    arena_client,
                    "ArenaPing",
                    $encoding,
                    $marker,
                    ArenaPingMessage,
                    ac::ArenaPingResponse,
                    Some(ping_replies::<ac::$marker>)
                ),
            ])
        };
    }
    macro_rules! edge {
        ($encoding:literal, $marker:ident) => {
            cases.extend([
                case!(
                    "edge",
                    edge,
                    "Vec",
                    $encoding,
                    $marker,
                    VecMessage,
                    NoResponses
                ),
                case!(
                    "edge",
                    edge,
                    "Edges",
                    $encoding,
                    $marker,
                    EdgesMessage,
                    edge::EdgesResponse,
                    Some(edges_replies::<edge::$marker>)
                ),
            ])
        };
    }
    client!("S2C", S2C);
    client!("S2CDebug", S2CDebug);
    edge!("Odd", Odd);
    edge!("Bytes", Bytes);
    // The server only receives ArenaClientToServer (arena_server.map): no Rust response enum.
    cases.extend([
        case!(
            "arena_server",
            arena_server,
            "ArenaServerToClient",
            "S2S",
            S2S,
            ArenaServerToClientMessage,
            NoResponses
        ),
        case!(
            "arena_server",
            arena_server,
            "ArenaClientToServer",
            "S2S",
            S2S,
            ArenaClientToServerMessage,
            NoResponses
        ),
        case!(
            "arena_server",
            arena_server,
            "ArenaPing",
            "S2S",
            S2S,
            ArenaPingMessage,
            asv::ArenaPingResponse
        ),
    ]);
    cases
}

/// Values per entry of a protocol and version.
const VALUES: usize = 4;
/// Hostile packets per protocol, encoding and version.
const HOSTILE: usize = 60;

fn set_named(name: &str) -> &'static CompiledSet {
    header_sets()
        .iter()
        .find(|s| s.set.namespace == name)
        .unwrap_or_else(|| panic!("no header set {name}"))
}

fn seed_of(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What one entry of a protocol is, as the test needs it.
struct EntryInfo {
    id: u32,
    segment: usize,
    params: String,
    response: Option<String>,
}

fn entries(compiled: &CompiledSet, protocol: &str) -> Vec<EntryInfo> {
    let def = &compiled.ir.schema.protocols[protocol];
    def.entries
        .iter()
        .map(|e| match &e.kind {
            EntryKind::Message(name) => EntryInfo {
                id: e.id,
                segment: e.segment,
                params: name.clone(),
                response: None,
            },
            EntryKind::Rpc { name, returns } => EntryInfo {
                id: e.id,
                segment: e.segment,
                params: name.clone(),
                response: returns.as_ref().map(|_| response_struct_name(name)),
            },
        })
        .collect()
}

/// A random value of the struct `name` in `encoding`, in full form (the interpreter's bytes).
fn random_bytes(compiled: &CompiledSet, encoding: &str, name: &str, rng: &mut Rng) -> Vec<u8> {
    for _ in 0..20 {
        let value = interpret::sample::random_struct(&compiled.ir, name, rng)
            .unwrap_or_else(|| panic!("no struct {name}"));
        if let Ok(bytes) = interpret::encode(&compiled.ir, encoding, name, &value) {
            return bytes;
        }
    }
    panic!("{name}: no random value encodes");
}

fn reader<E: Encoding>(bytes: &[u8]) -> <E::Style as Style>::Reader<'_> {
    <<E::Style as Style>::Reader<'_> as WireRead>::from_bytes(bytes)
}

/// Runs every version of one protocol in one encoding; returns the packets checked.
fn run<E, M, R>(
    driver: &Driver,
    compiled: &CompiledSet,
    protocol: &'static str,
    encoding: &'static str,
    rust_replies: Option<RustReplies>,
) -> usize
where
    E: Encoding,
    M: Messages<E> + PartialEq + Debug,
    R: Responses<E> + PartialEq + Debug,
{
    let def = &compiled.ir.schema.protocols[protocol];
    let versions = idlc::ir::protocol::version_ids(&compiled.ir, def, encoding);
    let entries = entries(compiled, protocol);
    let mut rng = Rng::new(seed_of(&format!(
        "{} {protocol} {encoding}",
        compiled.set.namespace
    )));
    let key = format!("{} {protocol} {encoding}", compiled.set.namespace);
    let mut requests = Vec::new();
    let mut expected = Vec::new();
    for (index, &version) in versions.iter().enumerate() {
        // Every entry this version has, VALUES times, in one packet.
        let mut messages = Vec::new();
        let mut answers: Vec<(u32, u32, Vec<u8>)> = Vec::new();
        let mut next_request = 0u32;
        for _ in 0..VALUES {
            for entry in entries.iter().filter(|e| e.segment <= index) {
                let bytes = random_bytes(compiled, encoding, &entry.params, &mut rng);
                let kind = if entry.response.is_some() {
                    next_request += 1;
                    ItemKind::Request(next_request - 1)
                } else {
                    ItemKind::Message
                };
                let header = ItemHeader { id: entry.id, kind };
                let Incoming::Known(message) = M::decode_item(header, &mut reader::<E>(&bytes))
                    .expect("a valid value decodes")
                else {
                    panic!("{key}: entry {} is known", entry.id);
                };
                messages.push(message);
                if let (Some(response), ItemKind::Request(request)) = (&entry.response, kind) {
                    let answer = random_bytes(compiled, encoding, response, &mut rng);
                    answers.push((entry.id, request, answer));
                }
            }
        }
        let mut writer = PacketWriter::<E>::new(version);
        for m in &messages {
            m.encode_item(&mut writer).expect("fits");
        }
        let packet = writer.finish().to_vec();
        // The values the answers stand for, and the Rust receiver's reply packets.
        let mut values = Vec::new();
        for (id, request, answer) in &answers {
            // A side that only sends or only receives the protocol has no Rust response enum:
            // its replies are checked on the other side's case.
            if let Some(value) = R::decode_response(*id, *request, &mut reader::<E>(answer))
                .expect("a valid answer decodes")
            {
                values.push(value);
            }
        }
        let answer_bytes: Vec<Vec<u8>> = answers.iter().map(|(_, _, a)| a.clone()).collect();
        let rust_replies = rust_replies.map(|f| f(version, &packet, &answer_bytes));
        let answers_hex: Vec<String> = answers.iter().map(|(_, _, a)| hex(a)).collect();
        requests.push(format!(
            "{key} {version:x} {} {} {}",
            wire_hex(&packet),
            list(&answers_hex),
            list(
                &rust_replies
                    .iter()
                    .flatten()
                    .map(|p| hex(p))
                    .collect::<Vec<_>>()
            )
        ));
        expected.push((version, packet, messages, answers, values, rust_replies));
    }
    let answers = driver.answer(&requests);
    for (answer, (version, packet, messages, sent, values, rust_replies)) in
        answers.iter().zip(&expected)
    {
        let words: Vec<&str> = answer.split(' ').collect();
        assert_eq!(words.len(), 7, "{key}: {answer}");
        let what = format!("{key} version {version:x} ({})", driver.name);
        assert_eq!(words[0], "ok", "{what}: dispatch: {answer}");
        let count = messages.len().to_string();
        assert_eq!(words[1], count, "{what}: handled");
        assert_eq!(words[2], "0", "{what}: unknown");
        assert_eq!(words[3], sent.len().to_string(), "{what}: responses");
        // The C++ sender's packet is the Rust sender's.
        assert_eq!(words[4], wire_hex(packet), "{what}: the C++ packet");
        let mut read = Vec::new();
        read_packet::<E, M>(*version, &unhex(words[4]), |item| read.push(item)).unwrap();
        let read: Vec<M> = read
            .into_iter()
            .map(|i| match i {
                Incoming::Known(m) => m,
                Incoming::Unknown(h) => panic!("{what}: unknown {h:?}"),
            })
            .collect();
        assert_eq!(&read, messages, "{what}: Rust reads the C++ packet");
        // The C++ replies: the Rust receiver's bytes (where the case has a typed Rust receiver
        // and the mapping does not round values), and read by the Rust code as the answers'
        // values.
        let cpp_replies: Vec<Vec<u8>> = split_list(words[5]).iter().map(|h| unhex(h)).collect();
        if values.len() != sent.len() {
            continue;
        }
        if let Some(rust_replies) = rust_replies
            && !compiled.is_lossy(encoding)
        {
            assert_eq!(&cpp_replies, rust_replies, "{what}: the C++ reply packets");
        }
        let mut pending = Pending::default();
        for (id, _, _) in sent {
            pending.start(*id);
        }
        let mut got = Vec::new();
        for reply in &cpp_replies {
            read_responses::<E, R>(*version, reply, &mut pending, |r| {
                got.push(r.expect("paired"))
            })
            .unwrap();
        }
        assert_eq!(&got, values, "{what}: Rust reads the C++ replies");
        // The C++ sender reads the Rust replies to the same values.
        if rust_replies.is_none() {
            continue;
        }
        let cpp_read = split_list(words[6]);
        assert_eq!(cpp_read.len(), values.len(), "{what}: {}", words[6]);
        for ((text, value), (id, request, _)) in cpp_read.iter().zip(values).zip(sent) {
            let (r, bytes) = text.split_once(':').expect("request:hex");
            assert_eq!(r, request.to_string(), "{what}");
            let bytes = unhex(bytes);
            let again = R::decode_response(*id, *request, &mut reader::<E>(&bytes))
                .unwrap()
                .unwrap();
            assert_eq!(&again, value, "{what}: C++ reads the Rust replies");
        }
    }
    hostile::<E, M>(
        driver,
        compiled,
        protocol,
        encoding,
        &versions,
        &expected.iter().map(|e| e.1.clone()).collect::<Vec<_>>(),
        &mut rng,
    ) + requests.len()
}

/// Hostile packets: the C++ receiver's verdict is the Rust reader's.
fn hostile<E: Encoding, M: Messages<E>>(
    driver: &Driver,
    compiled: &CompiledSet,
    protocol: &str,
    encoding: &str,
    versions: &[u64],
    packets: &[Vec<u8>],
    rng: &mut Rng,
) -> usize {
    let key = format!("{} {protocol} {encoding}", compiled.set.namespace);
    let mut requests = Vec::new();
    let mut verdicts = Vec::new();
    for (&version, packet) in versions.iter().zip(packets) {
        for k in 0..HOSTILE {
            let payload = &packet[4..];
            let mut bad = payload.to_vec();
            match k % 4 {
                0 if !bad.is_empty() => {
                    let at = rng.below(bad.len() as u64) as usize;
                    bad[at] ^= 1 << rng.below(8);
                }
                1 => bad.truncate(rng.below(bad.len() as u64 + 1) as usize),
                2 => {
                    let len = rng.below(40) as usize;
                    bad = (0..len).map(|_| rng.below(256) as u8).collect();
                }
                _ => {
                    for _ in 0..1 + rng.below(4) {
                        if !bad.is_empty() {
                            let at = rng.below(bad.len() as u64) as usize;
                            bad[at] = rng.below(256) as u8;
                        }
                    }
                }
            }
            // Framed again, unless the frame is what is attacked.
            let framed = if k % 13 == 5 {
                let mut p = idlc_runtime::frame(version, &bad);
                p[0] ^= 1;
                p
            } else if k % 17 == 7 {
                bad.iter().take(3).copied().collect()
            } else {
                idlc_runtime::frame(version, &bad)
            };
            let mut items = 0usize;
            let verdict = match read_packet::<E, M>(version, &framed, |_| items += 1) {
                Ok(n) => format!("ok {n}"),
                Err(e) => format!("decode-{:?}-{} {items}", e.kind, e.bit_offset),
            };
            requests.push(format!("{key} {version:x} {} - -", wire_hex(&framed)));
            verdicts.push(verdict);
        }
    }
    for hostile_driver in std::iter::once(driver).chain(sanitized()) {
        let answers = hostile_driver.answer(&requests);
        for ((answer, verdict), request) in answers.iter().zip(&verdicts).zip(&requests) {
            let words: Vec<&str> = answer.split(' ').collect();
            let handled: usize = words[1].parse().unwrap();
            let unknown: usize = words[2].parse().unwrap();
            let got = if words[0] == "ok" {
                format!("ok {}", handled + unknown)
            } else {
                format!("{} {}", words[0], handled + unknown)
            };
            assert_eq!(&got, verdict, "{key} ({}): {request}", hostile_driver.name);
        }
    }
    requests.len()
}

/// `ChatBroadcast` → `chat_broadcast` (the bundled protocols' names are CamelCase or
/// snake_case already; the generated method names are heck's snake case of them).
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "-".to_string()
    } else {
        items.join(",")
    }
}

fn split_list(text: &str) -> Vec<String> {
    if text == "-" {
        Vec::new()
    } else {
        text.split(',').map(str::to_string).collect()
    }
}

fn unhex(text: &str) -> Vec<u8> {
    if text == "-" {
        return Vec::new();
    }
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The driver
// ---------------------------------------------------------------------------------------------

const DRIVER_MAIN: &str = r#"
namespace {

using Bytes = std::vector<std::uint8_t>;

UNHEX

HEX

Bytes bytes_of(const std::string& text) {
    return text == "-" ? Bytes{} : unhex(text);
}

std::vector<Bytes> list_of(const std::string& text) {
    std::vector<Bytes> out;
    if (text == "-") {
        return out;
    }
    std::istringstream parts(text);
    std::string part;
    while (std::getline(parts, part, ',')) {
        out.push_back(bytes_of(part));
    }
    return out;
}

std::string joined(const std::vector<std::string>& items) {
    if (items.empty()) {
        return "-";
    }
    std::string out;
    for (const auto& item : items) {
        out += (out.empty() ? "" : ",") + item;
    }
    return out;
}

std::string verdict(const idlc::DispatchStatus& s) {
    switch (s.kind) {
    case idlc::DispatchErrorKind::Ok:
        return "ok";
    case idlc::DispatchErrorKind::Decode:
        return std::string("decode-") + idlc::error_kind_name(s.decode.kind) + "-" +
               std::to_string(s.decode.bit_offset);
    case idlc::DispatchErrorKind::Reply:
        return "reply-" + s.reply.to_string();
    }
    return "?";
}

/// Dispatches `packet`; the echo handler sends every message again; prints the verdict, the
/// counts, the packet sent again, the reply packets, and what the sender reads of `replies`.
template <class Receiver, class Echo, class Print>
void run(std::uint64_t version, const Bytes& packet, std::vector<Bytes> answers,
         const std::vector<Bytes>& replies) {
    Receiver receiver(version);
    Echo echo(version);
    echo.answers = std::move(answers);
    idlc::Dispatched counts;
    idlc::DispatchStatus s = receiver.dispatch(packet.data(), packet.size(), echo, counts);
    std::vector<std::string> reply_packets;
    std::vector<std::string> read;
    if constexpr (Print::answers) {
        while (const Bytes* reply = receiver.replies()) {
            reply_packets.push_back(hex(*reply));
        }
        Print print;
        for (const Bytes& reply : replies) {
            std::size_t count = 0;
            idlc::Status r = echo.sender.read_responses(reply.data(), reply.size(), print, count);
            if (!r.ok()) {
                print.out.push_back("x");
            }
        }
        read = print.out;
    }
    std::printf("%s %zu %zu %zu %s %s %s\n", verdict(s).c_str(), counts.handled, counts.unknown,
                counts.responses, echo.failed ? "send-failed" : hex(echo.sender.finish()).c_str(),
                joined(reply_packets).c_str(), joined(read).c_str());
}

using Run = void (*)(std::uint64_t, const Bytes&, std::vector<Bytes>, const std::vector<Bytes>&);

struct NoPrint {
    static constexpr bool answers = false;
};

} // namespace

int main() {
    const std::map<std::string, Run> runs = {
RUNS    };
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream words(line);
        std::string ns, protocol, encoding, version, packet, answers, replies;
        words >> ns >> protocol >> encoding >> version >> packet >> answers >> replies;
        auto run = runs.find(ns + " " + protocol + " " + encoding);
        if (run == runs.end()) {
            std::printf("unknown\n");
            continue;
        }
        run->second(std::stoull(version, nullptr, 16), bytes_of(packet), list_of(answers),
                    list_of(replies));
    }
    return 0;
}
"#;

/// The echo handler and the response printer of one protocol, in C++.
fn protocol_classes(compiled: &CompiledSet, protocol: &str) -> String {
    let ns = compiled.set.cpp_namespace();
    let p = protocol.to_string();
    let tag = format!("{}_{p}", compiled.set.namespace);
    let def = &compiled.ir.schema.protocols[protocol];
    let mut echo = String::new();
    let mut print = String::new();
    let mut answers = false;
    for entry in &def.entries {
        let (name, response) = match &entry.kind {
            EntryKind::Message(name) => (name, None),
            EntryKind::Rpc { name, returns } => {
                (name, returns.as_ref().map(|_| response_struct_name(name)))
            }
        };
        let ty = format!("{ns}::{}", compiled.cpp_name(name));
        let method = snake_case(name);
        let is_message = matches!(entry.kind, EntryKind::Message(_));
        let stub = if is_message {
            method.clone()
        } else {
            format!("call_{method}")
        };
        match response {
            None => writeln!(
                echo,
                "    void {method}({ty} v) override {{ failed |= !sender.{stub}(v).ok(); }}"
            )
            .unwrap(),
            Some(response) => {
                answers = true;
                let rt = format!("{ns}::{}", compiled.cpp_name(&response));
                writeln!(
                    echo,
                    "    decltype({rt}::value) {method}({ty} v) override {{\n        \
                     idlc::RequestId id = 0;\n        failed |= !sender.{stub}(v, id).ok();\n        \
                     {rt} a;\n        if (next < answers.size()) {{\n            \
                     failed |= !a.template from_bytes_with<E>(answers[next].data(), answers[next].size()).ok();\n        }}\n        \
                     ++next;\n        return std::move(a.value);\n    }}"
                )
                .unwrap();
                writeln!(
                    print,
                    "    void {method}(idlc::RequestId r, decltype({rt}::value) v) override {{\n        \
                     {rt} a;\n        a.value = std::move(v);\n        Bytes b;\n        \
                     idlc::Status s = a.template to_bytes_with<E>(b);\n        \
                     out.push_back(std::to_string(r) + \":\" + (s.ok() ? hex(b) : \"x\"));\n    }}"
                )
                .unwrap();
            }
        }
    }
    let mut text = format!(
        "namespace {{\ntemplate <class E>\nstruct Echo_{tag} : {ns}::{p}Handler {{\n    \
         {ns}::{p}Sender<E> sender;\n    std::vector<Bytes> answers;\n    std::size_t next = 0;\n    \
         bool failed = false;\n    explicit Echo_{tag}(std::uint64_t v) : sender(v) {{}}\n{echo}}};\n"
    );
    if answers {
        write!(
            text,
            "template <class E>\nstruct Print_{tag} : {ns}::{p}ResponseHandler {{\n    \
             static constexpr bool answers = true;\n    std::vector<std::string> out;\n{print}    \
             void error(const idlc::ResponseError& e) override {{ out.push_back(\"e\" + std::to_string(static_cast<int>(e.kind))); }}\n}};\n"
        )
        .unwrap();
    }
    text.push_str("} // namespace\n");
    text
}

fn driver_source(dir: &Path) -> String {
    let mut text = String::from(
        "#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <iostream>\n\
         #include <map>\n#include <sstream>\n#include <string>\n#include <vector>\n\n",
    );
    let mut runs = String::new();
    let mut done_sets = Vec::new();
    let mut done_protocols = Vec::new();
    let helpers = DRIVER_MAIN
        .split("} // namespace\n\nint main()")
        .collect::<Vec<_>>();
    let mut classes = String::new();
    for case in cases() {
        let compiled = set_named(case.set);
        if !done_sets.contains(&case.set) {
            text.push_str(&include_header(compiled, dir));
            done_sets.push(case.set);
        }
        let p = case.protocol.to_string();
        let tag = format!("{}_{p}", case.set);
        if !done_protocols.contains(&tag) {
            classes.push_str(&protocol_classes(compiled, case.protocol));
            done_protocols.push(tag.clone());
        }
        let ns = compiled.set.cpp_namespace();
        let enc = format!(
            "{ns}::{}",
            idlc::cppgen::tag_name(&compiled.ir, case.encoding)
        );
        let answers = entries(compiled, case.protocol)
            .iter()
            .any(|e| e.response.is_some());
        let print = if answers {
            format!("Print_{tag}<{enc}>")
        } else {
            "NoPrint".to_string()
        };
        writeln!(
            runs,
            "        {{\"{} {} {}\", &run<{ns}::{p}Receiver<{enc}>, Echo_{tag}<{enc}>, {print}>}},",
            case.set, case.protocol, case.encoding
        )
        .unwrap();
    }
    // The helpers first, then the classes (which use `Bytes` and `hex`), then `run` and main.
    let head = helpers[0].replace("UNHEX\n", UNHEX).replace("HEX\n", HEX);
    let (before_run, after) = head
        .split_once("/// Dispatches `packet`")
        .expect("the driver's parts");
    text.push_str(before_run);
    text.push_str("} // namespace\n");
    text.push_str(&classes);
    text.push_str("namespace {\n/// Dispatches `packet`");
    text.push_str(after);
    text.push_str("} // namespace\n\nint main()");
    text.push_str(&helpers[1].replace("RUNS", &runs));
    text
}

fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpp_protocols");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn source() -> &'static PathBuf {
    static SOURCE: OnceLock<PathBuf> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let dir = work_dir();
        let path = dir.join("driver.cpp");
        std::fs::write(&path, driver_source(&dir)).unwrap();
        path
    })
}

/// The driver built by g++ at -O0 (clang++ where there is no g++); `None` without a compiler.
fn driver() -> Option<&'static Driver> {
    static DRIVER: OnceLock<Option<Driver>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            let compiler = ["g++", "clang++"].into_iter().find(|c| present(c))?;
            let dir = work_dir();
            let binary = dir.join("driver_o0");
            build(compiler, &["-O0"], &dir, &[source()], &binary).unwrap_or_else(|e| panic!("{e}"));
            Some(Driver::new(format!("{compiler} -O0"), binary))
        })
        .as_ref()
}

/// The driver built by clang++ with ASan and UBSan, when its runtimes link and run.
fn sanitized() -> Option<&'static Driver> {
    static DRIVER: OnceLock<Option<Driver>> = OnceLock::new();
    DRIVER
        .get_or_init(|| {
            if !present("clang++") {
                eprintln!("no clang++: the hostile packets run without sanitizers");
                return None;
            }
            let dir = work_dir();
            let binary = dir.join("driver_sanitized");
            let flags = [
                "-O0",
                "-gline-tables-only",
                "-fsanitize=address,undefined",
                "-fno-sanitize-recover=all",
            ];
            if let Err(e) = build("clang++", &flags, &dir, &[source()], &binary) {
                eprintln!(
                    "the sanitizers do not link here, the hostile packets run without them: {e}"
                );
                return None;
            }
            Some(Driver::new(
                "clang++ -fsanitize=address,undefined".to_string(),
                binary,
            ))
        })
        .as_ref()
}

#[test]
fn packets_go_both_ways_between_rust_and_cpp_byte_for_byte() {
    let Some(driver) = driver() else {
        eprintln!("no C++ compiler: skipped");
        return;
    };
    let mut per_case = BTreeMap::new();
    for case in cases() {
        let compiled = set_named(case.set);
        let n = (case.run)(driver, compiled, case.protocol, case.encoding);
        per_case.insert(
            format!("{} {} {}", case.set, case.protocol, case.encoding),
            n,
        );
    }
    assert_eq!(per_case.len(), cases().len());
    eprintln!("{per_case:#?}");
}

/// The generated protocol code, reviewed: ArenaPing of the arena client's header.
#[test]
fn the_protocol_code_reads_well() {
    let compiled = set_named("arena_client");
    let header = idlc::cppgen::generate_header(&compiled.ir, "arena::client").unwrap();
    let start = header.find("/// The protocol `ArenaPing`").unwrap();
    let end = header.find("} // namespace arena::client").unwrap();
    insta::assert_snapshot!("arena_ping_hpp", &header[start..end]);
}

/// The runtime's packet layer alone, C++ against Rust: frames (CRC-32 of the id and the
/// payload), `negotiate`, the MTU's PacketFull and MessageTooLarge (with their byte counts),
/// and reply packets that spill over their MTU.
#[test]
fn the_cpp_packet_runtime_frames_negotiates_and_fills_as_rust() {
    let Some(compiler) = ["g++", "clang++"].into_iter().find(|c| present(c)) else {
        eprintln!("no C++ compiler: skipped");
        return;
    };
    let dir = work_dir();
    let source = dir.join("packet_runtime.cpp");
    std::fs::write(&source, PACKET_RUNTIME.replace("HEX\n", HEX)).unwrap();
    let binary = dir.join("packet_runtime");
    build(compiler, &["-O0"], &dir, &[&source], &binary).unwrap_or_else(|e| panic!("{e}"));
    let output = std::process::Command::new(&binary).output().unwrap();
    assert!(output.status.success());
    let cpp = String::from_utf8(output.stdout).unwrap();

    let mut rust = String::new();
    for id in [0u64, 9, 0x5eed, u64::MAX] {
        for len in 0..6u8 {
            let payload: Vec<u8> = (0..len)
                .map(|i| i.wrapping_mul(37).wrapping_add(len))
                .collect();
            writeln!(rust, "frame {}", hex(&idlc_runtime::frame(id, &payload))).unwrap();
        }
    }
    let ours = [10u64, 11, 12];
    for theirs in [&[10u64, 11][..], &[10, 11, 12, 13], &[99], &[], &[12, 10]] {
        match idlc_runtime::negotiate(&ours, theirs) {
            Some((k, id)) => writeln!(rust, "negotiate {k} {id}").unwrap(),
            None => writeln!(rust, "negotiate none").unwrap(),
        }
    }
    #[derive(Debug, Clone, Copy, Default)]
    struct Bits;
    impl Encoding for Bits {
        const NAME: &'static str = "Bits";
        type Style = idlc_runtime::BitStream;
    }
    let send = |r: Result<(), idlc_runtime::SendError>| match r {
        Ok(()) => "ok".to_string(),
        Err(idlc_runtime::SendError::PacketFull { needed, mtu }) => format!("full {needed} {mtu}"),
        Err(idlc_runtime::SendError::MessageTooLarge { needed, mtu }) => {
            format!("too-large {needed} {mtu}")
        }
        Err(e) => format!("other {e}"),
    };
    let mut w = PacketWriter::<Bits>::with_mtu(9, 16);
    let a = send(w.push(0, ItemKind::Message, |w| w.write_bits(1, 16)));
    let b = send(w.push(3, ItemKind::Request(7), |w| w.write_bits(2, 64)));
    let c = send(w.push(5, ItemKind::Response(300), |w| w.write_bits(3, 5)));
    writeln!(rust, "mtu {a} {b} {c} {} {}", w.len(), hex(w.finish())).unwrap();
    let mut e = PacketWriter::<Bits>::with_mtu(9, 8);
    let d = send(e.push(0, ItemKind::Message, |w| {
        (0..40).try_for_each(|_| w.write_bits(0, 8))
    }));
    writeln!(rust, "alone {d}").unwrap();
    let mut replies = idlc_runtime::Replies::<Bits>::with_mtu(7, 12);
    for request in 0..3 {
        replies
            .push(1, request, |w| w.write_bits(0xffff, 16))
            .unwrap();
    }
    while let Some(p) = replies.next_packet() {
        writeln!(rust, "reply {}", hex(p)).unwrap();
    }
    assert_eq!(cpp, rust);
}

const PACKET_RUNTIME: &str = r#"#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <idlc/idlc.hpp>

namespace {

HEX

std::string sent(const idlc::SendStatus& s) {
    switch (s.kind) {
    case idlc::SendErrorKind::Ok:
        return "ok";
    case idlc::SendErrorKind::PacketFull:
        return "full " + std::to_string(s.needed) + " " + std::to_string(s.mtu);
    case idlc::SendErrorKind::MessageTooLarge:
        return "too-large " + std::to_string(s.needed) + " " + std::to_string(s.mtu);
    default:
        return "other " + s.to_string();
    }
}

} // namespace

int main() {
    for (std::uint64_t id : {std::uint64_t{0}, std::uint64_t{9}, std::uint64_t{0x5eed}, ~std::uint64_t{0}}) {
        for (std::uint8_t len = 0; len < 6; ++len) {
            std::vector<std::uint8_t> payload;
            for (std::uint8_t i = 0; i < len; ++i) {
                payload.push_back(static_cast<std::uint8_t>(i * 37 + len));
            }
            std::printf("frame %s\n", hex(idlc::frame(id, payload.data(), payload.size())).c_str());
        }
    }
    const std::uint64_t ours[] = {10, 11, 12};
    const std::vector<std::vector<std::uint64_t>> theirs = {{10, 11}, {10, 11, 12, 13}, {99}, {}, {12, 10}};
    for (const auto& t : theirs) {
        auto shared = idlc::negotiate(ours, 3, t.data(), t.size());
        if (shared) {
            std::printf("negotiate %zu %llu\n", shared->first, static_cast<unsigned long long>(shared->second));
        } else {
            std::printf("negotiate none\n");
        }
    }
    idlc::PacketWriter<idlc::BitWriter> w(9, 16);
    std::string a = sent(w.push(0, idlc::ItemKind::message(), [](idlc::BitWriter& b) { return b.write_bits(1, 16); }));
    std::string b = sent(w.push(3, idlc::ItemKind::request_of(7), [](idlc::BitWriter& x) { return x.write_bits(2, 64); }));
    std::string c = sent(w.push(5, idlc::ItemKind::response_to(300), [](idlc::BitWriter& x) { return x.write_bits(3, 5); }));
    std::size_t items = w.size();
    std::printf("mtu %s %s %s %zu %s\n", a.c_str(), b.c_str(), c.c_str(), items, hex(w.finish()).c_str());
    idlc::PacketWriter<idlc::BitWriter> e(9, 8);
    std::string d = sent(e.push(0, idlc::ItemKind::message(), [](idlc::BitWriter& x) {
        for (int i = 0; i < 40; ++i) {
            IDLC_TRY(x.write_bits(0, 8));
        }
        return idlc::Status{};
    }));
    std::printf("alone %s\n", d.c_str());
    idlc::Replies<idlc::BitWriter> replies(7, 12);
    for (idlc::RequestId request = 0; request < 3; ++request) {
        if (!replies.push(1, request, [](idlc::BitWriter& x) { return x.write_bits(0xffff, 16); }).ok()) {
            return 1;
        }
    }
    while (const auto* p = replies.next_packet()) {
        std::printf("reply %s\n", hex(*p).c_str());
    }
    return 0;
}
"#;

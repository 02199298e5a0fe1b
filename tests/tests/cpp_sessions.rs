//! Sessions between Rust and C++ (docs/CPP.md, "Sessions"): the generated C++ `Endpoint`s of
//! schemas/versions/match_v2.idl, driven by tests/cpp/session_driver.cpp, against the generated
//! Rust ones, driven here by the same script. A seeded link loses, duplicates and delays whole
//! packets; a client sends inputs (some reliable), buys and emotes (RPCs), a server sends the
//! World as a snapshot every tick, reliable chat lines and pings (RPCs): every packet (hex),
//! every delivery and every verdict must be the same text in both languages, line by line. Then
//! hostile packets (replays, random bytes, bits flipped before and after the CRC) get the same
//! verdicts from the C++ server as from the Rust one. The same script over links (one endpoint
//! over both protocols each way: the C++ `CppEndpoint`, the Rust `LinkEndpoint`) sends the same
//! bytes too, and a link server gives hostile packets the same verdicts. The driver is built
//! once per compiler:
//! g++ at -O0, and clang++ at -O0 with ASan and UBSan (plain clang++ where the sanitizer
//! runtimes do not link), both with the warnings of every C++ test as errors.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use idlc_runtime::{
    Answer, AnswerToken, Delivery, Endpoint, Received, Refusal, SessionConfig, SessionError,
    SessionMessage, SessionProtocol,
};
use idlc_tests::match_v2 as v2;

use common::cpp::{build, present};
use common::{hex, schema};

type Server = Endpoint<v2::DefaultEncoding, v2::MatchServer, v2::MatchClient>;
type Client = Endpoint<v2::DefaultEncoding, v2::MatchClient, v2::MatchServer>;

const TICK: Duration = Duration::from_millis(33);
/// Calls, chat lines and pings go out before this tick; the link is clean from `CLEAN_FROM` on.
const BUSY_UNTIL: u32 = 200;
const CLEAN_FROM: u32 = 240;

/// SplitMix64, as the driver draws.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn chance(&mut self, per_mille: u64) -> bool {
        self.next() % 1000 < per_mille
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Whole packets in flight one way: each lost, duplicated or delayed (so reordered).
struct Wire {
    in_flight: Vec<(u32, Vec<u8>)>,
    loss: u64,
}

impl Wire {
    fn send(&mut self, rng: &mut Rng, now: u32, packet: &[u8], lossy: bool) {
        if lossy && rng.chance(self.loss) {
            return;
        }
        let copies = if lossy && rng.chance(self.loss) { 2 } else { 1 };
        for _ in 0..copies {
            let delay = if lossy { rng.below(4) as u32 } else { 0 };
            self.in_flight.push((now + delay, packet.to_vec()));
        }
    }

    fn arrived(&mut self, now: u32) -> Vec<Vec<u8>> {
        let (ready, later) = self.in_flight.drain(..).partition(|(at, _)| *at <= now);
        self.in_flight = later;
        ready.into_iter().map(|(_, p)| p).collect()
    }
}

fn world(tick: u32) -> v2::World {
    let count = 3 + (tick / 40) % 5;
    v2::World {
        tick,
        units: (0..count)
            .map(|i| v2::Unit {
                id: i as u16,
                x: ((tick * (i + 1)) % 2000) as i16 - 1000,
                y: if i % 2 == 0 { 5 } else { (tick % 100) as i16 },
                hp: ((tick / 10 + i) % 101) as u8,
            })
            .collect(),
    }
}

fn text(world: &v2::World) -> String {
    let mut out = world.tick.to_string();
    for u in &world.units {
        write!(out, " {},{},{},{}", u.id, u.x, u.y, u.hp).unwrap();
    }
    out
}

fn verdict(result: &Result<Received, SessionError>) -> String {
    match result {
        Ok(r) => format!("ok {} {}", r.delivered, r.skipped),
        Err(SessionError::Decode(e)) => format!("decode {:?} {}", e.kind, e.bit_offset),
        Err(e) => e.to_string(),
    }
}

fn usage(out: &mut String, who: &str, u: idlc_runtime::Usage) {
    writeln!(
        out,
        "{who} usage {} {} {} {} {} {} {} {}",
        u.mirrors,
        u.states,
        u.pending_requests,
        u.cached_answers,
        u.queued_reliable,
        u.waiting_reliable,
        u.queued_messages,
        u.handled_requests
    )
    .unwrap();
}

/// The server's handler: what it was given, as the driver prints it.
#[derive(Default)]
struct ServerSide {
    out: String,
}

impl v2::MatchClientHandler for ServerSide {
    fn input(&mut self, message: v2::Input) {
        writeln!(self.out, "s: input {} {}", message.seq, message.dx).unwrap();
    }
    fn buy(&mut self, call: v2::Buy) -> u32 {
        writeln!(self.out, "s: buy {} {}", call.call, call.item).unwrap();
        call.call * 10
    }
    fn emote(&mut self, call: v2::Emote) -> bool {
        writeln!(self.out, "s: emote {}", call.kind).unwrap();
        call.kind.is_multiple_of(2)
    }
}

fn server_delivery(
    side: &mut ServerSide,
    d: Delivery<v2::MatchClientMessage, v2::MatchServerResponse, v2::MatchServerMessage>,
) -> Option<v2::MatchClientResponse> {
    match d {
        Delivery::Message(m) | Delivery::Request(m) => m.handle(side),
        Delivery::Response {
            response: v2::MatchServerResponse::Ping { request, value },
            ..
        } => {
            writeln!(side.out, "s: pong {request} {value}").unwrap();
            None
        }
        Delivery::Snapshot { .. } | Delivery::Refused { .. } => None,
    }
}

fn client_delivery(
    out: &mut String,
    d: Delivery<v2::MatchServerMessage, v2::MatchClientResponse, v2::MatchClientMessage>,
) -> Option<v2::MatchServerResponse> {
    match d {
        Delivery::Snapshot {
            sequence,
            message: v2::MatchServerMessage::Snapshot(s),
        } => writeln!(out, "c: snapshot {sequence} {}", text(&s.world)).unwrap(),
        Delivery::Response {
            response: v2::MatchClientResponse::Buy { request, value },
            ..
        } => {
            writeln!(out, "c: bought {request} {value}").unwrap();
        }
        Delivery::Response {
            response: v2::MatchClientResponse::Emote { request, value },
            ..
        } => {
            writeln!(out, "c: emoted {request} {}", i32::from(value)).unwrap();
        }
        Delivery::Message(v2::MatchServerMessage::Chat(c)) => {
            writeln!(out, "c: chat {} {}", c.line, c.text).unwrap();
        }
        Delivery::Request(v2::MatchServerMessage::Ping { request, call }) => {
            writeln!(out, "c: ping {}", call.nonce).unwrap();
            return Some(v2::MatchServerResponse::Ping {
                request,
                value: call.nonce + 1,
            });
        }
        _ => {}
    }
    None
}

/// The loop of the driver's `drive`: a scripted session between `client` and `server` over a
/// seeded wire; `client_tick` and `server_tick` queue what each sends, `server_deliver` and
/// `client_deliver` take what each receives. Its output: every packet, verdict and delivery.
#[allow(clippy::too_many_arguments)]
fn drive<E, CO, CI, SO, SI, A>(
    (seed, loss, ticks): (u64, u64, u32),
    mut client: Endpoint<E, CO, CI>,
    mut server: Endpoint<E, SO, SI>,
    side: &mut ServerSide,
    mut client_tick: impl FnMut(&mut Endpoint<E, CO, CI>, u32, &mut String),
    mut server_tick: impl FnMut(&mut Endpoint<E, SO, SI>, u32, &mut String),
    mut server_deliver: impl FnMut(
        &mut ServerSide,
        Delivery<SI::Message, SO::Response, SO::Message>,
    ) -> A,
    mut client_deliver: impl FnMut(
        &mut String,
        Delivery<CI::Message, CO::Response, CO::Message>,
    ) -> Option<CI::Response>,
) -> String
where
    E: idlc_runtime::Encoding,
    CO: SessionProtocol<E>,
    CI: SessionProtocol<E>,
    SO: SessionProtocol<E>,
    SI: SessionProtocol<E>,
    A: Into<Answer<SI::Response, SI::Message>>,
{
    let mut rng = Rng(seed);
    let mut up = Wire {
        in_flight: Vec::new(),
        loss,
    };
    let mut down = Wire {
        in_flight: Vec::new(),
        loss,
    };
    for tick in 0..ticks {
        let now = TICK * tick;
        let lossy = tick < CLEAN_FROM;
        writeln!(side.out, "tick {tick}").unwrap();
        client_tick(&mut client, tick, &mut side.out);
        for packet in client.flush(now).packets {
            writeln!(side.out, "c> {}", hex(&packet)).unwrap();
            up.send(&mut rng, tick, &packet, lossy);
        }
        for packet in up.arrived(tick) {
            let result = server.receive(now, &packet, |d| server_deliver(side, d));
            writeln!(side.out, "s< {}", verdict(&result)).unwrap();
        }
        server_tick(&mut server, tick, &mut side.out);
        let flushed = server.flush(now);
        for id in flushed.left_out {
            writeln!(side.out, "s: left out {id}").unwrap();
        }
        for (id, sequence) in flushed.snapshots {
            writeln!(side.out, "s: snapshot {id} in {sequence}").unwrap();
        }
        for (id, request) in flushed.unanswered {
            writeln!(side.out, "s: unanswered {id} {request}").unwrap();
        }
        for packet in flushed.packets {
            writeln!(side.out, "s> {}", hex(&packet)).unwrap();
            down.send(&mut rng, tick, &packet, lossy);
        }
        for packet in down.arrived(tick) {
            let result = client.receive(now, &packet, |d| client_deliver(&mut side.out, d));
            writeln!(side.out, "c< {}", verdict(&result)).unwrap();
        }
        if tick % 50 == 49 {
            usage(&mut side.out, "c", client.usage());
            usage(&mut side.out, "s", server.usage());
        }
    }
    writeln!(
        side.out,
        "silent {} {}",
        i32::from(client.is_silent(TICK * ticks)),
        i32::from(server.is_silent(Duration::from_secs(3600)))
    )
    .unwrap();
    std::mem::take(&mut side.out)
}

/// The client's part of a tick in both scripts: inputs, buys, emotes and reliable inputs
/// (MatchClient), each through `wrap`.
fn client_sends<E: idlc_runtime::Encoding, O: SessionProtocol<E>, I: SessionProtocol<E>>(
    client: &mut Endpoint<E, O, I>,
    tick: u32,
    out: &mut String,
    wrap: impl Fn(v2::MatchClientMessage) -> O::Message,
) {
    let input = v2::Input { seq: tick, dx: 1 };
    client
        .send(wrap(v2::MatchClientMessage::Input(input)))
        .unwrap();
    if tick.is_multiple_of(5) && tick < BUSY_UNTIL {
        let call = v2::Buy {
            call: tick,
            item: 3,
        };
        let request = client
            .send(wrap(v2::MatchClientMessage::Buy { request: 0, call }))
            .unwrap();
        writeln!(out, "c: request {}", request.unwrap()).unwrap();
    }
    if tick.is_multiple_of(9) && tick < BUSY_UNTIL {
        let call = v2::Emote {
            kind: (tick % 4) as u8,
        };
        client
            .send(wrap(v2::MatchClientMessage::Emote { request: 0, call }))
            .unwrap();
    }
    if tick.is_multiple_of(7) && tick < BUSY_UNTIL {
        let input = v2::Input {
            seq: 1000 + tick,
            dx: -1,
        };
        client
            .send_reliable(wrap(v2::MatchClientMessage::Input(input)))
            .unwrap();
    }
}

/// The server's part of a tick in both scripts: a snapshot, chat lines and pings (MatchServer),
/// each through `wrap`.
fn server_sends<E: idlc_runtime::Encoding, O: SessionProtocol<E>, I: SessionProtocol<E>>(
    server: &mut Endpoint<E, O, I>,
    tick: u32,
    wrap: impl Fn(v2::MatchServerMessage) -> O::Message,
) {
    let state = v2::Snapshot { world: world(tick) };
    server
        .send_snapshot(tick, wrap(v2::MatchServerMessage::Snapshot(state)))
        .unwrap();
    if tick.is_multiple_of(10) && tick < BUSY_UNTIL {
        let chat = v2::Chat {
            line: tick / 10,
            text: "gg".into(),
        };
        server
            .send_reliable(wrap(v2::MatchServerMessage::Chat(chat)))
            .unwrap();
    }
    if tick.is_multiple_of(13) && tick < BUSY_UNTIL {
        let call = v2::Ping { nonce: tick };
        server
            .send(wrap(v2::MatchServerMessage::Ping { request: 0, call }))
            .unwrap();
    }
}

/// The script of the driver's `play`, through the Rust endpoints: its output.
fn play(seed: u64, loss: u64, ticks: u32) -> String {
    let config = SessionConfig::default();
    drive(
        (seed, loss, ticks),
        Client::newest(config.clone()),
        Server::newest(config),
        &mut ServerSide::default(),
        |client, tick, out| client_sends(client, tick, out, |m| m),
        |server, tick, _| server_sends(server, tick, |m| m),
        server_delivery,
        client_delivery,
    )
}

/// What the server of `answers` makes of a call (the driver's `call_text`).
fn call_text(call: &v2::MatchClientMessage) -> String {
    match call {
        v2::MatchClientMessage::Buy { call, .. } => format!("buy {}", call.call),
        v2::MatchClientMessage::Emote { call, .. } => format!("emote {}", call.kind),
        v2::MatchClientMessage::Input(_) => "input".into(),
    }
}

/// The server's deliveries in `answers`: a buy's `call % 4` answered now, refused, or later;
/// an emote not at all.
fn answer_of(
    side: &mut ServerSide,
    d: Delivery<v2::MatchClientMessage, v2::MatchServerResponse, v2::MatchServerMessage>,
) -> Answer<v2::MatchClientResponse, v2::MatchClientMessage> {
    let (Delivery::Message(message) | Delivery::Request(message)) = d else {
        return Answer::None;
    };
    writeln!(side.out, "s: {}", call_text(&message)).unwrap();
    let v2::MatchClientMessage::Buy { request, call } = &message else {
        return Answer::None;
    };
    match call.call % 4 {
        0 => Answer::Now(v2::MatchClientResponse::Buy {
            request: *request,
            value: call.call * 10,
        }),
        1 => Answer::Refuse(Refusal::new(call.call, "sold out")),
        _ => Answer::Later(message),
    }
}

/// The client's deliveries in `answers`: each answer with its call.
fn answered(
    out: &mut String,
    d: Delivery<v2::MatchServerMessage, v2::MatchClientResponse, v2::MatchClientMessage>,
) -> Option<v2::MatchServerResponse> {
    match d {
        Delivery::Response {
            call,
            response: v2::MatchClientResponse::Buy { request, value },
        } => writeln!(out, "c: bought {request} {} {value}", call_text(&call)).unwrap(),
        Delivery::Refused { call, refusal } => {
            let request = SessionMessage::<v2::DefaultEncoding>::request(&call).unwrap_or_default();
            let (code, text) = (refusal.code, refusal.text);
            let call = call_text(&call);
            writeln!(out, "c: refused {request} {call} {code} {text}").unwrap();
        }
        _ => {}
    }
    None
}

/// The script of the driver's `answers`, through the Rust endpoints: buys every 2 ticks and
/// emotes every 6; the server answers a deferred buy at its next tick (`call % 8 == 6` with the
/// response of another RPC, `call % 32 == 18` through another endpoint: errors; `call % 16 ==
/// 10` refused) and drops the token of `call % 4 == 3`: its output.
fn answers(seed: u64, loss: u64, ticks: u32) -> String {
    let config = SessionConfig::default();
    let mut held: Vec<(AnswerToken<v2::MatchClientResponse>, u32)> = Vec::new();
    let mut stranger = Server::newest(config.clone());
    drive(
        (seed, loss, ticks),
        Client::newest(config.clone()),
        Server::newest(config),
        &mut ServerSide::default(),
        |client, tick, out| {
            if tick.is_multiple_of(2) && tick < BUSY_UNTIL {
                let call = v2::Buy {
                    call: tick / 2,
                    item: 3,
                };
                let buy = v2::MatchClientMessage::Buy { request: 0, call };
                let request = client.send(buy).unwrap();
                writeln!(out, "c: request {}", request.unwrap()).unwrap();
            }
            if tick.is_multiple_of(6) && tick < BUSY_UNTIL {
                let call = v2::Emote { kind: 1 };
                client
                    .send(v2::MatchClientMessage::Emote { request: 0, call })
                    .unwrap();
            }
        },
        |server, _, out| {
            for (token, call) in held.drain(..) {
                let request = token.request();
                let value = call * 10;
                let result = match call {
                    _ if call % 8 == 6 => {
                        let value = true;
                        server.answer(token, v2::MatchClientResponse::Emote { request, value })
                    }
                    _ if call % 16 == 10 => {
                        server.refuse(token, Refusal::new(call, "sold out later"))
                    }
                    _ if call % 32 == 18 => {
                        stranger.answer(token, v2::MatchClientResponse::Buy { request, value })
                    }
                    _ => server.answer(token, v2::MatchClientResponse::Buy { request, value }),
                };
                let verdict = result.map_or_else(|e| e.to_string(), |()| "ok".into());
                writeln!(out, "s: answered {request} {verdict}").unwrap();
            }
            for (token, call) in server.take_deferred() {
                let v2::MatchClientMessage::Buy { call, .. } = call else {
                    unreachable!("only buys are deferred")
                };
                if call.call % 4 == 3 {
                    writeln!(out, "s: dropped {}", token.request()).unwrap();
                    drop(token);
                } else {
                    held.push((token, call.call));
                }
            }
            let deferred = server.usage().deferred_answers;
            writeln!(out, "s: deferred {deferred}").unwrap();
        },
        answer_of,
        answered,
    )
}

/// The server's ping, which a link client calls too (the driver's `LinkSide`).
impl v2::MatchServerHandler for ServerSide {
    fn snapshot(&mut self, message: v2::Snapshot) {
        writeln!(self.out, "s: snapshot {}", message.world.tick).unwrap();
    }
    fn chat(&mut self, message: v2::Chat) {
        writeln!(self.out, "s: chat {}", message.line).unwrap();
    }
    fn ping(&mut self, call: v2::Ping) -> u32 {
        writeln!(self.out, "s: ping {}", call.nonce).unwrap();
        call.nonce + 7
    }
}

fn link_server_delivery(
    side: &mut ServerSide,
    d: Delivery<v2::LinkReceivesMessage, v2::LinkSendsResponse, v2::LinkSendsMessage>,
) -> Option<v2::LinkReceivesResponse> {
    match d {
        Delivery::Message(m) | Delivery::Request(m) => m.handle(side),
        Delivery::Response {
            call: v2::LinkSendsMessage::MatchServer(call),
            response: v2::LinkSendsResponse::MatchServer(response),
        } => server_delivery(side, Delivery::Response { call, response })
            .map(v2::LinkReceivesResponse::MatchClient),
        _ => None,
    }
}

/// A link client's delivery: MatchServer's messages and MatchClient's responses as `play`'s
/// client takes them, and the answers to its own pings.
fn link_client_delivery(
    out: &mut String,
    d: Delivery<v2::LinkReceivesMessage, v2::LinkSendsResponse, v2::LinkSendsMessage>,
) -> Option<v2::LinkReceivesResponse> {
    use v2::LinkReceivesMessage::MatchServer as Server;
    use v2::LinkSendsMessage::MatchClient as ClientCall;
    use v2::LinkSendsResponse::{MatchClient as ClientRpc, MatchServer as ServerRpc};
    let plain = match d {
        Delivery::Response {
            response: ServerRpc(v2::MatchServerResponse::Ping { request, value }),
            ..
        } => {
            writeln!(out, "c: pong {request} {value}").unwrap();
            return None;
        }
        Delivery::Response {
            call: ClientCall(call),
            response: ClientRpc(response),
        } => Delivery::Response { call, response },
        Delivery::Message(Server(m)) => Delivery::Message(m),
        Delivery::Request(Server(m)) => Delivery::Request(m),
        Delivery::Snapshot {
            sequence,
            message: Server(message),
        } => Delivery::Snapshot { sequence, message },
        _ => return None,
    };
    client_delivery(out, plain).map(v2::LinkReceivesResponse::MatchServer)
}

/// The script of the driver's `link`, through the Rust endpoints over links (`LinkEndpoint`
/// on both sides: the C++ side's `CppEndpoint`, the same members): its output.
fn link_play(seed: u64, loss: u64, ticks: u32) -> String {
    let config = SessionConfig::default();
    let c2s = v2::LinkSendsMessage::MatchClient;
    let s2c = v2::LinkSendsMessage::MatchServer;
    drive(
        (seed, loss, ticks),
        v2::LinkEndpoint::newest(config.clone()),
        v2::LinkEndpoint::newest(config),
        &mut ServerSide::default(),
        |client, tick, out| {
            client_sends(client, tick, out, c2s);
            if tick.is_multiple_of(6) && tick < BUSY_UNTIL {
                let call = v2::Ping { nonce: tick };
                let ping = v2::MatchServerMessage::Ping { request: 0, call };
                client.send(s2c(ping)).unwrap();
            }
        },
        |server, tick, _| server_sends(server, tick, s2c),
        link_server_delivery,
        link_client_delivery,
    )
}

/// The script of the driver's `hostile_of`, through Rust endpoints: a server fed a client's
/// packets (`wrap` makes its messages), again, then mutated and random bytes (re-framed ones
/// with `frame`); its output.
fn hostile_of<E, CO, CI, SO, SI>(
    seed: u64,
    mut client: Endpoint<E, CO, CI>,
    mut server: Endpoint<E, SO, SI>,
    wrap: impl Fn(v2::MatchClientMessage) -> CO::Message,
    mut deliver: impl FnMut(
        &mut ServerSide,
        Delivery<SI::Message, SO::Response, SO::Message>,
    ) -> Option<SI::Response>,
    frame: u64,
) -> String
where
    E: idlc_runtime::Encoding,
    CO: SessionProtocol<E>,
    CI: SessionProtocol<E>,
    SO: SessionProtocol<E>,
    SI: SessionProtocol<E>,
{
    let mut rng = Rng(seed);
    let mut side = ServerSide::default();
    let mut good: Vec<Vec<u8>> = Vec::new();
    for tick in 0..20u32 {
        let call = v2::Buy {
            call: tick,
            item: 1,
        };
        client
            .send(wrap(v2::MatchClientMessage::Buy { request: 0, call }))
            .unwrap();
        if tick % 3 == 0 {
            let input = v2::Input { seq: tick, dx: 2 };
            client
                .send_reliable(wrap(v2::MatchClientMessage::Input(input)))
                .unwrap();
        }
        good.extend(client.flush(TICK * tick).packets);
    }
    let mut feed = |side: &mut ServerSide, packet: &[u8]| {
        let result = server.receive(Duration::ZERO, packet, |d| deliver(side, d));
        writeln!(side.out, "h {}", verdict(&result)).unwrap();
    };
    for _ in 0..2 {
        for packet in &good {
            feed(&mut side, packet);
        }
    }
    for round in 0..3000usize {
        let packet = if round % 2 == 0 {
            let size = rng.below(40);
            (0..size).map(|_| rng.next() as u8).collect()
        } else if round % 4 == 1 {
            let mut p = good[round % good.len()].clone();
            let at = rng.below(p.len() as u64) as usize;
            p[at] ^= 1 << rng.below(8);
            p
        } else {
            let mut payload = good[round % good.len()][4..].to_vec();
            let flips = 1 + rng.below(3);
            for _ in 0..flips {
                if payload.is_empty() {
                    break;
                }
                let at = rng.below(payload.len() as u64) as usize;
                payload[at] ^= 1 << rng.below(8);
            }
            idlc_runtime::frame(idlc_runtime::session_id(frame), &payload)
        };
        feed(&mut side, &packet);
    }
    usage(&mut side.out, "h", server.usage());
    side.out
}

/// The script of the driver's `hostile`, through a Rust server: its output.
fn hostile(seed: u64) -> String {
    let config = SessionConfig::default();
    hostile_of(
        seed,
        Client::newest(config.clone()),
        Server::newest(config),
        |m| m,
        server_delivery,
        v2::MatchClient::newest(),
    )
}

/// The script of the driver's `link-hostile`, through a Rust link server: its output.
fn link_hostile(seed: u64) -> String {
    let config = SessionConfig::default();
    hostile_of(
        seed,
        v2::LinkEndpoint::newest(config.clone()),
        v2::LinkEndpoint::newest(config),
        v2::LinkSendsMessage::MatchClient,
        link_server_delivery,
        v2::LinkSends::newest(),
    )
}

fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cpp_sessions");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The C++ header of match_v2 (schemas/versions/match.cpp.map), written to the rig's directory.
fn header(dir: &Path) {
    let compilation = common::compiled(
        &[schema("versions/match_v2.idl")],
        &[schema("versions/match.enc")],
        Some(("Cpp", schema("versions/match.cpp.map"))),
    );
    let text = idlc::cppgen::generate_header(&compilation.ir, "match_v2").unwrap();
    std::fs::write(dir.join("match_v2.hpp"), text).unwrap();
}

/// A built driver: its name (compiler and flags) and binary.
struct Driver {
    name: String,
    binary: PathBuf,
}

impl Driver {
    fn run(&self, args: &[&str]) -> String {
        let output = Command::new(&self.binary).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "{} {args:?}: {}\n{}",
            self.name,
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }
}

/// The driver built by g++ at -O0, and by clang++ at -O0 with ASan and UBSan (plain where the
/// sanitizers do not link), in parallel, once per test process; empty without a compiler.
fn drivers() -> &'static [Driver] {
    static DRIVERS: OnceLock<Vec<Driver>> = OnceLock::new();
    DRIVERS.get_or_init(|| {
        let dir = work_dir();
        header(&dir);
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("cpp/session_driver.cpp");
        let sanitized = [
            "-O0",
            "-gline-tables-only",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
        ];
        let builds: Vec<(&str, &[&str])> = [("g++", &["-O0"][..]), ("clang++", &sanitized[..])]
            .into_iter()
            .filter(|(compiler, _)| present(compiler))
            .collect();
        std::thread::scope(|scope| {
            let threads: Vec<_> = builds
                .iter()
                .map(|&(compiler, flags)| {
                    let (dir, source) = (&dir, &source);
                    scope.spawn(move || {
                        let binary = dir.join(format!("session_driver_{}", compiler.replace('+', "p")));
                        let name = format!("{compiler} {}", flags.join(" "));
                        match build(compiler, flags, dir, &[source], &binary) {
                            Ok(()) => Driver { name, binary },
                            Err(e) if compiler == "clang++" => {
                                eprintln!("the sanitizers do not link here, clang++ builds without them: {e}");
                                build(compiler, &["-O0"], dir, &[source], &binary)
                                    .unwrap_or_else(|e| panic!("{e}"));
                                Driver { name: "clang++ -O0".into(), binary }
                            }
                            Err(e) => panic!("{e}"),
                        }
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        })
    })
}

/// The first line where two outputs differ, with its number, for a readable failure.
fn assert_same(driver: &Driver, what: &str, cpp: &str, rust: &str) {
    for (n, (c, r)) in cpp.lines().zip(rust.lines()).enumerate() {
        assert_eq!(c, r, "{}: {what}, line {}", driver.name, n + 1);
    }
    assert_eq!(
        cpp.lines().count(),
        rust.lines().count(),
        "{}: {what}",
        driver.name
    );
}

/// Runs the script `mode` of the driver and its Rust twin `rust` for each (seed, loss per
/// mille, ticks): the Rust output holds every line of `shown` (the script is not vacuous), and
/// each driver prints it line for line.
fn same_script(
    mode: &str,
    runs: &[(u64, u64, u32)],
    rust: impl Fn(u64, u64, u32) -> String,
    shown: &[&str],
) {
    if drivers().is_empty() {
        eprintln!("no g++ or clang++: skipped");
        return;
    }
    for &(seed, loss, ticks) in runs {
        let rust = rust(seed, loss, ticks);
        for line in shown {
            assert!(rust.contains(line), "{mode} seed {seed}: no {line:?}");
        }
        let args = [seed.to_string(), loss.to_string(), ticks.to_string()];
        for driver in drivers() {
            let cpp = driver.run(&[mode, &args[0], &args[1], &args[2]]);
            assert_same(driver, &format!("{mode} {args:?}"), &cpp, &rust);
        }
    }
}

/// Every state the client decoded; every buy answered.
#[test]
fn cpp_and_rust_sessions_send_the_same_bytes_over_a_bad_network() {
    let runs = [(32, 100, 300), (5, 250, 260), (9, 0, 60)];
    same_script(
        "play",
        &runs,
        play,
        &["c: snapshot", "c: bought", "s: pong"],
    );
}

/// Both protocols each way: buys and server pings answered to the client, client pings
/// answered to the server, snapshots decoded.
#[test]
fn cpp_and_rust_links_send_the_same_bytes_over_a_bad_network() {
    let shown = [
        "c: snapshot",
        "c: bought",
        "c: pong",
        "s: pong",
        "s: ping",
        "c: ping",
    ];
    same_script("link", &[(11, 150, 260), (9, 0, 60)], link_play, &shown);
}

/// Every way of answering, each delivered with its call.
#[test]
fn cpp_answers_now_refuses_defers_and_drops_as_rust_does() {
    let shown = [
        "c: bought",
        " sold out",
        "s: dropped",
        "s: unanswered 1 ",
        "s: unanswered 2 ",
        "the peer did not answer this call",
        "as its token's",
        "is another endpoint's",
        " sold out later",
    ];
    let runs = [(3, 100, 260), (21, 250, 260), (9, 0, 40)];
    same_script("answers", &runs, answers, &shown);
}

#[test]
fn hostile_packets_get_the_same_verdicts_in_cpp_as_in_rust() {
    if drivers().is_empty() {
        eprintln!("no g++ or clang++: skipped");
        return;
    }
    for (mode, rust) in [("hostile", hostile(7)), ("link-hostile", link_hostile(7))] {
        assert!(rust.contains("h decode CrcMismatch") && rust.contains("was received already"));
        for driver in drivers() {
            let cpp = driver.run(&[mode, "7"]);
            assert_same(driver, &format!("{mode} 7"), &cpp, &rust);
        }
    }
}

/// The generated session code, reviewed: MatchServer's and MatchClient's of match_v2, and its
/// links.
#[test]
fn the_session_code_reads_well() {
    let compilation = common::compiled(
        &[schema("versions/match_v2.idl")],
        &[schema("versions/match.enc")],
        Some(("Cpp", schema("versions/match.cpp.map"))),
    );
    let header = idlc::cppgen::generate_header(&compilation.ir, "match_v2").unwrap();
    // The links come after every protocol.
    let at = header
        .find("/// What this side sends to its peer")
        .expect("the side's links");
    let (protocols, links) = header.split_at(at);
    let sessions: Vec<&str> = protocols
        .split("/// A message or call of the protocol")
        .skip(1)
        .map(|part| part.split("/// The protocol `").next().unwrap_or(part))
        .collect();
    assert_eq!(sessions.len(), 2);
    insta::assert_snapshot!("match_v2_sessions_hpp", sessions.join("\n// ...\n"));
    // Its links: CppSends and CppReceives (no side mapping: both protocols both ways).
    let links = links.split("} // namespace").next().unwrap_or(links);
    insta::assert_snapshot!("match_v2_links_hpp", links);
}

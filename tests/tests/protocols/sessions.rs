//! Sessions through the generated API (schemas/versions/match_v1.idl and match_v2.idl): one
//! server endpoint per client, snapshot messages as deltas, RPCs both ways, reliable chat, over
//! a seeded network that loses, reorders and duplicates whole packets; a v1 and a v2 client on
//! one server; a silent peer; hostile packets.

use std::collections::HashMap;
use std::time::Duration;

use idlc_runtime::{Cap, Delivery, Endpoint, SessionConfig, SessionError, session_version};
use idlc_tests::{match_v1 as v1, match_v2 as v2};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(super) type Server = Endpoint<v2::DefaultEncoding, v2::MatchServer, v2::MatchClient>;
pub(super) type ClientV2 = Endpoint<v2::DefaultEncoding, v2::MatchClient, v2::MatchServer>;
type ClientV1 = Endpoint<v1::DefaultEncoding, v1::MatchClient, v1::MatchServer>;

pub(super) const TICK: Duration = Duration::from_millis(33);

/// Whole packets in flight one way: each lost, duplicated or delayed (so reordered).
#[derive(Default)]
pub(super) struct Wire {
    in_flight: Vec<(u32, Vec<u8>)>,
    /// The chance a packet is lost, and that it arrives twice.
    pub(super) loss: f64,
}

impl Wire {
    /// A link that loses `loss` of the packets, and repeats and delays as many.
    pub(super) fn lossy(loss: f64) -> Self {
        Wire {
            in_flight: Vec::new(),
            loss,
        }
    }

    pub(super) fn send(&mut self, rng: &mut ChaCha8Rng, now: u32, packet: Vec<u8>, lossy: bool) {
        if lossy && rng.random_bool(self.loss) {
            return;
        }
        let copies = if lossy && rng.random_bool(self.loss) {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let delay = if lossy { rng.random_range(0..4) } else { 0 };
            self.in_flight.push((now + delay, packet.clone()));
        }
    }

    pub(super) fn arrived(&mut self, now: u32) -> Vec<Vec<u8>> {
        let (ready, later) = self.in_flight.drain(..).partition(|(at, _)| *at <= now);
        self.in_flight = later;
        ready.into_iter().map(|(_, p)| p).collect()
    }
}

pub(super) fn world(tick: u32, client: u32) -> v2::World {
    let count = 3 + (tick / 40 + client) % 5;
    v2::World {
        tick,
        units: (0..count)
            .map(|i| v2::Unit {
                id: i as u16,
                x: ((tick * (i + 1) + client * 7) % 2000) as i16 - 1000,
                y: if i.is_multiple_of(2) {
                    5
                } else {
                    (tick % 100) as i16
                },
                hp: ((tick / 10 + i) % 101) as u8,
            })
            .collect(),
    }
}

/// What the server saw of one client.
#[derive(Default)]
pub(super) struct ServerSide {
    pub(super) buys: HashMap<u32, u32>,
    pub(super) emotes: u32,
    pub(super) inputs: u32,
}

impl v2::MatchClientHandler for ServerSide {
    fn input(&mut self, _message: v2::Input) {
        self.inputs += 1;
    }
    fn buy(&mut self, call: v2::Buy) -> u32 {
        *self.buys.entry(call.call).or_default() += 1;
        call.call * 10
    }
    fn emote(&mut self, call: v2::Emote) -> bool {
        self.emotes += 1;
        call.kind.is_multiple_of(2)
    }
}

/// What a client saw: the same for both versions.
#[derive(Default)]
struct ClientSide {
    state: Option<(u16, v2::World)>,
    chat: Vec<u32>,
    answers: HashMap<u32, u32>,
    pings: HashMap<u32, u32>,
}

pub(super) fn v1_world(world: &v1::World) -> v2::World {
    v2::World {
        tick: world.tick,
        units: world
            .units
            .iter()
            .map(|u| v2::Unit {
                id: u.id,
                x: u.x,
                y: u.y,
                hp: u.hp,
            })
            .collect(),
    }
}

/// One client of either version, as the test drives it.
enum Client {
    V1(ClientV1),
    V2(ClientV2),
}

impl Client {
    fn receive(
        &mut self,
        now: Duration,
        packet: &[u8],
        seen: &mut ClientSide,
    ) -> Result<(), SessionError> {
        match self {
            Client::V2(ep) => ep
                .receive(now, packet, |d| match d {
                    Delivery::Snapshot {
                        sequence,
                        message: v2::MatchServerMessage::Snapshot(s),
                    } => {
                        seen.state = Some((sequence, s.world));
                        None
                    }
                    Delivery::Message(v2::MatchServerMessage::Chat(c)) => {
                        seen.chat.push(c.line);
                        None
                    }
                    Delivery::Request(v2::MatchServerMessage::Ping { request, call }) => {
                        *seen.pings.entry(call.nonce).or_default() += 1;
                        Some(v2::MatchServerResponse::Ping {
                            request,
                            value: call.nonce + 1,
                        })
                    }
                    Delivery::Response {
                        response: v2::MatchClientResponse::Buy { value, .. },
                        ..
                    } => {
                        *seen.answers.entry(value).or_default() += 1;
                        None
                    }
                    _ => None,
                })
                .map(|_| ()),
            Client::V1(ep) => ep
                .receive(now, packet, |d| match d {
                    Delivery::Snapshot {
                        sequence,
                        message: v1::MatchServerMessage::Snapshot(s),
                    } => {
                        seen.state = Some((sequence, v1_world(&s.world)));
                        None
                    }
                    Delivery::Message(v1::MatchServerMessage::Chat(c)) => {
                        seen.chat.push(c.line);
                        None
                    }
                    Delivery::Request(v1::MatchServerMessage::Ping { request, call }) => {
                        *seen.pings.entry(call.nonce).or_default() += 1;
                        Some(v1::MatchServerResponse::Ping {
                            request,
                            value: call.nonce + 1,
                        })
                    }
                    Delivery::Response {
                        response: v1::MatchClientResponse::Buy { value, .. },
                        ..
                    } => {
                        *seen.answers.entry(value).or_default() += 1;
                        None
                    }
                    _ => None,
                })
                .map(|_| ()),
        }
    }

    fn tick(&mut self, tick: u32, now: Duration) -> Vec<Vec<u8>> {
        match self {
            Client::V2(ep) => {
                ep.send(v2::MatchClientMessage::Input(v2::Input {
                    seq: tick,
                    dx: 1,
                }))
                .unwrap();
                if tick.is_multiple_of(5) && tick < BUSY_UNTIL {
                    let call = v2::Buy {
                        call: tick,
                        item: 3,
                    };
                    ep.send(v2::MatchClientMessage::Buy { request: 0, call })
                        .unwrap();
                }
                if tick.is_multiple_of(9) && tick < BUSY_UNTIL {
                    let call = v2::Emote { kind: 2 };
                    ep.send(v2::MatchClientMessage::Emote { request: 0, call })
                        .unwrap();
                }
                ep.flush(now).packets
            }
            Client::V1(ep) => {
                ep.send(v1::MatchClientMessage::Input(v1::Input {
                    seq: tick,
                    dx: -1,
                }))
                .unwrap();
                if tick.is_multiple_of(5) && tick < BUSY_UNTIL {
                    let call = v1::Buy {
                        call: tick,
                        item: 4,
                    };
                    ep.send(v1::MatchClientMessage::Buy { request: 0, call })
                        .unwrap();
                }
                ep.flush(now).packets
            }
        }
    }
}

/// Calls and chat lines go out before this tick; the link is clean from `CLEAN_FROM` on.
const BUSY_UNTIL: u32 = 200;
const CLEAN_FROM: u32 = 240;

#[test]
fn three_clients_of_two_versions_stay_in_sync_over_a_bad_network() {
    play(32, 0.1, 300);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6))]

    #[test]
    fn any_seed_and_loss_keep_the_match_in_sync(seed in 0u64..1 << 32, loss in 0.0f64..0.3) {
        play(seed, loss, 260);
    }
}

/// Three clients (v2, v1, v2) and a v2 server over links that lose and duplicate a `loss` share
/// of the packets and delay them by up to 3 ticks, for `ticks` ticks; every check of the match.
fn play(seed: u64, loss: f64, ticks: u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = SessionConfig::default();
    let mut clients = [
        Client::V2(ClientV2::newest(config.clone())),
        Client::V1(ClientV1::newest(config.clone())),
        Client::V2(ClientV2::newest(config.clone())),
    ];
    let mut seen: Vec<ClientSide> = (0..3).map(|_| ClientSide::default()).collect();
    let mut servers: Vec<Option<Server>> = (0..3).map(|_| None).collect();
    let mut handled: Vec<ServerSide> = (0..3).map(|_| ServerSide::default()).collect();
    let wire = || Wire {
        loss,
        ..Wire::default()
    };
    let mut up: Vec<Wire> = (0..3).map(|_| wire()).collect();
    let mut down: Vec<Wire> = (0..3).map(|_| wire()).collect();
    let mut chat_sent: Vec<Vec<u32>> = vec![Vec::new(); 3];
    let mut pings_sent = [0u32; 3];
    for tick in 0..ticks {
        let now = TICK * tick;
        let lossy = tick < CLEAN_FROM;
        for c in 0..3 {
            for packet in clients[c].tick(tick, now) {
                up[c].send(&mut rng, tick, packet, lossy);
            }
            for packet in up[c].arrived(tick) {
                // A new peer: its version from its first packet.
                let server = servers[c].get_or_insert_with(|| {
                    let version = session_version(
                        <v2::MatchClient as idlc_runtime::Protocol<v2::DefaultEncoding>>::VERSIONS,
                        &packet,
                    )
                    .expect("a packet of a version the server speaks");
                    Server::new(config.clone(), 0, version).unwrap()
                });
                let side = &mut handled[c];
                let _ = server.receive(now, &packet, |d| match d {
                    Delivery::Request(m) | Delivery::Message(m) => m.handle(side),
                    Delivery::Response {
                        response: v2::MatchServerResponse::Ping { value, .. },
                        ..
                    } => {
                        assert!(value > 0);
                        None
                    }
                    Delivery::Snapshot { .. } | Delivery::Refused { .. } => None,
                });
            }
            let Some(server) = servers[c].as_mut() else {
                continue;
            };
            let state = v2::Snapshot {
                world: world(tick, c as u32),
            };
            server
                .send_snapshot(tick, v2::MatchServerMessage::Snapshot(state))
                .unwrap();
            if tick.is_multiple_of(10) && tick < BUSY_UNTIL {
                let chat = v2::Chat {
                    line: tick / 10,
                    text: "gg".into(),
                };
                server
                    .send_reliable(v2::MatchServerMessage::Chat(chat))
                    .unwrap();
                chat_sent[c].push(tick / 10);
            }
            if tick.is_multiple_of(13) && tick < BUSY_UNTIL {
                let call = v2::Ping { nonce: tick };
                server
                    .send(v2::MatchServerMessage::Ping { request: 0, call })
                    .unwrap();
                pings_sent[c] += 1;
            }
            let flushed = server.flush(now);
            assert!(flushed.left_out.is_empty());
            for packet in flushed.packets {
                down[c].send(&mut rng, tick, packet, lossy);
            }
            for packet in down[c].arrived(tick) {
                let before = seen[c].state.as_ref().map(|(s, _)| *s);
                let _ = clients[c].receive(now, &packet, &mut seen[c]);
                // Every state a client reconstructs is the server's mirror of it.
                if let Some((sequence, state)) = &seen[c].state
                    && before != Some(*sequence)
                {
                    let server = servers[c].as_ref().unwrap();
                    let Some(v2::MatchServerMessage::Snapshot(mirror)) =
                        server.sent_snapshot(*sequence, v2::MatchServer::SNAPSHOT)
                    else {
                        panic!("the server keeps the mirror of {sequence}");
                    };
                    assert_eq!(&mirror.world, state, "client {c}, tick {tick}");
                }
            }
            let usage = servers[c].as_ref().unwrap().usage();
            assert!(
                usage.mirrors <= config.kept_baselines
                    && usage.cached_answers <= config.cached_answers
            );
        }
    }
    for c in 0..3 {
        let last = world(ticks - 1, c as u32);
        assert_eq!(
            seen[c].state.as_ref().map(|(_, w)| w),
            Some(&last),
            "client {c}"
        );
        assert_eq!(
            seen[c].chat, chat_sent[c],
            "client {c}: chat in order, once"
        );
        let calls: Vec<u32> = (0..BUSY_UNTIL).step_by(5).collect();
        let mut bought: Vec<u32> = handled[c].buys.keys().copied().collect();
        bought.sort();
        assert_eq!(bought, calls, "client {c}: every buy handled");
        assert!(
            handled[c].buys.values().all(|&n| n == 1),
            "client {c}: each buy handled once"
        );
        assert_eq!(
            seen[c].answers.len(),
            calls.len(),
            "client {c}: every buy answered"
        );
        assert!(
            seen[c].answers.values().all(|&n| n == 1),
            "client {c}: each answer once"
        );
        assert_eq!(
            seen[c].pings.len() as u32,
            pings_sent[c],
            "client {c}: every ping"
        );
        assert!(seen[c].pings.values().all(|&n| n == 1));
        let emotes = if c == 1 {
            0
        } else {
            (0..BUSY_UNTIL).step_by(9).count() as u32
        };
        assert_eq!(handled[c].emotes, emotes);
        assert!(handled[c].inputs > 150);
    }
    // The v1 client cannot call what v2 added.
    let Client::V1(_) = &clients[1] else {
        unreachable!()
    };
    let mut v1_only = ClientV2::new(config, 0, 0).unwrap();
    let emote = v2::MatchClientMessage::Emote {
        request: 0,
        call: v2::Emote { kind: 1 },
    };
    assert_eq!(
        v1_only.send(emote),
        Err(SessionError::NotInVersion(v2::MatchClient::EMOTE))
    );
}

#[test]
fn a_silent_peer_times_out() {
    let config = SessionConfig {
        timeout: Duration::from_secs(2),
        ..SessionConfig::default()
    };
    let mut client = ClientV2::newest(config.clone());
    let mut server = Server::newest(config);
    let hello = client.flush(Duration::ZERO).packets.remove(0);
    server
        .receive(Duration::from_secs(1), &hello, |_| None)
        .unwrap();
    assert!(!server.is_silent(Duration::from_secs(3)));
    assert!(server.is_silent(Duration::from_millis(3001)));
}

#[test]
fn caps_are_errors_not_growth() {
    let config = SessionConfig {
        pending_requests: 2,
        queued_reliable: 1,
        queued_messages: 1,
        ..SessionConfig::default()
    };
    let mut client = ClientV2::newest(config.clone());
    let buy = |call| v2::MatchClientMessage::Buy {
        request: 0,
        call: v2::Buy { call, item: 1 },
    };
    client.send(buy(1)).unwrap();
    client.send(buy(2)).unwrap();
    assert_eq!(
        client.send(buy(3)),
        Err(SessionError::Full(Cap::PendingRequests))
    );
    let input = || v2::MatchClientMessage::Input(v2::Input { seq: 0, dx: 0 });
    client.send(input()).unwrap();
    assert_eq!(
        client.send(input()),
        Err(SessionError::Full(Cap::QueuedMessages))
    );
    client.send_reliable(input()).unwrap();
    assert_eq!(
        client.send_reliable(input()),
        Err(SessionError::Full(Cap::QueuedReliable))
    );
    assert_eq!(
        client.send_snapshot(0, input()),
        Err(SessionError::NotASnapshot(v2::MatchClient::INPUT))
    );
}

/// Hostile packet `round`: random bytes (even rounds), or one of `good` with one bit flipped.
pub(super) fn hostile_packet(rng: &mut ChaCha8Rng, good: &[Vec<u8>], round: usize) -> Vec<u8> {
    if round.is_multiple_of(2) {
        (0..rng.random_range(0..40)).map(|_| rng.random()).collect()
    } else {
        let mut p = good[round % good.len()].clone();
        let at = rng.random_range(0..p.len());
        p[at] ^= 1 << rng.random_range(0..8);
        p
    }
}

#[test]
fn hostile_packets_are_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let config = SessionConfig::default();
    let mut client = ClientV2::newest(config.clone());
    let mut server = Server::newest(config.clone());
    let mut side = ServerSide::default();
    let mut good = Vec::new();
    for tick in 0..20u32 {
        client
            .send(v2::MatchClientMessage::Buy {
                request: 0,
                call: v2::Buy {
                    call: tick,
                    item: 1,
                },
            })
            .unwrap();
        let packets = client.flush(TICK * tick).packets;
        good.extend(packets);
    }
    // Replayed: every packet a second time.
    for packet in &good {
        server
            .receive(Duration::ZERO, packet, |d| match d {
                Delivery::Request(m) | Delivery::Message(m) => m.handle(&mut side),
                _ => None,
            })
            .unwrap();
    }
    for packet in &good {
        assert!(matches!(
            server.receive(Duration::ZERO, packet, |_| None),
            Err(SessionError::Duplicate(_) | SessionError::Stale(_))
        ));
    }
    assert_eq!(side.buys.len(), 20);
    // Random and mutated bytes.
    for round in 0..3000usize {
        let packet = hostile_packet(&mut rng, &good, round);
        assert!(server.receive(Duration::ZERO, &packet, |_| None).is_err());
    }
    // Well framed but forged: acks of packets never sent, forged request ids and baselines.
    let version = <v2::MatchClient as idlc_runtime::Protocol<v2::DefaultEncoding>>::VERSIONS[0];
    let forge =
        |header: idlc_runtime::SessionHeader,
         items: &dyn Fn(&mut idlc_runtime::PacketWriter<v2::DefaultEncoding>)| {
            let mut w = idlc_runtime::PacketWriter::<v2::DefaultEncoding>::new(0);
            items(&mut w);
            w.finish_with_header(idlc_runtime::session_id(version), &header.to_bytes())
                .to_vec()
        };
    let mut fresh = Server::new(config.clone(), 0, 0).unwrap();
    let never_sent = forge(
        idlc_runtime::SessionHeader {
            sequence: 100,
            ack: 40,
            ack_bits: 0,
        },
        &|_| {},
    );
    assert_eq!(
        fresh.receive(Duration::ZERO, &never_sent, |_| None),
        Err(SessionError::AckNotSent(40))
    );
    let far_request = forge(
        idlc_runtime::SessionHeader {
            sequence: 101,
            ..idlc_runtime::SessionHeader::FIRST
        },
        &|w| {
            w.push(
                v2::MatchClient::BUY,
                idlc_runtime::ItemKind::Request(1 << 30),
                |w| {
                    idlc_runtime::Codec::<v2::DefaultEncoding>::encode_to(
                        &v2::Buy { call: 1, item: 1 },
                        w,
                    )
                },
            )
            .unwrap();
        },
    );
    assert_eq!(
        fresh.receive(Duration::ZERO, &far_request, |_| None),
        Err(SessionError::ForgedRequest(1 << 30))
    );
    let forged_response = forge(
        idlc_runtime::SessionHeader {
            sequence: 102,
            ..idlc_runtime::SessionHeader::FIRST
        },
        &|w| {
            w.push(
                v2::MatchServer::PING,
                idlc_runtime::ItemKind::Response(5),
                |w| {
                    idlc_runtime::Codec::<v2::DefaultEncoding>::encode_to(
                        &v2::PingResponse { value: 1 },
                        w,
                    )
                },
            )
            .unwrap();
        },
    );
    assert_eq!(
        fresh.receive(Duration::ZERO, &forged_response, |_| None),
        Err(SessionError::ForgedRequest(5))
    );
    // A client: a delta against a state it never had.
    let mut victim = ClientV2::newest(config.clone());
    let server_version =
        <v2::MatchServer as idlc_runtime::Protocol<v2::DefaultEncoding>>::VERSIONS[0];
    let mut w = idlc_runtime::PacketWriter::<v2::DefaultEncoding>::new(0);
    w.push(
        v2::MatchServer::SNAPSHOT,
        idlc_runtime::ItemKind::Snapshot { age: 3, ticks: 1 },
        |w| idlc_runtime::WireWrite::write_bits(w, 0, 8),
    )
    .unwrap();
    let header = idlc_runtime::SessionHeader {
        sequence: 9,
        ..idlc_runtime::SessionHeader::FIRST
    };
    let delta = w
        .finish_with_header(idlc_runtime::session_id(server_version), &header.to_bytes())
        .to_vec();
    assert_eq!(
        victim.receive(Duration::ZERO, &delta, |_| None),
        Err(SessionError::UnknownBaseline {
            id: v2::MatchServer::SNAPSHOT,
            sequence: 6
        })
    );
    let usage = server.usage();
    assert!(usage.handled_requests <= config.pending_requests);
    assert!(usage.cached_answers <= config.cached_answers);
}

#[test]
fn a_snapshot_message_costs_less_than_its_bytes_wrapped_delta() {
    let bytes = idlc_tests::session_bytes::measure(40, 16).unwrap();
    assert!(bytes.session_item < bytes.wrapped_item, "{bytes:?}");
}

#[test]
fn a_peer_that_received_nothing_yet_is_heard() {
    let mut server = Server::newest(SessionConfig::default());
    let mut client = ClientV2::newest(SessionConfig::default());
    // The server's first packets are lost; the client's say it has received nothing.
    let _lost = server.flush(Duration::ZERO);
    let _lost = server.flush(TICK);
    let hello = client.flush(TICK).packets.remove(0);
    assert!(server.receive(TICK, &hello, |_| None).is_ok());
}

#[test]
fn a_snapshot_over_the_mtu_is_left_out_and_named() {
    let config = SessionConfig {
        mtu: 30,
        ..SessionConfig::default()
    };
    let mut server = Server::newest(config);
    let big = v2::Snapshot { world: world(7, 0) };
    let small = v2::Chat {
        line: 0,
        text: "hi".into(),
    };
    server
        .send_snapshot(7, v2::MatchServerMessage::Snapshot(big))
        .unwrap();
    server.send(v2::MatchServerMessage::Chat(small)).unwrap();
    let flushed = server.flush(Duration::ZERO);
    assert_eq!(flushed.left_out, vec![v2::MatchServer::SNAPSHOT]);
    assert!(flushed.packets.iter().all(|p| p.len() <= 30));
    assert_eq!(flushed.packets.len(), 1, "the chat line still goes");
}

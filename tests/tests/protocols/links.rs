//! Links through the generated API: one endpoint per peer over every protocol its side speaks.
//! The arena client (arena_client.map) sends ArenaClientToServer and ArenaPing and receives
//! ArenaServerToClient and ArenaPing, the server the opposite: `ClientEndpoint` and
//! `ServerEndpoint` carry messages, reliable messages, requests and responses of all three in
//! the same packets over a seeded network that loses, duplicates and reorders them. The match
//! (schemas/versions/, no side: both protocols both ways) gives links of two versions: a v1 and
//! a v2 client on one v2 server. Hostile packets into a link endpoint are errors.

use std::collections::HashMap;
use std::time::Duration;

use idlc_runtime::{
    Delivery, ItemKind, PacketWriter, RequestId, SessionConfig, SessionError, SessionHeader,
    SessionResponse, session_id, session_version,
};
use idlc_tests::{arena_client as client, arena_server as server};
use idlc_tests::{match_v1 as v1, match_v2 as v2};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::sessions::{ServerSide, TICK, Wire, hostile_packet, v1_world, world};

/// What the arena server handled of its client.
#[derive(Default)]
struct Host {
    joins: u32,
    inputs: u32,
    said: Vec<String>,
    buys: HashMap<u32, u32>,
    pings: HashMap<u64, u32>,
}

impl server::ArenaClientToServerHandler for Host {
    fn join(&mut self, _call: server::Join) -> server::JoinResult {
        self.joins += 1;
        server::JoinResult {
            accepted: true,
            slot: Some(3),
            reason: String::new(),
            match_id: 77,
        }
    }
    fn input(&mut self, _call: server::Input) {
        self.inputs += 1;
    }
    fn fire(&mut self, _call: server::Fire) {}
    fn say(&mut self, call: server::Say) {
        self.said.push(call.text);
    }
    fn buy(&mut self, call: server::Buy) -> Option<server::Item> {
        *self.buys.entry(call.item_id).or_default() += 1;
        None
    }
    fn report_player(&mut self, _call: server::ReportPlayer) {}
}

impl server::ArenaPingHandler for Host {
    fn ping(&mut self, call: server::Ping) -> u64 {
        *self.pings.entry(call.sent_at_us).or_default() += 1;
        call.sent_at_us + 1
    }
}

/// What the arena client saw.
#[derive(Default)]
struct Player {
    chat: Vec<String>,
    kills: u32,
    pings: HashMap<u64, u32>,
    /// Responses to the client's calls, by request id.
    answers: HashMap<RequestId, u32>,
    /// Packets with items of both protocols it receives.
    mixed: u32,
}

/// Calls and reliable messages go out before this tick; the network is clean from `CLEAN_FROM`.
const BUSY_UNTIL: u32 = 150;
const CLEAN_FROM: u32 = 180;

#[test]
fn the_arena_link_carries_every_protocol_in_one_endpoint_per_peer() {
    for seed in [3, 17, 99] {
        arena(seed, 0.15, 220);
    }
}

#[test]
fn the_arena_links_agree_on_ids() {
    use idlc_runtime::Protocol;
    assert_eq!(
        client::ClientSends::versions(),
        server::ServerReceives::versions()
    );
    assert_eq!(
        client::ClientReceives::versions(),
        server::ServerSends::versions()
    );
    assert_eq!(
        <client::ClientSends as Protocol<client::S2CDebug>>::VERSIONS,
        <server::ServerReceives as Protocol<server::S2CDebug>>::VERSIONS
    );
    // ArenaClientToServer (2 versions) and ArenaPing (1): 2 link versions, distinct from every
    // member's ids.
    assert_eq!(client::ClientSends::versions().len(), 2);
    for id in client::ClientSends::versions() {
        assert!(!client::ArenaClientToServer::versions().contains(id));
        assert!(!client::ArenaPing::versions().contains(id));
    }
    assert_eq!(client::ClientSends::MEMBERS, 2);
    assert_eq!(client::ClientSends::member_versions(1), Some([1, 0]));
    let ping = client::ClientSendsMessage::ArenaPing(client::ArenaPingMessage::Ping {
        request: 0,
        call: client::Ping { sent_at_us: 1 },
    });
    assert_eq!(ping.id(), client::ArenaPing::PING * 2 + 1);
    let buy = client::ArenaClientToServer::BUY;
    assert_eq!(client::ClientSends::since(buy * 2), Some(1));
    assert!(!client::ClientSends::supports(0, buy * 2));
    assert!(client::ClientSends::supports(1, buy * 2));
    assert!(client::ClientSends::supports(0, 1));
}

fn arena(seed: u64, loss: f64, ticks: u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = SessionConfig::default();
    let mut player_ep: client::ClientEndpoint = client::ClientEndpoint::newest(config.clone());
    let mut host_ep: Option<server::ServerEndpoint> = None;
    let (mut player, mut host) = (Player::default(), Host::default());
    let wire = || {
        let mut wire = Wire::default();
        wire.loss = loss;
        wire
    };
    let (mut up, mut down) = (wire(), wire());
    let (mut said, mut chat) = (Vec::new(), Vec::new());
    let (mut player_calls, mut host_calls) = (Vec::new(), Vec::new());
    let mut host_answers: HashMap<RequestId, u32> = HashMap::new();
    let mut host_mixed = 0;
    let mut buys = Vec::new();
    for tick in 0..ticks {
        let now = TICK * tick;
        let lossy = tick < CLEAN_FROM;
        let busy = tick < BUSY_UNTIL;
        // The client: a join, inputs, reliable chat, pings and purchases.
        let c2s = client::ClientSendsMessage::ArenaClientToServer;
        if tick == 0 {
            let join = client::ArenaClientToServerMessage::Join {
                request: 0,
                call: client::Join {
                    name: "ada".into(),
                    client_version: 2,
                    auth_ticket: vec![1, 2, 3],
                    preferred_team: client::Team::default(),
                    region: "eu".into(),
                },
            };
            player_calls.push(player_ep.send(c2s(join)).unwrap().unwrap());
        }
        let input = client::Input {
            client_tick: tick,
            forward: 1,
            strafe: -1,
            yaw: 90.0,
            pitch: 0.0,
            jump: false,
            crouch: tick.is_multiple_of(2),
        };
        let input = client::ArenaClientToServerMessage::Input(input);
        assert_eq!(player_ep.send(c2s(input)).unwrap(), None);
        if busy && tick.is_multiple_of(3) {
            let say = client::Say {
                channel: client::ChatChannel::Everyone,
                whisper_to: None,
                text: format!("line {tick}"),
            };
            let say = client::ArenaClientToServerMessage::Say(say);
            player_ep.send_reliable(c2s(say)).unwrap();
            said.push(format!("line {tick}"));
        }
        if busy && tick.is_multiple_of(5) {
            let ping = client::ArenaPingMessage::Ping {
                request: 0,
                call: client::Ping {
                    sent_at_us: u64::from(tick),
                },
            };
            let ping = client::ClientSendsMessage::ArenaPing(ping);
            player_calls.push(player_ep.send(ping).unwrap().unwrap());
        }
        if busy && tick.is_multiple_of(6) {
            let buy = client::ArenaClientToServerMessage::Buy {
                request: 0,
                call: client::Buy {
                    item_id: tick,
                    count: 1,
                },
            };
            player_calls.push(player_ep.send(c2s(buy)).unwrap().unwrap());
            buys.push(tick);
        }
        for packet in player_ep.flush(now).packets {
            up.send(&mut rng, tick, packet, lossy);
        }
        // The server: one endpoint, its version from the client's first packet.
        for packet in up.arrived(tick) {
            let ep = host_ep.get_or_insert_with(|| {
                let version = session_version(server::ServerReceives::versions(), &packet)
                    .expect("a packet of a link version the server speaks");
                let out = server::ServerSends::versions().len() - 1;
                server::ServerEndpoint::new(config.clone(), out, version).unwrap()
            });
            let mut seen = [false; 2];
            let _ = ep.receive(now, &packet, |d| match d {
                Delivery::Request(m) | Delivery::Message(m) => {
                    let member = match &m {
                        server::ServerReceivesMessage::ArenaClientToServer(_) => 0,
                        server::ServerReceivesMessage::ArenaPing(_) => 1,
                    };
                    seen[member] = true;
                    m.handle(&mut host)
                }
                Delivery::Response { response: r, .. } => {
                    // The server calls ArenaPing alone (ArenaServerToClient has no RPC).
                    let server::ServerSendsResponse::ArenaPing(server::ArenaPingResponse::Ping {
                        value,
                        ..
                    }) = &r;
                    assert!(*value > 1000);
                    let request = SessionResponse::<server::S2C>::request(&r);
                    *host_answers.entry(request).or_default() += 1;
                    None
                }
                Delivery::Snapshot { .. } | Delivery::Refused { .. } => None,
            });
            host_mixed += u32::from(seen == [true, true]);
        }
        let Some(ep) = host_ep.as_mut() else {
            continue;
        };
        let s2c = server::ServerSendsMessage::ArenaServerToClient;
        if tick.is_multiple_of(2) {
            let kill = server::ArenaServerToClientMessage::KillFeed(server::KillFeed::default());
            ep.send(s2c(kill)).unwrap();
        }
        if busy && tick.is_multiple_of(4) {
            let line = server::ChatBroadcast {
                sender: 1,
                channel: server::ChatChannel::TeamOnly,
                text: format!("news {tick}"),
            };
            let line = server::ArenaServerToClientMessage::ChatBroadcast(line);
            ep.send_reliable(s2c(line)).unwrap();
            chat.push(format!("news {tick}"));
        }
        if busy && tick.is_multiple_of(7) {
            let ping = server::ArenaPingMessage::Ping {
                request: 0,
                call: server::Ping {
                    sent_at_us: 1000 + u64::from(tick),
                },
            };
            let call = ep
                .send(server::ServerSendsMessage::ArenaPing(ping))
                .unwrap();
            host_calls.push(call.expect("a call with a response"));
        }
        for packet in ep.flush(now).packets {
            down.send(&mut rng, tick, packet, lossy);
        }
        for packet in down.arrived(tick) {
            let mut seen = [false; 2];
            let _ = player_ep.receive(now, &packet, |d| match d {
                Delivery::Message(client::ClientReceivesMessage::ArenaServerToClient(m)) => {
                    seen[0] = true;
                    match m {
                        client::ArenaServerToClientMessage::ChatBroadcast(line) => {
                            player.chat.push(line.text);
                        }
                        client::ArenaServerToClientMessage::KillFeed(_) => player.kills += 1,
                        _ => {}
                    }
                    None
                }
                Delivery::Request(client::ClientReceivesMessage::ArenaPing(
                    client::ArenaPingMessage::Ping { request, call },
                )) => {
                    seen[1] = true;
                    *player.pings.entry(call.sent_at_us).or_default() += 1;
                    let value = call.sent_at_us + 1;
                    let pong = client::ArenaPingResponse::Ping { request, value };
                    Some(client::ClientReceivesResponse::ArenaPing(pong))
                }
                Delivery::Response { response: r, .. } => {
                    if let client::ClientSendsResponse::ArenaClientToServer(
                        client::ArenaClientToServerResponse::Join { value, .. },
                    ) = &r
                    {
                        assert_eq!(value.match_id, 77);
                    }
                    let request = SessionResponse::<client::S2C>::request(&r);
                    *player.answers.entry(request).or_default() += 1;
                    None
                }
                _ => None,
            });
            player.mixed += u32::from(seen == [true, true]);
        }
    }
    let context = format!("seed {seed}");
    assert_eq!(host.joins, 1, "{context}");
    assert!(host.inputs > 100, "{context}");
    assert_eq!(host.said, said, "{context}: reliable, once, in order");
    assert_eq!(player.chat, chat, "{context}: reliable, once, in order");
    assert!(player.kills > 40, "{context}");
    let mut bought: Vec<u32> = host.buys.keys().copied().collect();
    bought.sort_unstable();
    assert_eq!(bought, buys, "{context}: every buy handled");
    assert!(host.buys.values().all(|&n| n == 1), "{context}");
    let pinged = (0..BUSY_UNTIL).step_by(5).count();
    assert_eq!(host.pings.len(), pinged, "{context}");
    assert!(host.pings.values().all(|&n| n == 1), "{context}");
    assert_eq!(player.pings.len(), host_calls.len(), "{context}");
    assert!(player.pings.values().all(|&n| n == 1), "{context}");
    for (calls, answers) in [
        (&player_calls, &player.answers),
        (&host_calls, &host_answers),
    ] {
        assert_eq!(answers.len(), calls.len(), "{context}: every call answered");
        assert!(
            calls.iter().all(|c| answers.get(c) == Some(&1)),
            "{context}"
        );
    }
    assert!(
        player.mixed > 0 && host_mixed > 0,
        "{context}: shared packets"
    );
}

/// What a match client saw over its link, of either version.
#[derive(Default)]
struct Seen {
    state: Option<v2::World>,
    chat: Vec<u32>,
    pings: u32,
    answers: u32,
}

/// One round of a match client over its link: an input, a buy (and with v2 an emote), then
/// what the server sent. `$m` is the client's module, `$to_v2` its World as v2's.
macro_rules! client_round {
    ($m:ident, $to_v2:expr, $ep:expr, $seen:expr, $tick:expr, $now:expr, $down:expr, $emote:expr) => {{
        let (ep, seen) = (&mut $ep, &mut $seen);
        for packet in $down {
            ep.receive($now, &packet, |d| match d {
                Delivery::Snapshot {
                    message:
                        $m::LinkReceivesMessage::MatchServer($m::MatchServerMessage::Snapshot(s)),
                    ..
                } => {
                    seen.state = Some($to_v2(&s.world));
                    None
                }
                Delivery::Message($m::LinkReceivesMessage::MatchServer(
                    $m::MatchServerMessage::Chat(c),
                )) => {
                    seen.chat.push(c.line);
                    None
                }
                Delivery::Request($m::LinkReceivesMessage::MatchServer(
                    $m::MatchServerMessage::Ping { request, call },
                )) => {
                    seen.pings += 1;
                    let pong = $m::MatchServerResponse::Ping {
                        request,
                        value: call.nonce + 1,
                    };
                    Some($m::LinkReceivesResponse::MatchServer(pong))
                }
                Delivery::Response { .. } => {
                    seen.answers += 1;
                    None
                }
                _ => None,
            })
            .unwrap();
        }
        let input = $m::MatchClientMessage::Input($m::Input { seq: $tick, dx: 1 });
        ep.send($m::LinkSendsMessage::MatchClient(input)).unwrap();
        let buy = $m::MatchClientMessage::Buy {
            request: 0,
            call: $m::Buy {
                call: $tick,
                item: 2,
            },
        };
        ep.send($m::LinkSendsMessage::MatchClient(buy)).unwrap();
        if let Some(emote) = $emote {
            ep.send($m::LinkSendsMessage::MatchClient(emote)).unwrap();
        }
        ep.flush($now).packets
    }};
}

impl v2::MatchServerHandler for ServerSide {
    fn snapshot(&mut self, _message: v2::Snapshot) {}
    fn chat(&mut self, _message: v2::Chat) {}
    fn ping(&mut self, call: v2::Ping) -> u32 {
        call.nonce
    }
}

#[test]
fn an_older_and_a_newer_link_share_a_server() {
    // No side: MatchServer (1 version) and MatchClient (2) both ways, so 2 link versions in v2
    // and 1 in v1, the same id as v2's first.
    assert_eq!(v2::LinkReceives::versions().len(), 2);
    assert_eq!(
        v1::LinkSends::versions(),
        &v2::LinkReceives::versions()[..1]
    );
    assert_eq!(v2::LinkSends::versions(), v2::LinkReceives::versions());
    let config = SessionConfig::default();
    let mut old = v1::LinkEndpoint::newest(config.clone());
    let mut new = v2::LinkEndpoint::newest(config.clone());
    let (mut old_seen, mut new_seen) = (Seen::default(), Seen::default());
    let mut servers: [Option<v2::LinkEndpoint>; 2] = [None, None];
    let mut handled = [ServerSide::default(), ServerSide::default()];
    let mut down: [Vec<Vec<u8>>; 2] = [Vec::new(), Vec::new()];
    let mut versions = [None; 2];
    for tick in 0..30u32 {
        let now = TICK * tick;
        let emote = v2::MatchClientMessage::Emote {
            request: 0,
            call: v2::Emote { kind: 2 },
        };
        let up = [
            client_round!(
                v1,
                v1_world,
                old,
                old_seen,
                tick,
                now,
                std::mem::take(&mut down[0]),
                None::<v1::MatchClientMessage>
            ),
            client_round!(
                v2,
                v2::World::clone,
                new,
                new_seen,
                tick,
                now,
                std::mem::take(&mut down[1]),
                Some(emote)
            ),
        ];
        for (c, packets) in up.into_iter().enumerate() {
            for packet in packets {
                let server = servers[c].get_or_insert_with(|| {
                    let version = session_version(v2::LinkReceives::versions(), &packet).unwrap();
                    versions[c] = Some(version);
                    // A link spoken both ways: the same version back.
                    v2::LinkEndpoint::new(config.clone(), version, version).unwrap()
                });
                server
                    .receive(now, &packet, |d| match d {
                        Delivery::Request(m) | Delivery::Message(m) => m.handle(&mut handled[c]),
                        _ => None,
                    })
                    .unwrap();
            }
            let server = servers[c].as_mut().unwrap();
            let snapshot = v2::MatchServerMessage::Snapshot(v2::Snapshot {
                world: world(tick, c as u32),
            });
            server
                .send_snapshot(tick, v2::LinkSendsMessage::MatchServer(snapshot))
                .unwrap();
            let chat = v2::MatchServerMessage::Chat(v2::Chat {
                line: tick,
                text: "gg".into(),
            });
            server
                .send_reliable(v2::LinkSendsMessage::MatchServer(chat))
                .unwrap();
            if tick.is_multiple_of(4) {
                let ping = v2::MatchServerMessage::Ping {
                    request: 0,
                    call: v2::Ping { nonce: tick },
                };
                server
                    .send(v2::LinkSendsMessage::MatchServer(ping))
                    .unwrap();
            }
            down[c] = server.flush(now).packets;
        }
    }
    assert_eq!(versions, [Some(0), Some(1)]);
    for (c, seen) in [&old_seen, &new_seen].into_iter().enumerate() {
        assert_eq!(
            seen.state.as_ref(),
            Some(&world(28, c as u32)),
            "client {c}"
        );
        assert_eq!(seen.chat, (0..29).collect::<Vec<u32>>(), "client {c}");
        assert_eq!(seen.pings, 8, "client {c}");
        assert_eq!(handled[c].buys.len(), 30, "client {c}");
        assert_eq!(handled[c].inputs, 30, "client {c}");
    }
    assert_eq!(handled[0].emotes, 0);
    assert_eq!(handled[1].emotes, 30);
    // Buys answered (each a response), and the v2 client's emotes too.
    assert_eq!(old_seen.answers, 29);
    assert_eq!(new_seen.answers, 58);
    // A v2 link at the v1 version cannot send what MatchClient's v2 added.
    let mut at_v1 = v2::LinkEndpoint::new(config, 0, 0).unwrap();
    let emote = v2::MatchClientMessage::Emote {
        request: 0,
        call: v2::Emote { kind: 1 },
    };
    let id = v2::LinkSendsMessage::MatchClient(emote.clone()).id();
    assert_eq!(id, v2::MatchClient::EMOTE * 2 + 1);
    assert_eq!(
        at_v1.send(v2::LinkSendsMessage::MatchClient(emote)),
        Err(SessionError::NotInVersion(id))
    );
}

#[test]
fn hostile_packets_into_a_link_endpoint_are_errors() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let config = SessionConfig::default();
    let mut player: client::ClientEndpoint = client::ClientEndpoint::newest(config.clone());
    let mut good = Vec::new();
    for tick in 0..12u32 {
        let ping = client::ArenaPingMessage::Ping {
            request: 0,
            call: client::Ping {
                sent_at_us: u64::from(tick),
            },
        };
        player
            .send(client::ClientSendsMessage::ArenaPing(ping))
            .unwrap();
        good.extend(player.flush(TICK * tick).packets);
    }
    let mut host: server::ServerEndpoint = server::ServerEndpoint::newest(config.clone());
    let mut handler = Host::default();
    for packet in &good {
        host.receive(Duration::ZERO, packet, |d| match d {
            Delivery::Request(m) | Delivery::Message(m) => m.handle(&mut handler),
            _ => None,
        })
        .unwrap();
    }
    assert_eq!(handler.pings.len(), 12);
    for packet in &good {
        assert!(host.receive(Duration::ZERO, packet, |_| None).is_err());
    }
    for round in 0..3000usize {
        let packet = hostile_packet(&mut rng, &good, round);
        assert!(host.receive(Duration::ZERO, &packet, |_| None).is_err());
    }
    // Well framed for the link: a response to a call never made, an item of a member's entry
    // the link does not have (skipped), and a packet framed for a member protocol alone.
    let link = server::ServerReceives::newest();
    let forge = |frame: u64, sequence: u16, items: &dyn Fn(&mut PacketWriter<server::S2C>)| {
        let mut w = PacketWriter::<server::S2C>::new(0);
        items(&mut w);
        let header = SessionHeader {
            sequence,
            ..SessionHeader::FIRST
        };
        w.finish_with_header(session_id(frame), &header.to_bytes())
            .to_vec()
    };
    let mut fresh: server::ServerEndpoint = server::ServerEndpoint::newest(config);
    let response = forge(link, 1, &|w| {
        w.push(1, ItemKind::Response(9), |w| {
            idlc_runtime::Codec::<server::S2C>::encode_to(&server::PingResponse { value: 1 }, w)
        })
        .unwrap();
    });
    assert_eq!(
        fresh.receive(Duration::ZERO, &response, |_| None),
        Err(SessionError::ForgedRequest(9))
    );
    // ArenaPing has one entry: entry 40 of member 1 is item 81.
    let unknown = forge(link, 2, &|w| {
        w.push(81, ItemKind::Message, |w| {
            idlc_runtime::WireWrite::write_bits(w, 5, 3)
        })
        .unwrap();
    });
    let received = fresh.receive(Duration::ZERO, &unknown, |_| None).unwrap();
    assert_eq!((received.delivered, received.skipped), (0, 1));
    let member_framed = forge(server::ArenaPing::newest(), 3, &|_| {});
    assert!(
        fresh
            .receive(Duration::ZERO, &member_framed, |_| None)
            .is_err()
    );
}

// The server of the UDP demo (included by game.rs, once per encoding; `net` is the generated
// Server-side module): one endpoint per client, which receives UdpClientToServer and sends
// UdpServerToClient.

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use idlc_runtime::{
    Answer, AnswerToken, Delivery, Encoded, Protocol, Refusal, SessionError, session_version,
};
use rand_chacha::ChaCha8Rng;

use super::UseRecord;
use crate::arena_udp::sim::{self, Body};
use crate::arena_udp::udp::{self, Link};
use crate::arena_udp::{Config, NO_SUCH_ITEM, ServerCounts};
use crate::pcap::Pcap;

/// The encoding this build speaks.
type E = net::DefaultEncoding;

/// The server's end of one client's session.
type ClientEndpoint = net::UdpServerToClientEndpoint<net::UdpClientToServer>;

/// A `use_item` waiting for the next simulation step, which answers it.
type DeferredUse = (AnswerToken<net::UdpClientToServerResponse>, net::UseItem);

/// The server broadcasts a chat line every this many ticks.
const CHAT_EVERY: u32 = 10;

/// What the server hands back at the end of a run.
pub(super) struct Outcome {
    /// Ticks simulated.
    pub(super) ticks: u32,
    /// Characters in the World.
    pub(super) characters: usize,
    /// Every client that joined.
    pub(super) peers: Vec<PeerOutcome>,
    /// What went wrong, if anything.
    pub(super) errors: Vec<String>,
    /// Every datagram received and sent, with `config.capture`.
    pub(super) capture: Option<Pcap>,
    /// Per record of the capture that carries a Snapshot: the full form of its mirror.
    pub(super) capture_states: BTreeMap<usize, Vec<u8>>,
}

/// One client as the server saw it.
pub(super) struct PeerOutcome {
    /// The Character it steered.
    pub(super) character_id: u16,
    /// The server's counts.
    pub(super) counts: ServerCounts,
    /// The server's mirror of every World it sent the client, by tick: what the client holds
    /// once it has that Snapshot.
    pub(super) mirrors: BTreeMap<u32, net::World>,
    /// Every `use_item` handled, in order.
    pub(super) uses: Vec<UseRecord>,
}

/// Runs the server on `socket` (bound to `address`) until every client said `bye` after the
/// last tick, or the deadline.
pub(super) fn serve(socket: UdpSocket, address: SocketAddr, config: &Config) -> Outcome {
    let mut server = Server::new(socket, address, config);
    if let Err(error) = server.run() {
        server.errors.push(error);
    }
    Outcome {
        ticks: server.tick,
        characters: server.world.characters.len(),
        peers: server
            .peers
            .into_iter()
            .filter_map(|p| {
                Some(PeerOutcome {
                    character_id: p.state.character_id?,
                    counts: p.state.counts,
                    mirrors: p.state.mirrors,
                    uses: p.state.uses,
                })
            })
            .collect(),
        errors: server.errors,
        capture: server.capture,
        capture_states: server.capture_states,
    }
}

/// A client: its address, its endpoint, what the game keeps of it.
struct Peer {
    address: SocketAddr,
    endpoint: ClientEndpoint,
    state: PeerState,
}

/// What the game keeps per client.
struct PeerState {
    /// The Character it steers, once it said `hello`.
    character_id: Option<u16>,
    mirrors: BTreeMap<u32, net::World>,
    uses: Vec<UseRecord>,
    /// The `use_item`s the next step answers.
    deferred: Vec<DeferredUse>,
    counts: ServerCounts,
    /// Whether the endpoint reported the client silent (it is no longer served).
    timed_out: bool,
}

struct Server<'c> {
    config: &'c Config,
    socket: UdpSocket,
    /// Where `socket` is bound: the source of what the server sends, in the capture.
    address: SocketAddr,
    started: Instant,
    /// The truth: every Character as the server simulates it.
    world: net::World,
    bodies: Vec<Body>,
    rng: ChaCha8Rng,
    peers: Vec<Peer>,
    tick: u32,
    errors: Vec<String>,
    buffer: Vec<u8>,
    link: Link,
    capture: Option<Pcap>,
    capture_states: BTreeMap<usize, Vec<u8>>,
}

impl<'c> Server<'c> {
    fn new(socket: UdpSocket, address: SocketAddr, config: &'c Config) -> Self {
        let (bodies, rng) = sim::npcs(config.npcs, config.seed);
        let characters = (0..config.npcs)
            .map(|id| net::Character {
                character_id: id,
                inventory: vec![net::Item {
                    item_id: 100 + u32::from(id),
                    kind: net::ItemKind::Weapon,
                    count: 1,
                    durability: 0.75,
                }],
                ..Default::default()
            })
            .collect();
        Server {
            config,
            socket,
            address,
            started: Instant::now(),
            world: net::World {
                tick: 0,
                characters,
            },
            bodies,
            rng,
            peers: Vec::new(),
            tick: 0,
            errors: Vec::new(),
            buffer: vec![0; 2048],
            link: Link::new(config.network, config.seed ^ 0x5e4e),
            capture: config.capture.then(Pcap::new),
            capture_states: BTreeMap::new(),
        }
    }

    /// The session clock: the time since the server started.
    fn now(&self) -> Duration {
        self.started.elapsed()
    }

    /// Waits for the clients to join, runs the ticks, then tells the clients the match is over
    /// and serves them until they all said `bye`.
    fn run(&mut self) -> Result<(), String> {
        let config = self.config;
        let deadline = self.started + config.deadline;
        let interval = config.tick_interval();
        let join_by = (self.started + config.join_timeout).min(deadline);
        let mut next = Instant::now();
        while self.joined() < usize::from(config.clients) && Instant::now() < join_by {
            next += interval;
            self.receive_until(next.min(join_by))?;
            self.flush()?;
        }
        if self.joined() < usize::from(config.clients) {
            self.errors.push(format!(
                "{} of {} clients joined within {:?}",
                self.joined(),
                config.clients,
                config.join_timeout
            ));
        }
        for _ in 0..config.ticks {
            next += interval;
            self.receive_until(next.min(deadline))?;
            if Instant::now() >= deadline {
                return Err(format!("the deadline passed at tick {}", self.tick));
            }
            self.step()?;
        }
        self.end()?;
        // Served until every client said bye, then a few ticks more: the acknowledgement of
        // each `bye` must reach its client.
        let end_by = (Instant::now() + config.join_timeout).min(deadline);
        let mut linger = 3;
        while linger > 0 && Instant::now() < end_by {
            if self.serving().all(|p| p.state.counts.bye) {
                linger -= 1;
            }
            next += interval;
            self.receive_until(next.min(end_by))?;
            // The uses called on the last ticks are answered after the match.
            self.answer_uses()?;
            self.flush()?;
        }
        Ok(())
    }

    fn joined(&self) -> usize {
        self.peers
            .iter()
            .filter(|p| p.state.character_id.is_some())
            .count()
    }

    /// The peers not timed out.
    fn serving(&self) -> impl Iterator<Item = &Peer> {
        self.peers.iter().filter(|p| !p.state.timed_out)
    }

    /// Handles every datagram that comes before `until`.
    fn receive_until(&mut self, until: Instant) -> Result<(), String> {
        let mut buffer = std::mem::take(&mut self.buffer);
        let read_timeout = self.config.read_timeout;
        while let Some((len, from)) = udp::recv_until(&self.socket, &mut buffer, until, read_timeout)?
        {
            self.on_packet(&buffer[..len], from);
        }
        self.buffer = buffer;
        Ok(())
    }

    /// A packet goes to the endpoint of its address; a new address gets an endpoint in the
    /// version its first packet is framed with, while the match has room for it.
    fn on_packet(&mut self, packet: &[u8], from: SocketAddr) {
        record(&mut self.capture, from, self.address, packet);
        let now = self.now();
        let at = match self.peers.iter().position(|p| p.address == from) {
            Some(at) => at,
            None => {
                let versions = <net::UdpClientToServer as Protocol<E>>::VERSIONS;
                let (Some(version), true) = (
                    session_version(versions, packet),
                    self.peers.len() < usize::from(self.config.clients),
                ) else {
                    return; // not a session of ours, or the match is full
                };
                let Some(endpoint) = ClientEndpoint::new(self.config.session(), 0, version)
                else {
                    return;
                };
                self.peers.push(Peer {
                    address: from,
                    endpoint,
                    state: PeerState {
                        character_id: None,
                        mirrors: BTreeMap::new(),
                        uses: Vec::new(),
                        deferred: Vec::new(),
                        counts: ServerCounts::default(),
                        timed_out: false,
                    },
                });
                self.peers.len() - 1
            }
        };
        let Peer {
            endpoint, state, ..
        } = &mut self.peers[at];
        let mut calls = Calls {
            peer: state,
            world: &mut self.world,
            bodies: &mut self.bodies,
        };
        let received = endpoint.receive(now, packet, |delivery| match delivery {
            // A use_item is answered by the next simulation step: deferred, with its call.
            Delivery::Request(call @ net::UdpClientToServerMessage::UseItem { .. }) => {
                Answer::Later(call)
            }
            Delivery::Message(call) | Delivery::Request(call) => call.handle(&mut calls).into(),
            // The server calls nothing and receives no snapshots.
            Delivery::Response { .. } | Delivery::Refused { .. } | Delivery::Snapshot { .. } => {
                Answer::None
            }
        });
        for (token, call) in endpoint.take_deferred() {
            if let net::UdpClientToServerMessage::UseItem { call, .. } = call {
                state.deferred.push((token, call));
            }
        }
        match received {
            Ok(_) => state.counts.packets_received += 1,
            Err(SessionError::Duplicate(_) | SessionError::Stale(_)) => {
                state.counts.packets_refused += 1;
            }
            Err(error) => {
                state.counts.packets_refused += 1;
                let who = state.character_id.map_or(from.to_string(), |id| id.to_string());
                self.errors.push(format!("client {who}: {error}"));
            }
        }
    }

    /// One tick: move every Character, then queue the World for every client.
    fn step(&mut self) -> Result<(), String> {
        self.tick += 1;
        self.world.tick = self.tick;
        let dt = self.config.tick_seconds();
        for (body, character) in self.bodies.iter_mut().zip(&mut self.world.characters) {
            body.step(dt, &mut self.rng);
            show(body, character);
        }
        self.answer_uses()?;
        if self.tick.is_multiple_of(CHAT_EVERY) {
            self.chat()?;
        }
        for peer in self.peers.iter_mut().filter(|p| p.state.character_id.is_some()) {
            let snapshot = net::Snapshot {
                world: self.world.clone(),
            };
            peer.endpoint
                .send_snapshot(self.tick, net::UdpServerToClientMessage::Snapshot(snapshot))
                .map_err(|e| format!("tick {}: {e}", self.tick))?;
            peer.state.counts.snapshots += 1;
        }
        self.flush()
    }

    /// Answers the `use_item`s received since the last step: the result, or a refusal when
    /// the Character holds no such item.
    fn answer_uses(&mut self) -> Result<(), String> {
        for peer in &mut self.peers {
            let at = peer.state.character_id.and_then(|id| {
                self.world
                    .characters
                    .iter()
                    .position(|c| c.character_id == id)
            });
            for (token, call) in std::mem::take(&mut peer.state.deferred) {
                let result = match at {
                    Some(at) => use_one(&mut self.world.characters[at].inventory, call.item_id),
                    None => net::UseResult::default(),
                };
                peer.state.uses.push((call.item_id, result.used, result.left));
                peer.state.counts.uses += 1;
                let answered = if result.used {
                    let request = token.request();
                    let response = net::UdpClientToServerResponse::UseItem {
                        request,
                        value: result,
                    };
                    peer.endpoint.answer(token, response)
                } else {
                    let refusal = Refusal::new(NO_SUCH_ITEM, format!("no item {}", call.item_id));
                    peer.endpoint.refuse(token, refusal)
                };
                answered.map_err(|e| format!("use_item: {e}"))?;
            }
        }
        Ok(())
    }

    /// Broadcasts a chat line to every client: encoded once, appended to each endpoint.
    fn chat(&mut self) -> Result<(), String> {
        let line = net::UdpServerToClientMessage::Chat(net::Chat {
            tick: self.tick,
            text: format!("tick {}: {} players", self.tick, self.joined()),
        });
        let encoded = Encoded::new(&line).map_err(|e| e.to_string())?;
        for peer in self.peers.iter_mut().filter(|p| p.state.character_id.is_some()) {
            peer.endpoint
                .send_encoded_reliable(&encoded)
                .map_err(|e| format!("chat: {e}"))?;
            peer.state.counts.chats += 1;
        }
        Ok(())
    }

    /// Tells every client that the match is over (reliably: once, after its last Snapshot).
    fn end(&mut self) -> Result<(), String> {
        for peer in &mut self.peers {
            let end = net::End {
                last_tick: self.tick,
                moves_handled: peer.state.counts.moves,
            };
            peer.endpoint
                .send_reliable(net::UdpServerToClientMessage::End(end))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// Sends each client's packets: what its endpoint queued, and its acknowledgements. Keeps
    /// the mirror of every World sent; stops serving a client its endpoint reports silent.
    fn flush(&mut self) -> Result<(), String> {
        let now = self.now();
        let address = self.address;
        for peer in self.peers.iter_mut().filter(|p| !p.state.timed_out) {
            if peer.endpoint.is_silent(now) {
                peer.state.timed_out = true;
                self.errors.push(format!(
                    "client {}: silent for {:?}, timed out",
                    peer.address,
                    self.config.join_timeout
                ));
                continue;
            }
            let flushed = peer.endpoint.flush(now);
            if let Some((_, request)) = flushed.unanswered.first() {
                return Err(format!("request {request} of {} left unanswered", peer.address));
            }
            let mut mirrors = BTreeMap::new();
            for (id, sequence) in flushed.snapshots {
                if let Some(net::UdpServerToClientMessage::Snapshot(mirror)) =
                    peer.endpoint.sent_snapshot(sequence, id)
                {
                    peer.state
                        .mirrors
                        .insert(mirror.world.tick, mirror.world.clone());
                    mirrors.insert(sequence, mirror.clone());
                }
            }
            if let Some(id) = flushed.left_out.first() {
                return Err(format!("snapshot {id} does not fit in a packet"));
            }
            for packet in &flushed.packets {
                if let Some(capture) = &self.capture
                    && let Some(mirror) = packet_sequence(packet).and_then(|s| mirrors.get(&s))
                {
                    let state = mirror.to_bytes().map_err(|e| e.to_string())?;
                    self.capture_states.insert(capture.len(), state);
                }
                record(&mut self.capture, address, peer.address, packet);
                self.link.send(&self.socket, packet, peer.address)?;
                peer.state.counts.packets_sent += 1;
                peer.state.counts.bytes_sent += packet.len() as u64;
            }
        }
        Ok(())
    }
}

/// The sequence in a session packet's header (WIRE_FORMAT.md section 6: after the 4 bytes of
/// the CRC).
fn packet_sequence(packet: &[u8]) -> Option<u16> {
    Some(u16::from_le_bytes(packet.get(4..6)?.try_into().ok()?))
}

/// Adds a datagram from `from` to `to` to the capture, if one is kept (loopback: IPv4).
fn record(capture: &mut Option<Pcap>, from: SocketAddr, to: SocketAddr, datagram: &[u8]) {
    if let (Some(pcap), SocketAddr::V4(from), SocketAddr::V4(to)) = (capture, from, to) {
        pcap.udp(from, to, datagram);
    }
}

/// Copies a body's motion into its Character.
fn show(body: &Body, character: &mut net::Character) {
    character.x = body.x;
    character.y = body.y;
    character.vx = body.vx;
    character.vy = body.vy;
    character.angle = body.heading_degrees();
    let speed = body.speed();
    character.anim = if speed > 2.0 {
        net::Animation::Running
    } else if speed > 0.0 {
        net::Animation::Walking
    } else {
        net::Animation::Standing
    };
    character.animation_frame = body.frame;
}

/// The handler of one client's calls: `hello` gives it a Character, the rest act on it. The
/// endpoint hands each call here once, in order, however often the network repeated it.
struct Calls<'a> {
    peer: &'a mut PeerState,
    world: &'a mut net::World,
    bodies: &'a mut Vec<Body>,
}

impl Calls<'_> {
    /// The index of the client's Character in the World and its body.
    fn at(&self) -> Option<usize> {
        let id = self.peer.character_id?;
        self.world
            .characters
            .iter()
            .position(|c| c.character_id == id)
    }
}

impl net::UdpClientToServerHandler for Calls<'_> {
    /// A new player: a Character with a Medkit stack and some Ammo, at the next free id.
    fn hello(&mut self, _call: net::Hello) -> u16 {
        if let Some(id) = self.peer.character_id {
            return id;
        }
        let id = self.world.characters.len() as u16;
        self.bodies.push(Body::player(id));
        self.world.characters.push(net::Character {
            character_id: id,
            inventory: vec![
                net::Item {
                    item_id: 1,
                    kind: net::ItemKind::Medkit,
                    count: 3,
                    durability: 1.0,
                },
                net::Item {
                    item_id: 2,
                    kind: net::ItemKind::Ammo,
                    count: 30,
                    durability: 0.5,
                },
            ],
            ..Default::default()
        });
        self.peer.character_id = Some(id);
        id
    }

    fn bye(&mut self, _call: net::Bye) {
        self.peer.counts.bye = true;
    }

    fn move_to(&mut self, call: net::MoveTo) {
        if let Some(at) = self.at() {
            self.bodies[at].steer(call.vx, call.vy);
            self.peer.counts.moves += 1;
        }
    }

    /// Never called: the server defers every `use_item` to its next step (`answer_uses`).
    fn use_item(&mut self, call: net::UseItem) -> net::UseResult {
        let Some(at) = self.at() else {
            return net::UseResult::default();
        };
        use_one(&mut self.world.characters[at].inventory, call.item_id)
    }
}

/// Takes one of `item_id` from the stack: the last one removes the item.
fn use_one(inventory: &mut Vec<net::Item>, item_id: u32) -> net::UseResult {
    let Some(at) = inventory.iter().position(|i| i.item_id == item_id) else {
        return net::UseResult {
            used: false,
            left: 0,
        };
    };
    let item = &mut inventory[at];
    if item.count > 1 {
        item.count -= 1;
        net::UseResult {
            used: true,
            left: item.count,
        }
    } else {
        inventory.remove(at);
        net::UseResult {
            used: true,
            left: 0,
        }
    }
}

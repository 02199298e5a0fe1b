// The server of the UDP demo (included by game.rs, once per encoding; `net` is the generated
// Server-side module): receives UdpClientToServer, sends UdpServerToClient.

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::time::Instant;

use idlc_runtime::{BitWriter, DecodeErrorKind, DeltaContext, DispatchError, negotiate};
use rand_chacha::ChaCha8Rng;

use super::UseRecord;
use crate::arena_udp::sim::{self, Body};
use crate::arena_udp::udp::{self, Loss, MTU};
use crate::arena_udp::{Config, ServerCounts};

/// The encoding this build speaks.
type E = net::DefaultEncoding;

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
}

/// One client as the server saw it.
pub(super) struct PeerOutcome {
    /// The Character it steered.
    pub(super) character_id: u16,
    /// The server's counts.
    pub(super) counts: ServerCounts,
    /// The server's mirror of every tick the client acknowledged: what the client must hold.
    pub(super) acked: BTreeMap<u32, net::World>,
    /// Every `use_item` handled, by use id.
    pub(super) uses: BTreeMap<u32, UseRecord>,
}

/// Runs the server on `socket` until every client said `bye` after the last tick, or the
/// deadline.
pub(super) fn serve(socket: UdpSocket, config: &Config) -> Outcome {
    let started = Instant::now();
    let deadline = started + config.deadline;
    let mut server = Server::new(socket, config);
    if let Err(error) = server.run(started, deadline) {
        server.errors.push(error);
    }
    Outcome {
        ticks: server.tick,
        characters: server.world.characters.len(),
        peers: server
            .peers
            .into_iter()
            .map(|p| PeerOutcome {
                character_id: p.state.character_id,
                counts: p.state.counts,
                acked: p.state.acked_worlds,
                uses: p.state.uses,
            })
            .collect(),
        errors: server.errors,
    }
}

/// A client that joined: its address, its protocol ends in the negotiated versions, its state.
struct Peer {
    address: SocketAddr,
    receiver: net::UdpClientToServerReceiver,
    sender: net::UdpServerToClientSender,
    state: PeerState,
}

/// What the server keeps per client.
struct PeerState {
    character_id: u16,
    /// The last tick the client acknowledged: the baseline of its next Snapshot.
    acked: u32,
    /// The mirror (what the client reconstructs) of every tick sent since `acked`, and of it.
    mirrors: BTreeMap<u32, net::World>,
    /// The mirrors of the acknowledged ticks, kept for the end-of-run comparison.
    acked_worlds: BTreeMap<u32, net::World>,
    uses: BTreeMap<u32, UseRecord>,
    counts: ServerCounts,
}

struct Server<'c> {
    config: &'c Config,
    socket: UdpSocket,
    /// The truth: every Character as the server simulates it.
    world: net::World,
    bodies: Vec<Body>,
    rng: ChaCha8Rng,
    peers: Vec<Peer>,
    /// The receiver of clients not joined yet, in the oldest version: every `hello` comes here.
    lobby: net::UdpClientToServerReceiver,
    writer: BitWriter,
    tick: u32,
    errors: Vec<String>,
    buffer: Vec<u8>,
    loss: Loss,
}

impl<'c> Server<'c> {
    fn new(socket: UdpSocket, config: &'c Config) -> Self {
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
        let oldest = net::UdpClientToServer::versions_with::<E>()[0];
        Server {
            config,
            socket,
            world: net::World { characters },
            bodies,
            rng,
            peers: Vec::new(),
            lobby: net::UdpClientToServerReceiver::with_mtu(oldest, MTU),
            writer: BitWriter::new(),
            tick: 0,
            errors: Vec::new(),
            buffer: vec![0; 2048],
            loss: Loss::new(config.loss, config.seed ^ 0x5e4e),
        }
    }

    /// Waits for the clients, runs the ticks, then tells the clients the match is over until
    /// they all said `bye`.
    fn run(&mut self, started: Instant, deadline: Instant) -> Result<(), String> {
        let config = self.config;
        let join_by = (started + config.join_timeout).min(deadline);
        while self.peers.len() < usize::from(config.clients) && self.receive_one(join_by)? {}
        if self.peers.len() < usize::from(config.clients) {
            self.errors.push(format!(
                "{} of {} clients joined within {:?}",
                self.peers.len(),
                config.clients,
                config.join_timeout
            ));
        }
        let interval = config.tick_interval();
        let first = Instant::now();
        for tick in 1..=config.ticks {
            let at = first + interval * (tick - 1);
            while self.receive_one(at.min(deadline))? {}
            if Instant::now() >= deadline {
                return Err(format!("the deadline passed at tick {tick}"));
            }
            self.step()?;
        }
        let end_by = (Instant::now() + config.join_timeout).min(deadline);
        let mut next = Instant::now();
        while self.peers.iter().any(|p| !p.state.counts.bye) && Instant::now() < end_by {
            if Instant::now() >= next {
                self.send_end()?;
                next += interval;
            }
            while self.receive_one(next.min(end_by))? {}
        }
        Ok(())
    }

    /// Handles one datagram if one comes before `until`; `false` once `until` has passed.
    fn receive_one(&mut self, until: Instant) -> Result<bool, String> {
        let mut buffer = std::mem::take(&mut self.buffer);
        let got = udp::recv_until(&self.socket, &mut buffer, until, self.config.read_timeout);
        let result = match got {
            Ok(Some((len, from))) => self.on_packet(&buffer[..len], from).map(|()| true),
            Ok(None) => Ok(false),
            Err(e) => Err(e),
        };
        self.buffer = buffer;
        result
    }

    /// A packet from a joined client goes to its receiver, in the version negotiated with it;
    /// anything else (a `hello`) to the lobby's, in the oldest version.
    fn on_packet(&mut self, packet: &[u8], from: SocketAddr) -> Result<(), String> {
        let tick_hz = self.config.tick_hz;
        if let Some(peer) = self.peers.iter_mut().find(|p| p.address == from) {
            peer.state.counts.packets_received += 1;
            peer.state.counts.bytes_received += packet.len() as u64;
            let at = usize::from(peer.state.character_id);
            let mut calls = Calls {
                peer: &mut peer.state,
                character: &mut self.world.characters[at],
                body: &mut self.bodies[at],
                tick_hz,
            };
            match peer.receiver.dispatch(packet, &mut calls) {
                Ok(_) => {
                    while let Some(reply) = peer.receiver.replies() {
                        udp::send(&self.socket, reply, from, &mut self.loss)?;
                        peer.state.counts.reply_bytes += reply.len() as u64;
                    }
                    return Ok(());
                }
                // Not of the negotiated version: a `hello` sent again, for the lobby.
                Err(DispatchError::Decode(e)) if e.kind == DecodeErrorKind::CrcMismatch => {}
                Err(e) => return Err(format!("client {}: {e}", peer.state.character_id)),
            }
        }
        let mut lobby = Lobby {
            config: self.config,
            from,
            world: &mut self.world,
            bodies: &mut self.bodies,
            peers: &mut self.peers,
        };
        // A packet the lobby cannot read either (stale, or not ours) is dropped.
        if self.lobby.dispatch(packet, &mut lobby).is_err() {
            return Ok(());
        }
        while let Some(reply) = self.lobby.replies() {
            udp::send(&self.socket, reply, from, &mut self.loss)?;
            if let Some(peer) = self.peers.iter_mut().find(|p| p.address == from) {
                peer.state.counts.reply_bytes += reply.len() as u64;
            }
        }
        Ok(())
    }

    /// One tick: move every Character, then send each client the World as a delta against the
    /// last tick it acknowledged.
    fn step(&mut self) -> Result<(), String> {
        self.tick += 1;
        let dt = self.config.tick_seconds();
        for (body, character) in self.bodies.iter_mut().zip(&mut self.world.characters) {
            body.step(dt, &mut self.rng);
            show(body, character);
        }
        for peer in &mut self.peers {
            let state = &mut peer.state;
            let baseline = state
                .mirrors
                .get(&state.acked)
                .ok_or_else(|| format!("no mirror of the acknowledged tick {}", state.acked))?;
            // Seconds since the baseline, from tick counts: the client computes the same.
            let ctx = DeltaContext::from_ticks(u64::from(self.tick - state.acked), dt);
            self.writer.clear();
            let mirror = self
                .world
                .encode_delta(baseline, &ctx, &mut self.writer)
                .map_err(|e| format!("tick {}: {e}", self.tick))?;
            let snapshot = net::Snapshot {
                tick: self.tick,
                baseline_tick: state.acked,
                moves_handled: state.counts.moves,
                world: self.writer.finish().to_vec(),
            };
            peer.sender
                .snapshot(&snapshot)
                .map_err(|e| format!("tick {}: {e}", self.tick))?;
            let packet = peer.sender.finish();
            udp::send(&self.socket, packet, peer.address, &mut self.loss)?;
            state.counts.snapshots += 1;
            state.counts.snapshot_bytes += packet.len() as u64;
            state.counts.world_bytes += snapshot.world.len() as u64;
            state.mirrors.insert(self.tick, mirror);
        }
        Ok(())
    }

    /// Tells every client that has not said `bye` that the match is over.
    fn send_end(&mut self) -> Result<(), String> {
        for peer in self.peers.iter_mut().filter(|p| !p.state.counts.bye) {
            let end = net::End {
                last_tick: self.tick,
                moves_handled: peer.state.counts.moves,
            };
            peer.sender.end(&end).map_err(|e| e.to_string())?;
            let packet = peer.sender.finish();
            udp::send(&self.socket, packet, peer.address, &mut self.loss)?;
            peer.state.counts.end_bytes += packet.len() as u64;
        }
        Ok(())
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

/// The server's answer to a `hello`: its versions, the Character, the tick rate.
fn hello_reply(character_id: Option<u16>, tick_hz: u16) -> net::HelloReply {
    net::HelloReply {
        server_to_client: net::UdpServerToClient::versions_with::<E>().to_vec(),
        client_to_server: net::UdpClientToServer::versions_with::<E>().to_vec(),
        character_id,
        tick_hz,
    }
}

/// The handler of packets from addresses that have not joined: answers `hello`.
struct Lobby<'a> {
    config: &'a Config,
    from: SocketAddr,
    world: &'a mut net::World,
    bodies: &'a mut Vec<Body>,
    peers: &'a mut Vec<Peer>,
}

impl net::UdpClientToServerHandler for Lobby<'_> {
    fn hello(&mut self, call: net::Hello) -> net::HelloReply {
        let tick_hz = self.config.tick_hz;
        // A hello sent again (its answer was lost): the same answer.
        if let Some(peer) = self.peers.iter().find(|p| p.address == self.from) {
            return hello_reply(Some(peer.state.character_id), tick_hz);
        }
        let c2s = negotiate(
            net::UdpClientToServer::versions_with::<E>(),
            &call.client_to_server,
        );
        let s2c = negotiate(
            net::UdpServerToClient::versions_with::<E>(),
            &call.server_to_client,
        );
        let (Some((_, c2s)), Some((_, s2c))) = (c2s, s2c) else {
            return hello_reply(None, tick_hz);
        };
        if self.peers.len() >= usize::from(self.config.clients) {
            return hello_reply(None, tick_hz);
        }
        let slot = self.peers.len() as u16;
        let character_id = self.config.npcs + slot;
        self.bodies.push(Body::player(slot));
        self.world.characters.push(net::Character {
            character_id,
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
        self.peers.push(Peer {
            address: self.from,
            receiver: net::UdpClientToServerReceiver::with_mtu(c2s, MTU),
            sender: net::UdpServerToClientSender::with_mtu(s2c, MTU),
            state: PeerState {
                character_id,
                acked: 0,
                // Tick 0, the first baseline, is the empty World: both sides start from it.
                mirrors: BTreeMap::from([(0, net::World::default())]),
                acked_worlds: BTreeMap::new(),
                uses: BTreeMap::new(),
                counts: ServerCounts::default(),
            },
        });
        hello_reply(Some(character_id), tick_hz)
    }

    // Nothing but `hello` is accepted before a client has joined.
    fn ack(&mut self, _call: net::Ack) {}
    fn bye(&mut self, _call: net::Bye) {}
    fn move_to(&mut self, _call: net::MoveTo) {}
    fn use_item(&mut self, _call: net::UseItem) -> net::UseResult {
        net::UseResult::default()
    }
}

/// The handler of a joined client's calls: they act on its Character.
struct Calls<'a> {
    peer: &'a mut PeerState,
    character: &'a mut net::Character,
    body: &'a mut Body,
    tick_hz: u16,
}

impl net::UdpClientToServerHandler for Calls<'_> {
    fn hello(&mut self, _call: net::Hello) -> net::HelloReply {
        hello_reply(Some(self.peer.character_id), self.tick_hz)
    }

    /// The client holds the World of `tick`: it becomes the baseline of the next Snapshots.
    fn ack(&mut self, call: net::Ack) {
        let peer = &mut *self.peer;
        peer.counts.acks += 1;
        if call.tick <= peer.acked {
            return; // late: a newer tick is acknowledged already
        }
        if let Some(mirror) = peer.mirrors.get(&call.tick) {
            peer.acked_worlds.insert(call.tick, mirror.clone());
            peer.acked = call.tick;
            peer.mirrors.retain(|&tick, _| tick >= call.tick);
        }
    }

    fn bye(&mut self, _call: net::Bye) {
        self.peer.counts.bye = true;
    }

    /// Handled in order: a repeat, or one after a lost one, waits for the client to send again.
    fn move_to(&mut self, call: net::MoveTo) {
        if call.seq == self.peer.counts.moves {
            self.body.steer(call.vx, call.vy);
            self.peer.counts.moves += 1;
        } else {
            self.peer.counts.moves_skipped += 1;
        }
    }

    /// Uses one of the item; a use id asked again gets the first answer.
    fn use_item(&mut self, call: net::UseItem) -> net::UseResult {
        if let Some(&(_, used, left)) = self.peer.uses.get(&call.use_id) {
            self.peer.counts.uses_repeated += 1;
            return net::UseResult { used, left };
        }
        let result = use_one(&mut self.character.inventory, call.item_id);
        self.peer
            .uses
            .insert(call.use_id, (call.item_id, result.used, result.left));
        self.peer.counts.uses += 1;
        result
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

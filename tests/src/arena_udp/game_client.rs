// A client of the UDP demo (included by game.rs, once per encoding; `net` is the generated
// Client-side module): one endpoint, which sends UdpClientToServer and receives
// UdpServerToClient.

use std::collections::BTreeMap;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use idlc_runtime::{Delivery, NoResponse, Protocol, RequestId, SessionError};

use super::UseRecord;
use crate::arena_udp::sim;
use crate::arena_udp::udp::{self, Link};
use crate::arena_udp::{ClientCounts, Config, NO_SUCH_ITEM};

/// The client's end of its session.
type ServerEndpoint = net::UdpClientToServerEndpoint<net::UdpServerToClient>;

/// The items a client asks to use, in turn: its Medkit (3 of them), its Ammo, and an item it
/// does not have.
const USES: [u32; 4] = [1, 2, 2, 7];

/// What a client hands back at the end of a run.
pub(super) struct Outcome {
    /// The Character it steered; `None` if it never joined.
    pub(super) character_id: Option<u16>,
    /// The version of UdpClientToServer it speaks (from 1), and how many there are.
    pub(super) version: (usize, usize),
    /// The client's counts.
    pub(super) counts: ClientCounts,
    /// The World of every tick delivered.
    pub(super) worlds: BTreeMap<u32, net::World>,
    /// Every `use_item` answer.
    pub(super) uses: Vec<UseRecord>,
    /// What went wrong, if anything.
    pub(super) errors: Vec<String>,
}

/// Plays as the `index`-th client against the server at `server`: joins, steers and uses
/// items on its ticks until the match is over and everything it sent is acknowledged, then says
/// `bye`. Stops by `config.deadline` whatever happens.
pub(super) fn play(server: SocketAddr, config: &Config, index: u16) -> Outcome {
    let mut client = match Client::new(server, config, index) {
        Ok(client) => client,
        Err(error) => {
            return Outcome {
                character_id: None,
                version: (0, 0),
                counts: ClientCounts::default(),
                worlds: BTreeMap::new(),
                uses: Vec::new(),
                errors: vec![error],
            };
        }
    };
    if let Err(error) = client.play() {
        client.game.errors.push(error);
    }
    let (version, _) = client.endpoint.versions();
    let game = client.game;
    Outcome {
        character_id: game.character_id,
        version: (
            version + 1,
            <net::UdpClientToServer as Protocol<net::DefaultEncoding>>::VERSIONS.len(),
        ),
        counts: game.counts,
        worlds: game.worlds,
        uses: game.answered,
        errors: game.errors,
    }
}

struct Client<'c> {
    config: &'c Config,
    socket: UdpSocket,
    server: SocketAddr,
    started: Instant,
    deadline: Instant,
    endpoint: ServerEndpoint,
    game: Game,
    link: Link,
}

/// What the game holds and counts: everything the endpoint delivers lands here.
struct Game {
    character_id: Option<u16>,
    /// The World of every tick delivered. (A game would keep the newest; the demo keeps them all
    /// to compare with the server's mirrors.)
    worlds: BTreeMap<u32, net::World>,
    answered: Vec<UseRecord>,
    /// The match is over: the server's End came.
    ended: bool,
    /// The tick of the last chat line delivered.
    last_chat: Option<u32>,
    counts: ClientCounts,
    errors: Vec<String>,
}

impl<'c> Client<'c> {
    fn new(server: SocketAddr, config: &'c Config, index: u16) -> Result<Self, String> {
        let started = Instant::now();
        Ok(Client {
            config,
            socket: udp::bind_loopback()?,
            server,
            started,
            deadline: started + config.deadline,
            endpoint: ServerEndpoint::newest(config.session()),
            game: Game {
                character_id: None,
                worlds: BTreeMap::new(),
                answered: Vec::new(),
                ended: false,
                last_chat: None,
                counts: ClientCounts::default(),
                errors: Vec::new(),
            },
            link: Link::new(config.network, config.seed ^ (0xc1 + u64::from(index))),
        })
    }

    /// Says `hello`, then on each of its ticks acts and sends; once the match is over and
    /// everything it sent is acknowledged, says `bye` and waits for its acknowledgement.
    fn play(&mut self) -> Result<(), String> {
        self.call(net::UdpClientToServerMessage::Hello {
            request: 0,
            call: net::Hello {},
        })?;
        let interval = self.config.tick_interval();
        let mut next = Instant::now();
        let mut ticks = 0;
        let mut said_bye = false;
        loop {
            next += interval;
            self.receive_until(next.min(self.deadline))?;
            if Instant::now() >= self.deadline {
                let usage = self.endpoint.usage();
                return Err(format!(
                    "the deadline passed with {} requests and {} reliable messages unacknowledged",
                    usage.pending_requests, usage.queued_reliable
                ));
            }
            if self.game.character_id.is_some() && !self.game.ended {
                ticks += 1;
                self.act(ticks)?;
            }
            let usage = self.endpoint.usage();
            let settled = usage.pending_requests == 0 && usage.queued_reliable == 0;
            if self.game.ended && settled {
                if said_bye {
                    return Ok(()); // the bye is acknowledged
                }
                self.endpoint
                    .send_reliable(net::UdpClientToServerMessage::Bye(net::Bye {}))
                    .map_err(|e| e.to_string())?;
                said_bye = true;
            }
            self.flush()?;
        }
    }

    /// What the player does on its `tick`: steers (the velocity changes every `turn_every`
    /// ticks), and every `use_every` ticks uses an item.
    fn act(&mut self, tick: u32) -> Result<(), String> {
        let Some(id) = self.game.character_id else {
            return Ok(());
        };
        let (vx, vy) = sim::client_velocity(id, tick / self.config.turn_every.max(1));
        self.endpoint
            .send_reliable(net::UdpClientToServerMessage::MoveTo(net::MoveTo { vx, vy }))
            .map_err(|e| e.to_string())?;
        self.game.counts.moves += 1;
        if tick.is_multiple_of(self.config.use_every.max(1)) {
            let item_id = USES[self.game.counts.uses as usize % USES.len()];
            // The answer comes with this call: nothing to remember by request id.
            self.call(net::UdpClientToServerMessage::UseItem {
                request: 0,
                call: net::UseItem { item_id },
            })?;
            self.game.counts.uses += 1;
        }
        Ok(())
    }

    /// Sends a call that expects a response; returns its request id.
    fn call(&mut self, call: net::UdpClientToServerMessage) -> Result<RequestId, String> {
        match self.endpoint.send(call) {
            Ok(Some(request)) => Ok(request),
            Ok(None) => Err("a request got no request id".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Hands every datagram from the server that comes before `until` to the endpoint.
    fn receive_until(&mut self, until: Instant) -> Result<(), String> {
        let mut buffer = [0u8; 2048];
        let read_timeout = self.config.read_timeout;
        while let Some((len, from)) = udp::recv_until(&self.socket, &mut buffer, until, read_timeout)?
        {
            if from == self.server {
                let now = self.now();
                let game = &mut self.game;
                match self
                    .endpoint
                    .receive(now, &buffer[..len], |delivery| game.deliver(delivery))
                {
                    Ok(_) => game.counts.packets_received += 1,
                    Err(SessionError::Duplicate(_) | SessionError::Stale(_)) => {
                        game.counts.packets_refused += 1;
                    }
                    Err(e) => {
                        game.counts.packets_refused += 1;
                        game.errors.push(format!("a packet from the server: {e}"));
                    }
                }
            }
        }
        Ok(())
    }

    /// Sends the packets the endpoint builds: what is queued, what is due again, the
    /// acknowledgements.
    fn flush(&mut self) -> Result<(), String> {
        let now = self.now();
        for packet in self.endpoint.flush(now).packets {
            self.link.send(&self.socket, &packet, self.server)?;
            self.game.counts.packets_sent += 1;
            self.game.counts.bytes_sent += packet.len() as u64;
        }
        Ok(())
    }

    /// The session clock: the time since the client started.
    fn now(&self) -> Duration {
        self.started.elapsed()
    }
}

impl Game {
    /// What the endpoint delivers: Snapshots (each newer than the last), the End, answers.
    fn deliver(
        &mut self,
        delivery: Delivery<
            net::UdpServerToClientMessage,
            net::UdpClientToServerResponse,
            net::UdpClientToServerMessage,
        >,
    ) -> Option<NoResponse> {
        match delivery {
            Delivery::Snapshot {
                message: net::UdpServerToClientMessage::Snapshot(snapshot),
                ..
            } => {
                self.worlds.insert(snapshot.world.tick, snapshot.world);
                self.counts.snapshots += 1;
            }
            Delivery::Message(net::UdpServerToClientMessage::End(_)) => self.ended = true,
            Delivery::Response {
                response: net::UdpClientToServerResponse::Hello { value, .. },
                ..
            } => {
                self.character_id = Some(value);
            }
            Delivery::Response {
                call: net::UdpClientToServerMessage::UseItem { call, .. },
                response: net::UdpClientToServerResponse::UseItem { value, .. },
            } => {
                self.answered.push((call.item_id, value.used, value.left));
                self.counts.uses_answered += 1;
            }
            // The server refuses the use of an item the Character does not hold.
            Delivery::Refused {
                call: net::UdpClientToServerMessage::UseItem { call, .. },
                refusal,
            } if refusal.code == NO_SUCH_ITEM => {
                self.answered.push((call.item_id, false, 0));
                self.counts.uses_answered += 1;
            }
            Delivery::Message(net::UdpServerToClientMessage::Chat(line)) => {
                if self.last_chat.is_some_and(|last| line.tick <= last) {
                    self.errors.push(format!("chat line of tick {} out of order", line.tick));
                }
                self.last_chat = Some(line.tick);
                self.counts.chats += 1;
            }
            other => self.errors.push(format!("unexpected: {other:?}")),
        }
        None
    }
}

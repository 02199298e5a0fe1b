// A client of the UDP demo (included by game.rs, once per encoding; `net` is the generated
// Client-side module): sends UdpClientToServer, receives UdpServerToClient.

use std::collections::{BTreeMap, VecDeque};
use std::net::{SocketAddr, UdpSocket};
use std::time::Instant;

use idlc_runtime::{
    DecodeErrorKind, DeltaContext, DispatchError, RequestId, ResponseError, SendError, negotiate,
};

use super::UseRecord;
use crate::arena_udp::sim;
use crate::arena_udp::udp::{self, Loss, MTU};
use crate::arena_udp::{ClientCounts, Config};

/// The encoding this build speaks.
type E = net::DefaultEncoding;

/// The items a client asks to use, in turn: its Medkit (3 of them), its Ammo, and an item it
/// does not have.
const USES: [u32; 4] = [1, 2, 2, 7];

/// What a client hands back at the end of a run.
pub(super) struct Outcome {
    /// The Character it steered; `None` if it never joined.
    pub(super) character_id: Option<u16>,
    /// The negotiated version of UdpClientToServer (from 1), and how many this build speaks.
    pub(super) version: (usize, usize),
    /// The client's counts.
    pub(super) counts: ClientCounts,
    /// The World of every tick it decoded.
    pub(super) worlds: BTreeMap<u32, net::World>,
    /// Every `use_item` answered, by use id.
    pub(super) uses: BTreeMap<u32, UseRecord>,
    /// What went wrong, if anything.
    pub(super) errors: Vec<String>,
}

/// Joins the server at `server` as the `index`-th client, plays until the match is over and
/// everything it sent is confirmed, says `bye`. Stops by `config.deadline` whatever happens.
pub(super) fn play(server: SocketAddr, config: &Config, index: u16) -> Outcome {
    let deadline = Instant::now() + config.deadline;
    let mut counts = ClientCounts::default();
    let mut client = match Client::join(server, config, index, deadline, &mut counts) {
        Ok(client) => client,
        Err(error) => {
            return Outcome {
                character_id: None,
                version: (0, 0),
                counts,
                worlds: BTreeMap::new(),
                uses: BTreeMap::new(),
                errors: vec![error],
            };
        }
    };
    client.counts = counts;
    if let Err(error) = client.play(deadline) {
        client.errors.push(error);
    }
    client.counts.snapshots = client.inbox.decoded;
    client.counts.snapshots_skipped = client.inbox.skipped;
    client.errors.append(&mut client.inbox.errors);
    Outcome {
        character_id: Some(client.character_id),
        version: client.version,
        counts: client.counts,
        worlds: client.inbox.worlds,
        uses: client.answered,
        errors: client.errors,
    }
}

/// A `use_item` waiting for its answer.
struct PendingUse {
    item_id: u32,
    request: RequestId,
    sent_at: Instant,
}

struct Client<'c> {
    config: &'c Config,
    socket: UdpSocket,
    server: SocketAddr,
    sender: net::UdpClientToServerSender,
    receiver: net::UdpServerToClientReceiver,
    inbox: Inbox,
    character_id: u16,
    version: (usize, usize),
    /// `move_to`s the server has not confirmed yet, oldest first, with when each was last sent.
    moves: VecDeque<(net::MoveTo, Instant)>,
    /// `use_item`s not answered yet, by use id.
    uses: BTreeMap<u32, PendingUse>,
    answered: BTreeMap<u32, UseRecord>,
    /// The Snapshot count at which the next `use_item` is called.
    next_use_at: u32,
    counts: ClientCounts,
    errors: Vec<String>,
    loss: Loss,
}

impl<'c> Client<'c> {
    /// Says `hello` in the oldest version of UdpClientToServer (every server speaks it) until
    /// the server answers, then switches both protocols to the newest version both sides speak.
    fn join(
        server: SocketAddr,
        config: &'c Config,
        index: u16,
        deadline: Instant,
        counts: &mut ClientCounts,
    ) -> Result<Self, String> {
        let socket = udp::bind_loopback()?;
        let mut loss = Loss::new(config.loss, config.seed ^ (0xc1 + u64::from(index)));
        let ours_c2s = net::UdpClientToServer::versions_with::<E>();
        let ours_s2c = net::UdpServerToClient::versions_with::<E>();
        let mut sender = net::UdpClientToServerSender::with_mtu(ours_c2s[0], MTU);
        let hello = net::Hello {
            server_to_client: ours_s2c.to_vec(),
            client_to_server: ours_c2s.to_vec(),
        };
        let give_up = (Instant::now() + config.join_timeout).min(deadline);
        let mut buffer = [0u8; 2048];
        let reply = 'answered: loop {
            let request = sender.call_hello(&hello).map_err(|e| e.to_string())?;
            let packet = sender.finish();
            udp::send(&socket, packet, server, &mut loss)?;
            counts.packets_sent += 1;
            counts.bytes_sent += packet.len() as u64;
            let resend_at = (Instant::now() + config.resend_after).min(give_up);
            while let Some((len, from)) =
                udp::recv_until(&socket, &mut buffer, resend_at, config.read_timeout)?
            {
                let mut reply = None;
                if from == server {
                    let read = sender.read_responses(&buffer[..len], |response| {
                        if let Ok(net::UdpClientToServerResponse::Hello { value, .. }) = response {
                            reply = Some(value);
                        }
                    });
                    if read.is_err() {
                        counts.ignored_packets += 1;
                    }
                }
                if let Some(reply) = reply {
                    break 'answered reply;
                }
            }
            if Instant::now() >= give_up {
                return Err(format!(
                    "no answer to hello within {:?}",
                    config.join_timeout
                ));
            }
            // Unanswered: ask again; an answer to this request is now an unknown one.
            sender.forget(request);
        };
        let (c2s_index, c2s) = negotiate(ours_c2s, &reply.client_to_server)
            .ok_or("the server shares no version of UdpClientToServer")?;
        let (_, s2c) = negotiate(ours_s2c, &reply.server_to_client)
            .ok_or("the server shares no version of UdpServerToClient")?;
        let character_id = reply
            .character_id
            .ok_or("the server has no Character for us")?;
        sender.set_version(c2s);
        Ok(Client {
            config,
            socket,
            server,
            sender,
            receiver: net::UdpServerToClientReceiver::new(s2c),
            inbox: Inbox {
                tick_seconds: 1.0 / f64::from(reply.tick_hz.max(1)),
                // Tick 0, the first baseline, is the empty World: both sides start from it.
                worlds: BTreeMap::from([(0, net::World::default())]),
                latest: 0,
                new_ticks: Vec::new(),
                decoded: 0,
                moves_handled: 0,
                ended: false,
                ends: 0,
                skipped: 0,
                errors: Vec::new(),
            },
            character_id,
            version: (c2s_index + 1, ours_c2s.len()),
            moves: VecDeque::new(),
            uses: BTreeMap::new(),
            answered: BTreeMap::new(),
            next_use_at: config.use_every.max(1),
            counts: ClientCounts::default(),
            errors: Vec::new(),
            loss,
        })
    }

    /// Per packet from the server: acknowledges new Snapshots, steers and uses items; sends
    /// again what is unconfirmed for too long. Once the match is over and everything is
    /// confirmed, says `bye`.
    fn play(&mut self, deadline: Instant) -> Result<(), String> {
        let mut buffer = [0u8; 2048];
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "the deadline passed with {} move_to and {} use_item unconfirmed",
                    self.moves.len(),
                    self.uses.len()
                ));
            }
            let wait = (now + self.config.read_timeout).min(deadline);
            let got = udp::recv_until(&self.socket, &mut buffer, wait, self.config.read_timeout)?;
            if let Some((len, _)) = got.filter(|&(_, from)| from == self.server) {
                self.on_packet(&buffer[..len]);
            }
            for tick in std::mem::take(&mut self.inbox.new_ticks) {
                self.push(|s| s.ack(tick))?;
                self.counts.acks += 1;
                if !self.inbox.ended {
                    self.act()?;
                }
            }
            let handled = self.inbox.moves_handled;
            while self.moves.front().is_some_and(|(m, _)| m.seq < handled) {
                self.moves.pop_front();
            }
            self.resend()?;
            self.flush()?;
            if self.inbox.ended && self.moves.is_empty() && self.uses.is_empty() {
                return self.leave(deadline, &mut buffer);
            }
        }
    }

    /// A packet of UdpServerToClient goes to the handler; any other is a reply packet of
    /// UdpClientToServer (the responses to `use_item`).
    fn on_packet(&mut self, packet: &[u8]) {
        match self.receiver.dispatch(packet, &mut self.inbox) {
            Ok(_) => {}
            Err(DispatchError::Decode(e)) if e.kind == DecodeErrorKind::CrcMismatch => {
                let mut responses = Vec::new();
                match self.sender.read_responses(packet, |r| responses.push(r)) {
                    Ok(_) => responses.into_iter().for_each(|r| self.on_response(r)),
                    // Neither protocol in its negotiated version: a late answer to a hello.
                    Err(_) => self.counts.ignored_packets += 1,
                }
            }
            Err(e) => self.errors.push(format!("a packet from the server: {e}")),
        }
    }

    fn on_response(&mut self, response: Result<net::UdpClientToServerResponse, ResponseError>) {
        match response {
            Ok(net::UdpClientToServerResponse::UseItem { request, value }) => {
                let Some(use_id) = self
                    .uses
                    .iter()
                    .find(|(_, u)| u.request == request)
                    .map(|(&id, _)| id)
                else {
                    self.counts.late_responses += 1;
                    return;
                };
                let pending = self.uses.remove(&use_id);
                let item_id = pending.map_or(0, |u| u.item_id);
                self.answered
                    .insert(use_id, (item_id, value.used, value.left));
                self.counts.uses_answered += 1;
            }
            // The answer to a request asked again since (`forget`): its twin is still pending.
            Ok(net::UdpClientToServerResponse::Hello { .. })
            | Err(ResponseError::UnknownRequest(_)) => self.counts.late_responses += 1,
            Err(e) => self.errors.push(format!("a response: {e}")),
        }
    }

    /// What the player does on each new Snapshot: steers (the velocity changes every
    /// `turn_every` Snapshots), and every `use_every` Snapshots uses an item.
    fn act(&mut self) -> Result<(), String> {
        let n = self.counts.acks;
        let (vx, vy) = sim::client_velocity(self.character_id, n / self.config.turn_every.max(1));
        let call = net::MoveTo {
            seq: self.counts.moves,
            vx,
            vy,
        };
        self.push(|s| s.call_move_to(&call))?;
        self.moves.push_back((call, Instant::now()));
        self.counts.moves += 1;
        if n >= self.next_use_at {
            self.next_use_at = n + self.config.use_every.max(1);
            let use_id = self.counts.uses;
            let item_id = USES[use_id as usize % USES.len()];
            let request = self.push(|s| s.use_item(use_id, item_id))?;
            self.uses.insert(
                use_id,
                PendingUse {
                    item_id,
                    request,
                    sent_at: Instant::now(),
                },
            );
            self.counts.uses += 1;
        }
        Ok(())
    }

    /// Sends again the `move_to`s unconfirmed and every `use_item` unanswered for
    /// `resend_after`. A `use_item` is a new request under the same use id: the old request is
    /// forgotten, so that its answer, if it still comes, is not taken twice.
    fn resend(&mut self) -> Result<(), String> {
        let now = Instant::now();
        let resend_after = self.config.resend_after;
        let due = |at: Instant| now.duration_since(at) >= resend_after;
        // The server takes `move_to`s in order only: after a lost one it skipped every later one,
        // so when the oldest is due, all are sent again (go-back-N).
        if self.moves.front().is_some_and(|(_, at)| due(*at)) {
            let moves: Vec<net::MoveTo> = self.moves.iter().map(|(m, _)| m.clone()).collect();
            for call in moves {
                self.push(|s| s.call_move_to(&call))?;
                self.counts.moves_resent += 1;
            }
            for (_, at) in &mut self.moves {
                *at = now;
            }
        }
        let uses: Vec<(u32, u32, RequestId)> = self
            .uses
            .iter()
            .filter(|(_, u)| due(u.sent_at))
            .map(|(&id, u)| (id, u.item_id, u.request))
            .collect();
        for (use_id, item_id, old) in uses {
            self.sender.forget(old);
            let request = self.push(|s| s.use_item(use_id, item_id))?;
            self.uses.insert(
                use_id,
                PendingUse {
                    item_id,
                    request,
                    sent_at: now,
                },
            );
            self.counts.uses_resent += 1;
        }
        Ok(())
    }

    /// Adds a call to the packet being built; when the packet is full, sends it and adds the
    /// call to the next.
    fn push<T>(
        &mut self,
        mut add: impl FnMut(&mut net::UdpClientToServerSender) -> Result<T, SendError>,
    ) -> Result<T, String> {
        match add(&mut self.sender) {
            Err(SendError::PacketFull { .. }) => {
                self.flush()?;
                add(&mut self.sender).map_err(|e| e.to_string())
            }
            other => other.map_err(|e| e.to_string()),
        }
    }

    /// Sends the packet being built, if it holds anything.
    fn flush(&mut self) -> Result<(), String> {
        if self.sender.is_empty() {
            return Ok(());
        }
        let packet = self.sender.finish();
        udp::send(&self.socket, packet, self.server, &mut self.loss)?;
        self.counts.packets_sent += 1;
        self.counts.bytes_sent += packet.len() as u64;
        Ok(())
    }

    /// Says `bye`, and again while the server keeps sending End (it did not get it); done after
    /// three quiet ticks.
    fn leave(&mut self, deadline: Instant, buffer: &mut [u8]) -> Result<(), String> {
        let give_up = (Instant::now() + self.config.join_timeout).min(deadline);
        loop {
            self.push(|s| s.bye())?;
            self.flush()?;
            let quiet_until = Instant::now() + self.config.tick_interval() * 3;
            let ends = self.inbox.ends;
            while self.inbox.ends == ends {
                match udp::recv_until(&self.socket, buffer, quiet_until, self.config.read_timeout)?
                {
                    Some((len, from)) if from == self.server => self.on_packet(&buffer[..len]),
                    Some(_) => {}
                    None => return Ok(()),
                }
            }
            if Instant::now() >= give_up {
                return Ok(());
            }
        }
    }
}

/// The client's handler of UdpServerToClient: decodes each Snapshot against the World it holds
/// for the Snapshot's baseline.
struct Inbox {
    tick_seconds: f64,
    /// The World of every tick decoded, and of tick 0. (A game would drop the ticks older than
    /// the newest baseline; the demo keeps them to compare with the server's mirrors.)
    worlds: BTreeMap<u32, net::World>,
    latest: u32,
    /// Ticks decoded since the client last looked: to acknowledge.
    new_ticks: Vec<u32>,
    decoded: u32,
    moves_handled: u32,
    ended: bool,
    ends: u32,
    skipped: u32,
    errors: Vec<String>,
}

impl net::UdpServerToClientHandler for Inbox {
    fn snapshot(&mut self, message: net::Snapshot) {
        self.moves_handled = self.moves_handled.max(message.moves_handled);
        let baseline = self.worlds.get(&message.baseline_tick);
        let (true, Some(baseline)) = (message.tick > self.latest, baseline) else {
            self.skipped += 1; // older than one decoded already (reordered), or unknown baseline
            return;
        };
        // Seconds since the baseline, from tick counts: the same number as the server's.
        let ticks = message.tick.saturating_sub(message.baseline_tick);
        let ctx = DeltaContext::from_ticks(u64::from(ticks), self.tick_seconds);
        match net::World::from_delta_bytes(baseline, &ctx, &message.world) {
            Ok(world) => {
                self.worlds.insert(message.tick, world);
                self.latest = message.tick;
                self.new_ticks.push(message.tick);
                self.decoded += 1;
            }
            Err(e) => self.errors.push(format!("tick {}: {e}", message.tick)),
        }
    }

    fn end(&mut self, message: net::End) {
        self.moves_handled = self.moves_handled.max(message.moves_handled);
        self.ended = true;
        self.ends += 1;
    }
}

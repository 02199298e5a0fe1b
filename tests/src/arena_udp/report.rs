//! What a run measured and checked, per client: what the server counted, what the client
//! counted, and whether the two agree.

use std::fmt;
use std::time::Duration;

use super::Config;

/// What the server counted for one client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerCounts {
    /// Snapshots sent to the client (one per tick).
    pub snapshots: u32,
    /// Packets sent to the client (snapshots, answers, acknowledgements, End).
    pub packets_sent: u32,
    /// Their bytes, as sent.
    pub bytes_sent: u64,
    /// Packets received from the client and read.
    pub packets_received: u32,
    /// Packets received from the client and refused by the endpoint: duplicates and late ones
    /// (the network's doing), anything malformed.
    pub packets_refused: u32,
    /// `move_to`s handled.
    pub moves: u32,
    /// `use_item`s handled (answered or refused).
    pub uses: u32,
    /// Chat lines sent to the client.
    pub chats: u32,
    /// Whether the client said `bye`.
    pub bye: bool,
}

/// What one client counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientCounts {
    /// Snapshots delivered (each newer than the one before).
    pub snapshots: u32,
    /// Packets sent to the server.
    pub packets_sent: u32,
    /// Their bytes.
    pub bytes_sent: u64,
    /// Packets received from the server and read.
    pub packets_received: u32,
    /// Packets received from the server and refused by the endpoint (duplicates, late ones).
    pub packets_refused: u32,
    /// `move_to`s sent.
    pub moves: u32,
    /// `use_item`s called.
    pub uses: u32,
    /// `use_item`s answered (a result or a refusal).
    pub uses_answered: u32,
    /// Chat lines delivered (each once, in order).
    pub chats: u32,
}

/// One client: the server's and the client's counts, and the checks that compare them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientReport {
    /// The Character it steered.
    pub character_id: u16,
    /// The version of UdpClientToServer the client speaks (from 1), and how many there are.
    pub version: (usize, usize),
    /// What the server counted.
    pub server: ServerCounts,
    /// What the client counted.
    pub client: ClientCounts,
    /// Ticks whose World the client holds, compared with the server's mirror of that tick (what
    /// the server's endpoint computed the client holds once it has the Snapshot).
    pub ticks_compared: u32,
    /// Of these, ticks where the client's World differs from the server's mirror.
    pub ticks_differing: u32,
    /// Whether every `use_item` result the client got is the one the server's handler returned
    /// for that use id.
    pub uses_agree: bool,
    /// What went wrong on this client's side (a decode error, a timeout), if anything.
    pub errors: Vec<String>,
}

/// What a run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The encoding the run was built with.
    pub encoding: &'static str,
    /// The run's configuration.
    pub config: Config,
    /// Ticks the server simulated.
    pub ticks: u32,
    /// Characters in the World (NPCs and players).
    pub characters: usize,
    /// Per client, in joining order.
    pub clients: Vec<ClientReport>,
    /// How long the run took, from binding the server to the last thread's end.
    pub elapsed: Duration,
    /// What went wrong outside the joined clients (the server, a client that never joined), if
    /// anything.
    pub errors: Vec<String>,
    /// With [`Config::capture`]: a pcap file of every datagram the server received and every
    /// one it sent (as its endpoints built them, before the network lost or repeated any).
    pub capture: Option<Vec<u8>>,
    /// With [`Config::capture`]: per record of the capture (counted from 0) that carries a
    /// Snapshot, the full form (`to_bytes`) of the Snapshot the client holds once it decoded
    /// it: the server's mirror. What a dissector must show for a delta.
    pub capture_states: std::collections::BTreeMap<usize, Vec<u8>>,
}

impl Report {
    /// Server-to-client bytes per client per tick: every packet sent to a client (snapshots,
    /// answers, acknowledgements, the End) over the Snapshots it was sent, one per tick.
    #[must_use]
    pub fn server_bytes_per_tick(&self) -> f64 {
        self.mean(|c| c.server.bytes_sent, |c| c.server.snapshots)
    }

    /// Client-to-server bytes per client per tick (every packet as sent, over the ticks).
    #[must_use]
    pub fn client_bytes_per_tick(&self) -> f64 {
        self.mean(|c| c.client.bytes_sent, |_| self.ticks)
    }

    fn mean(
        &self,
        bytes: impl Fn(&ClientReport) -> u64,
        per: impl Fn(&ClientReport) -> u32,
    ) -> f64 {
        let total: u64 = self.clients.iter().map(&bytes).sum();
        let count: u64 = self.clients.iter().map(|c| u64::from(per(c))).sum();
        total as f64 / count.max(1) as f64
    }

    /// Every broken promise of the run: an error on either side, a `move_to` or `use_item` the
    /// server did not handle, a `use_item` not answered exactly once with what the server
    /// returned, too few ticks compared, a client World that differs from the
    /// server's mirror. Empty when the run delivered everything.
    #[must_use]
    pub fn problems(&self) -> Vec<String> {
        let mut out = self.errors.clone();
        if self.clients.len() != usize::from(self.config.clients) {
            out.push(format!(
                "{} of {} clients joined",
                self.clients.len(),
                self.config.clients
            ));
        }
        if self.ticks != self.config.ticks {
            out.push(format!(
                "the server ran {} of {} ticks",
                self.ticks, self.config.ticks
            ));
        }
        for c in &self.clients {
            let who = format!("client {}", c.character_id);
            out.extend(c.errors.iter().map(|e| format!("{who}: {e}")));
            if c.client.moves != c.server.moves {
                out.push(format!(
                    "{who}: sent {} move_to, the server handled {}",
                    c.client.moves, c.server.moves
                ));
            }
            if c.client.uses != c.server.uses || c.client.uses != c.client.uses_answered {
                out.push(format!(
                    "{who}: called use_item {} times, the server handled {}, {} answered",
                    c.client.uses, c.server.uses, c.client.uses_answered
                ));
            }
            if c.client.chats != c.server.chats || c.server.chats == 0 {
                out.push(format!(
                    "{who}: {} chat lines sent, {} delivered",
                    c.server.chats, c.client.chats
                ));
            }
            if !c.uses_agree {
                out.push(format!(
                    "{who}: a use_item result differs from the server's"
                ));
            }
            if c.client.moves == 0 || c.client.uses == 0 {
                out.push(format!("{who}: made no move_to or no use_item"));
            }
            if u64::from(c.ticks_compared) * 2 < u64::from(self.ticks) {
                out.push(format!(
                    "{who}: only {} of {} ticks compared",
                    c.ticks_compared, self.ticks
                ));
            }
            if c.ticks_differing > 0 {
                out.push(format!(
                    "{who}: the World differs from the server's mirror at {} ticks",
                    c.ticks_differing
                ));
            }
        }
        out
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let version = self.clients.first().map_or((0, 0), |c| c.version);
        writeln!(
            f,
            "{}: {} ticks at {} Hz, {} Characters ({} NPCs, {} players), UdpClientToServer version {} of {}, {:.2} s",
            self.encoding,
            self.ticks,
            self.config.tick_hz,
            self.characters,
            self.config.npcs,
            self.clients.len(),
            version.0,
            version.1,
            self.elapsed.as_secs_f64()
        )?;
        for c in &self.clients {
            let (s, k) = (&c.server, &c.client);
            writeln!(
                f,
                "  client {}: server->client {:.1} B/tick, client->server {:.1} B/tick; packets refused as duplicates or late: server {}, client {}",
                c.character_id,
                s.bytes_sent as f64 / f64::from(s.snapshots.max(1)),
                k.bytes_sent as f64 / f64::from(self.ticks.max(1)),
                s.packets_refused,
                k.packets_refused,
            )?;
            writeln!(
                f,
                "    snapshots delivered {}/{}; move_to sent {}, handled {}; use_item called {}, handled {}, answered {}; chat lines {}/{}; Worlds equal to the mirror {}/{}",
                k.snapshots,
                s.snapshots,
                k.moves,
                s.moves,
                k.uses,
                s.uses,
                k.uses_answered,
                k.chats,
                s.chats,
                c.ticks_compared - c.ticks_differing,
                c.ticks_compared,
            )?;
        }
        let problems = self.problems();
        if problems.is_empty() {
            write!(
                f,
                "  delivered: every move_to and use_item, once; every chat line, once, in order; every World equal to the mirror"
            )
        } else {
            write!(f, "  PROBLEMS: {}", problems.join("; "))
        }
    }
}

//! What a run measured and checked, per client: what the server counted, what the client
//! counted, and whether the two agree.

use std::fmt;
use std::time::Duration;

use super::Config;

/// What the server counted for one client.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerCounts {
    /// Snapshots sent to the client.
    pub snapshots: u32,
    /// Their packets' bytes, as sent (frame, message headers, tick numbers, the World delta).
    pub snapshot_bytes: u64,
    /// The World deltas alone.
    pub world_bytes: u64,
    /// Bytes of the reply packets (responses to `hello` and `use_item`).
    pub reply_bytes: u64,
    /// Bytes of the End packets.
    pub end_bytes: u64,
    /// Packets and bytes received from the client.
    pub packets_received: u32,
    /// Bytes received from the client.
    pub bytes_received: u64,
    /// `ack`s handled.
    pub acks: u32,
    /// `move_to`s handled, in order (seq 0, 1, 2, ...).
    pub moves: u32,
    /// `move_to`s skipped: a repeat of one handled already, or one after a gap.
    pub moves_skipped: u32,
    /// Distinct `use_item`s handled (use ids).
    pub uses: u32,
    /// `use_item`s asked again under a use id already handled: answered with the same result.
    pub uses_repeated: u32,
    /// Whether the client said `bye`.
    pub bye: bool,
}

/// What one client counted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientCounts {
    /// Snapshots received and decoded.
    pub snapshots: u32,
    /// Snapshots not decoded: older than one decoded already, or against a baseline it no
    /// longer holds.
    pub snapshots_skipped: u32,
    /// Packets sent to the server.
    pub packets_sent: u32,
    /// Their bytes.
    pub bytes_sent: u64,
    /// `ack`s sent.
    pub acks: u32,
    /// Distinct `move_to`s (seqs) sent.
    pub moves: u32,
    /// `move_to`s sent again, unconfirmed after `resend_after`.
    pub moves_resent: u32,
    /// Distinct `use_item`s (use ids) called.
    pub uses: u32,
    /// `use_item`s asked again, unanswered after `resend_after`.
    pub uses_resent: u32,
    /// `use_item`s answered: a response paired with the request that was pending for it.
    pub uses_answered: u32,
    /// Responses paired with no pending request (the answer to a request asked again since).
    pub late_responses: u32,
    /// Packets that were not of the negotiated versions or were malformed, ignored.
    pub ignored_packets: u32,
}

/// One client: the server's and the client's counts, and the checks that compare them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientReport {
    /// The Character it steered.
    pub character_id: u16,
    /// The version of UdpClientToServer negotiated (from 1) and how many the client speaks.
    pub version: (usize, usize),
    /// What the server counted.
    pub server: ServerCounts,
    /// What the client counted.
    pub client: ClientCounts,
    /// Ticks the client acknowledged (as the server saw the acks) whose World the client holds
    /// and was compared with the server's mirror of that tick.
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
}

impl Report {
    /// Snapshot bytes per client per tick (packets as sent).
    #[must_use]
    pub fn snapshot_bytes_per_tick(&self) -> f64 {
        self.mean(|c| c.server.snapshot_bytes, |c| c.server.snapshots)
    }

    /// World delta bytes per client per tick.
    #[must_use]
    pub fn world_bytes_per_tick(&self) -> f64 {
        self.mean(|c| c.server.world_bytes, |c| c.server.snapshots)
    }

    /// Client-to-server bytes per client per tick (everything a client sent, over the ticks).
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
    /// returned, too few acknowledged ticks compared, a client World that differs from the
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
                    "{who}: only {} of {} ticks acknowledged and compared",
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
            let per = |bytes: u64, n: u32| bytes as f64 / f64::from(n.max(1));
            writeln!(
                f,
                "  client {}: snapshot {:.1} B/tick (World delta {:.1}), client->server {:.1} B/tick, replies {} B",
                c.character_id,
                per(s.snapshot_bytes, s.snapshots),
                per(s.world_bytes, s.snapshots),
                per(k.bytes_sent, self.ticks),
                s.reply_bytes,
            )?;
            writeln!(
                f,
                "    snapshots decoded {}/{}; move_to sent {}, handled {}; use_item called {}, handled {}, answered {}; resent {}; acked Worlds equal to the mirror {}/{}",
                k.snapshots,
                s.snapshots,
                k.moves,
                s.moves,
                k.uses,
                s.uses,
                k.uses_answered,
                k.moves_resent + k.uses_resent,
                c.ticks_compared - c.ticks_differing,
                c.ticks_compared,
            )?;
        }
        let problems = self.problems();
        if problems.is_empty() {
            write!(
                f,
                "  delivered: every move_to and use_item; every acked World equal"
            )
        } else {
            write!(f, "  PROBLEMS: {}", problems.join("; "))
        }
    }
}

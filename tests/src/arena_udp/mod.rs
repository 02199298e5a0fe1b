//! The UDP demo: a server and clients on 127.0.0.1 (std::net and threads), speaking the
//! protocols of schemas/arena_udp.idl through sessions: one generated endpoint
//! (`idlc_runtime::Endpoint`) per peer on each side.
//!
//! - A client says `hello` (a request) and gets the Character it steers; the server reads the
//!   client's protocol version from its first packet.
//! - The server sends a Snapshot per client per tick: the World of the seed's Characters (NPCs
//!   walking straight and turning now and then, and one Character per client), which the
//!   endpoint sends as a delta against the last World that client acknowledged.
//! - Each client steers its Character (`move_to`, sent reliably: once, in order) and uses items
//!   (`use_item`, a request answered exactly once: deferred to the server's next simulation
//!   step, and refused, [`NO_SUCH_ITEM`], when the Character holds no such item). The
//!   endpoints acknowledge, resend and deduplicate; neither side writes any of that.
//! - Every 10 ticks the server broadcasts a chat line to every client: encoded once
//!   (`idlc_runtime::Encoded`), appended reliably to each endpoint.
//! - The network is made bad on purpose ([`Network`]): each side loses, duplicates and delays
//!   datagrams it sends. Every socket read has a timeout, every phase a deadline: nothing hangs.
//!
//! The game code is written once (game.rs, with game_server.rs and game_client.rs) and compiled
//! twice: [`e1`] uses the modules generated with MYENCODING1, [`e2`] those generated with
//! MYENCODING2 (dead reckoning). Only the encoding files differ (tests/build.rs).
//! `cargo run -p idlc-tests --example arena_udp` runs both and prints the bytes per tick.
//!
//! Clients of other programs play against the same server through `run_with` ([`external`]):
//! the C++ client, tests/cpp/arena_client.cpp (docs/CPP.md).

pub mod external;
mod report;
pub mod sim;
mod udp;

pub use report::{ClientCounts, ClientReport, Report, ServerCounts};

use std::time::Duration;

/// The refusal code of a `use_item` of an item the Character does not hold (the server answers
/// `use_item` on its next step, and refuses it with this code then).
pub const NO_SUCH_ITEM: u32 = 1;

/// The demo built with MYENCODING1 (the seed's delta encoding).
pub mod e1 {
    use crate::arena_udp_e1_client as client_net;
    use crate::arena_udp_e1_server as server_net;
    include!("game.rs");
}

/// The demo built with MYENCODING2 (the seed's delta encoding with dead reckoning): the same
/// game code as [`e1`].
pub mod e2 {
    use crate::arena_udp_e2_client as client_net;
    use crate::arena_udp_e2_server as server_net;
    include!("game.rs");
}

/// What the network does to each datagram a side sends, on purpose: loopback loses, repeats and
/// reorders nothing, so the endpoints' resends and checks would never run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Network {
    /// The probability that a datagram is lost.
    pub loss: f64,
    /// The probability that a datagram is sent twice.
    pub duplication: f64,
    /// The probability that a datagram is held back and sent after the next one.
    pub reordering: f64,
}

impl Network {
    /// Loopback as it is.
    pub const CLEAN: Network = Network {
        loss: 0.0,
        duplication: 0.0,
        reordering: 0.0,
    };

    /// 10% of the datagrams lost, 10% duplicated, 10% reordered.
    pub const BAD: Network = Network {
        loss: 0.1,
        duplication: 0.1,
        reordering: 0.1,
    };
}

/// How a run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Clients that join; each steers one Character.
    pub clients: u16,
    /// Characters the server moves by itself (walking straight, turning now and then).
    pub npcs: u16,
    /// Ticks per second, of the server and of the clients.
    pub tick_hz: u16,
    /// Ticks the server simulates, one Snapshot per client each.
    pub ticks: u32,
    /// A client calls `use_item` every this many of its ticks.
    pub use_every: u32,
    /// A client turns its Character every this many of its ticks.
    pub turn_every: u32,
    /// The seed of the NPCs' movement and of the network's mischief.
    pub seed: u64,
    /// The longest a side blocks on its socket before it looks at its timers again.
    pub read_timeout: Duration,
    /// The longest the server waits for the clients to join, and for their `bye` at the end.
    pub join_timeout: Duration,
    /// The longest the whole run may take: past it every thread stops and reports what it has.
    pub deadline: Duration,
    /// What the network does to the datagrams.
    pub network: Network,
    /// Whether the server keeps a capture of every datagram it receives and every one it sends
    /// ([`Report::capture`], a pcap file's bytes).
    pub capture: bool,
}

impl Config {
    /// The example's run: 4 clients and 8 NPCs, 30 Hz for 2 seconds, over a bad network.
    #[must_use]
    pub fn demo() -> Self {
        Config {
            clients: 4,
            npcs: 8,
            tick_hz: 30,
            ticks: 60,
            use_every: 6,
            turn_every: 20,
            seed: 0x0a7e_4a0d,
            read_timeout: Duration::from_millis(20),
            join_timeout: Duration::from_secs(2),
            deadline: Duration::from_secs(8),
            network: Network::BAD,
            capture: false,
        }
    }

    /// The test's run: the same for 1 second.
    #[must_use]
    pub fn short() -> Self {
        Config {
            ticks: 30,
            ..Self::demo()
        }
    }

    /// Seconds per tick.
    #[must_use]
    pub fn tick_seconds(&self) -> f64 {
        1.0 / f64::from(self.tick_hz.max(1))
    }

    /// The time between two ticks.
    #[must_use]
    pub fn tick_interval(&self) -> Duration {
        Duration::from_secs_f64(self.tick_seconds())
    }

    /// The sessions' settings: a reliable item not acknowledged after 4 packets (4 ticks) is
    /// sent again, and a peer silent for the join timeout is gone.
    #[must_use]
    pub fn session(&self) -> idlc_runtime::SessionConfig {
        idlc_runtime::SessionConfig {
            mtu: udp::MTU,
            resend_after: 4,
            timeout: self.join_timeout,
            tick_seconds: self.tick_seconds(),
            ..idlc_runtime::SessionConfig::default()
        }
    }
}

/// Runs the demo in MYENCODING1, then in MYENCODING2.
pub fn run_both(config: &Config) -> Result<[Report; 2], String> {
    Ok([e1::run(config)?, e2::run(config)?])
}

//! The UDP demo: a server and clients on 127.0.0.1 (std::net and threads), speaking the
//! protocols of schemas/arena_udp.idl through their generated code.
//!
//! - The clients say `hello` in the oldest protocol version, which every peer speaks; both sides
//!   then pick the newest version they share with `idlc_runtime::negotiate` and switch to it.
//! - The server sends a Snapshot per client per tick: the World of the seed's Characters (NPCs
//!   walking straight and turning now and then, and one Character per client) delta-encoded
//!   against the last tick that client acknowledged.
//! - Each client acknowledges every Snapshot (`ack`), steers its Character (`move_to`,
//!   fire-and-forget, numbered so that the server can say in each Snapshot how many it handled,
//!   and a lost one is sent again) and uses items (`use_item`, a request: a response that does
//!   not come is asked for again under the same use id, which the server answers once).
//! - Every socket read has a timeout, every phase a deadline: a lost packet costs a resend,
//!   never a hang.
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

/// How a run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Clients that join; each steers one Character.
    pub clients: u16,
    /// Characters the server moves by itself (walking straight, turning now and then).
    pub npcs: u16,
    /// Ticks per second.
    pub tick_hz: u16,
    /// Ticks the server simulates, one Snapshot per client each.
    pub ticks: u32,
    /// A client calls `use_item` every this many Snapshots.
    pub use_every: u32,
    /// A client turns its Character every this many Snapshots.
    pub turn_every: u32,
    /// The seed of the NPCs' movement.
    pub seed: u64,
    /// The longest a side blocks on its socket before it looks at its timers again.
    pub read_timeout: Duration,
    /// A `hello`, `move_to` or `use_item` not confirmed after this long is sent again.
    pub resend_after: Duration,
    /// The longest the server waits for the clients to join, and for their `bye` at the end.
    pub join_timeout: Duration,
    /// The longest the whole run may take: past it every thread stops and reports what it has.
    pub deadline: Duration,
    /// The probability that a side loses a datagram it sends, on purpose (0 in the demo: loopback
    /// loses nothing, so the resends would never run).
    pub loss: f64,
}

impl Config {
    /// The example's run: 2 clients and 8 NPCs, 30 Hz for 2 seconds.
    #[must_use]
    pub fn demo() -> Self {
        Config {
            clients: 2,
            npcs: 8,
            tick_hz: 30,
            ticks: 60,
            use_every: 6,
            turn_every: 20,
            seed: 0x0a7e_4a0d,
            read_timeout: Duration::from_millis(20),
            resend_after: Duration::from_millis(150),
            join_timeout: Duration::from_secs(2),
            deadline: Duration::from_secs(8),
            loss: 0.0,
        }
    }

    /// The test's run: the same at 30 Hz for 1 second.
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
}

/// Runs the demo in MYENCODING1, then in MYENCODING2.
pub fn run_both(config: &Config) -> Result<[Report; 2], String> {
    Ok([e1::run(config)?, e2::run(config)?])
}

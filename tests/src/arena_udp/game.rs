// The game code of the UDP demo, written once and compiled once per encoding: the module that
// includes this file (tests/src/arena_udp/mod.rs) imports its generated modules as `server_net`
// and `client_net`; nothing here names an encoding.

use std::thread;
use std::time::Instant;

use crate::arena_udp::{ClientReport, Config, Report};

/// A `use_item` as both sides saw it: the item asked for, whether it was used, what is left.
type UseRecord = (u32, bool, u8);

/// The server: the World, the peers, the ticks.
mod server {
    use super::server_net as net;
    include!("game_server.rs");
}

/// A client: joins, steers, uses items.
mod client {
    use super::client_net as net;
    include!("game_client.rs");
}

/// Runs the demo: binds the server on 127.0.0.1 (a port the OS picks), starts it and
/// `config.clients` clients on threads, waits for every thread (each stops by itself by
/// `config.deadline`), and compares what each side holds: the World of every tick a client was
/// delivered against the server's mirror of it, and the `use_item` results.
pub fn run(config: &Config) -> Result<Report, String> {
    run_with(config, config.clients, |_| Ok(Vec::new())).map(|(report, _)| report)
}

/// [`run`] with `rust_clients` of the `config.clients` clients on threads, and the others played
/// by other programs (the C++ client): `external` starts them against the server's address and
/// returns what each printed ([`Printed`](crate::arena_udp::external::Printed)) once it
/// stopped. They are compared with the server's records as the Rust clients are. Also returns
/// the Characters the external clients steered.
pub fn run_with(
    config: &Config,
    rust_clients: u16,
    external: impl FnOnce(std::net::SocketAddr) -> Result<Vec<String>, String>,
) -> Result<(Report, Vec<u16>), String> {
    let started = Instant::now();
    let socket = crate::arena_udp::udp::bind_loopback()?;
    let address = socket
        .local_addr()
        .map_err(|e| format!("the server's address: {e}"))?;
    let server = {
        let config = config.clone();
        thread::spawn(move || server::serve(socket, address, &config))
    };
    let clients: Vec<_> = (0..rust_clients.min(config.clients))
        .map(|index| {
            let config = config.clone();
            thread::spawn(move || client::play(address, &config, index))
        })
        .collect();
    let printed = external(address);
    let mut clients: Vec<client::Outcome> = clients
        .into_iter()
        .map(|c| c.join().map_err(|_| "a client thread panicked".to_string()))
        .collect::<Result<_, _>>()?;
    let others: Vec<client::Outcome> = printed?.iter().map(|text| external_outcome(text)).collect();
    let external_ids = others.iter().filter_map(|c| c.character_id).collect();
    clients.extend(others);
    let mut server = server
        .join()
        .map_err(|_| "the server thread panicked".to_string())?;
    let mut report = Report {
        encoding: <server_net::DefaultEncoding as idlc_runtime::Encoding>::NAME,
        config: config.clone(),
        ticks: server.ticks,
        characters: server.characters,
        clients: Vec::new(),
        elapsed: started.elapsed(),
        errors: server
            .errors
            .iter()
            .map(|e| format!("server: {e}"))
            .collect(),
        capture: server.capture.map(|pcap| pcap.bytes().to_vec()),
        capture_states: std::mem::take(&mut server.capture_states),
    };
    for client in clients {
        let Some(id) = client.character_id else {
            report
                .errors
                .extend(client.errors.iter().map(|e| format!("a client: {e}")));
            continue;
        };
        let Some(at) = server.peers.iter().position(|p| p.character_id == id) else {
            report
                .errors
                .push(format!("client {id}: the server has no such peer"));
            continue;
        };
        let peer = server.peers.swap_remove(at);
        report.clients.push(compare(peer, client));
    }
    report.clients.sort_by_key(|c| c.character_id);
    Ok((report, external_ids))
}

/// An external client's output as a Rust client's outcome: its Worlds decoded from their full
/// form by this build's client module.
fn external_outcome(text: &str) -> client::Outcome {
    let printed = crate::arena_udp::external::Printed::parse(text);
    let mut errors = printed.errors;
    let mut worlds = std::collections::BTreeMap::new();
    for (tick, bytes) in &printed.worlds {
        match client_net::World::from_bytes(bytes) {
            Ok(world) => {
                worlds.insert(*tick, world);
            }
            Err(e) => errors.push(format!("the World of tick {tick} does not decode: {e}")),
        }
    }
    client::Outcome {
        character_id: printed.character_id,
        version: printed.version,
        counts: printed.counts,
        worlds,
        uses: printed.uses,
        errors,
    }
}

/// The `use_item`s in a fixed order: the server handles them in the order they arrive, the
/// client takes the answers in the order they come.
fn sorted(mut uses: Vec<UseRecord>) -> Vec<UseRecord> {
    uses.sort_unstable();
    uses
}

/// One client's report: the server's and the client's counts, and what they hold compared.
fn compare(peer: server::PeerOutcome, client: client::Outcome) -> ClientReport {
    let mut report = ClientReport {
        character_id: peer.character_id,
        version: client.version,
        server: peer.counts,
        client: client.counts,
        uses_agree: sorted(peer.uses) == sorted(client.uses),
        errors: client.errors,
        ..ClientReport::default()
    };
    for (tick, world) in &client.worlds {
        report.ticks_compared += 1;
        // The two sides' types come from two generated modules: they are compared through their
        // Debug text, which prints every f64 and f32 exactly (shortest round-trip form).
        let same = peer
            .mirrors
            .get(tick)
            .is_some_and(|mirror| format!("{world:?}") == format!("{mirror:?}"));
        if !same {
            report.ticks_differing += 1;
        }
    }
    report
}

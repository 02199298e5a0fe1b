//! The UDP demo (tests/src/arena_udp/) for one second in each seed encoding, four clients over
//! sessions on a network that loses, duplicates and reorders 10% of the datagrams: everything
//! the clients sent is handled once, every `use_item` answered once with the server's result,
//! every World a client was delivered equal to the server's mirror of it; and on a clean
//! network dead reckoning (MYENCODING2) sends fewer bytes than MYENCODING1 for the same moving
//! Characters.
//!
//! On ports the OS picks, with deadlines on every wait: it cannot hang, and parallel tests do
//! not collide.
//!
//! The C++ client (tests/cpp/arena_client.cpp, its headers generated here as `idlc gen` writes
//! them, built once by clang++ or g++ at `-O0` with every warning an error) plays beside a Rust
//! client against the Rust server, in each encoding, under the same checks; without a C++
//! compiler those tests say so and pass.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

use idlc_tests::arena_udp::external::{Printed, run_cpp_client};
use idlc_tests::arena_udp::{Config, Network, Report, e1, e2, sim};
use idlc_tests::cpp;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn check(report: &Report) {
    println!("{report}");
    assert_eq!(report.problems(), Vec::<String>::new(), "{report}");
    assert_eq!(report.clients.len(), usize::from(report.config.clients));
    for client in &report.clients {
        assert!(client.client.moves > 0 && client.client.moves == client.server.moves);
        assert!(client.client.uses > 0);
        assert_eq!(client.client.uses, client.client.uses_answered);
        assert_eq!(client.client.uses, client.server.uses);
        assert!(client.uses_agree);
        assert!(client.ticks_compared > 0);
        assert_eq!(client.ticks_differing, 0);
        assert!(client.server.bye);
        // The newest version: version 2, with move_to and use_item.
        assert_eq!(client.version, (2, 2));
    }
}

/// The demo's run, over the bad network: the endpoints' resends, acknowledgements and
/// deduplication deliver everything.
#[test]
fn both_encodings_deliver_everything_over_a_bad_network() {
    let config = Config::short();
    assert_eq!(config.network, Network::BAD);
    for run in [e1::run, e2::run] {
        let report = run(&config).expect("a run over a bad network");
        check(&report);
        let refused: u32 = report
            .clients
            .iter()
            .map(|c| c.server.packets_refused + c.client.packets_refused)
            .sum();
        assert!(refused > 0, "the network repeated nothing: {report}");
    }
}

/// With `capture`, the report holds a pcap file of every datagram the server received and
/// sent: as many records as the server's counts say, each an Ethernet, IPv4 and UDP frame.
#[test]
fn the_server_captures_what_it_receives_and_sends() {
    let config = Config {
        capture: true,
        ..Config::short()
    };
    let report = e1::run(&config).expect("a run with a capture");
    check(&report);
    let capture = report.capture.as_deref().expect("a capture");
    // The classic pcap header, then per record 16 bytes and the frame (its length at 8..12).
    assert_eq!(capture[..4], [0xd4, 0xc3, 0xb2, 0xa1], "a pcap file");
    let (mut at, mut records) = (24, 0u32);
    while at + 16 <= capture.len() {
        let len = u32::from_le_bytes(capture[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + len;
        records += 1;
    }
    assert_eq!(at, capture.len(), "whole records");
    let datagrams: u32 = report
        .clients
        .iter()
        .map(|c| c.server.packets_sent + c.server.packets_received + c.server.packets_refused)
        .sum();
    assert_eq!(records, datagrams, "a record per datagram counted");
}

/// On a clean network, dead reckoning (MYENCODING2) sends fewer bytes than MYENCODING1.
#[test]
fn dead_reckoning_sends_less() {
    let config = Config {
        network: Network::CLEAN,
        ..Config::short()
    };
    let one = e1::run(&config).expect("the MYENCODING1 run");
    check(&one);
    let two = e2::run(&config).expect("the MYENCODING2 run");
    check(&two);
    assert_eq!((one.encoding, two.encoding), ("MYENCODING1", "MYENCODING2"));
    let (bytes_one, bytes_two) = (one.server_bytes_per_tick(), two.server_bytes_per_tick());
    println!(
        "server->client bytes per client per tick: MYENCODING1 {bytes_one:.1}, MYENCODING2 {bytes_two:.1}"
    );
    assert!(
        bytes_two < bytes_one,
        "dead reckoning should send fewer bytes for moving Characters: {bytes_two:.1} >= {bytes_one:.1}"
    );
}

/// The C++ client's build: its directory and binary, once per test process; `None` (said on
/// stderr) without clang++ or g++.
fn cpp_client() -> Option<&'static Path> {
    static CLIENT: OnceLock<Option<PathBuf>> = OnceLock::new();
    CLIENT.get_or_init(build_cpp_client).as_deref()
}

/// Generates the client's two headers (MYENCODING1 and MYENCODING2, the "Client" side of
/// schemas/arena_udp_client.cpp.map, in `arena_udp::e1` and `arena_udp::e2`) and compiles
/// tests/cpp/arena_client.cpp with them, unless the binary is newer than its inputs and this
/// test program.
fn build_cpp_client() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (schemas, seed) = (root.join("schemas"), root.join("../shared/seed-examples"));
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("arena_udp_cpp");
    let idl = [
        seed.join("character.idl"),
        schemas.join("item.idl"),
        schemas.join("arena_udp.idl"),
    ];
    let mut inputs = vec![root.join("tests/cpp/arena_client.cpp")];
    for n in [1, 2] {
        // The seed encodings' expected W0301 (`Animation` names the field `anim`), as in
        // tests/build.rs.
        let header = idlc::Builder::new()
            .encoding(seed.join(format!("myencoding{n}.enc")))
            .encoding(schemas.join(format!("arena_udp_e{n}.enc")))
            .mapping(schemas.join("arena_udp_client.cpp.map"))
            .side("Client")
            .namespace(format!("arena_udp::e{n}"))
            .header(dir.join(format!("arena_udp_e{n}_client.hpp")))
            .emit_warnings(false)
            .compile(&idl)
            .unwrap_or_else(|e| panic!("the C++ client's header: {e}"));
        inputs.push(header);
    }
    let Some(compiler) = ["clang++", "g++"].into_iter().find(|c| cpp::present(c)) else {
        eprintln!("no clang++ or g++ on PATH: the C++ client was not built, its tests skipped");
        return None;
    };
    let binary = dir.join("arena_client");
    let newest_input = inputs
        .iter()
        .cloned()
        .chain(cpp::runtime_headers())
        .chain(std::env::current_exe().ok())
        .map(|path| modified(&path))
        .max()
        .flatten();
    if modified(&binary) <= newest_input {
        let source = &inputs[0];
        cpp::build(compiler, &["-O0"], &dir, &[source], &binary).unwrap_or_else(|e| panic!("{e}"));
    }
    Some(binary)
}

/// When the file was last written (the epoch when it does not exist).
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// `e1::run_with` or `e2::run_with`.
type RunWith = fn(
    &Config,
    u16,
    Box<dyn FnOnce(SocketAddr) -> Result<Vec<String>, String> + '_>,
) -> Result<(Report, Vec<u16>), String>;

/// One Rust client and the C++ client against the Rust server, built as `build` (`e1`, `e2`):
/// everything both sent is handled, every `use_item` answered with the server's result, every
/// World the C++ client acknowledged equal to the server's mirror of that tick.
fn cpp_client_plays(build: &'static str, run_with: RunWith) {
    let Some(binary) = cpp_client() else {
        return;
    };
    let config = Config::short();
    let (report, cpp_ids) = run_with(
        &config,
        config.clients - 1,
        Box::new(|server| run_cpp_client(binary, &config, build, server)),
    )
    .expect("a run with the C++ client");
    check(&report);
    assert_eq!(cpp_ids.len(), 1, "the C++ client joined: {report}");
    let cpp = report
        .clients
        .iter()
        .find(|c| c.character_id == cpp_ids[0])
        .expect("the C++ client's report");
    println!("the C++ client steered Character {}", cpp.character_id);
    assert!(cpp.client.snapshots > 0, "{report}");
}

#[test]
fn a_cpp_client_plays_in_myencoding1() {
    cpp_client_plays("e1", |c, n, f| e1::run_with(c, n, f));
}

#[test]
fn a_cpp_client_plays_in_myencoding2_with_dead_reckoning() {
    cpp_client_plays("e2", |c, n, f| e2::run_with(c, n, f));
}

/// The server's motion model: NPCs keep walking or running and turn within range.
#[test]
fn npcs_move_and_turn_within_range() {
    let (mut bodies, mut rng) = sim::npcs(4, 7);
    for _ in 0..600 {
        for body in &mut bodies {
            body.step(1.0 / 30.0, &mut rng);
            assert!(body.speed() > 1.0 && body.speed() < 4.1);
            assert!((0.0..360.0).contains(&body.heading_degrees()));
        }
    }
}

/// A player's Character keeps the velocity its client asked for.
#[test]
fn a_player_keeps_its_velocity() {
    let mut body = sim::Body::player(1);
    let (vx, vy) = sim::client_velocity(9, 2);
    body.steer(vx, vy);
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    body.step(0.5, &mut rng);
    assert_eq!((body.vx, body.vy), (vx, vy));
    assert!((body.x - (4.0 + vx * 0.5)).abs() < 1e-9);
}

/// What the C++ client prints is read back line by line; a line it cannot read is an error.
#[test]
fn reads_what_the_cpp_client_prints() {
    let printed = Printed::parse(
        "joined 9 2 2\ncounts snapshots=30 bytes_sent=1234 uses=4 uses_answered=4\n\
         use 1 1 2\nuse 7 0 0\nworld 1 0aff\nworld 2 -\nerror tick 3: bad\nnonsense\n",
    );
    assert_eq!(printed.character_id, Some(9));
    assert_eq!(printed.version, (2, 2));
    assert_eq!(printed.counts.snapshots, 30);
    assert_eq!(printed.counts.bytes_sent, 1234);
    assert_eq!(printed.counts.uses_answered, 4);
    assert_eq!(printed.uses, vec![(1, true, 2), (7, false, 0)]);
    assert_eq!(printed.worlds[&1], vec![0x0a, 0xff]);
    assert_eq!(printed.worlds[&2], Vec::<u8>::new());
    assert_eq!(printed.errors.len(), 2, "{:?}", printed.errors);
    assert!(Printed::parse("counts moves=x\n").errors.len() == 1);
    assert!(Printed::parse("world 1 abc\n").errors.len() == 1);
}

//! The UDP demo: a server and four clients on 127.0.0.1 over sessions, the server sending the
//! seed's Characters as snapshot messages at 30 Hz for 2 seconds, the clients steering
//! (`move_to`, reliable) and using items (`use_item`, answered once), over a network that loses,
//! duplicates and reorders 10% of the datagrams; once built with MYENCODING1 and once with
//! MYENCODING2 (dead reckoning): `cargo run -p idlc-tests --example arena_udp`.
//! The code is tests/src/arena_udp/; the walkthrough docs/TUTORIAL.md.
//!
//! With `-- --cpp-client BINARY`, the last client is the C++ client (tests/cpp/
//! arena_client.cpp, built as docs/CPP.md says, "The UDP demo's C++ client").

use std::path::PathBuf;

use idlc_tests::arena_udp::external::run_cpp_client;
use idlc_tests::arena_udp::{Config, Report, e1, e2};

fn main() -> Result<(), String> {
    let config = Config::demo();
    let cpp_client = cpp_client_arg()?;
    let mut failed = false;
    let mut reports = Vec::new();
    for build in ["e1", "e2"] {
        let report = match &cpp_client {
            None if build == "e1" => e1::run(&config)?,
            None => e2::run(&config)?,
            Some(binary) => {
                let play = |server| run_cpp_client(binary, &config, build, server);
                let rust_clients = config.clients - 1;
                let (report, ids) = if build == "e1" {
                    e1::run_with(&config, rust_clients, play)?
                } else {
                    e2::run_with(&config, rust_clients, play)?
                };
                println!("(the C++ client steered {ids:?})");
                report
            }
        };
        println!("{report}\n");
        failed |= !report.problems().is_empty();
        reports.push(report);
    }
    summary(&reports[0], &reports[1]);
    if failed {
        return Err("a run did not deliver everything (see PROBLEMS above)".into());
    }
    Ok(())
}

/// The binary after `--cpp-client`, if given.
fn cpp_client_arg() -> Result<Option<PathBuf>, String> {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        None => Ok(None),
        Some("--cpp-client") => args
            .next()
            .map(|path| Some(PathBuf::from(path)))
            .ok_or_else(|| "--cpp-client needs the C++ client's binary".to_string()),
        Some(other) => Err(format!(
            "unknown argument {other:?} (usage: arena_udp [--cpp-client BINARY])"
        )),
    }
}

fn summary(one: &Report, two: &Report) {
    let (bytes_one, bytes_two) = (one.server_bytes_per_tick(), two.server_bytes_per_tick());
    println!(
        "server->client bytes per client per tick: {} {bytes_one:.1}, {} {bytes_two:.1} ({:.0}% less with dead reckoning)",
        one.encoding,
        two.encoding,
        100.0 * (1.0 - bytes_two / bytes_one.max(1.0))
    );
}

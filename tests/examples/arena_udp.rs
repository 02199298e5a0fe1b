//! The UDP demo: a server and four clients on 127.0.0.1 over sessions, the server sending the
//! seed's Characters as snapshot messages at 30 Hz for 2 seconds, the clients steering
//! (`move_to`, reliable) and using items (`use_item`, answered once), over a network that loses,
//! duplicates and reorders 10% of the datagrams; once built with MYENCODING1 and once with
//! MYENCODING2 (dead reckoning): `cargo run -p idlc-tests --example arena_udp`.
//! The code is tests/src/arena_udp/; the walkthrough docs/TUTORIAL.md.
//!
//! With `-- --cpp-client BINARY`, the last client is the C++ client (tests/cpp/
//! arena_client.cpp, built as docs/CPP.md says, "The UDP demo's C++ client"); with
//! `-- --pcap DIR`, the server's datagrams of each run go to a pcap file in DIR
//! (docs/DISSECTOR.md).

use std::path::PathBuf;

use clap::Parser;
use idlc_tests::arena_udp::external::run_cpp_client;
use idlc_tests::arena_udp::{Config, Report, e1, e2};

/// The UDP demo: a server and four clients over sessions, in MYENCODING1, then in MYENCODING2.
#[derive(Parser)]
struct Args {
    /// The C++ client's binary (docs/CPP.md): it plays the last client.
    #[arg(long, value_name = "BINARY")]
    cpp_client: Option<PathBuf>,
    /// Writes what the server received and sent to DIR/arena_udp_MYENCODING1.pcap and
    /// DIR/arena_udp_MYENCODING2.pcap (for Wireshark and `idlc dissector`, docs/DISSECTOR.md);
    /// DIR is created when missing.
    #[arg(long, value_name = "DIR")]
    pcap: Option<PathBuf>,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let config = Config {
        capture: args.pcap.is_some(),
        ..Config::demo()
    };
    let mut failed = false;
    let mut reports = Vec::new();
    for build in ["e1", "e2"] {
        let report = match &args.cpp_client {
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
        if let (Some(dir), Some(capture)) = (&args.pcap, &report.capture) {
            let path = dir.join(format!("arena_udp_{}.pcap", report.encoding));
            std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(&path, capture))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            println!("wrote {}\n", path.display());
        }
        failed |= !report.problems().is_empty();
        reports.push(report);
    }
    summary(&reports[0], &reports[1]);
    if failed {
        return Err("a run did not deliver everything (see PROBLEMS above)".into());
    }
    Ok(())
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

//! The UDP demo: a server and two clients on 127.0.0.1, the server sending the seed's
//! Characters as delta-encoded snapshots at 30 Hz for 2 seconds, the clients steering
//! (`move_to`) and using items (`use_item`, answered), once built with MYENCODING1 and once with
//! MYENCODING2 (dead reckoning): `cargo run -p idlc-tests --example arena_udp`.
//! The code is tests/src/arena_udp/; the walkthrough docs/TUTORIAL.md.

use idlc_tests::arena_udp::{Config, e1, e2};

fn main() -> Result<(), String> {
    let config = Config::demo();
    let mut failed = false;
    let mut reports = Vec::new();
    for run in [e1::run, e2::run] {
        let report = run(&config)?;
        println!("{report}\n");
        failed |= !report.problems().is_empty();
        reports.push(report);
    }
    let (one, two) = (&reports[0], &reports[1]);
    println!(
        "snapshot bytes per client per tick: {} {:.1}, {} {:.1} ({:.0}% less with dead reckoning)",
        one.encoding,
        one.snapshot_bytes_per_tick(),
        two.encoding,
        two.snapshot_bytes_per_tick(),
        100.0 * (1.0 - two.snapshot_bytes_per_tick() / one.snapshot_bytes_per_tick().max(1.0))
    );
    if failed {
        return Err("a run did not deliver everything (see PROBLEMS above)".into());
    }
    Ok(())
}

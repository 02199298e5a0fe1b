//! The UDP demo (tests/src/arena_udp/) for one second in each seed encoding: everything the
//! clients sent is handled, every `use_item` answered once with the server's result, every
//! acknowledged World equal to the server's mirror; and dead reckoning (MYENCODING2) sends fewer
//! snapshot bytes than MYENCODING1 for the same moving Characters.
//!
//! Loss-tolerant (what is not confirmed is sent again; only acknowledged ticks are compared),
//! on ports the OS picks, with deadlines on every wait: it cannot hang, and parallel tests do
//! not collide.

use idlc_tests::arena_udp::{Config, Report, e1, e2};

fn check(report: &Report) {
    println!("{report}");
    assert_eq!(report.problems(), Vec::<String>::new(), "{report}");
    assert_eq!(report.clients.len(), 2);
    for client in &report.clients {
        assert!(client.client.moves > 0 && client.client.moves == client.server.moves);
        assert!(client.client.uses > 0);
        assert_eq!(client.client.uses, client.client.uses_answered);
        assert_eq!(client.client.uses, client.server.uses);
        assert!(client.uses_agree);
        assert!(client.ticks_compared > 0);
        assert_eq!(client.ticks_differing, 0);
        // The newest version both speak: version 2, with move_to and use_item.
        assert_eq!(client.version, (2, 2));
    }
}

#[test]
fn both_encodings_deliver_everything_and_dead_reckoning_sends_less() {
    let config = Config::short();
    let one = e1::run(&config).expect("the MYENCODING1 run");
    check(&one);
    let two = e2::run(&config).expect("the MYENCODING2 run");
    check(&two);
    assert_eq!((one.encoding, two.encoding), ("MYENCODING1", "MYENCODING2"));
    let (bytes_one, bytes_two) = (one.world_bytes_per_tick(), two.world_bytes_per_tick());
    println!(
        "World bytes per client per tick: MYENCODING1 {bytes_one:.1}, MYENCODING2 {bytes_two:.1}; \
         snapshot packets {:.1} and {:.1}",
        one.snapshot_bytes_per_tick(),
        two.snapshot_bytes_per_tick()
    );
    assert!(
        bytes_two < bytes_one,
        "dead reckoning should send fewer bytes for moving Characters: {bytes_two:.1} >= {bytes_one:.1}"
    );
    assert!(two.snapshot_bytes_per_tick() < one.snapshot_bytes_per_tick());
}

/// Loopback loses nothing, so the resends above never run: here each side loses 10% of what it
/// sends (a seeded stream), and everything must still arrive, through resends alone.
#[test]
fn lost_packets_are_recovered_by_resends() {
    let config = Config {
        loss: 0.1,
        ..Config::short()
    };
    for run in [e1::run, e2::run] {
        let report = run(&config).expect("a lossy run");
        println!("{report}");
        assert_eq!(report.problems(), Vec::<String>::new(), "{report}");
    }
}

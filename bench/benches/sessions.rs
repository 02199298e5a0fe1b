//! criterion: a server broadcasts one chat line to 60 peers (schemas/versions/match_v2.idl,
//! one `idlc_runtime::Endpoint` per peer): encoded for each peer (`send` of the value) against
//! encoded once (`Encoded::new`, then `send_encoded`), each followed by every endpoint's flush
//! (unreliable, so that nothing accumulates over the iterations; the reliable forms copy the
//! same bits); the packets are the same bytes (tests/tests/protocols/answers.rs).
//! `cargo bench -p idlc-bench --bench sessions`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use idlc_runtime::{Encoded, SessionConfig};
use idlc_tests::match_v2 as m;

type Server = idlc_runtime::Endpoint<m::DefaultEncoding, m::MatchServer, m::MatchClient>;

/// Peers of the broadcast.
const PEERS: usize = 60;

fn chat() -> m::MatchServerMessage {
    m::MatchServerMessage::Chat(m::Chat {
        line: 42,
        text: "red team took the north bridge".into(), // STRING<32>
    })
}

fn broadcast(c: &mut Criterion) {
    let config = SessionConfig::default();
    let mut peers: Vec<Server> = (0..PEERS).map(|_| Server::newest(config.clone())).collect();
    let message = chat();
    let mut group = c.benchmark_group(format!("chat to {PEERS} peers"));
    group.bench_function("encoded for each peer", |b| {
        b.iter(|| {
            for peer in &mut peers {
                peer.send(black_box(&message).clone()).unwrap();
                black_box(peer.flush(Duration::ZERO));
            }
        });
    });
    group.bench_function("encoded once", |b| {
        b.iter(|| {
            let encoded = Encoded::new(black_box(&message)).unwrap();
            for peer in &mut peers {
                peer.send_encoded(&encoded).unwrap();
                black_box(peer.flush(Duration::ZERO));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, broadcast);
criterion_main!(benches);

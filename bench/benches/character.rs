//! criterion: the seed's Character in MYENCODING1, generated code against the hand-written
//! bitpacker of the same layout, bitcode and prost (10,000 Characters, one message each); and
//! delta encoding on the replication simulation, idlc's MYENCODING1 and MYENCODING2 against
//! delta-pack (600 ticks of 200 Characters): `cargo bench -p idlc-bench --bench character`.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use idlc_bench::character::{Dataset, NAMES, all_jobs, prepare_all};
use idlc_bench::{delta, or_exit};
use idlc_tests::simulation::Population;

fn character(c: &mut Criterion) {
    let data = or_exit(Dataset::new());
    let (_, encoded) = or_exit(prepare_all(&data));
    let mut group = c.benchmark_group("Character MYENCODING1 x10000");
    for (i, mut job) in all_jobs(&data, &encoded).into_iter().enumerate() {
        let op = if i % 2 == 0 { "encode" } else { "decode" };
        group.bench_function(format!("{}/{op}", NAMES[i / 2]), |b| b.iter(|| (job.run)()));
    }
    group.finish();
}

fn deltas(c: &mut Criterion) {
    for population in [Population::Moving, Population::Idle, Population::Mixed] {
        let prepared = or_exit(delta::Prepared::new(population));
        let mut group = c.benchmark_group(format!("delta {population:?} x600 ticks"));
        group.sample_size(10);
        for (i, mut job) in prepared.jobs().into_iter().enumerate() {
            let op = if i % 2 == 0 { "encode" } else { "decode" };
            let name = delta::NAMES[i / 2];
            group.bench_function(format!("{name}/{op}"), |b| b.iter(|| (job.run)()));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = character, deltas
}
criterion_main!(benches);

//! criterion: every mk48 serializer serializing and deserializing the whole data set (1,000
//! updates, one message each, the writer reused): `cargo bench -p idlc-bench --bench mk48`.
//! `bench-table` measures the same jobs and prints the comparison.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use idlc_bench::mk48::{Dataset, NAMES, all_jobs, prepare_all};
use idlc_bench::or_exit;

fn mk48(c: &mut Criterion) {
    let data = or_exit(Dataset::new());
    let encoded = or_exit(prepare_all(&data));
    let mut group = c.benchmark_group("mk48 x1000");
    for (i, mut job) in all_jobs(&data, &encoded).into_iter().enumerate() {
        let (name, _) = NAMES[i / 3];
        let op = [
            "serialize",
            "deserialize",
            "deserialize into a reused value",
        ][i % 3];
        group.bench_function(format!("{name}/{op}"), |b| b.iter(|| (job.run)()));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = mk48
}
criterion_main!(benches);

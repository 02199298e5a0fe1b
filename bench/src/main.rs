//! `bench-table`: measures the mk48 serializers, the Character codecs and the delta codecs in
//! one process (`std::time::Instant`, medians of several rounds) and prints one markdown
//! document to stdout. `cargo run --release -p idlc-bench --bin bench-table`; with the argument
//! `cubes`, only the tumbling cubes' section; with `delta`, only the delta tables; with `cpp`,
//! only the generated C++ code against the generated Rust code (bench/src/cpp.rs: needs g++ or
//! clang++).

use std::process::ExitCode;

use idlc_bench::measure::thousands;
use idlc_bench::{BenchError, character, cpp, cubes, delta, mk48, report};
use idlc_tests::simulation::Population;

/// Rounds per comparison: more for the short jobs.
const MK48_ROUNDS: usize = 21;
const CHARACTER_ROUNDS: usize = 201;
const DELTA_ROUNDS: usize = 21;
const CUBES_ROUNDS: usize = 11;
const CPP_ROUNDS: usize = 101;

fn main() -> ExitCode {
    let text = match std::env::args().nth(1).as_deref() {
        Some("cubes") => cubes::run(CUBES_ROUNDS).map(|rows| cubes::report(&rows)),
        Some("delta") => deltas().map(|results| report::delta(&results)),
        Some("cpp") => {
            eprintln!("C++ against Rust ...");
            cpp::run(CPP_ROUNDS).map(|outcome| cpp::report(&outcome))
        }
        _ => document(),
    };
    match text {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-table: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Every population's delta rows.
fn deltas() -> Result<Vec<(Population, Vec<delta::Row>)>, BenchError> {
    let mut deltas = Vec::new();
    for population in [Population::Moving, Population::Idle, Population::Mixed] {
        eprintln!("delta, {population:?} ...");
        deltas.push((population, delta::run(population, DELTA_ROUNDS)?));
    }
    Ok(deltas)
}

fn document() -> Result<String, BenchError> {
    eprintln!("mk48 ...");
    let mk48 = mk48::run(&mk48::Dataset::new()?, MK48_ROUNDS)?;
    eprintln!("Character ...");
    let character = character::run(&character::Dataset::new()?, CHARACTER_ROUNDS)?;
    let deltas = deltas()?;
    eprintln!("cubes ...");
    let cubes = cubes::run(CUBES_ROUNDS)?;
    let eq = character.equivalence;
    Ok(format!(
        "# idlc against the Rust serializers games use\n\n\
         Measured in one process with `std::time::Instant`: every job of a table runs \
         round-robin, once to warm up and then in {MK48_ROUNDS} (mk48), {CHARACTER_ROUNDS} \
         (Character) or {DELTA_ROUNDS} (delta) rounds; each figure is the median round's time \
         divided by its values. Every value is one message, encoded into a writer reused from \
         message to message (cleared first) and decoded from its own bytes into owned values; \
         every codec's decoded values were checked against the originals before timing.\n\n\
         ## mk48 (1,000 updates, ../shared/bench/MK48.md)\n\n\
         Bytes: the 1,000 messages; zstd: their concatenation at level 3. idlc decoders \
         validate every range; MK48_LOSSY decodes to `quantized_with::<MK48_LOSSY>()` of the \
         values (positions within 0.5 cm). prost uses sint32 for the signed fields.\n\n{}\n\
         ## Character (10,000, MYENCODING1)\n\n\
         tests/benches/codec.rs's value ranges and seed; {} of them carry 1 to 3 Items. The \
         hand-written bitpacker writes the generated code's bytes for every value and decodes \
         to the same values; on {} damaged messages both decoders gave the same verdict ({} \
         rejected by both), and both reject every out-of-range step. bitcode and prost use their \
         own model types (f64 and f32 as the Rust types are).\n\n{}\n\
         ## Delta ({} Characters, {} ticks at 60 Hz, no loss)\n\n\
         The simulation's movement model (`idlc_tests::simulation::trajectory`); per tick, \
         every Character against the previous tick's state. idlc: one packet per tick; the \
         sender writes each tick's mirrors into the memory of the mirrors before last \
         (`encode_delta_into`, two sets swapped), the receiver decodes against its previous \
         state into the memory of the state before last (`decode_delta_into`), checked equal \
         to the mirrors; MYENCODING2 with `elapsed` = 1/60 s. delta-pack 0.3 (no such API: \
         `encode_diff` returns a new buffer, `decode_diff` a new value): f32 fields at \
         `precision = 0.01` (it has no f64), the receiver applies each diff to its previous \
         state (checked equal to the quantized truth); per Character \
         its sizes leave out the framing a packet of such messages needs.\n\n{}\n\
         ## Tumbling cubes ({} cubes, {} ticks at 60 Hz, no loss, {CUBES_ROUNDS} rounds)\n\n\
         `idlc_tests::cubes_data` (after Glenn Fiedler's networked physics: most cubes rest, \
         some slide, bounce and spin), schemas/cubes.enc: positions to 2 mm, orientations \
         SMALLEST_THREE(9). Per tick one `Cubes` delta (a DELTA SEQUENCE) against the previous \
         tick's mirror, the receiver checked equal to it. Fiedler's target: 256 kbps for 901 \
         cubes at 60 Hz, {:.3} bytes per cube per tick (his data differ: docs/PERFORMANCE.md).\n\n{}",
        report::mk48(&mk48),
        thousands(character.with_items as u64),
        thousands(eq.damaged as u64),
        thousands(eq.rejected as u64),
        report::character(&character),
        delta::CHARACTERS,
        delta::TICKS,
        report::delta(&deltas),
        idlc_tests::cubes_data::CUBES,
        idlc_tests::cubes_data::TICKS,
        cubes::TARGET,
        cubes::report(&cubes),
    ))
}

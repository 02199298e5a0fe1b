//! Writes the tumbling-cubes trace for `idlc measure` (schemas/traces/cubes.jsonl): 32 cubes of
//! the data set (tests/src/cubes_data.rs, its seed) for 4 seconds at 60 Hz, one `Cube` per line
//! in the interpreter's JSON form, the cubes of a tick in order (`--key id` splits them).
//!
//! `cargo run -p idlc-tests --example cubes_trace > schemas/traces/cubes.jsonl`

use std::fmt::Write as _;

use idlc_tests::cubes_data::{SEED, ticks_from};

/// Cubes in the trace.
const CUBES: usize = 32;
/// Ticks in the trace.
const TICKS: usize = 240;

fn main() {
    let mut out = String::new();
    for tick in ticks_from(SEED, CUBES, TICKS) {
        for c in &tick.cubes {
            let q = &c.orientation;
            let _ = writeln!(
                out,
                r#"{{"id": {}, "x": {}, "y": {}, "z": {}, "vx": {}, "vy": {}, "vz": {}, "orientation": {{"x": {}, "y": {}, "z": {}, "w": {}}}, "resting": {}}}"#,
                c.id, c.x, c.y, c.z, c.vx, c.vy, c.vz, q.x, q.y, q.z, q.w, c.resting
            );
        }
    }
    print!("{out}");
}

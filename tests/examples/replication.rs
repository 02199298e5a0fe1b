//! Bytes per Character per tick of the seed's Character replicated at 60 Hz, in every bundled
//! encoding, for a moving, an idle and a mixed population (5% packet and ack loss):
//! `cargo run --release -p idlc-tests --example replication`. Then what a snapshot costs per
//! peer per tick in a session packet against the BYTES-wrapped delta it replaces
//! (tests/src/session_bytes.rs).

use idlc_tests::character_builtin as cb;
use idlc_tests::character_client as cc;
use idlc_tests::simulation::{Population, full_bytes, run};

const CHARACTERS: u16 = 200;
const TICKS: u64 = 600;
const LOSS: f64 = 0.05;

fn main() -> Result<(), String> {
    println!("{CHARACTERS} Characters, {TICKS} ticks at 60 Hz, {LOSS} packet and ack loss");
    println!("bytes per Character per tick:");
    println!(
        "{:<38} {:>8} {:>8} {:>8}",
        "encoding", "moving", "idle", "mixed"
    );
    // The design source's naive encoding: the struct as it is in memory (a UINT16, seven
    // doubles, two small integers), the inventory delta-compressed (nothing when unchanged):
    // the built-in encoding of a Character with an empty inventory.
    let naive = full_bytes_builtin(0);
    println!(
        "{:<38} {naive:>8.2} {naive:>8.2} {naive:>8.2}",
        "naive: the struct as in memory"
    );
    let builtin = full_bytes_builtin(2);
    println!(
        "{:<38} {builtin:>8.2} {builtin:>8.2} {builtin:>8.2}",
        "built-in encoding, full (2 items)"
    );
    let full1 = full_bytes::<cc::MYENCODING1>(CHARACTERS, 1);
    println!(
        "{:<38} {full1:>8.2} {full1:>8.2} {full1:>8.2}",
        "MYENCODING1, full (to_bytes)"
    );
    let mut rows = Vec::new();
    for population in [Population::Moving, Population::Idle, Population::Mixed] {
        rows.push([
            run::<cc::MYENCODING1>(CHARACTERS, TICKS, population, LOSS, 0.0, 7)?,
            run::<cc::MYENCODING1_DIFF>(CHARACTERS, TICKS, population, LOSS, 0.0, 7)?,
            run::<cc::MYENCODING2>(CHARACTERS, TICKS, population, LOSS, 0.02, 7)?,
            run::<cc::MYENCODING2_DIFF>(CHARACTERS, TICKS, population, LOSS, 0.02, 7)?,
        ]);
    }
    let names = [
        "MYENCODING1, delta",
        "MYENCODING1_DIFF, delta with DIFF",
        "MYENCODING2, delta + dead reckoning",
        "MYENCODING2_DIFF, the same with DIFF",
    ];
    for (column, name) in names.iter().enumerate() {
        let cell = |population: usize| rows[population][column].bytes_per_character();
        println!(
            "{name:<38} {:>8.2} {:>8.2} {:>8.2}",
            cell(0),
            cell(1),
            cell(2)
        );
    }
    let worst = rows
        .iter()
        .flatten()
        .map(|report| report.max_position_error)
        .fold(0.0, f64::max);
    println!(
        "largest position error shown: {worst:.4} m; client state == server mirror every tick"
    );
    session_bytes()
}

/// A snapshot message in a session packet against the BYTES-wrapped delta of the UDP demo.
fn session_bytes() -> Result<(), String> {
    println!();
    println!("a snapshot per peer per tick, bytes (match_v2.idl World, one unit moves a tick):");
    println!(
        "{:<6} {:>10} {:>10} {:>10} | {:>10} {:>10} {:>10}",
        "units", "session", "its item", "its ack", "wrapped", "its item", "ack(tick)"
    );
    for units in [4, 16, 32] {
        let b = idlc_tests::session_bytes::measure(300, units)?;
        println!(
            "{units:<6} {:>10.2} {:>10.2} {:>10.2} | {:>10.2} {:>10.2} {:>10.2}",
            b.session_packet,
            b.session_item,
            b.session_ack,
            b.wrapped_packet,
            b.wrapped_item,
            b.wrapped_ack
        );
    }
    Ok(())
}

/// The built-in encoding's full form of a typical Character with `items` items.
fn full_bytes_builtin(items: usize) -> f64 {
    let c = cb::Character {
        character_id: 7,
        x: 1234.5678,
        y: -42.25,
        z: 3.5,
        vx: 1.5,
        vy: -0.5,
        angle: 90.0,
        animation_frame: 12,
        inventory: vec![cb::Item::default(); items],
        ..Default::default()
    };
    c.to_bytes().map_or(0.0, |b| b.len() as f64)
}

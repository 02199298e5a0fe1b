//! The tumbling cubes (`idlc_tests::cubes_data`: 901 cubes, 600 ticks at 60 Hz from a fixed
//! seed, after Glenn Fiedler's networked physics demos), replicated with schemas/cubes.enc:
//! changed-bits only (CubesBits), DIFF (CubesDiff) and DEAD_RECKONING with DIFF (CubesDr). Per
//! tick one `Cubes` delta against the previous tick's mirror (nothing lost), the receiver's
//! state checked equal to the mirror; bytes per cube per tick next to Fiedler's target, 256 kbps
//! for 901 cubes at 60 Hz.

use idlc_runtime::{BitReader, BitStream, BitWriter, DeltaCodec, DeltaContext, Encoding};
use idlc_tests::cubes::{Cubes, CubesBits, CubesDiff, CubesDr};
use idlc_tests::cubes_data;

use crate::BenchError;
use crate::format::Encoded;
use crate::measure::{Job, Table, medians};

/// Fiedler's target: 256 kbps for 901 cubes at 60 Hz, in bytes per cube per tick.
pub const TARGET: f64 = 256_000.0 / 8.0 / 60.0 / 901.0;

/// The rows' names, in order.
pub const NAMES: [&str; 3] = [
    "idlc CubesBits (changed-bits only)",
    "idlc CubesDiff (DIFF)",
    "idlc CubesDr (DEAD_RECKONING + DIFF)",
];

/// One encoding's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The encoding.
    pub name: &'static str,
    /// Mean bytes per cube per tick.
    pub bytes_per_cube: f64,
    /// Median nanoseconds to encode one tick (every cube).
    pub encode_ns: f64,
    /// Median nanoseconds to decode one tick.
    pub decode_ns: f64,
}

fn context() -> DeltaContext {
    DeltaContext::new(1.0 / cubes_data::HZ)
}

/// Encodes every tick after the first against the previous tick's mirror and decodes it against
/// the receiver's previous state, checking the receiver against the mirror. Returns the packets.
fn prepare<E>(ticks: &[Cubes]) -> Result<Encoded, BenchError>
where
    E: Encoding<Style = BitStream>,
    Cubes: DeltaCodec<E>,
{
    let ctx = context();
    let mut w = BitWriter::new();
    let mut packets = Encoded::default();
    let Some((first, rest)) = ticks.split_first() else {
        return Ok(packets);
    };
    let start = idlc_runtime::from_bytes::<E, Cubes>(
        &idlc_runtime::to_bytes::<E, Cubes>(first).map_err(BenchError::with(E::NAME))?,
    )
    .map_err(BenchError::with(E::NAME))?;
    let (mut sent, mut mirror) = (start.clone(), start.clone());
    let (mut held, mut received) = (start.clone(), start);
    for (tick, cubes) in rest.iter().enumerate() {
        w.clear();
        DeltaCodec::<E>::encode_delta_into(cubes, &sent, &ctx, &mut w, &mut mirror)
            .map_err(BenchError::with(E::NAME))?;
        let packet = w.finish();
        let mut r = BitReader::new(packet);
        <Cubes as DeltaCodec<E>>::decode_delta_into(&held, &ctx, &mut r, &mut received)
            .map_err(BenchError::with(E::NAME))?;
        if received != mirror {
            return Err(BenchError(format!(
                "{}: tick {tick}: the receiver differs from the mirror",
                E::NAME
            )));
        }
        packets.push(packet);
        std::mem::swap(&mut sent, &mut mirror);
        std::mem::swap(&mut held, &mut received);
    }
    Ok(packets)
}

/// The timed jobs of [`prepare`]'s packets, per tick: the encode and the decode.
fn jobs<'a, E>(ticks: &'a [Cubes], packets: &'a Encoded) -> [Job<'a>; 2]
where
    E: Encoding<Style = BitStream>,
    Cubes: DeltaCodec<E>,
{
    let ctx = context();
    let mut w = BitWriter::new();
    let (first, rest) = ticks
        .split_first()
        .map_or((None, &[][..]), |(f, r)| (Some(f), r));
    // Both sides start where `prepare` started: the first tick as its full form decodes.
    let start = first
        .and_then(|first| {
            let bytes = idlc_runtime::to_bytes::<E, Cubes>(first).ok()?;
            idlc_runtime::from_bytes::<E, Cubes>(&bytes).ok()
        })
        .unwrap_or_default();
    let from = start.clone();
    let encode = Job::new(rest.len(), move || {
        let (mut sent, mut mirror) = (start.clone(), start.clone());
        for cubes in rest {
            w.clear();
            if DeltaCodec::<E>::encode_delta_into(cubes, &sent, &ctx, &mut w, &mut mirror).is_ok() {
                std::mem::swap(&mut sent, &mut mirror);
            }
            std::hint::black_box(w.finish());
        }
    });
    let decode = Job::new(packets.len(), move || {
        let (mut held, mut next) = (from.clone(), from.clone());
        for packet in packets.messages() {
            let mut r = BitReader::new(packet);
            if <Cubes as DeltaCodec<E>>::decode_delta_into(&held, &ctx, &mut r, &mut next).is_ok() {
                std::mem::swap(&mut held, std::hint::black_box(&mut next));
            }
        }
    });
    [encode, decode]
}

/// Simulates the data set, checks every encoding and times it: `reps` rounds, medians.
pub fn run(reps: usize) -> Result<Vec<Row>, BenchError> {
    let ticks = cubes_data::ticks();
    let encoded = [
        prepare::<CubesBits>(&ticks)?,
        prepare::<CubesDiff>(&ticks)?,
        prepare::<CubesDr>(&ticks)?,
    ];
    let [bits, diff, dr] = &encoded;
    let mut all = Vec::new();
    all.extend(jobs::<CubesBits>(&ticks, bits));
    all.extend(jobs::<CubesDiff>(&ticks, diff));
    all.extend(jobs::<CubesDr>(&ticks, dr));
    let times = medians(reps, &mut all);
    let samples = (cubes_data::CUBES * (ticks.len() - 1)) as f64;
    Ok(NAMES
        .iter()
        .zip(&encoded)
        .zip(times.chunks(2))
        .map(|((name, e), t)| Row {
            name,
            bytes_per_cube: e.bytes().len() as f64 / samples,
            encode_ns: t.first().copied().unwrap_or(0.0),
            decode_ns: t.get(1).copied().unwrap_or(0.0),
        })
        .collect())
}

/// The table of [`run`]'s rows.
pub fn report(rows: &[Row]) -> String {
    let mut table = Table::new(&[
        "encoding",
        "bytes per cube per tick",
        "vs Fiedler's 0.59",
        "kbps (901 cubes, 60 Hz)",
        "encode per tick",
        "decode per tick",
    ]);
    for row in rows {
        table.row(vec![
            row.name.to_string(),
            format!("{:.3}", row.bytes_per_cube),
            format!("{:.2}×", row.bytes_per_cube / TARGET),
            format!("{:.0}", row.bytes_per_cube * 901.0 * 60.0 * 8.0 / 1000.0),
            format!("{:.1} µs", row.encode_ns / 1000.0),
            format!("{:.1} µs", row.decode_ns / 1000.0),
        ]);
    }
    table.markdown()
}

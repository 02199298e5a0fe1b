//! idlc's side of the delta comparison: per tick, one packet (one reused `BitWriter`) holding
//! every Character delta-encoded against its mirror of the previous tick. The sender keeps two
//! sets of mirrors and swaps them: `encode_delta_into` writes the new mirror into the memory of
//! the one before last; the receiver does the same with its states (`decode_delta_into`).

use idlc_runtime::{BitReader, BitStream, BitWriter, DeltaCodec, DeltaContext, Encoding};
use idlc_tests::character_client::{Character, World};
use idlc_tests::simulation::TICK;

use crate::BenchError;
use crate::format::Encoded;
use crate::measure::Job;

/// What the sender checks its mirrors against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expect {
    /// No dead reckoning: every mirror is the truth as the encoding quantizes it.
    Quantized,
    /// Dead reckoning: every mirrored position within this many metres of the truth.
    Within(f64),
}

impl Expect {
    /// Whether the sender's `mirror` of the true state `truth` is what this says.
    fn holds<E>(self, mirror: &Character, truth: &Character) -> bool
    where
        E: Encoding,
        Character: DeltaCodec<E>,
    {
        match self {
            Expect::Quantized => Ok(mirror) == truth.quantized_with::<E>().as_ref(),
            Expect::Within(limit) => {
                (mirror.x - truth.x).abs().max((mirror.y - truth.y).abs()) <= limit + 1e-9
            }
        }
    }
}

/// The context of every tick: one tick since the baseline (nothing is lost).
fn context() -> DeltaContext {
    DeltaContext::new(TICK)
}

/// Encodes every tick of `truth` (the baselines: `start`, then each tick's mirrors), decodes
/// every packet against the receiver's previous state, and checks that the receiver holds the
/// sender's mirrors, and the mirrors what `expect` says. Returns the packets.
pub fn prepare<E>(
    truth: &[Vec<Character>],
    start: &[Character],
    expect: Expect,
) -> Result<Encoded, BenchError>
where
    E: Encoding<Style = BitStream>,
    Character: DeltaCodec<E>,
{
    let ctx = context();
    let mut w = BitWriter::new();
    let mut packets = Encoded::default();
    let mut sent = start.to_vec();
    let mut mirrors = start.to_vec();
    let (mut held, mut received) = (start.to_vec(), start.to_vec());
    for (tick, states) in truth.iter().enumerate() {
        w.clear();
        for ((c, base), mirror) in states.iter().zip(&sent).zip(&mut mirrors) {
            DeltaCodec::<E>::encode_delta_into(c, base, &ctx, &mut w, mirror)
                .map_err(BenchError::with(E::NAME))?;
        }
        let packet = w.finish();
        let mut r = BitReader::new(packet);
        for (base, state) in held.iter().zip(&mut received) {
            <Character as DeltaCodec<E>>::decode_delta_into(base, &ctx, &mut r, state)
                .map_err(BenchError::with(E::NAME))?;
        }
        assert!(
            received == mirrors,
            "{}: tick {tick}: the receiver differs from the mirror",
            E::NAME
        );
        for (mirror, c) in mirrors.iter().zip(states) {
            assert!(
                expect.holds::<E>(mirror, c),
                "{}: tick {tick}: a mirror is off the truth",
                E::NAME
            );
        }
        packets.push(packet);
        std::mem::swap(&mut sent, &mut mirrors);
        std::mem::swap(&mut held, &mut received);
    }
    Ok(packets)
}

/// The timed jobs, per tick: encoding (every Character against the previous mirrors, keeping
/// the new mirrors) and decoding (every Character of a packet against the previous state).
pub fn jobs<'a, E>(
    truth: &'a [Vec<Character>],
    start: &'a [Character],
    packets: &'a Encoded,
) -> [Job<'a>; 2]
where
    E: Encoding<Style = BitStream>,
    Character: DeltaCodec<E>,
{
    let ctx = context();
    let mut w = BitWriter::new();
    let encode = Job::new(truth.len(), move || {
        let (mut sent, mut mirrors) = (start.to_vec(), start.to_vec());
        for states in truth {
            w.clear();
            for ((c, base), mirror) in states.iter().zip(&sent).zip(&mut mirrors) {
                let _ = DeltaCodec::<E>::encode_delta_into(c, base, &ctx, &mut w, mirror);
            }
            std::hint::black_box(w.finish());
            std::mem::swap(&mut sent, &mut mirrors);
        }
    });
    let decode = Job::new(packets.len(), move || {
        let (mut held, mut next) = (start.to_vec(), start.to_vec());
        for packet in packets.messages() {
            let mut r = BitReader::new(packet);
            for (base, state) in held.iter().zip(&mut next) {
                let _ = <Character as DeltaCodec<E>>::decode_delta_into(base, &ctx, &mut r, state);
            }
            std::mem::swap(&mut held, std::hint::black_box(&mut next));
        }
    });
    [encode, decode]
}

/// Encodes every tick of `truth` as one `World` delta against the previous tick's mirror (the
/// Characters an element-wise DELTA SEQUENCE: an unchanged one costs nothing), decodes it
/// against the receiver's previous World, and checks the receiver against the mirror and the
/// mirror as [`prepare`] does. Returns the packets.
pub fn prepare_world<E>(
    truth: &[World],
    start: &World,
    expect: Expect,
) -> Result<Encoded, BenchError>
where
    E: Encoding<Style = BitStream>,
    World: DeltaCodec<E>,
    Character: DeltaCodec<E>,
{
    let ctx = context();
    let mut w = BitWriter::new();
    let mut packets = Encoded::default();
    let (mut sent, mut mirror) = (start.clone(), start.clone());
    let (mut held, mut received) = (start.clone(), start.clone());
    for (tick, world) in truth.iter().enumerate() {
        w.clear();
        DeltaCodec::<E>::encode_delta_into(world, &sent, &ctx, &mut w, &mut mirror)
            .map_err(BenchError::with(E::NAME))?;
        let packet = w.finish();
        let mut r = BitReader::new(packet);
        <World as DeltaCodec<E>>::decode_delta_into(&held, &ctx, &mut r, &mut received)
            .map_err(BenchError::with(E::NAME))?;
        assert!(
            received == mirror,
            "{} World: tick {tick}: the receiver differs from the mirror",
            E::NAME
        );
        for (m, c) in mirror.characters.iter().zip(&world.characters) {
            assert!(
                expect.holds::<E>(m, c),
                "{} World: tick {tick}: a mirror is off the truth",
                E::NAME
            );
        }
        packets.push(packet);
        std::mem::swap(&mut sent, &mut mirror);
        std::mem::swap(&mut held, &mut received);
    }
    Ok(packets)
}

/// The timed jobs of [`prepare_world`]'s packets, per tick: encoding the World against the
/// previous mirror, and decoding a packet against the previous World.
pub fn world_jobs<'a, E>(truth: &'a [World], start: &'a World, packets: &'a Encoded) -> [Job<'a>; 2]
where
    E: Encoding<Style = BitStream>,
    World: DeltaCodec<E>,
{
    let ctx = context();
    let mut w = BitWriter::new();
    let encode = Job::new(truth.len(), move || {
        let (mut sent, mut mirror) = (start.clone(), start.clone());
        for world in truth {
            w.clear();
            if DeltaCodec::<E>::encode_delta_into(world, &sent, &ctx, &mut w, &mut mirror).is_ok() {
                std::mem::swap(&mut sent, &mut mirror);
            }
            std::hint::black_box(w.finish());
        }
    });
    let decode = Job::new(packets.len(), move || {
        let (mut held, mut next) = (start.clone(), start.clone());
        for packet in packets.messages() {
            let mut r = BitReader::new(packet);
            if <World as DeltaCodec<E>>::decode_delta_into(&held, &ctx, &mut r, &mut next).is_ok() {
                std::mem::swap(&mut held, std::hint::black_box(&mut next));
            }
        }
    });
    [encode, decode]
}

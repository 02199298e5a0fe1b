//! Every generated decoder of a top-level type (MESSAGE, PUBLISHABLE_STRUCT, and the RPC
//! parameter structs) survives 50,000 hostile inputs: mutations of valid encodings (bit flips,
//! truncation, extension with random bytes, duplicated ranges, zeroed and 0xFF ranges, random
//! bytes in place) and random buffers of length 0..512, from a seeded ChaCha8 generator.
//!
//! For every input: no panic; what is accepted re-encodes, and stably (`decode(b) = v` implies
//! `encode(v) = b1`, `decode(b1) = v2` and `encode(v2) = b1`: a decoder never accepts a value
//! the encoder refuses, such as one outside its IDL range); and what the decoded value holds is bounded by the input's size: at most
//! 8 elements (sequence elements, string and byte lengths, boxes, counted by capacity, so an
//! over-eager reservation shows) per input byte, and at most 64 heap bytes per input byte, plus
//! a small constant (the DEFAULTs of absent fields: "foundry", "eu-west"). Every input is also
//! decoded in place into one value kept from input to input (`from_bytes_in_place`): the same
//! error, or a value that encodes to the same bytes.

mod common;

use std::marker::PhantomData;
use std::mem::size_of;
use std::panic::{AssertUnwindSafe, catch_unwind};

use idlc_runtime::{
    Codec, Collection, DecodeError, EncodeError, Encoding, from_bytes, from_bytes_in_place,
    to_bytes,
};
use idlc_tests::collections::ProjectilePool;
use idlc_tests::{
    arena_builtin, arena_client as ac, arena_server as asv, character_builtin as cb,
    character_client as cc, character_server as cs, character_v2_client as v2,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Inputs per decoder: the generated code is compiled without optimization for the tests (the
/// workspace's Cargo.toml, `profile.test.package.idlc-tests`), where 200,000 took 44 s.
const ITERATIONS: usize = 50_000;
/// Elements per input byte, and the constant on top.
const ELEMENTS_PER_BYTE: usize = 8;
const ELEMENTS_SLACK: usize = 64;
/// Heap bytes per input byte, and the constant on top.
const HEAP_PER_BYTE: usize = 64;
const HEAP_SLACK: usize = 1024;

/// What a decoded value holds on the heap.
trait Weight {
    /// Sequence elements (by capacity), string and byte lengths (by capacity), boxes.
    fn elements(&self) -> usize;
    /// Heap bytes (by capacity).
    fn heap_bytes(&self) -> usize;
}

impl Weight for u8 {
    fn elements(&self) -> usize {
        0
    }
    fn heap_bytes(&self) -> usize {
        0
    }
}

impl Weight for String {
    fn elements(&self) -> usize {
        self.capacity()
    }
    fn heap_bytes(&self) -> usize {
        self.capacity()
    }
}

impl<T: Weight> Weight for Vec<T> {
    fn elements(&self) -> usize {
        // A Vec of zero-sized elements reports capacity usize::MAX and owns no heap: count them.
        let reserved = if size_of::<T>() == 0 {
            self.len()
        } else {
            self.capacity()
        };
        reserved + self.iter().map(Weight::elements).sum::<usize>()
    }
    fn heap_bytes(&self) -> usize {
        self.capacity() * size_of::<T>() + self.iter().map(Weight::heap_bytes).sum::<usize>()
    }
}

impl<T: Weight> Weight for std::collections::VecDeque<T> {
    fn elements(&self) -> usize {
        self.capacity() + self.iter().map(Weight::elements).sum::<usize>()
    }
    fn heap_bytes(&self) -> usize {
        self.capacity() * size_of::<T>() + self.iter().map(Weight::heap_bytes).sum::<usize>()
    }
}

impl<T: Weight> Weight for Option<Box<T>> {
    fn elements(&self) -> usize {
        self.as_ref().map_or(0, |b| 1 + b.elements())
    }
    fn heap_bytes(&self) -> usize {
        self.as_ref().map_or(0, |b| size_of::<T>() + b.heap_bytes())
    }
}

/// The server's pool (its capacity is private: counted by length).
impl Weight for ProjectilePool {
    fn elements(&self) -> usize {
        Collection::len(self)
    }
    fn heap_bytes(&self) -> usize {
        Collection::len(self) * size_of::<asv::Projectile>()
    }
}

impl Weight for idlc_tests::collections::MyInventory {
    fn elements(&self) -> usize {
        Collection::len(self)
    }
    fn heap_bytes(&self) -> usize {
        Collection::len(self) * size_of::<cs::Item>()
    }
}

/// `Weight` of a struct: the sum over the listed fields (the others hold no heap).
macro_rules! weigh {
    ($t:ty: $($f:ident),*) => {
        impl Weight for $t {
            fn elements(&self) -> usize {
                0 $(+ self.$f.elements())*
            }
            fn heap_bytes(&self) -> usize {
                0 $(+ self.$f.heap_bytes())*
            }
        }
    };
}

macro_rules! weigh_character {
    ($m:ident) => {
        weigh!($m::Character: inventory);
        weigh!($m::Item:);
    };
}
weigh_character!(cc);
weigh_character!(cs);
weigh_character!(v2);
weigh_character!(cb);

macro_rules! weigh_arena {
    ($m:ident) => {
        weigh!($m::PlayerState:);
        weigh!($m::Projectile:);
        weigh!($m::ArenaState: players, projectiles, map_name);
        weigh!($m::Welcome: server_name);
        weigh!($m::ChatBroadcast: text);
        weigh!($m::KillFeed: credit);
        weigh!($m::KillCredit: assist);
        weigh!($m::LootDrop: items);
        weigh!($m::Item:);
        weigh!($m::VoiceFrame: opus);
        weigh!($m::MatchEnded:);
        weigh!($m::MatchReport: results, squads, replay);
        weigh!($m::PlayerResult: name);
        weigh!($m::Squad: tag, members, subsquads);
        weigh!($m::Join: name, auth_ticket, region);
        weigh!($m::Input:);
        weigh!($m::Fire:);
        weigh!($m::Say: text);
        weigh!($m::Buy:);
        weigh!($m::ReportPlayer: reason);
        weigh!($m::Ping:);
    };
}
impl Weight for Option<idlc_tests::edge::Node> {
    fn elements(&self) -> usize {
        self.as_ref().map_or(0, |n| n.elements())
    }
    fn heap_bytes(&self) -> usize {
        self.as_ref().map_or(0, |n| n.heap_bytes())
    }
}

weigh!(idlc_tests::edge::Empty:);
weigh!(idlc_tests::edge::Keywords:);
weigh!(idlc_tests::edge::Extremes:);
weigh!(idlc_tests::edge::FloatEnds:);
weigh!(idlc_tests::edge::F32Ends:);
weigh!(idlc_tests::edge::F64Held:);
weigh!(idlc_tests::edge::F32Arrays:);
weigh!(idlc_tests::edge::BigArrays:);
weigh!(idlc_tests::edge::Nesting: grid, nothings, tree);
weigh!(idlc_tests::edge::Node: children);
weigh!(idlc_tests::edge::Versioned: tag);
weigh!(idlc_tests::edge::Everything: e, k);
weigh!(idlc_tests::edge::Box:);
weigh!(idlc_tests::edge::Roster: boxes, queued);

weigh!(idlc_tests::naval::Turret:);
weigh!(idlc_tests::naval::Ship: turrets);
weigh!(idlc_tests::naval::Fleet: ships);

weigh_arena!(ac);
weigh_arena!(asv);
weigh_arena!(arena_builtin);

/// A decoded value, its type and encoding erased: what [`check_fuzz`] asks of it.
trait Decoded {
    /// [`Weight::elements`].
    fn elements(&self) -> usize;
    /// [`Weight::heap_bytes`].
    fn heap_bytes(&self) -> usize;
    /// The value encoded again, in the encoding it was decoded from.
    fn encode(&self) -> Result<Vec<u8>, EncodeError>;
    /// Decodes `bytes` into this value ([`Codec::decode_in_place_from`]).
    fn decode_in_place(&mut self, bytes: &[u8]) -> Result<(), DecodeError>;
}

/// A `T` decoded in `E`.
struct In<E, T>(T, PhantomData<E>);

impl<E: Encoding, T: Codec<E> + Weight> Decoded for In<E, T> {
    fn elements(&self) -> usize {
        self.0.elements()
    }
    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
    fn encode(&self) -> Result<Vec<u8>, EncodeError> {
        to_bytes::<E, T>(&self.0)
    }
    fn decode_in_place(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        from_bytes_in_place::<E, T>(bytes, &mut self.0)
    }
}

/// `T`'s decoder in `E`, its generics erased.
type Decoder = fn(&[u8]) -> Result<Box<dyn Decoded>, DecodeError>;

/// Decodes `bytes` as a `T` in `E`.
fn decode<E: Encoding, T: Codec<E> + Weight + 'static>(
    bytes: &[u8],
) -> Result<Box<dyn Decoded>, DecodeError> {
    from_bytes::<E, T>(bytes).map(|value| Box::new(In::<E, T>(value, PhantomData)) as _)
}

/// Feeds `iterations` hostile inputs derived from `seeds` (valid encodings) to `T`'s decoder in
/// `E`, and prints how many were accepted.
fn fuzz<E: Encoding, T: Codec<E> + Weight + 'static>(
    seeds: &[Vec<u8>],
    iterations: usize,
    rng_seed: u64,
) {
    let name = format!("{} in {}", std::any::type_name::<T>(), E::NAME);
    check_fuzz(&name, decode::<E, T>, seeds, iterations, rng_seed);
}

/// [`fuzz`], compiled once for every type and encoding: `decode` is [`decode`] of the type in
/// the encoding, `name` says which.
fn check_fuzz(name: &str, decode: Decoder, seeds: &[Vec<u8>], iterations: usize, rng_seed: u64) {
    assert!(!seeds.is_empty());
    for seed in seeds {
        let result = decode(seed);
        assert!(
            result.is_ok(),
            "{name}: a valid encoding {} does not decode: {:?}",
            common::hex(seed),
            result.err()
        );
    }
    // One value every input is also decoded into, in place: it must end as a new decode would.
    let mut held = decode(&seeds[0]).expect("a valid seed decodes");
    let mut rng = ChaCha8Rng::seed_from_u64(rng_seed);
    let mut accepted = 0usize;
    for iteration in 0..iterations {
        let input = if rng.random_range(0..4) == 0 {
            common::random_buffer(&mut rng)
        } else {
            let seed = &seeds[rng.random_range(0..seeds.len())];
            common::mutate(&mut rng, seed)
        };
        let result = catch_unwind(AssertUnwindSafe(|| decode(&input))).unwrap_or_else(|_| {
            panic!(
                "{name}: the decoder panicked on input {} (iteration {iteration}, seed {rng_seed})",
                common::hex(&input)
            )
        });
        let in_place = catch_unwind(AssertUnwindSafe(|| held.decode_in_place(&input)))
            .unwrap_or_else(|_| {
                panic!(
                    "{name}: the in-place decoder panicked on input {}",
                    common::hex(&input)
                )
            });
        let value = match (result, in_place) {
            (Ok(value), Ok(())) => value,
            (Err(fresh), Err(reused)) if fresh == reused => continue,
            (fresh, reused) => panic!(
                "{name}: decoding {} into a new value gives {:?}, in place {reused:?}",
                common::hex(&input),
                fresh.map(|_| ())
            ),
        };
        accepted += 1;
        let elements = value.elements();
        assert!(
            elements <= ELEMENTS_PER_BYTE * input.len() + ELEMENTS_SLACK,
            "{name}: {} input bytes decoded to {elements} elements: {}",
            input.len(),
            common::hex(&input)
        );
        let heap = value.heap_bytes();
        assert!(
            heap <= HEAP_PER_BYTE * input.len() + HEAP_SLACK,
            "{name}: {} input bytes decoded to {heap} heap bytes: {}",
            input.len(),
            common::hex(&input)
        );
        // Every value a decoder accepts is one the encoder can send, and sending it is stable:
        // decode(b) = v  =>  encode(v) = b1, decode(b1) = v2, encode(v2) = b1.
        let b1 = value.encode().unwrap_or_else(|e| {
            panic!(
                "{name}: the decoder accepted {}, which does not re-encode: {e}",
                common::hex(&input)
            )
        });
        let v2 = decode(&b1).unwrap_or_else(|e| {
            panic!(
                "{name}: {} decoded, re-encoded to {}, which does not decode: {e}",
                common::hex(&input),
                common::hex(&b1)
            )
        });
        let b2 = v2.encode().expect("a decoded value re-encodes");
        let held_bytes = held.encode().expect("a value decoded in place re-encodes");
        if held_bytes != b1 {
            assert_eq!(
                common::hex(&held_bytes),
                common::hex(&b1),
                "{name}: {} decodes in place to another value",
                common::hex(&input)
            );
        }
        // In hex for the message only: formatting every accepted input took most of the time.
        if b2 != b1 {
            assert_eq!(
                common::hex(&b2),
                common::hex(&b1),
                "{name}: {} re-encodes unstably",
                common::hex(&input)
            );
        }
    }
    eprintln!("{name}: {accepted} of {iterations} inputs accepted");
    // The mutations must reach past the first field now and then, or this tests little.
    assert!(
        accepted >= iterations / 200,
        "{name}: only {accepted} of {iterations} inputs decoded"
    );
}

// ---------------------------------------------------------------------------------------------
// Character
// ---------------------------------------------------------------------------------------------

/// Valid Characters, seeded: a few with items, the Default.
fn characters() -> Vec<cc::Character> {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC4A2);
    let mut out: Vec<cc::Character> = (0..16)
        .map(|_| common::random_character(&mut rng))
        .collect();
    out.push(cc::Character::default());
    out
}

fn character_seeds<E: Encoding>() -> Vec<Vec<u8>>
where
    cc::Character: Codec<E>,
{
    characters()
        .iter()
        .map(|c| to_bytes::<E, _>(c).unwrap())
        .collect()
}

#[test]
fn character_myencoding1() {
    let seeds = character_seeds::<cc::MYENCODING1>();
    fuzz::<cc::MYENCODING1, cc::Character>(&seeds, ITERATIONS, 11);
    fuzz::<cs::MYENCODING1, cs::Character>(&seeds, ITERATIONS, 12);
}

#[test]
fn character_myencoding2() {
    let seeds = character_seeds::<cc::MYENCODING2>();
    fuzz::<cc::MYENCODING2, cc::Character>(&seeds, ITERATIONS, 21);
    fuzz::<cs::MYENCODING2, cs::Character>(&seeds, ITERATIONS, 22);
}

#[test]
fn character_myencodinga() {
    let seeds = character_seeds::<cc::MYENCODINGA>();
    fuzz::<cc::MYENCODINGA, cc::Character>(&seeds, ITERATIONS, 31);
    fuzz::<cs::MYENCODINGA, cs::Character>(&seeds, ITERATIONS, 32);
    // v2 reads v1's bytes (and its own, which mutations of v1's reach through extension).
    fuzz::<v2::MYENCODINGA, v2::Character>(&seeds, ITERATIONS, 33);
}

#[test]
fn character_builtin() {
    let seeds = vec![cb::Character::default().to_bytes().unwrap()];
    fuzz::<cb::BuiltinEncoding, cb::Character>(&seeds, ITERATIONS, 41);
}

// ---------------------------------------------------------------------------------------------
// Arena
// ---------------------------------------------------------------------------------------------

/// The decoders of `$m`'s top-level types in `$enc`, seeded with the client's samples (the same
/// bytes on every side).
macro_rules! fuzz_arena {
    ($m:ident, $enc:ident, $seed:expr, $iterations:expr; $($ty:ident),+ $(,)?) => {
        $(
            fuzz::<$m::$enc, $m::$ty>(
                &common::sample_bytes::<ac::$enc, ac::$ty>(),
                $iterations,
                $seed ^ u64::from(stringify!($ty).len() as u32) << 8,
            );
        )+
    };
}

/// The MESSAGEs and the PUBLISHABLE_STRUCTs.
macro_rules! fuzz_arena_all {
    ($m:ident, $enc:ident, $seed:expr, $iterations:expr) => {
        fuzz_arena!($m, $enc, $seed, $iterations; PlayerState, ArenaState, Projectile, Item, Welcome, ChatBroadcast,
            KillFeed, LootDrop, VoiceFrame, MatchEnded, MatchReport);
    };
}

/// The RPC parameter structs: fewer inputs, they are small.
macro_rules! fuzz_arena_rpcs {
    ($m:ident, $enc:ident, $seed:expr) => {
        fuzz_arena!($m, $enc, $seed, ITERATIONS / 4; Join, Input, Fire, Say, Buy, ReportPlayer,
            Ping);
    };
}

#[test]
fn arena_client_s2c() {
    fuzz_arena_all!(ac, S2C, 0x100, ITERATIONS);
    fuzz_arena_rpcs!(ac, S2C, 0x101);
}

#[test]
fn arena_server_s2c() {
    fuzz_arena_all!(asv, S2C, 0x200, ITERATIONS);
    fuzz_arena_rpcs!(asv, S2C, 0x201);
}

#[test]
fn arena_client_s2s() {
    fuzz_arena_all!(ac, S2S, 0x400, ITERATIONS);
    fuzz_arena_rpcs!(ac, S2S, 0x402);
}

#[test]
fn arena_server_s2s() {
    fuzz_arena_all!(asv, S2S, 0x500, ITERATIONS);
    fuzz_arena_rpcs!(asv, S2S, 0x502);
}

/// The debug encoding (CHECK markers) and the built-in one: fewer inputs each.
#[test]
fn arena_s2c_debug_and_builtin() {
    fuzz_arena_all!(ac, S2CDebug, 0x600, ITERATIONS / 4);
    fuzz_arena_all!(asv, S2CDebug, 0x602, ITERATIONS / 4);
    macro_rules! builtin {
        ($($ty:ident),+) => {
            $(
                fuzz::<arena_builtin::BuiltinEncoding, arena_builtin::$ty>(
                    &[arena_builtin::$ty::default().to_bytes().unwrap()],
                    ITERATIONS / 4,
                    0x700 + stringify!($ty).len() as u64,
                );
            )+
        };
    }
    builtin!(
        PlayerState,
        Projectile,
        ArenaState,
        Item,
        Welcome,
        ChatBroadcast,
        KillFeed,
        LootDrop,
        VoiceFrame,
        MatchEnded,
        MatchReport
    );
}

// ---------------------------------------------------------------------------------------------
// Recursion
// ---------------------------------------------------------------------------------------------

fn kill_chain(depth: usize) -> ac::KillFeed {
    let mut credit = ac::KillCredit::default();
    for i in 1..depth {
        credit = ac::KillCredit {
            player: (i % 16) as u8,
            damage: (i % 1000) as u16,
            assist: Some(Box::new(credit)),
        };
    }
    ac::KillFeed {
        credit,
        ..Default::default()
    }
}

fn nested_squads(depth: usize) -> ac::MatchReport {
    let mut squad = ac::Squad::default();
    for _ in 1..depth {
        squad = ac::Squad {
            tag: "n".into(),
            members: vec![1],
            subsquads: vec![squad],
        };
    }
    ac::MatchReport {
        squads: vec![squad],
        ..Default::default()
    }
}

/// Structs that contain themselves (KillCredit through OPTIONAL, Squad through SEQUENCE): a
/// deep but reasonable nesting decodes; a deeper one is `TooDeep`, in every encoding, never a
/// stack overflow.
fn recursion<E: Encoding>()
where
    ac::KillFeed: Codec<E>,
    ac::MatchReport: Codec<E>,
{
    use idlc_runtime::DecodeErrorKind::TooDeep;
    for depth in [1, 2, 50, 100] {
        let feed = kill_chain(depth);
        let bytes = to_bytes::<E, _>(&feed).unwrap();
        assert_eq!(from_bytes::<E, ac::KillFeed>(&bytes), Ok(feed), "{depth}");
        let report = nested_squads(depth);
        let bytes = to_bytes::<E, _>(&report).unwrap();
        assert_eq!(
            from_bytes::<E, ac::MatchReport>(&bytes),
            Ok(report),
            "{depth}"
        );
    }
    for depth in [200, 1000] {
        let bytes = to_bytes::<E, _>(&kill_chain(depth)).unwrap();
        let e = from_bytes::<E, ac::KillFeed>(&bytes).unwrap_err();
        assert_eq!(e.kind, TooDeep, "{depth} KillCredits in {}: {e}", E::NAME);
        let bytes = to_bytes::<E, _>(&nested_squads(depth)).unwrap();
        let e = from_bytes::<E, ac::MatchReport>(&bytes).unwrap_err();
        assert_eq!(e.kind, TooDeep, "{depth} Squads in {}: {e}", E::NAME);
    }
}

#[test]
fn recursion_is_bounded() {
    recursion::<ac::S2C>();
    recursion::<ac::S2CDebug>();
    recursion::<ac::S2S>();
}

/// 100,000 nested assists written by hand (S2C KillCredit: 4-bit player 0, 10-bit damage 0,
/// present bit 1), about 190 KB: `TooDeep`, not a stack overflow.
#[test]
fn hand_written_deep_chain() {
    use idlc_runtime::{BitWriter, WireWrite};
    let mut w = BitWriter::new();
    for _ in 0..100_000 {
        w.write_bits(0, 14).unwrap();
        w.write_bool(true).unwrap();
    }
    let bytes = w.into_bytes();
    let e = ac::KillFeed::from_bytes_with::<ac::S2C>(&bytes).unwrap_err();
    assert_eq!(e.kind, idlc_runtime::DecodeErrorKind::TooDeep);
    let e = asv::KillFeed::from_bytes_with::<asv::S2C>(&bytes).unwrap_err();
    assert_eq!(e.kind, idlc_runtime::DecodeErrorKind::TooDeep);
}

/// The corner-case schema (schemas/edge.idl): zero-bit fields, full 64-bit ranges, nested and
/// recursive types, unusual rules, a byte stream.
#[test]
fn edge_types() {
    use idlc_tests::edge as e;
    macro_rules! edge {
        ($enc:ident: $($ty:ident),+) => {
            $(
                fuzz::<e::$enc, e::$ty>(
                    &[to_bytes::<e::$enc, _>(&e::$ty::default()).unwrap()],
                    ITERATIONS / 4,
                    0x800 + stringify!($ty).len() as u64,
                );
            )+
        };
    }
    edge!(Odd: Keywords, Extremes, FloatEnds, F32Ends, F64Held, F32Arrays, BigArrays, Nesting, Node, Versioned, Everything, Roster);
    edge!(Bytes: Keywords, Extremes, FloatEnds, F32Ends, F64Held, F32Arrays, BigArrays, Nesting, Node, Versioned, Everything, Roster);
}

/// The naval schema: open-ended ranges under FIXED_POINT (`NUMERIC[0,360)`, `NUMERIC(0,1]`),
/// the case where a decoder once accepted step 720 of a heading and returned 360.0.
#[test]
fn naval_types() {
    use idlc_tests::naval as n;
    let turret = n::Turret {
        bearing: 359.9,
        elevation: 12.5,
        loaded: true,
    };
    let ship = n::Ship {
        id: 70_000,
        class: n::ShipClass::Carrier,
        x: -4999.9,
        y: 4999.95,
        vx: 19.99,
        vy: -20.0,
        heading: 359.76,
        hull: 0.001,
        ammo: 100,
        turrets: vec![turret.clone(), n::Turret::default()],
    };
    let fleet = n::Fleet {
        tick: 9,
        time_left_s: 3599,
        ships: vec![ship.clone(), ship.clone()],
    };
    macro_rules! naval {
        ($enc:ident) => {
            fuzz::<n::$enc, n::Turret>(
                &[to_bytes::<n::$enc, _>(&turret).unwrap()],
                ITERATIONS / 4,
                0x900,
            );
            fuzz::<n::$enc, n::Ship>(
                &[to_bytes::<n::$enc, _>(&ship).unwrap()],
                ITERATIONS / 4,
                0x901,
            );
            fuzz::<n::$enc, n::Fleet>(
                &[to_bytes::<n::$enc, _>(&fleet).unwrap()],
                ITERATIONS / 4,
                0x902,
            );
        };
    }
    naval!(NAVAL);
    naval!(NAVAL_S2S);
}

/// The input the coverage-guided fuzzer found: a Turret whose bearing is step 720 of
/// `NUMERIC[0,360)` at 0.5, which is 360.0, outside the range. Rejected, in both streams.
#[test]
fn step_on_an_open_end_is_rejected() {
    use idlc_runtime::{BitWriter, ByteWriter, DecodeErrorKind, WireWrite};
    use idlc_tests::naval as n;
    let mut w = BitWriter::new();
    w.write_bits(720, 10).unwrap();
    w.write_bits(10, 8).unwrap();
    w.write_bool(true).unwrap();
    let e = n::Turret::from_bytes_with::<n::NAVAL>(&w.into_bytes()).unwrap_err();
    // (The three fields are read as one packed word: the offset is the word's end, 19.)
    assert_eq!(e.kind, DecodeErrorKind::ValueOutOfRange);
    let mut w = ByteWriter::new();
    w.write_bits(720, 16).unwrap();
    w.write_bits(10, 8).unwrap();
    w.write_bool(true).unwrap();
    let e = n::Turret::from_bytes_with::<n::NAVAL_S2S>(&w.into_bytes()).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::ValueOutOfRange);
    // The last step below the open end decodes, and re-encodes to the same bytes.
    let mut w = BitWriter::new();
    w.write_bits(719, 10).unwrap();
    w.write_bits(10, 8).unwrap();
    w.write_bool(true).unwrap();
    let bytes = w.into_bytes();
    let turret = n::Turret::from_bytes_with::<n::NAVAL>(&bytes).unwrap();
    assert_eq!(turret.bearing, 359.5);
    assert_eq!(turret.to_bytes_with::<n::NAVAL>().unwrap(), bytes);
    // Hull is `NUMERIC(0,1]`: step 0 would be 0.0, outside; a ship at 0.001 goes as 0.01.
    let ship = n::Ship {
        hull: 0.001,
        ..Default::default()
    };
    let back = n::Ship::from_bytes(&ship.to_bytes().unwrap()).unwrap();
    assert_eq!(back.hull, 0.01);
}

//! Changing the mapping never changes the bytes.
//!
//! The seed Character on the Client side (f32 angle, `Vec<Item>`) and on the Server side (f32
//! angle, `MyInventory`) write the same bytes for the same value and read each other's bytes,
//! in every encoding. The arena's Client and Server modules (f32 positions vs f64, `u32 ammo` vs
//! `u16`, `i32 health` vs `u8`, `ProjectilePool` vs `Vec`, glam::Vec3 vs a generated Vec3) accept
//! the same inputs and re-encode them to the same bytes. Item, which every module has with the
//! same built-in rules, is the same on the wire everywhere.

mod common;

use common::{Reencode, Refused};
use idlc_runtime::{Codec, Encoding};
use idlc_tests::{
    arena_builtin, arena_client, arena_server, character_builtin, character_client as cc,
    character_server as cs,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Both sides write the same bytes; each side reads the other's bytes as what it reads its own.
/// `E` and `F` are the same encoding's markers in the two modules.
fn same_bytes<E: Encoding, F: Encoding>(c: &cc::Character) -> Result<(), TestCaseError>
where
    cc::Character: Codec<E>,
    cs::Character: Codec<F>,
{
    assert_eq!(E::NAME, F::NAME);
    let server = common::to_server(c);
    let from_client = c.to_bytes_with::<E>().unwrap();
    let from_server = server.to_bytes_with::<F>().unwrap();
    prop_assert_eq!(&from_client, &from_server, "{}", E::NAME);

    let client_reads = cc::Character::from_bytes_with::<E>(&from_server).unwrap();
    let server_reads = cs::Character::from_bytes_with::<F>(&from_client).unwrap();
    prop_assert_eq!(
        &client_reads,
        &common::to_client(&server_reads),
        "{}: the two sides decode the same bytes differently",
        E::NAME
    );
    // And what each side decoded, re-encoded, is still the other's bytes.
    prop_assert_eq!(
        client_reads.to_bytes_with::<E>().unwrap(),
        server_reads.to_bytes_with::<F>().unwrap()
    );
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 512, ..Config::default() })]

    #[test]
    fn character_client_and_server_myencoding1(c in common::character()) {
        same_bytes::<cc::MYENCODING1, cs::MYENCODING1>(&c)?;
    }

    #[test]
    fn character_client_and_server_myencoding2(c in common::character()) {
        same_bytes::<cc::MYENCODING2, cs::MYENCODING2>(&c)?;
    }

    #[test]
    fn character_client_and_server_myencodinga(c in common::character()) {
        same_bytes::<cc::MYENCODINGA, cs::MYENCODINGA>(&c)?;
    }

    /// Item has no rule in the seed encodings nor in the built-in one: the built-in defaults
    /// (UINT32, 3-bit index, 7-bit count, raw FLOAT64, open end) in each, so the same bytes.
    #[test]
    fn item_same_bytes_in_every_module(i in common::item()) {
        let expected = i.to_bytes_with::<cc::MYENCODING1>().unwrap();
        prop_assert_eq!(&i.to_bytes_with::<cc::MYENCODING2>().unwrap(), &expected);
        prop_assert_eq!(&i.to_bytes_with::<cc::MYENCODINGA>().unwrap(), &expected);
        let s = common::item_to_server(&i);
        prop_assert_eq!(&s.to_bytes_with::<cs::MYENCODING1>().unwrap(), &expected);
        let b = character_builtin::Item::from_bytes(&expected).unwrap();
        prop_assert_eq!(&b.to_bytes().unwrap(), &expected);
        prop_assert_eq!(b.item_id, i.item_id);
        prop_assert_eq!(b.kind.index(), i.kind.index());
        prop_assert_eq!(b.count, i.count);
        prop_assert_eq!(b.durability.to_bits(), i.durability.to_bits());
        let a = arena_builtin::Item::from_bytes(&expected).unwrap();
        prop_assert_eq!(&a.to_bytes().unwrap(), &expected);
    }
}

// ---------------------------------------------------------------------------------------------
// Arena: cross-decoding the same bytes
// ---------------------------------------------------------------------------------------------

/// Whether the client's mapping can hold every value the wire can carry. The client maps the
/// positions and velocities of PlayerState and Projectile to f32; where an encoding sends them
/// raw (FLOAT64: S2S), an f32
/// cannot hold every f64, so the client's decoding of arbitrary bytes loses bits that the
/// server's keeps.
#[derive(Clone, Copy, PartialEq)]
enum ClientMapping {
    Lossless,
    LossyF32,
}

/// `A` and `B` are the same IDL type in two mappings, in the encoding `EA` / `EB` (the same
/// encoding, generated twice): they accept the same inputs; each reads what the other writes
/// and writes it back byte for byte; and, when both mappings hold every value, they re-encode
/// any input identically.
fn cross<EA, A, EB, B>(seeds: Vec<Vec<u8>>, cases: u32, mapping: ClientMapping)
where
    EA: Encoding,
    EB: Encoding,
    A: Codec<EA>,
    B: Codec<EB>,
{
    assert_eq!(EA::NAME, EB::NAME);
    let name = format!(
        "{} / {} in {}",
        std::any::type_name::<A>(),
        std::any::type_name::<B>(),
        EA::NAME
    );
    check_cross(
        &name,
        common::reencode::<EA, A>,
        common::reencode::<EB, B>,
        seeds,
        cases,
        mapping,
    );
}

/// [`cross`], compiled once for every pair of types: `a` and `b` are [`common::reencode`] of
/// `A` in `EA` and of `B` in `EB`.
fn check_cross(
    name: &str,
    a: Reencode,
    b: Reencode,
    seeds: Vec<Vec<u8>>,
    cases: u32,
    mapping: ClientMapping,
) {
    let accepted = std::cell::Cell::new(0usize);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let fail = |what: &str, e: &dyn std::fmt::Display| TestCaseError::fail(format!("{what}: {e}"));
    // Whether a decoded (an encoder's refusal is the decoded value's), and the encoder's verdict.
    let encoded = |what: &str, r: Result<Vec<u8>, Refused>| match r {
        Ok(bytes) => Ok(bytes),
        Err(Refused::Encode(e)) => Err(fail(what, &e)),
        Err(Refused::Decode(e)) => unreachable!("{what}: {e}: decoded before"),
    };
    runner
        .run(&common::mutated_inputs(seeds), |bytes| {
            match (a(&bytes), b(&bytes)) {
                (Err(Refused::Decode(a)), Err(Refused::Decode(b))) => {
                    prop_assert_eq!(a, b, "different errors")
                }
                (a @ Err(Refused::Decode(_)), b) | (a, b @ Err(Refused::Decode(_))) => {
                    let error = |r: Result<Vec<u8>, Refused>| match r {
                        Err(Refused::Decode(e)) => Some(e),
                        _ => None,
                    };
                    prop_assert!(
                        false,
                        "one mapping accepts {}, the other does not: {:?} / {:?}",
                        common::hex(&bytes),
                        error(a),
                        error(b)
                    )
                }
                (a_bytes, b_bytes) => {
                    accepted.set(accepted.get() + 1);
                    let a_bytes = encoded("A re-encodes", a_bytes)?;
                    let b_bytes = encoded("B re-encodes", b_bytes)?;
                    if mapping == ClientMapping::Lossless {
                        prop_assert_eq!(
                            common::hex(&a_bytes),
                            common::hex(&b_bytes),
                            "the two mappings re-encode {} differently",
                            common::hex(&bytes)
                        );
                    }
                    // What one side writes, the other reads and writes back unchanged.
                    let b_of_a = b(&a_bytes).map_err(|e| match e {
                        Refused::Decode(e) => fail("B reads A", &e),
                        Refused::Encode(e) => fail("B writes", &e),
                    })?;
                    prop_assert_eq!(
                        common::hex(&b_of_a),
                        common::hex(&a_bytes),
                        "B rewrites A's bytes"
                    );
                    let a_of_b = a(&b_bytes).map_err(|e| match e {
                        Refused::Decode(e) => fail("A reads B", &e),
                        Refused::Encode(e) => fail("A writes", &e),
                    })?;
                    prop_assert_eq!(
                        common::hex(&a_of_b),
                        common::hex(&a_bytes),
                        "A rewrites B's bytes"
                    );
                }
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(accepted.get() > 0, "{name}: no input decoded");
}

/// `cross` for types of the same name in arena_client and arena_server, seeded with the
/// client's hand-built samples.
macro_rules! cross_arena {
    ($mapping:ident, $enc:ident: $($ty:ident),+ $(,)?) => {
        $(
            cross::<arena_client::$enc, arena_client::$ty, arena_server::$enc, arena_server::$ty>(
                common::sample_bytes::<arena_client::$enc, arena_client::$ty>(),
                512,
                ClientMapping::$mapping,
            );
        )+
    };
}

/// Every arena type but the three whose client mapping uses f32 (PlayerState, Projectile, and
/// ArenaState, which holds both); glam::Vec3 (client) against the generated Vec3 (server).
macro_rules! cross_arena_f64_types {
    ($enc:ident) => {
        cross_arena!(Lossless, $enc: JoinResult, PlayerResult, Welcome, ChatBroadcast, KillFeed,
            LootDrop, VoiceFrame, MatchEnded, Join, Input, Fire, Say, Buy, ReportPlayer, Ping,
            MatchReport, KillCredit, Squad, Item);
        cross::<arena_client::$enc, glam::Vec3, arena_server::$enc, arena_server::Vec3>(
            common::sample_bytes::<arena_client::$enc, glam::Vec3>(),
            512,
            ClientMapping::Lossless,
        );
    };
}

#[test]
fn arena_client_and_server_s2c() {
    cross_arena_f64_types!(S2C);
    // S2C quantizes every NUMERIC (FIXED_POINT): an f32 holds every value it can send.
    cross_arena!(Lossless, S2C: Projectile);
}

/// PlayerState and ArenaState (which holds PlayerStates) in S2C: see the HUFFMAN bug in
/// roundtrip.rs. The two mappings agree with each other even so.
#[test]
fn arena_client_and_server_s2c_huffman() {
    cross_arena!(Lossless, S2C: PlayerState, ArenaState);
}

#[test]
fn arena_client_and_server_s2c_debug() {
    cross_arena_f64_types!(S2CDebug);
    // S2CDebug quantizes as S2C does: the client's f32s hold every value it sends.
    cross_arena!(Lossless, S2CDebug: PlayerState, Projectile, ArenaState);
}

/// S2S sends positions as raw FLOAT64, which the client's f32s round (the compiler warns,
/// W0402, and the bundled idlc.toml gives the client no S2S): the weaker property only.
#[test]
fn arena_client_and_server_s2s() {
    cross_arena_f64_types!(S2S);
    cross_arena!(LossyF32, S2S: PlayerState, Projectile, ArenaState);
}

/// A hand-built client ArenaState (f32 positions, `Vec<Projectile>`) and the server's decoding
/// of its bytes (f64 positions, `ProjectilePool`) hold the same projectiles, and the server's
/// value writes the client's bytes.
#[test]
fn arena_state_projectile_pool_same_bytes() {
    use common::ArenaSamples;
    for sample in arena_client::ArenaState::samples() {
        let bytes = sample.to_bytes_with::<arena_client::S2S>().unwrap();
        let server =
            arena_server::ArenaState::from_bytes_with::<arena_server::S2S>(&bytes).unwrap();
        assert_eq!(server.projectiles.live().count(), sample.projectiles.len());
        for (s, c) in server.projectiles.live().zip(&sample.projectiles) {
            assert_eq!(s.id, c.id);
            // S2S sends NUMERIC raw (FLOAT64): the f32 widens exactly.
            assert_eq!(s.x, f64::from(c.x));
            assert_eq!(s.vz, f64::from(c.vz));
        }
        assert_eq!(server.to_bytes_with::<arena_server::S2S>().unwrap(), bytes);
    }
}

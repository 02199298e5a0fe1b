//! The IR interpreter (`idlc::interpret`) against the generated code, for every bundled schema,
//! every type and every encoding:
//!
//! - random valid values (seeded): the interpreter's bytes decode in generated code, and
//!   generated code re-encodes them to the very same bytes; the interpreter decodes them and
//!   re-encodes them to the same bytes too;
//! - hostile bytes (those encodings mutated, truncated, extended; random bytes): generated code
//!   and the interpreter give the same verdict, the same error kind at the same bit, and when
//!   both accept, the same re-encoding. (Not always the same bit offset: generated code reads a
//!   run of fixed-width fields as one word, so it reports an error at the run's start or end,
//!   where the interpreter names the field.)

use std::path::{Path, PathBuf};

use idlc::interpret::{self, sample};
use idlc::ir::Ir;
use idlc_runtime::{Codec, Encoding, from_bytes, to_bytes};
use idlc_tests::{
    arena_builtin, arena_client, character_builtin, character_client, character_v2_client, edge,
    mk48, naval, squad_v1, squad_v2, squad_v3,
};

/// Random values per type and encoding.
const VALUES: u64 = 150;
/// Hostile variants of each value's encoding.
const MUTATIONS: u64 = 16;

fn schema(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(name)
}

fn seed(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/seed-examples")
        .join(name)
}

/// The IR of the same inputs tests/build.rs generated a module from.
fn ir(idl: &[PathBuf], encodings: &[PathBuf], mapping: Option<(&str, PathBuf)>) -> Ir {
    let inputs = idlc::Inputs {
        idl: idl.to_vec(),
        encodings: encodings.to_vec(),
        mappings: mapping.iter().map(|(_, m)| m.clone()).collect(),
        side: mapping.map(|(side, _)| side.to_string()),
    };
    let compilation = idlc::compile(&inputs).expect("the schemas are readable");
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    compilation.ir
}

/// Generated code's verdict on `bytes`: the re-encoding of what it decoded, or the error.
fn generated<T: Codec<E>, E: Encoding>(bytes: &[u8]) -> Result<Vec<u8>, String> {
    match from_bytes::<E, T>(bytes) {
        Ok(value) => Ok(to_bytes::<E, T>(&value).expect("a decoded value re-encodes")),
        Err(e) => Err(format!("{:?}", e.kind)),
    }
}

/// The interpreter's verdict on `bytes`, in the same form.
fn interpreted(ir: &Ir, enc: &str, name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    match interpret::decode(ir, enc, name, bytes) {
        Ok(value) => Ok(interpret::encode(ir, enc, name, &value)
            .unwrap_or_else(|e| panic!("{name} in {enc}: a decoded value re-encodes: {e}"))),
        Err(e) => {
            let wire = e.wire().unwrap_or_else(|| panic!("{e}"));
            Err(format!("{:?}", wire.kind))
        }
    }
}

fn mutate(rng: &mut sample::Rng, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    match rng.below(5) {
        0 if !out.is_empty() => {
            let bit = rng.below(out.len() as u64 * 8);
            out[(bit / 8) as usize] ^= 1 << (bit % 8);
        }
        1 => out.truncate(rng.below(out.len() as u64 + 1) as usize),
        2 => out.extend((0..rng.below(6)).map(|_| rng.next_u64() as u8)),
        3 if !out.is_empty() => {
            let at = rng.below(out.len() as u64) as usize;
            out[at] = rng.next_u64() as u8;
        }
        _ => out = (0..rng.below(24)).map(|_| rng.next_u64() as u8).collect(),
    }
    out
}

/// Crosses the interpreter with generated `T` (Rust name `rust`) in encoding `E` (`enc` in the
/// IR).
/// With `lossy`, the Rust mapping cannot hold every value of the encoding (an f32 field sent as
/// FLOAT64: W0402): generated code's re-encodings then differ, only the verdicts are compared.
fn check<T: Codec<E>, E: Encoding>(ir: &Ir, rust: &str, enc: &str, lossy: bool) {
    let verdict = |v: Result<Vec<u8>, String>| if lossy { v.map(|_| Vec::new()) } else { v };
    let name = ir
        .mapping
        .structs
        .iter()
        .find(|(_, m)| m.rust_name == rust)
        .map(|(idl, _)| idl.as_str())
        .unwrap_or(rust);
    let mut rng = sample::Rng::new(0x1d1c ^ name.len() as u64 ^ (enc.len() as u64) << 8);
    for round in 0..VALUES {
        let value = sample::random_struct(ir, name, &mut rng).expect("the type exists");
        let bytes = match interpret::encode(ir, enc, name, &value) {
            Ok(bytes) => bytes,
            Err(e) => panic!("{name} in {enc}, round {round}: {e}\n{value}"),
        };
        let ours = verdict(interpreted(ir, enc, name, &bytes));
        let theirs = verdict(generated::<T, E>(&bytes));
        assert_eq!(
            ours, theirs,
            "{name} in {enc}, round {round}: the interpreter's bytes {bytes:02x?} of {value}"
        );
        if let (Ok(again), false) = (&theirs, lossy) {
            assert_eq!(
                again, &bytes,
                "{name} in {enc}, round {round}: generated code re-encodes {value} otherwise"
            );
        }
        for _ in 0..MUTATIONS {
            let hostile = mutate(&mut rng, &bytes);
            assert_eq!(
                verdict(interpreted(ir, enc, name, &hostile)),
                verdict(generated::<T, E>(&hostile)),
                "{name} in {enc}: verdicts differ on {hostile:02x?}"
            );
        }
    }
}

/// `check` for each listed type of a generated module in one encoding.
macro_rules! agree {
    ($ir:expr, $module:ident :: $marker:ident = $enc:literal, [$($ty:ident),* $(,)?]) => {
        $( check::<$module::$ty, $module::$marker>(&$ir, stringify!($ty), $enc, false); )*
    };
    (lossy $ir:expr, $module:ident :: $marker:ident = $enc:literal, [$($ty:ident),* $(,)?]) => {
        $( check::<$module::$ty, $module::$marker>(&$ir, stringify!($ty), $enc, true); )*
    };
}

fn character_inputs() -> Vec<PathBuf> {
    vec![seed("character.idl"), schema("item.idl")]
}

#[test]
fn character() {
    let encodings = [
        seed("myencoding1.enc"),
        seed("myencoding2.enc"),
        seed("myencodinga.enc"),
    ];
    let client = ir(
        &character_inputs(),
        &encodings,
        Some(("Client", schema("client.map"))),
    );
    agree!(
        client,
        character_client::MYENCODING1 = "MYENCODING1",
        [Character, Item]
    );
    agree!(
        client,
        character_client::MYENCODING2 = "MYENCODING2",
        [Character, Item]
    );
    // client.map's f32 angle cannot hold MYENCODINGA's raw FLOAT64 (W0402).
    agree!(lossy client, character_client::MYENCODINGA = "MYENCODINGA", [Character, Item]);
    let builtin = ir(&character_inputs(), &[], None);
    agree!(
        builtin,
        character_builtin::BuiltinEncoding = "Default",
        [Character, Item]
    );
    let v2 = ir(
        &[schema("character_v2.idl")],
        &[seed("myencodinga_extended.enc")],
        Some(("Client", schema("client.map"))),
    );
    agree!(lossy v2, character_v2_client::MYENCODINGA = "MYENCODINGA", [Character, Item]);
}

#[test]
fn edge_cases() {
    let ir = ir(&[schema("edge.idl")], &[schema("edge.enc")], None);
    for_edge(&ir);
}

fn for_edge(ir: &Ir) {
    agree!(
        ir,
        edge::Odd = "Odd",
        [
            Empty, Keywords, Extremes, Nesting, Node, Versioned, Box, Result, Nothing, Everything
        ]
    );
    agree!(
        ir,
        edge::Bytes = "Bytes",
        [
            Empty, Keywords, Extremes, Nesting, Node, Versioned, Box, Result, Nothing, Everything
        ]
    );
    agree!(
        ir,
        edge::SomeEncoding = "Some",
        [
            Empty, Keywords, Extremes, Nesting, Node, Versioned, Box, Result, Nothing, Everything
        ]
    );
}

#[test]
fn squad_versions() {
    for (version, module) in ["squad_v1", "squad_v2", "squad_v3"].iter().enumerate() {
        let ir = ir(
            &[schema(&format!("versions/{module}.idl"))],
            &[schema("versions/squad.enc")],
            None,
        );
        match version {
            0 => {
                agree!(ir, squad_v1::SquadBits = "SquadBits", [Member, Squad]);
                agree!(ir, squad_v1::SquadBytes = "SquadBytes", [Member, Squad]);
            }
            1 => {
                agree!(ir, squad_v2::SquadBits = "SquadBits", [Member, Squad]);
                agree!(ir, squad_v2::SquadBytes = "SquadBytes", [Member, Squad]);
            }
            _ => {
                agree!(ir, squad_v3::SquadBits = "SquadBits", [Member, Squad]);
                agree!(ir, squad_v3::SquadBytes = "SquadBytes", [Member, Squad]);
            }
        }
    }
}

#[test]
fn arena() {
    let client = ir(
        &[schema("arena.idl")],
        &[schema("arena_s2c.enc"), schema("arena_s2s.enc")],
        Some(("Client", schema("arena_client.map"))),
    );
    agree!(
        client,
        arena_client::S2C = "S2C",
        [
            ArenaState,
            Buy,
            ChatBroadcast,
            Fire,
            Input,
            Item,
            Join,
            JoinResult,
            KillCredit,
            KillFeed,
            LootDrop,
            MatchEnded,
            MatchReport,
            Ping,
            PlayerResult,
            PlayerState,
            Projectile,
            ReportPlayer,
            Say,
            Squad,
            VoiceFrame,
            Welcome
        ]
    );
    agree!(
        client,
        arena_client::S2CDebug = "S2CDebug",
        [
            ArenaState,
            Buy,
            ChatBroadcast,
            Fire,
            Input,
            Item,
            Join,
            JoinResult,
            KillCredit,
            KillFeed,
            LootDrop,
            MatchEnded,
            MatchReport,
            Ping,
            PlayerResult,
            PlayerState,
            Projectile,
            ReportPlayer,
            Say,
            Squad,
            VoiceFrame,
            Welcome
        ]
    );
    let builtin = ir(&[schema("arena.idl")], &[], None);
    agree!(
        builtin,
        arena_builtin::BuiltinEncoding = "Default",
        [
            ArenaState,
            Buy,
            ChatBroadcast,
            Fire,
            Input,
            Item,
            Join,
            JoinResult,
            KillCredit,
            KillFeed,
            LootDrop,
            MatchEnded,
            MatchReport,
            Ping,
            PlayerResult,
            PlayerState,
            Projectile,
            ReportPlayer,
            Say,
            Squad,
            Vec3,
            VoiceFrame,
            Welcome
        ]
    );
}

#[test]
fn naval_and_mk48() {
    let naval_ir = ir(&[schema("naval.idl")], &[schema("naval.enc")], None);
    agree!(naval_ir, naval::NAVAL = "NAVAL", [Fleet, Ship, Turret]);
    agree!(
        naval_ir,
        naval::NAVAL_S2S = "NAVAL_S2S",
        [Fleet, Ship, Turret]
    );
    let mk48_ir = ir(
        &[schema("mk48.idl")],
        &[schema("mk48.enc")],
        Some(("Game", schema("mk48.map"))),
    );
    agree!(
        mk48_ir,
        mk48::MK48 = "MK48",
        [Contact, Guidance, TerrainUpdate, Transform, Update]
    );
    agree!(
        mk48_ir,
        mk48::MK48_LOSSY = "MK48_LOSSY",
        [Contact, Guidance, TerrainUpdate, Transform, Update]
    );
    agree!(
        mk48_ir,
        mk48::MK48_PLAIN = "MK48_PLAIN",
        [Contact, Guidance, TerrainUpdate, Transform, Update]
    );
}

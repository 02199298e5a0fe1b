//! Golden bytes: the wire format of every bundled schema, pinned.
//!
//! For every schema × encoding × type, seeded values in full form, and for every
//! PUBLISHABLE_STRUCT seeded deltas against baselines (dead reckoning at several elapsed times),
//! recorded as hex in `snapshots/golden_bytes__*.snap`; and every protocol's version ids. The
//! interpreter computes them (the snapshots pin its bytes), and generated code must produce the
//! very same bytes from the same values: decoding a value's full form and encoding it again, and
//! encoding the delta of a value against a baseline, its mirror and the receiver's state.
//!
//! The snapshots were recorded before the wire plan (issue 28) moved the format's decisions into
//! `ir/`; they pass unchanged across that refactor. −0.0 and NaN are left out of the deltas of
//! the types recorded then (the changed-bit of a raw float compared values, not bits). The
//! `signed` types, recorded after the fix (issue 30 item 9), keep them: their deltas carry
//! −0.0 against +0.0 and NaNs with payloads, which changed-bits compare by the bits sent.

mod common;

use std::fmt::Write as _;
use std::path::PathBuf;

use common::{ir, schema, seed};

use idlc::interpret::{self, Value, sample};
use idlc::ir::{Ir, StructKind};
use idlc_runtime::{
    Codec, DeltaCodec, DeltaContext, Encoding, WireWrite, WriterOf, from_bytes, from_delta_bytes,
    to_bytes,
};
use idlc_tests::{
    arena_builtin, arena_client, arena_server, character_builtin, character_client, derives, edge,
    markers, mk48, naval, rover, squad_v1, squad_v2, squad_v3,
};

/// Seeded values in full form, per type.
const FULL: u64 = 16;
/// Seeded deltas, per PUBLISHABLE_STRUCT.
const DELTAS: u64 = 12;
/// The elapsed times the deltas cycle through (dead reckoning extrapolates over them).
const ELAPSED: [f64; 4] = [0.0, 1.0 / 30.0, 0.25, 1.5];

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".to_string();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One full-form record: the bytes of a value.
struct Full {
    bytes: Vec<u8>,
}

/// One delta record: a baseline and a value (their full forms), the elapsed time, the delta's
/// bytes and the full form of the mirror (what the receiver reconstructs).
struct Delta {
    baseline: Vec<u8>,
    value: Vec<u8>,
    elapsed: f64,
    delta: Vec<u8>,
    mirror: Vec<u8>,
}

/// A value with every −0.0 made +0.0 (see the module's doc).
fn without_negative_zero(value: Value) -> Value {
    match value {
        Value::Float(v) => Value::Float(if v == 0.0 { 0.0 } else { v }),
        Value::Float32(v) => Value::Float32(if v == 0.0 { 0.0 } else { v }),
        Value::List(items) => Value::List(items.into_iter().map(without_negative_zero).collect()),
        Value::Struct(fields) => Value::Struct(
            fields
                .into_iter()
                .map(|(k, v)| (k, without_negative_zero(v)))
                .collect(),
        ),
        other => other,
    }
}

/// A quiet NaN with a payload: its bits travel as they are.
const NAN_BITS: u64 = 0x7ff8_0000_0000_5678;

/// `value` with some of its floats made −0.0 or a NaN with a payload (`signed` types).
fn with_signed_zeros_and_nans(value: &Value, rng: &mut sample::Rng) -> Value {
    let pick = |rng: &mut sample::Rng| match rng.below(6) {
        0 => Some(-0.0),
        1 => Some(f64::from_bits(NAN_BITS)),
        _ => None,
    };
    match value {
        Value::Float(v) => Value::Float(pick(rng).unwrap_or(*v)),
        Value::Float32(v) => Value::Float32(pick(rng).map_or(*v, |x| x as f32)),
        Value::List(items) => Value::List(
            items
                .iter()
                .map(|v| with_signed_zeros_and_nans(v, rng))
                .collect(),
        ),
        Value::Struct(fields) => Value::Struct(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), with_signed_zeros_and_nans(v, rng)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A value between `base` and `fresh`: per field (and per element of lists of one length) the
/// one or the other, so that a delta carries some changes and leaves the rest.
fn blend(base: &Value, fresh: &Value, rng: &mut sample::Rng) -> Value {
    match (base, fresh) {
        (Value::Struct(a), Value::Struct(b)) => Value::Struct(
            a.iter()
                .map(|(name, v)| {
                    let other = b.get(name).unwrap_or(v);
                    (name.clone(), blend(v, other, rng))
                })
                .collect(),
        ),
        (Value::List(a), Value::List(b)) if a.len() == b.len() && !rng.one_in(4) => {
            Value::List(a.iter().zip(b).map(|(x, y)| blend(x, y, rng)).collect())
        }
        _ if rng.one_in(3) => fresh.clone(),
        _ => base.clone(),
    }
}

/// What the interpreter writes for the type `name` of `enc`: its full records and, for a
/// PUBLISHABLE_STRUCT, its delta records.
fn records(ir: &Ir, enc: &str, name: &str, signed: bool) -> (Vec<Full>, Vec<Delta>) {
    let mut rng = sample::Rng::new(0x901d ^ (name.len() as u64) << 4 ^ (enc.len() as u64) << 12);
    // The value as the full form sends it (quantized), and its bytes.
    let sent = |value: &Value| -> (Value, Vec<u8>) {
        let bytes = interpret::encode(ir, enc, name, value)
            .unwrap_or_else(|e| panic!("{name} in {enc}: {e}\n{value}"));
        let back = interpret::decode(ir, enc, name, &bytes)
            .unwrap_or_else(|e| panic!("{name} in {enc}: {e}\n{value}"));
        (back, bytes)
    };
    let random = |rng: &mut sample::Rng| sample::random_struct(ir, name, rng).expect("a type");
    let full = (0..FULL)
        .map(|_| Full {
            bytes: sent(&random(&mut rng)).1,
        })
        .collect();
    let publishable = ir.schema.structs[name].kind == StructKind::Publishable;
    let mut signs = sample::Rng::new(0x5167 ^ (name.len() as u64) << 4);
    let mut deltas = Vec::new();
    for round in 0..if publishable { DELTAS } else { 0 } {
        let (base, fresh) = (random(&mut rng), random(&mut rng));
        let (base, fresh) = if signed {
            // Each value keeps its sprinkles where the encoding takes them (a NUMERIC range
            // refuses a NaN).
            let mut sprinkle = |v: Value| {
                let sprinkled = with_signed_zeros_and_nans(&v, &mut signs);
                if interpret::encode(ir, enc, name, &sprinkled).is_ok() {
                    sprinkled
                } else {
                    v
                }
            };
            (sprinkle(base), sprinkle(fresh))
        } else {
            (without_negative_zero(base), without_negative_zero(fresh))
        };
        let (baseline, baseline_bytes) = sent(&base);
        let (value, value_bytes) = sent(&blend(&base, &fresh, &mut rng));
        let elapsed = ELAPSED[round as usize % ELAPSED.len()];
        let (delta, mirror) = interpret::encode_delta(ir, enc, name, &value, &baseline, elapsed)
            .unwrap_or_else(|e| panic!("{name} in {enc}, delta {round}: {e}"));
        deltas.push(Delta {
            baseline: baseline_bytes,
            value: value_bytes,
            elapsed,
            delta,
            mirror: sent(&mirror).1,
        });
    }
    (full, deltas)
}

/// Generated code's full form of type `T`: decode, encode again.
type FullCheck = fn(&[u8]) -> Result<Vec<u8>, String>;
/// A delta's bytes, the mirror's full form and the receiver's state's full form.
type DeltaBytes = (Vec<u8>, Vec<u8>, Vec<u8>);
/// Generated code's delta of `T`: (baseline, value, elapsed) to its [`DeltaBytes`].
type DeltaCheck = fn(&[u8], &[u8], f64) -> Result<DeltaBytes, String>;

fn full_of<T: Codec<E>, E: Encoding>(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let value = from_bytes::<E, T>(bytes).map_err(|e| format!("decode: {e:?}"))?;
    to_bytes::<E, T>(&value).map_err(|e| format!("encode: {e:?}"))
}

fn delta_of<T: DeltaCodec<E>, E: Encoding>(
    baseline: &[u8],
    value: &[u8],
    elapsed: f64,
) -> Result<DeltaBytes, String> {
    let baseline = from_bytes::<E, T>(baseline).map_err(|e| format!("baseline: {e:?}"))?;
    let value = from_bytes::<E, T>(value).map_err(|e| format!("value: {e:?}"))?;
    let ctx = DeltaContext::new(elapsed);
    let mut w = WriterOf::<E>::default();
    let mirror = value
        .encode_delta_to(&baseline, &ctx, &mut w)
        .map_err(|e| format!("encode_delta: {e:?}"))?;
    let delta = w.into_bytes();
    let state = from_delta_bytes::<E, T>(&baseline, &ctx, &delta)
        .map_err(|e| format!("decode_delta: {e:?}"))?;
    let full = |v: &T| to_bytes::<E, T>(v).map_err(|e| format!("full form: {e:?}"));
    Ok((delta, full(&mirror)?, full(&state)?))
}

/// One type of a generated module: its Rust name and generated code's checks (none where the
/// module's mapping cannot hold every value of the encoding, W0402).
struct Generated {
    name: &'static str,
    /// Whether its deltas keep −0.0 and carry NaNs (see the module's doc).
    signed: bool,
    full: Option<FullCheck>,
    delta: Option<DeltaCheck>,
}

/// Records, snapshots and checks every type of one encoding of one schema.
fn golden(set: &str, ir: &Ir, enc: &str, types: &[Generated]) {
    let mut text = String::new();
    for ty in types {
        // The IDL name of the Rust type (`Box` is `Box_` in Rust, say).
        let name = ir
            .mapping
            .structs
            .iter()
            .find(|(_, m)| m.rust_name == ty.name)
            .map_or(ty.name, |(idl, _)| idl.as_str());
        let (full, deltas) = records(ir, enc, name, ty.signed);
        writeln!(text, "{name} full").unwrap();
        for (i, record) in full.iter().enumerate() {
            writeln!(text, "  {i:2} {}", hex(&record.bytes)).unwrap();
            if let Some(check) = ty.full {
                assert_eq!(
                    check(&record.bytes).as_deref(),
                    Ok(record.bytes.as_slice()),
                    "{set} {enc} {} full {i}: generated code re-encodes otherwise",
                    ty.name
                );
            }
        }
        if !deltas.is_empty() {
            writeln!(
                text,
                "{} delta (baseline, value, elapsed: delta, mirror)",
                ty.name
            )
            .unwrap();
        }
        for (i, d) in deltas.iter().enumerate() {
            writeln!(
                text,
                "  {i:2} {} {} {:.4}: {} {}",
                hex(&d.baseline),
                hex(&d.value),
                d.elapsed,
                hex(&d.delta),
                hex(&d.mirror)
            )
            .unwrap();
            if let Some(check) = ty.delta {
                let (delta, mirror, state) = check(&d.baseline, &d.value, d.elapsed)
                    .unwrap_or_else(|e| panic!("{set} {enc} {} delta {i}: {e}", ty.name));
                let what = format!("{set} {enc} {} delta {i}", ty.name);
                assert_eq!(hex(&delta), hex(&d.delta), "{what}: the delta's bytes");
                assert_eq!(hex(&mirror), hex(&d.mirror), "{what}: the mirror");
                assert_eq!(hex(&state), hex(&d.mirror), "{what}: the receiver's state");
            }
        }
    }
    insta::assert_snapshot!(format!("{set}_{enc}"), text);
}

/// The [`Generated`] list of a module's types in one encoding: `full [..]` for every type,
/// `delta [..]` for the PUBLISHABLE_STRUCTs, `signed [..]` for PUBLISHABLE_STRUCTs whose deltas
/// keep −0.0 and carry NaNs, `lossy` for no checks of generated code.
macro_rules! types {
    (
        $module:ident :: $marker:ident,
        [$($ty:ident),* $(,)?],
        delta [$($dt:ident),* $(,)?]
        $(, signed [$($st:ident),* $(,)?])?
    ) => {
        [
            $(Generated {
                name: stringify!($ty),
                signed: false,
                full: Some(full_of::<$module::$ty, $module::$marker>),
                delta: None,
            },)*
            $(Generated {
                name: stringify!($dt),
                signed: false,
                full: Some(full_of::<$module::$dt, $module::$marker>),
                delta: Some(delta_of::<$module::$dt, $module::$marker>),
            },)*
            $($(Generated {
                name: stringify!($st),
                signed: true,
                full: Some(full_of::<$module::$st, $module::$marker>),
                delta: Some(delta_of::<$module::$st, $module::$marker>),
            },)*)?
        ]
    };
    (lossy [$($ty:ident),* $(,)?]) => {
        [$(Generated { name: stringify!($ty), signed: false, full: None, delta: None },)*]
    };
}

fn character_inputs() -> Vec<PathBuf> {
    vec![
        seed("character.idl"),
        schema("item.idl"),
        schema("world.idl"),
    ]
}

#[test]
fn character() {
    let encodings = [
        seed("myencoding1.enc"),
        seed("myencoding2.enc"),
        seed("myencodinga.enc"),
        schema("myencoding1_diff.enc"),
        schema("myencoding2_diff.enc"),
        schema("world.enc"),
    ];
    let client = ir(
        &character_inputs(),
        &encodings,
        Some(("Client", schema("client.map"))),
    );
    use character_client as cc;
    golden(
        "character",
        &client,
        "MYENCODING1",
        &types!(cc::MYENCODING1, [], delta [Character, Item, World]),
    );
    golden(
        "character",
        &client,
        "MYENCODING2",
        &types!(cc::MYENCODING2, [], delta [Character, Item, World]),
    );
    for (encoding, types) in [
        (
            "MYENCODING1_DIFF",
            types!(cc::MYENCODING1_DIFF, [], delta [Character, Item, World]),
        ),
        (
            "MYENCODING2_DIFF",
            types!(cc::MYENCODING2_DIFF, [], delta [Character, Item, World]),
        ),
    ] {
        golden("character", &client, encoding, &types);
    }
    // client.map's f32 angle cannot hold MYENCODINGA's raw FLOAT64 (W0402).
    golden(
        "character",
        &client,
        "MYENCODINGA",
        &types!(lossy[Character, Item, World]),
    );
    let builtin = ir(&character_inputs()[..2], &[], None);
    golden(
        "character_builtin",
        &builtin,
        "Default",
        &types!(character_builtin::BuiltinEncoding, [], delta [Character, Item]),
    );
    let v2 = ir(
        &[schema("character_v2.idl")],
        &[seed("myencodinga_extended.enc")],
        Some(("Client", schema("client.map"))),
    );
    golden(
        "character_v2",
        &v2,
        "MYENCODINGA",
        &types!(lossy[Character, Item]),
    );
}

#[test]
fn edge_cases() {
    let ir = ir(
        &[schema("edge.idl")],
        &[schema("edge.enc")],
        Some(("Edge", schema("edge.map"))),
    );
    macro_rules! edge_types {
        ($marker:ident) => {
            types!(
                edge::$marker,
                [
                    Empty, Keywords, Extremes, FloatEnds, F32Ends, Nesting, Node, Versioned, Box,
                    Result, Nothing, Everything, F32Arrays, BigArrays, Gust, Spin
                ],
                delta[Roster],
                signed[Drift]
            )
        };
    }
    golden("edge", &ir, "Odd", &edge_types!(Odd));
    golden("edge", &ir, "Bytes", &edge_types!(Bytes));
    golden("edge", &ir, "Some", &edge_types!(SomeEncoding));
}

#[test]
fn squad_versions() {
    for version in ["squad_v1", "squad_v2", "squad_v3"] {
        let ir = ir(
            &[schema(&format!("versions/{version}.idl"))],
            &[schema("versions/squad.enc")],
            None,
        );
        let (bits, bytes) = match version {
            "squad_v1" => (
                types!(squad_v1::SquadBits, [Member, Squad], delta []),
                types!(squad_v1::SquadBytes, [Member, Squad], delta []),
            ),
            "squad_v2" => (
                types!(squad_v2::SquadBits, [Member, Squad], delta []),
                types!(squad_v2::SquadBytes, [Member, Squad], delta []),
            ),
            _ => (
                types!(squad_v3::SquadBits, [Member, Squad], delta []),
                types!(squad_v3::SquadBytes, [Member, Squad], delta []),
            ),
        };
        golden(version, &ir, "SquadBits", &bits);
        golden(version, &ir, "SquadBytes", &bytes);
    }
}

macro_rules! arena_types {
    ($module:ident :: $marker:ident $(, $extra:ident)*) => {
        types!(
            $module::$marker,
            [
                Buy, ChatBroadcast, Fire, Input, Item, Join, JoinResult, KillCredit, KillFeed,
                LootDrop, MatchEnded, MatchReport, Ping, PlayerResult, ReportPlayer, Say, Squad,
                VoiceFrame, Welcome $(, $extra)*
            ],
            delta[ArenaState, PlayerState, Projectile]
        )
    };
}

#[test]
fn arena() {
    let inputs = [schema("arena.idl")];
    let encodings = [schema("arena_s2c.enc"), schema("arena_s2s.enc")];
    let client = ir(
        &inputs,
        &encodings,
        Some(("Client", schema("arena_client.map"))),
    );
    golden("arena", &client, "S2C", &arena_types!(arena_client::S2C));
    golden(
        "arena",
        &client,
        "S2CDebug",
        &arena_types!(arena_client::S2CDebug),
    );
    let server = ir(
        &inputs,
        &encodings,
        Some(("Server", schema("arena_server.map"))),
    );
    golden("arena", &server, "S2S", &arena_types!(arena_server::S2S));
    let builtin = ir(&inputs, &[], None);
    golden(
        "arena",
        &builtin,
        "Default",
        &arena_types!(arena_builtin::BuiltinEncoding, Vec3),
    );
}

#[test]
fn rover_diff() {
    let rover_ir = ir(&[schema("rover.idl")], &[schema("rover.enc")], None);
    for (enc, types) in [
        (
            "RoverBits",
            types!(rover::RoverBits, [], delta [Fleet, Rover]),
        ),
        (
            "RoverBytes",
            types!(rover::RoverBytes, [], delta [Fleet, Rover]),
        ),
    ] {
        golden("rover", &rover_ir, enc, &types);
    }
}

#[test]
fn naval_mk48_and_the_rest() {
    let naval_ir = ir(&[schema("naval.idl")], &[schema("naval.enc")], None);
    for (enc, types) in [
        (
            "NAVAL",
            types!(naval::NAVAL, [], delta [Fleet, Ship, Turret]),
        ),
        (
            "NAVAL_S2S",
            types!(naval::NAVAL_S2S, [], delta [Fleet, Ship, Turret]),
        ),
    ] {
        golden("naval", &naval_ir, enc, &types);
    }
    let mk48_ir = ir(
        &[schema("mk48.idl")],
        &[schema("mk48.enc")],
        Some(("Game", schema("mk48.map"))),
    );
    for (enc, types) in [
        (
            "MK48",
            types!(mk48::MK48, [Contact, Guidance, TerrainUpdate, Transform, Update], delta []),
        ),
        (
            "MK48_LOSSY",
            types!(mk48::MK48_LOSSY, [Contact, Guidance, TerrainUpdate, Transform, Update], delta []),
        ),
        (
            "MK48_PLAIN",
            types!(mk48::MK48_PLAIN, [Contact, Guidance, TerrainUpdate, Transform, Update], delta []),
        ),
    ] {
        golden("mk48", &mk48_ir, enc, &types);
    }
    let markers_ir = ir(&[schema("markers.idl")], &[schema("markers.enc")], None);
    golden(
        "markers",
        &markers_ir,
        "Wire",
        &types!(markers::WireEncoding2, [Wire, WireEncoding], delta []),
    );
    golden(
        "markers",
        &markers_ir,
        "Lobby",
        &types!(markers::LobbyEncoding, [Wire, WireEncoding], delta []),
    );
    golden(
        "markers",
        &markers_ir,
        "idlc",
        &types!(markers::IdlcEncoding, [Wire, WireEncoding], delta []),
    );
    golden(
        "markers",
        &markers_ir,
        "type",
        &types!(markers::TypeEncoding, [Wire, WireEncoding], delta []),
    );
    let derives_ir = ir(
        &[schema("derives.idl")],
        &[],
        Some(("Game", schema("derives.map"))),
    );
    golden(
        "derives",
        &derives_ir,
        "Default",
        &types!(derives::BuiltinEncoding, [Buff, Tick], delta []),
    );
}

/// The UDP demo's schema: the seed's Character and its own World (not world.idl's).
fn arena_udp_inputs() -> Vec<PathBuf> {
    vec![
        seed("character.idl"),
        schema("item.idl"),
        schema("arena_udp.idl"),
    ]
}

/// Every protocol's version ids in every encoding of every bundled schema that has protocols,
/// from the IR, and the same from generated code where it is compiled.
#[test]
fn protocol_ids() {
    let sets: Vec<(&str, Ir)> = vec![
        (
            "arena",
            ir(
                &[schema("arena.idl")],
                &[schema("arena_s2c.enc"), schema("arena_s2s.enc")],
                None,
            ),
        ),
        ("arena_builtin", ir(&[schema("arena.idl")], &[], None)),
        (
            "arena_udp_e1",
            ir(
                &arena_udp_inputs(),
                &[seed("myencoding1.enc"), schema("arena_udp_e1.enc")],
                None,
            ),
        ),
        (
            "arena_udp_e2",
            ir(
                &arena_udp_inputs(),
                &[seed("myencoding2.enc"), schema("arena_udp_e2.enc")],
                None,
            ),
        ),
        ("derives", ir(&[schema("derives.idl")], &[], None)),
        (
            "edge",
            ir(&[schema("edge.idl")], &[schema("edge.enc")], None),
        ),
        (
            "markers",
            ir(&[schema("markers.idl")], &[schema("markers.enc")], None),
        ),
        (
            "squad_v1",
            ir(
                &[schema("versions/squad_v1.idl")],
                &[schema("versions/squad.enc")],
                None,
            ),
        ),
        (
            "squad_v2",
            ir(
                &[schema("versions/squad_v2.idl")],
                &[schema("versions/squad.enc")],
                None,
            ),
        ),
        (
            "squad_v3",
            ir(
                &[schema("versions/squad_v3.idl")],
                &[schema("versions/squad.enc")],
                None,
            ),
        ),
    ];
    let mut text = String::new();
    let mut ids = std::collections::HashMap::new();
    for (set, ir) in &sets {
        for (name, protocol) in &ir.schema.protocols {
            for enc in ir.encodings.keys() {
                let versions = idlc::ir::protocol::version_ids(ir, protocol, enc);
                let list: Vec<String> = versions.iter().map(|id| format!("{id:#018x}")).collect();
                writeln!(text, "{set} {name} {enc}: {}", list.join(" ")).unwrap();
                ids.insert(format!("{set} {name} {enc}"), versions);
            }
        }
    }
    insta::assert_snapshot!("protocol_ids", text);
    let generated: [(&str, Vec<u64>); 6] = [
        (
            "arena ArenaServerToClient S2C",
            arena_client::ArenaServerToClient::versions_with::<arena_client::S2C>().to_vec(),
        ),
        (
            "arena ArenaClientToServer S2S",
            arena_client::ArenaClientToServer::versions_with::<arena_client::S2S>().to_vec(),
        ),
        (
            "arena ArenaPing S2CDebug",
            arena_client::ArenaPing::versions_with::<arena_client::S2CDebug>().to_vec(),
        ),
        (
            "arena_builtin ArenaPing Default",
            arena_builtin::ArenaPing::versions_with::<arena_builtin::BuiltinEncoding>().to_vec(),
        ),
        (
            "squad_v3 SquadOps SquadBytes",
            squad_v3::SquadOps::versions_with::<squad_v3::SquadBytes>().to_vec(),
        ),
        (
            "edge Edges Some",
            edge::Edges::versions_with::<edge::SomeEncoding>().to_vec(),
        ),
    ];
    for (key, versions) in generated {
        assert_eq!(ids.get(key), Some(&versions), "{key}");
    }
}

//! The IR interpreter (`idlc::interpret`) against the generated code, for every bundled schema,
//! every type and every encoding:
//!
//! - random valid values (seeded): the interpreter's bytes decode in generated code, and
//!   generated code re-encodes them to the very same bytes; the interpreter decodes them and
//!   re-encodes them to the same bytes too;
//! - hostile bytes (those encodings mutated, truncated, extended; random bytes): generated code
//!   and the interpreter give the same verdict, the same error kind at the same bit, and when
//!   both accept, the same re-encoding. (Generated code reads a run of fixed-width fields as
//!   one word, and still reports each field's own bit.)

mod common;

use std::path::PathBuf;

use common::{ir, mutate_seeded, schema, seed};

use idlc::interpret::{self, sample};
use idlc::ir::Ir;
use idlc_runtime::{Codec, Encoding, from_bytes, to_bytes};
use idlc_tests::{
    arena_builtin, arena_client, character_builtin, character_client, character_v2_client, cubes,
    cubes_builtin, edge, mk48, naval, squad_v1, squad_v2, squad_v3,
};

/// Random values per type and encoding.
const VALUES: u64 = 150;
/// Hostile variants of each value's encoding.
const MUTATIONS: u64 = 16;

/// Generated code's verdict on `bytes`: the re-encoding of what it decoded, or the error.
fn generated<T: Codec<E>, E: Encoding>(bytes: &[u8]) -> Result<Vec<u8>, String> {
    match from_bytes::<E, T>(bytes) {
        Ok(value) => Ok(to_bytes::<E, T>(&value).expect("a decoded value re-encodes")),
        Err(e) => Err(format!("{:?} at bit {}", e.kind, e.bit_offset)),
    }
}

/// The interpreter's verdict on `bytes`, in the same form.
fn interpreted(ir: &Ir, enc: &str, name: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    match interpret::decode(ir, enc, name, bytes) {
        Ok(value) => Ok(interpret::encode(ir, enc, name, &value)
            .unwrap_or_else(|e| panic!("{name} in {enc}: a decoded value re-encodes: {e}"))),
        Err(e) => {
            let wire = e.wire().unwrap_or_else(|| panic!("{e}"));
            Err(format!("{:?} at bit {}", wire.kind, wire.bit_offset))
        }
    }
}

/// Generated code's verdict of one type in one encoding ([`generated`]), its generics erased.
type Generated = fn(&[u8]) -> Result<Vec<u8>, String>;

/// Crosses the interpreter with generated `T` (Rust name `rust`) in encoding `E` (`enc` in the
/// IR), `generated` being [`generated`]`::<T, E>` (a plain `fn`: this is compiled once, not once
/// per type and encoding).
/// With `lossy`, the Rust mapping cannot hold every value of the encoding (an f32 field sent as
/// FLOAT64: W0402): generated code's re-encodings then differ, only the verdicts are compared.
fn check(generated: Generated, ir: &Ir, rust: &str, enc: &str, lossy: bool) {
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
        let theirs = verdict(generated(&bytes));
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
            let hostile = mutate_seeded(&mut rng, &bytes);
            assert_eq!(
                verdict(interpreted(ir, enc, name, &hostile)),
                verdict(generated(&hostile)),
                "{name} in {enc}: verdicts differ on {hostile:02x?}"
            );
        }
    }
}

/// `check` for each listed type of a generated module in one encoding.
macro_rules! agree {
    ($ir:expr, $module:ident :: $marker:ident = $enc:literal, [$($ty:ident),* $(,)?]) => {
        $( check(generated::<$module::$ty, $module::$marker>, &$ir, stringify!($ty), $enc, false); )*
    };
    (lossy $ir:expr, $module:ident :: $marker:ident = $enc:literal, [$($ty:ident),* $(,)?]) => {
        $( check(generated::<$module::$ty, $module::$marker>, &$ir, stringify!($ty), $enc, true); )*
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

/// QUATERNION: SMALLEST_THREE(9) in both streams, four raw FLOAT32s without a rule.
#[test]
fn cubes() {
    let encoded = ir(&[schema("cubes.idl")], &[schema("cubes.enc")], None);
    agree!(encoded, cubes::CubesBits = "CubesBits", [Cube, Cubes]);
    agree!(encoded, cubes::CubesBytes = "CubesBytes", [Cube, Cubes]);
    agree!(encoded, cubes::CubesDiff = "CubesDiff", [Cube, Cubes]);
    agree!(
        encoded,
        cubes::CubesDiffBytes = "CubesDiffBytes",
        [Cube, Cubes]
    );
    agree!(encoded, cubes::CubesDr = "CubesDr", [Cube, Cubes]);
    let builtin = ir(&[schema("cubes.idl")], &[], None);
    agree!(
        builtin,
        cubes_builtin::BuiltinEncoding = "Default",
        [Cube, Cubes]
    );
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
            Empty, Keywords, Extremes, FloatEnds, F32Ends, Nesting, Node, Versioned, Box, Result,
            Nothing, Everything, Roster, F32Arrays, BigArrays
        ]
    );
    agree!(
        ir,
        edge::Bytes = "Bytes",
        [
            Empty, Keywords, Extremes, FloatEnds, F32Ends, Nesting, Node, Versioned, Box, Result,
            Nothing, Everything, Roster, F32Arrays, BigArrays
        ]
    );
    agree!(
        ir,
        edge::SomeEncoding = "Some",
        [
            Empty, Keywords, Extremes, FloatEnds, F32Ends, Nesting, Node, Versioned, Box, Result,
            Nothing, Everything, Roster, F32Arrays, BigArrays
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

/// A packet of generated senders, read by the interpreter: the version from the CRC, each item
/// by its id, the same values as the interpreter reads from each message alone, and an unknown
/// id listed and skipped as dispatch skips it.
#[test]
fn packets_decode_in_the_interpreter_as_dispatch_reads_them() {
    use arena_client as ac;
    let ir = ir(
        &[schema("arena.idl")],
        &[schema("arena_s2c.enc")],
        Some(("Client", schema("arena_client.map"))),
    );
    let versions = ac::ArenaClientToServer::versions_with::<ac::S2C>();
    let mut sender = ac::ArenaClientToServerSender::<ac::S2C>::new(versions[0]);
    let join = ac::Join {
        name: "ann".into(),
        client_version: 7,
        ..Default::default()
    };
    let request = sender.call_join(&join).unwrap();
    let input = ac::Input {
        client_tick: 9,
        yaw: 45.0,
        ..Default::default()
    };
    sender.call_input(&input).unwrap();
    let packet = sender.finish().to_vec();
    let decoded = interpret::decode_packet(&ir, "S2C", "ArenaClientToServer", &packet, None)
        .expect("the packet decodes")
        .to_json();
    assert_eq!(decoded["protocol"], "ArenaClientToServer");
    assert_eq!(decoded["version"], 0);
    let items = decoded["items"].as_array().expect("items");
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["name"], "join");
    assert_eq!(items[0]["kind"], "request");
    assert_eq!(items[0]["request"], request);
    let alone = |name: &str, bytes: Vec<u8>| {
        interpret::decode(&ir, "S2C", name, &bytes)
            .expect("decodes alone")
            .to_json()
    };
    assert_eq!(
        items[0]["value"],
        alone("join", join.to_bytes_with::<ac::S2C>().unwrap())
    );
    assert_eq!(items[1]["kind"], "message");
    assert_eq!(
        items[1]["value"],
        alone("input", input.to_bytes_with::<ac::S2C>().unwrap())
    );

    // Another version's id, an unknown entry, a corrupted CRC.
    let mut newer = idlc_runtime::PacketWriter::<ac::S2C>::new(versions[1]);
    newer
        .push(40, idlc_runtime::ItemKind::Message, |w| {
            idlc_runtime::WireWrite::write_bool(w, true)
        })
        .unwrap();
    let newer = newer.finish().to_vec();
    let decoded = interpret::decode_packet(&ir, "S2C", "ArenaClientToServer", &newer, None)
        .unwrap()
        .to_json();
    assert_eq!(decoded["version"], 1);
    assert_eq!(decoded["items"][0]["unknown"], true);
    let mut bad = packet.clone();
    bad[0] ^= 1;
    let error =
        interpret::decode_packet(&ir, "S2C", "ArenaClientToServer", &bad, None).unwrap_err();
    assert!(error.to_string().contains("CRC"), "{error}");
}

/// Session packets (WIRE_FORMAT.md, "Session packets") of a generated endpoint, read by the
/// interpreter: the session header, a full snapshot and a reliable message decoded as the
/// messages they carry, a request, then a snapshot delta listed with its age and ticks; every
/// bit of the packet explained.
#[test]
fn session_packets_decode_in_the_interpreter() {
    use idlc_runtime::{Endpoint, SessionConfig};
    use idlc_tests::match_v2 as m;
    type Server = Endpoint<m::DefaultEncoding, m::MatchServer, m::MatchClient>;
    type Client = Endpoint<m::DefaultEncoding, m::MatchClient, m::MatchServer>;
    let ir = ir(
        &[schema("versions/match_v2.idl")],
        &[schema("versions/match.enc")],
        None,
    );
    let mut server = Server::newest(SessionConfig::default());
    let mut client = Client::newest(SessionConfig::default());
    let world = |tick| m::World {
        tick,
        units: vec![m::Unit {
            id: 1,
            x: tick as i16,
            y: -3,
            hp: 50,
        }],
    };
    let snapshot = |tick| m::MatchServerMessage::Snapshot(m::Snapshot { world: world(tick) });
    server.send_snapshot(0, snapshot(0)).unwrap();
    let chat = m::Chat {
        line: 4,
        text: "gg".into(),
    };
    server
        .send_reliable(m::MatchServerMessage::Chat(chat.clone()))
        .unwrap();
    let ping = m::Ping { nonce: 9 };
    server
        .send(m::MatchServerMessage::Ping {
            request: 0,
            call: ping.clone(),
        })
        .unwrap();
    let first = server.flush(std::time::Duration::ZERO).packets.remove(0);
    client
        .receive(std::time::Duration::ZERO, &first, |_| None)
        .unwrap();
    let ack = client.flush(std::time::Duration::ZERO).packets.remove(0);
    server
        .receive(std::time::Duration::ZERO, &ack, |_| None)
        .unwrap();
    server.send_snapshot(2, snapshot(2)).unwrap();
    let second = server.flush(std::time::Duration::ZERO).packets.remove(0);

    let mut trace = Vec::new();
    let decoded =
        interpret::decode_packet(&ir, "MatchBits", "MatchServer", &first, Some(&mut trace))
            .expect("a session packet decodes")
            .to_json();
    assert_eq!(decoded["session"]["sequence"], 0);
    assert_eq!(decoded["session"]["ack"], 65535);
    let items = decoded["items"].as_array().expect("items");
    let kinds: Vec<&str> = items.iter().map(|i| i["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["reliable message", "request", "snapshot"]);
    assert_eq!(items[0]["index"], 0);
    let alone = |name: &str, bytes: Vec<u8>| {
        interpret::decode(&ir, "MatchBits", name, &bytes)
            .expect("decodes alone")
            .to_json()
    };
    assert_eq!(items[0]["value"], alone("Chat", chat.to_bytes().unwrap()));
    assert_eq!(items[1]["value"], alone("ping", ping.to_bytes().unwrap()));
    let full = m::Snapshot { world: world(0) };
    assert_eq!(
        items[2]["value"],
        alone("Snapshot", full.to_bytes().unwrap())
    );
    // Every bit is explained, in order.
    let mut at = 0;
    for entry in &trace {
        assert_eq!(entry.start, at, "{entry:?}");
        at = entry.end;
    }
    assert_eq!(at, 8 * first.len() as u64);

    let decoded = interpret::decode_packet(&ir, "MatchBits", "MatchServer", &second, None)
        .unwrap()
        .to_json();
    assert_eq!(decoded["session"]["sequence"], 1);
    assert_eq!(decoded["session"]["ack"], 0);
    let delta = &decoded["items"][0];
    assert_eq!(
        (delta["kind"].as_str(), &delta["age"], &delta["ticks"]),
        (Some("snapshot delta"), &1.into(), &2.into())
    );
}

/// A session packet of a link (the arena client's `ClientSends`: ArenaClientToServer and
/// ArenaPing in one endpoint), read by the interpreter by the link's name: the link version from
/// the CRC, each item's member protocol and entry from its id (`entry id * 2 + member`), the same
/// values as each message alone; every bit explained.
#[test]
fn link_packets_decode_in_the_interpreter() {
    use arena_client as ac;
    use idlc_runtime::SessionConfig;
    let ir = ir(
        &[schema("arena.idl")],
        &[schema("arena_s2c.enc")],
        Some(("Client", schema("arena_client.map"))),
    );
    let mut client: ac::ClientEndpoint = ac::ClientEndpoint::newest(SessionConfig::default());
    let input = ac::Input {
        client_tick: 9,
        yaw: 45.0,
        ..Default::default()
    };
    let c2s = ac::ClientSendsMessage::ArenaClientToServer;
    client
        .send(c2s(ac::ArenaClientToServerMessage::Input(input.clone())))
        .unwrap();
    let ping = ac::Ping { sent_at_us: 12345 };
    let call = ac::ArenaPingMessage::Ping {
        request: 0,
        call: ping.clone(),
    };
    client
        .send(ac::ClientSendsMessage::ArenaPing(call))
        .unwrap();
    let say = ac::Say {
        text: "hi".into(),
        ..Default::default()
    };
    client
        .send_reliable(c2s(ac::ArenaClientToServerMessage::Say(say.clone())))
        .unwrap();
    let packet = client.flush(std::time::Duration::ZERO).packets.remove(0);

    let mut trace = Vec::new();
    let decoded = interpret::decode_packet(&ir, "S2C", "ClientSends", &packet, Some(&mut trace))
        .expect("a link packet decodes")
        .to_json();
    assert_eq!(decoded["protocol"], "ClientSends");
    assert_eq!(decoded["version"], 1);
    let items = decoded["items"].as_array().expect("items");
    let seen: Vec<(&str, &str, u64)> = items
        .iter()
        .map(|i| {
            (
                i["protocol"].as_str().unwrap(),
                i["name"].as_str().unwrap(),
                i["id"].as_u64().unwrap(),
            )
        })
        .collect();
    // Reliable items first (the call, the reliable message), then the unreliable one.
    assert_eq!(
        seen,
        [
            ("ArenaPing", "ping", 1),
            ("ArenaClientToServer", "say", 3 * 2),
            ("ArenaClientToServer", "input", 2),
        ]
    );
    let alone = |name: &str, bytes: Vec<u8>| {
        interpret::decode(&ir, "S2C", name, &bytes)
            .expect("decodes alone")
            .to_json()
    };
    assert_eq!(items[0]["value"], alone("ping", ping.to_bytes().unwrap()));
    assert_eq!(items[1]["value"], alone("say", say.to_bytes().unwrap()));
    assert_eq!(items[2]["value"], alone("input", input.to_bytes().unwrap()));
    let mut at = 0;
    for entry in &trace {
        assert_eq!(entry.start, at, "{entry:?}");
        at = entry.end;
    }
    assert_eq!(at, 8 * packet.len() as u64);
    // A member protocol's name does not read the link's packets.
    assert!(interpret::decode_packet(&ir, "S2C", "ArenaPing", &packet, None).is_err());
}

/// DELTA and DEAD_RECKONING: the interpreter's `encode_delta` / `decode_delta` against the
/// generated `encode_delta_to` / `decode_delta_from`, tick after tick (the mirror becomes the
/// next baseline; sometimes an acknowledgement is lost and the baseline stays, `elapsed`
/// growing; sometimes the baseline is the true value, off the steps): the same bytes, each side
/// decoding the other's bytes to the same state, the same mirrors; hostile delta bytes get the
/// same verdict (kind and bit) in both.
mod delta {
    use std::fmt::Debug;

    use idlc::interpret::{self, Value, sample};
    use idlc::ir::Ir;
    use idlc_runtime::{
        Codec, DeltaCodec, DeltaContext, Encoding, WireWrite, WriterOf, from_bytes,
        from_delta_bytes, to_bytes,
    };
    use idlc_tests::{arena_server, character_client as cc, naval};

    use super::{character_inputs, ir, mutate_seeded, schema, seed};

    /// Rounds (a random start) per type and encoding, ticks per round, hostile variants per
    /// tick.
    const ROUNDS: u64 = 10;
    const TICKS: u64 = 8;
    const MUTATIONS: u64 = 6;

    /// A value between `previous` and `fresh` (two values of one type): each part kept, taken
    /// from `fresh`, or (a number) moved a little towards it, which keeps it inside its range;
    /// a sequence keeps its length or takes `fresh`'s.
    fn mix(previous: &Value, fresh: &Value, rng: &mut sample::Rng) -> Value {
        let quaternion = |v: &Value| matches!(v, Value::Struct(c) if c.keys().map(String::as_str).eq(["x", "y", "z", "w"]));
        match (previous, fresh) {
            // A rotation changes whole: its components mixed would be no unit quaternion.
            (p, f) if quaternion(p) => {
                if rng.one_in(3) {
                    f.clone()
                } else {
                    p.clone()
                }
            }
            (Value::Struct(p), Value::Struct(f)) => Value::Struct(
                p.iter()
                    .map(|(name, p)| {
                        let f = f.get(name).unwrap_or(p);
                        (name.clone(), mix(p, f, rng))
                    })
                    .collect(),
            ),
            (Value::List(p), Value::List(f)) => {
                let len = if rng.one_in(3) { f.len() } else { p.len() };
                Value::List(
                    (0..len)
                        .map(|i| match (p.get(i), f.get(i)) {
                            (Some(p), Some(f)) => mix(p, f, rng),
                            (Some(v), None) | (None, Some(v)) => v.clone(),
                            (None, None) => Value::Null,
                        })
                        .collect(),
                )
            }
            (Value::Float(p), Value::Float(f)) => match rng.below(4) {
                0 => Value::Float(*f),
                1 => Value::Float(p + (f - p) * rng.unit() * 0.002),
                _ => Value::Float(*p),
            },
            _ if rng.one_in(3) => fresh.clone(),
            _ => previous.clone(),
        }
    }

    fn get<'v>(value: &'v Value, name: &str) -> &'v Value {
        match value {
            Value::Struct(fields) => &fields[name],
            other => panic!("not a struct: {other}"),
        }
    }

    fn real(value: &Value, name: &str) -> f64 {
        match get(value, name) {
            Value::Float(v) => *v,
            Value::Int(v) => *v as f64,
            other => panic!("{name}: {other}"),
        }
    }

    fn int(value: &Value, name: &str) -> i128 {
        match get(value, name) {
            Value::Int(v) => *v,
            other => panic!("{name}: {other}"),
        }
    }

    fn list<'v>(value: &'v Value, name: &str) -> &'v [Value] {
        match get(value, name) {
            Value::List(items) => items,
            other => panic!("{name}: {other}"),
        }
    }

    /// The index of an enumerator among its enum's.
    fn enumerator(ir: &Ir, enum_name: &str, value: &Value, name: &str) -> u64 {
        let (Value::Enum(v) | Value::Str(v)) = get(value, name) else {
            panic!("{name}: not an enumerator");
        };
        ir.schema.enums[enum_name]
            .enumerators
            .iter()
            .position(|e| &e.name == v)
            .expect("an enumerator") as u64
    }

    fn character_of(ir: &Ir, v: &Value) -> cc::Character {
        let item = |v: &Value| cc::Item {
            item_id: int(v, "item_id") as u32,
            kind: cc::ItemKind::from_index(enumerator(ir, "ItemKind", v, "kind")).unwrap(),
            count: int(v, "count") as u8,
            durability: real(v, "durability"),
        };
        cc::Character {
            character_id: int(v, "character_id") as u16,
            x: real(v, "x"),
            y: real(v, "y"),
            z: real(v, "z"),
            vx: real(v, "vx"),
            vy: real(v, "vy"),
            vz: real(v, "vz"),
            angle: real(v, "angle") as f32,
            anim: cc::Animation::from_index(enumerator(ir, "Animation", v, "anim")).unwrap(),
            animation_frame: int(v, "animation_frame") as u8,
            inventory: list(v, "inventory").iter().map(item).collect(),
        }
    }

    /// client.map holds the angle in an f32: the interpreter gets the f64 of that f32.
    fn with_f32_angle(v: &Value) -> Value {
        let mut v = v.clone();
        if let Value::Struct(fields) = &mut v {
            let angle = real(&Value::Struct(fields.clone()), "angle");
            fields.insert("angle".into(), Value::Float(f64::from(angle as f32)));
        }
        v
    }

    fn fleet_of(ir: &Ir, v: &Value) -> naval::Fleet {
        let turret = |v: &Value| naval::Turret {
            bearing: real(v, "bearing"),
            elevation: real(v, "elevation"),
            loaded: matches!(get(v, "loaded"), Value::Bool(true)),
        };
        let ship = |v: &Value| naval::Ship {
            id: int(v, "id") as u32,
            class: naval::ShipClass::from_index(enumerator(ir, "ShipClass", v, "class")).unwrap(),
            x: real(v, "x"),
            y: real(v, "y"),
            vx: real(v, "vx"),
            vy: real(v, "vy"),
            heading: real(v, "heading"),
            hull: real(v, "hull"),
            ammo: int(v, "ammo") as u8,
            turrets: list(v, "turrets").iter().map(turret).collect(),
        };
        naval::Fleet {
            tick: int(v, "tick") as u32,
            time_left_s: int(v, "time_left_s") as u16,
            ships: list(v, "ships").iter().map(ship).collect(),
        }
    }

    /// How a test value reaches generated code: exactly (a Rust value built field by field,
    /// off-step numbers included), or through its full form (both sides then hold the value
    /// quantized).
    enum Bridge<T> {
        Exact(Box<Build<T>>),
        Bytes,
    }

    /// Builds both sides' forms of a test value: the interpreter's and generated code's.
    type Build<T> = dyn Fn(&Value) -> (Value, T);

    /// Generated code's verdict on delta bytes: the full form of the state, or the error.
    fn theirs<T: DeltaCodec<E>, E: Encoding>(
        base: &T,
        ctx: &DeltaContext,
        bytes: &[u8],
    ) -> Result<Vec<u8>, String> {
        match from_delta_bytes::<E, T>(base, ctx, bytes) {
            Ok(state) => Ok(to_bytes::<E, T>(&state).expect("a decoded state encodes")),
            Err(e) => Err(format!("{:?} at bit {}", e.kind, e.bit_offset)),
        }
    }

    /// The interpreter's verdict, in the same form.
    fn ours(
        ir: &Ir,
        enc: &str,
        name: &str,
        base: &Value,
        elapsed: f64,
        bytes: &[u8],
    ) -> Result<Vec<u8>, String> {
        match interpret::decode_delta(ir, enc, name, bytes, base, elapsed) {
            Ok(state) => Ok(interpret::encode(ir, enc, name, &state).expect("a state encodes")),
            Err(e) => {
                let wire = e.wire().unwrap_or_else(|| panic!("{e}"));
                Err(format!("{:?} at bit {}", wire.kind, wire.bit_offset))
            }
        }
    }

    fn check<T, E>(ir: &Ir, name: &str, enc: &str, bridge: Bridge<T>)
    where
        T: DeltaCodec<E> + Codec<E> + Clone + PartialEq + Debug,
        E: Encoding,
    {
        let to_both = |v: &Value| -> (Value, T) {
            match &bridge {
                Bridge::Exact(build) => build(v),
                Bridge::Bytes => {
                    let bytes = interpret::encode(ir, enc, name, v).expect("a valid value");
                    let ours = interpret::decode(ir, enc, name, &bytes).expect("decodes");
                    (ours, from_bytes::<E, T>(&bytes).expect("decodes"))
                }
            }
        };
        let mut rng = sample::Rng::new(0xde17a ^ (name.len() as u64) << 4 ^ enc.len() as u64);
        for round in 0..ROUNDS {
            // The receiver's first state: a full snapshot, as both decode it.
            let start = sample::random_struct(ir, name, &mut rng).expect("the type exists");
            let full = interpret::encode(ir, enc, name, &start).expect("a valid value");
            let mut base_v = interpret::decode(ir, enc, name, &full).expect("decodes");
            let mut base_t = from_bytes::<E, T>(&full).expect("decodes");
            let mut truth = start;
            let mut ticks = 0u64;
            for tick in 0..TICKS {
                // Sometimes the baseline is the game's own value, off the steps (a sender that
                // deltas against its last true state, or a `Default`): a value that rounds to
                // the step the baseline rounds to is no change.
                if matches!(bridge, Bridge::Exact(_)) && rng.one_in(5) {
                    (base_v, base_t) = to_both(&truth);
                    ticks = 0;
                }
                let fresh = sample::random_struct(ir, name, &mut rng).expect("the type exists");
                truth = mix(&truth, &fresh, &mut rng);
                let (value_v, value_t) = to_both(&truth);
                ticks += 1;
                let elapsed = if rng.one_in(5) {
                    0.0
                } else {
                    ticks as f64 / 60.0
                };
                let ctx = DeltaContext::new(elapsed);
                let at = format!("{name} in {enc}, round {round}, tick {tick}");

                let mut w = WriterOf::<E>::default();
                let mirror_t = value_t
                    .encode_delta_to(&base_t, &ctx, &mut w)
                    .unwrap_or_else(|e| panic!("{at}: generated code: {e}"));
                let generated = w.into_bytes();
                let (bytes, mirror_v) =
                    interpret::encode_delta(ir, enc, name, &value_v, &base_v, elapsed)
                        .unwrap_or_else(|e| panic!("{at}: {e}\n{value_v}\nagainst {base_v}"));
                assert_eq!(
                    bytes, generated,
                    "{at}: the delta bytes differ\n{value_v}\nagainst {base_v}"
                );
                let read_t = from_delta_bytes::<E, T>(&base_t, &ctx, &bytes)
                    .unwrap_or_else(|e| panic!("{at}: generated code reads: {e}"));
                assert_eq!(read_t, mirror_t, "{at}: generated code's mirror");
                let read_v = interpret::decode_delta(ir, enc, name, &generated, &base_v, elapsed)
                    .unwrap_or_else(|e| panic!("{at}: the interpreter reads: {e}"));
                assert_eq!(read_v, mirror_v, "{at}: the interpreter's mirror");
                assert_eq!(
                    interpret::encode(ir, enc, name, &mirror_v).expect("a mirror encodes"),
                    to_bytes::<E, T>(&mirror_t).expect("a mirror encodes"),
                    "{at}: the mirrors differ:\n{mirror_v}\n{mirror_t:?}"
                );
                for _ in 0..MUTATIONS {
                    let hostile = mutate_seeded(&mut rng, &bytes);
                    assert_eq!(
                        ours(ir, enc, name, &base_v, elapsed, &hostile),
                        theirs::<T, E>(&base_t, &ctx, &hostile),
                        "{at}: verdicts differ on {hostile:02x?} against {base_v}"
                    );
                }
                // The acknowledgement of this tick arrives (usually): its mirror is the next
                // baseline.
                if !rng.one_in(4) {
                    (base_v, base_t, ticks) = (mirror_v, mirror_t, 0);
                }
            }
        }
    }

    fn client_ir() -> Ir {
        let mut idl = character_inputs();
        idl.push(schema("world.idl"));
        ir(
            &idl,
            &[
                seed("myencoding1.enc"),
                seed("myencoding2.enc"),
                schema("myencoding1_diff.enc"),
                schema("myencoding2_diff.enc"),
                schema("world.enc"),
            ],
            Some(("Client", schema("client.map"))),
        )
    }

    fn character_bridge(ir: &Ir) -> Bridge<cc::Character> {
        let ir = ir.clone();
        Bridge::Exact(Box::new(move |v| {
            let v = with_f32_angle(v);
            let typed = character_of(&ir, &v);
            (v, typed)
        }))
    }

    fn world_bridge(ir: &Ir) -> Bridge<cc::World> {
        let ir = ir.clone();
        Bridge::Exact(Box::new(move |v| {
            let characters: Vec<Value> = list(v, "characters").iter().map(with_f32_angle).collect();
            let typed = cc::World {
                characters: characters.iter().map(|c| character_of(&ir, c)).collect(),
            };
            let mut v = v.clone();
            if let Value::Struct(fields) = &mut v {
                fields.insert("characters".into(), Value::List(characters));
            }
            (v, typed)
        }))
    }

    #[test]
    fn character_and_world_deltas_agree_with_generated_code() {
        let ir = client_ir();
        check::<cc::Character, cc::MYENCODING1>(
            &ir,
            "Character",
            "MYENCODING1",
            character_bridge(&ir),
        );
        check::<cc::Character, cc::MYENCODING2>(
            &ir,
            "Character",
            "MYENCODING2",
            character_bridge(&ir),
        );
        check::<cc::Item, cc::MYENCODING2>(&ir, "Item", "MYENCODING2", Bridge::Bytes);
        check::<cc::World, cc::MYENCODING1>(&ir, "World", "MYENCODING1", world_bridge(&ir));
        check::<cc::World, cc::MYENCODING2>(&ir, "World", "MYENCODING2", world_bridge(&ir));
    }

    /// DIFF: tiered differences to the baseline, residuals to the extrapolation.
    #[test]
    fn diff_deltas_agree_with_generated_code() {
        let ir = client_ir();
        check::<cc::Character, cc::MYENCODING1_DIFF>(
            &ir,
            "Character",
            "MYENCODING1_DIFF",
            character_bridge(&ir),
        );
        check::<cc::Character, cc::MYENCODING2_DIFF>(
            &ir,
            "Character",
            "MYENCODING2_DIFF",
            character_bridge(&ir),
        );
        check::<cc::World, cc::MYENCODING2_DIFF>(
            &ir,
            "World",
            "MYENCODING2_DIFF",
            world_bridge(&ir),
        );
    }

    /// DIFF on every rule with steps, in a bit stream and a byte stream.
    #[test]
    fn rover_diff_deltas_agree_with_generated_code() {
        use idlc_tests::rover;
        let ir = ir(&[schema("rover.idl")], &[schema("rover.enc")], None);
        check::<rover::Rover, rover::RoverBits>(&ir, "Rover", "RoverBits", Bridge::Bytes);
        check::<rover::Rover, rover::RoverBytes>(&ir, "Rover", "RoverBytes", Bridge::Bytes);
        check::<rover::Fleet, rover::RoverBits>(&ir, "Fleet", "RoverBits", Bridge::Bytes);
        check::<rover::Fleet, rover::RoverBytes>(&ir, "Fleet", "RoverBytes", Bridge::Bytes);
    }

    /// QUATERNION deltas: SMALLEST_THREE(9) in both streams, raw FLOAT32s without a rule.
    #[test]
    fn cube_deltas_agree_with_generated_code() {
        use idlc_tests::{cubes, cubes_builtin};
        let enc = ir(&[schema("cubes.idl")], &[schema("cubes.enc")], None);
        check::<cubes::Cube, cubes::CubesBits>(&enc, "Cube", "CubesBits", Bridge::Bytes);
        check::<cubes::Cube, cubes::CubesBytes>(&enc, "Cube", "CubesBytes", Bridge::Bytes);
        check::<cubes::Cubes, cubes::CubesBits>(&enc, "Cubes", "CubesBits", Bridge::Bytes);
        check::<cubes::Cubes, cubes::CubesBytes>(&enc, "Cubes", "CubesBytes", Bridge::Bytes);
        check::<cubes::Cube, cubes::CubesDiff>(&enc, "Cube", "CubesDiff", Bridge::Bytes);
        check::<cubes::Cube, cubes::CubesDiffBytes>(&enc, "Cube", "CubesDiffBytes", Bridge::Bytes);
        check::<cubes::Cube, cubes::CubesDr>(&enc, "Cube", "CubesDr", Bridge::Bytes);
        check::<cubes::Cubes, cubes::CubesDiff>(&enc, "Cubes", "CubesDiff", Bridge::Bytes);
        check::<cubes::Cubes, cubes::CubesDr>(&enc, "Cubes", "CubesDr", Bridge::Bytes);
        let builtin = ir(&[schema("cubes.idl")], &[], None);
        check::<cubes_builtin::Cube, cubes_builtin::BuiltinEncoding>(
            &builtin,
            "Cube",
            "Default",
            Bridge::Bytes,
        );
    }

    #[test]
    fn naval_deltas_agree_with_generated_code() {
        let ir = ir(&[schema("naval.idl")], &[schema("naval.enc")], None);
        let fleet = |ir: &Ir| -> Bridge<naval::Fleet> {
            let ir = ir.clone();
            Bridge::Exact(Box::new(move |v| (v.clone(), fleet_of(&ir, v))))
        };
        check::<naval::Fleet, naval::NAVAL>(&ir, "Fleet", "NAVAL", fleet(&ir));
        check::<naval::Fleet, naval::NAVAL_S2S>(&ir, "Fleet", "NAVAL_S2S", fleet(&ir));
        check::<naval::Ship, naval::NAVAL>(&ir, "Ship", "NAVAL", Bridge::Bytes);
        check::<naval::Turret, naval::NAVAL_S2S>(&ir, "Turret", "NAVAL_S2S", Bridge::Bytes);
    }

    /// The server's mapping: its positions are f64 as in the IDL (the client's f32 positions
    /// would compare a deviation in f32, where the interpreter compares it in f64).
    #[test]
    fn arena_deltas_agree_with_generated_code() {
        use arena_server as a;
        let ir = ir(
            &[schema("arena.idl")],
            &[schema("arena_s2c.enc"), schema("arena_s2s.enc")],
            Some(("Server", schema("arena_server.map"))),
        );
        check::<a::PlayerState, a::S2C>(&ir, "PlayerState", "S2C", Bridge::Bytes);
        check::<a::Projectile, a::S2C>(&ir, "Projectile", "S2C", Bridge::Bytes);
        check::<a::ArenaState, a::S2C>(&ir, "ArenaState", "S2C", Bridge::Bytes);
        check::<a::PlayerState, a::S2CDebug>(&ir, "PlayerState", "S2CDebug", Bridge::Bytes);
        check::<a::ArenaState, a::S2CDebug>(&ir, "ArenaState", "S2CDebug", Bridge::Bytes);
        check::<a::ArenaState, a::S2S>(&ir, "ArenaState", "S2S", Bridge::Bytes);
    }

    /// edge's Roster (DELTA SEQUENCEs of a plain struct) and Drift (raw floats, -0.0 among them,
    /// under changed-bits, which compare the bits sent), in a bit and a byte stream.
    #[test]
    fn edge_deltas_agree_with_generated_code() {
        use idlc_tests::edge as e;
        let ir = ir(
            &[schema("edge.idl")],
            &[schema("edge.enc")],
            Some(("Edge", schema("edge.map"))),
        );
        check::<e::Drift, e::Odd>(&ir, "Drift", "Odd", Bridge::Bytes);
        check::<e::Drift, e::Bytes>(&ir, "Drift", "Bytes", Bridge::Bytes);
        check::<e::Roster, e::Odd>(&ir, "Roster", "Odd", Bridge::Bytes);
        check::<e::Roster, e::Bytes>(&ir, "Roster", "Bytes", Bridge::Bytes);
    }

    /// A `DELTA SEQUENCE` of a struct with FENCEs and an open end: its elements' nested delta
    /// form (each later segment in an extension).
    #[test]
    fn nested_delta_forms_agree_with_generated_code() {
        use idlc_tests::compat_pairs::p23_delta_sequence_of_open_struct_grows::new as v2;
        let pair = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../compiler/tests/compat/pass/23_delta_sequence_of_open_struct_grows");
        let ir = ir(
            &[pair.join("new.idl")],
            &[pair.join("new.enc")],
            Some(("Test", schema("versions/serde.map"))),
        );
        check::<v2::World, v2::D>(&ir, "World", "D", Bridge::Bytes);
        check::<v2::Unit, v2::D>(&ir, "Unit", "D", Bridge::Bytes);
    }
}

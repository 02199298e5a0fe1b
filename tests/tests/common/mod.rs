//! Helpers shared by the integration tests: proptest strategies for valid seed Characters,
//! conversions between the two sides' Rust types, hand-built valid arena values (seeds for
//! mutation), the byte mutations of the hostile-input tests, and [`reencode`], the generic end
//! of the properties over every (encoding, type) pair; [`cpp`], the C++ backend's test rig.
//!
//! Every test file includes this module and uses a part of it.
#![allow(dead_code)]

pub mod cpp;

use idlc_runtime::{Codec, Collection, DecodeError, EncodeError, Encoding, from_bytes, to_bytes};
use idlc_tests::collections::MyInventory;
use idlc_tests::{arena_client as ac, character_client as cc, character_server as cs};
use proptest::collection::vec;
use proptest::prelude::*;
use rand::Rng;

// ---------------------------------------------------------------------------------------------
// Bundled inputs
// ---------------------------------------------------------------------------------------------

/// A file of schemas/.
pub fn schema(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../schemas")
        .join(name)
}

/// A file of the seed examples (../shared/seed-examples/).
pub fn seed(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/seed-examples")
        .join(name)
}

/// The IR of the same inputs tests/build.rs generated a module from (a side with its mapping).
pub fn ir(
    idl: &[std::path::PathBuf],
    encodings: &[std::path::PathBuf],
    mapping: Option<(&str, std::path::PathBuf)>,
) -> idlc::ir::Ir {
    compiled(idl, encodings, mapping).ir
}

/// The compilation of those inputs (the IR and its warnings), which has no error.
pub fn compiled(
    idl: &[std::path::PathBuf],
    encodings: &[std::path::PathBuf],
    mapping: Option<(&str, std::path::PathBuf)>,
) -> idlc::Compilation {
    let inputs = idlc::Inputs {
        idl: idl.to_vec(),
        encodings: encodings.to_vec(),
        mappings: mapping.iter().map(|(_, m)| m.clone()).collect(),
        side: mapping.map(|(side, _)| side.to_string()),
    };
    let compilation = idlc::compile(&inputs).expect("the schemas are readable");
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    compilation
}

// ---------------------------------------------------------------------------------------------
// Seed Character: valid values
// ---------------------------------------------------------------------------------------------

/// A number in `[lo, hi]`, hitting both ends now and then.
pub fn in_range(lo: f64, hi: f64) -> BoxedStrategy<f64> {
    prop_oneof![
        1 => Just(lo),
        1 => Just(hi),
        1 => Just(0.0f64.clamp(lo, hi)),
        12 => lo..=hi,
    ]
    .boxed()
}

/// An f32 in `[lo, hi]`, hitting both ends now and then.
pub fn in_range_f32(lo: f32, hi: f32) -> BoxedStrategy<f32> {
    prop_oneof![
        1 => Just(lo),
        1 => Just(hi),
        12 => lo..=hi,
    ]
    .boxed()
}

/// A valid client-side Item: any id and kind, count 1..=99, durability in [0, 1].
pub fn item() -> impl Strategy<Value = cc::Item> {
    (
        any::<u32>(),
        0..cc::ItemKind::COUNT,
        prop_oneof![Just(1u8), Just(99u8), 1u8..=99],
        in_range(0.0, 1.0),
    )
        .prop_map(|(item_id, kind, count, durability)| cc::Item {
            item_id,
            kind: cc::ItemKind::from_index(kind).expect("index below COUNT"),
            count,
            durability,
        })
}

/// A valid client-side Character (the seed's ranges), with 0..8 Items.
pub fn character() -> impl Strategy<Value = cc::Character> {
    (
        (
            prop_oneof![
                Just(0u16),
                Just(127),
                Just(128),
                Just(u16::MAX),
                any::<u16>()
            ],
            in_range(-10000.0, 10000.0),
            in_range(-10000.0, 10000.0),
            in_range(-100.0, 100.0),
        ),
        (
            in_range(-10.0, 10.0),
            in_range(-10.0, 10.0),
            in_range(-10.0, 10.0),
            in_range_f32(0.0, 360.0),
        ),
        (
            0..cc::Animation::COUNT,
            prop_oneof![Just(0u8), Just(119u8), 0u8..=119],
            vec(item(), 0..8),
        ),
    )
        .prop_map(
            |((character_id, x, y, z), (vx, vy, vz, angle), (anim, animation_frame, inventory))| {
                cc::Character {
                    character_id,
                    x,
                    y,
                    z,
                    vx,
                    vy,
                    vz,
                    angle,
                    anim: cc::Animation::from_index(anim).expect("index below COUNT"),
                    animation_frame,
                    inventory,
                }
            },
        )
}

/// The same Item on the server side.
pub fn item_to_server(i: &cc::Item) -> cs::Item {
    cs::Item {
        item_id: i.item_id,
        kind: cs::ItemKind::from_index(i.kind.index()).expect("same enum"),
        count: i.count,
        durability: i.durability,
    }
}

/// The same Item on the client side.
pub fn item_to_client(i: &cs::Item) -> cc::Item {
    cc::Item {
        item_id: i.item_id,
        kind: cc::ItemKind::from_index(i.kind.index()).expect("same enum"),
        count: i.count,
        durability: i.durability,
    }
}

/// The same Character on the server side (`MyInventory`).
pub fn to_server(c: &cc::Character) -> cs::Character {
    let mut inventory = MyInventory::default();
    for i in &c.inventory {
        inventory.push(item_to_server(i));
    }
    cs::Character {
        character_id: c.character_id,
        x: c.x,
        y: c.y,
        z: c.z,
        vx: c.vx,
        vy: c.vy,
        vz: c.vz,
        angle: c.angle,
        anim: cs::Animation::from_index(c.anim.index()).expect("same enum"),
        animation_frame: c.animation_frame,
        inventory,
    }
}

/// The same Character on the client side.
pub fn to_client(c: &cs::Character) -> cc::Character {
    cc::Character {
        character_id: c.character_id,
        x: c.x,
        y: c.y,
        z: c.z,
        vx: c.vx,
        vy: c.vy,
        vz: c.vz,
        angle: c.angle,
        anim: cc::Animation::from_index(c.anim.index()).expect("same enum"),
        animation_frame: c.animation_frame,
        inventory: c.inventory.items().iter().map(item_to_client).collect(),
    }
}

/// A valid client-side Character drawn with `rand` (for the seeded fuzz tests).
pub fn random_character(rng: &mut impl Rng) -> cc::Character {
    let items = rng.random_range(0..8);
    cc::Character {
        character_id: rng.random(),
        x: rng.random_range(-10000.0..=10000.0),
        y: rng.random_range(-10000.0..=10000.0),
        z: rng.random_range(-100.0..=100.0),
        vx: rng.random_range(-10.0..=10.0),
        vy: rng.random_range(-10.0..=10.0),
        vz: rng.random_range(-10.0..=10.0),
        angle: rng.random_range(0.0..=360.0),
        anim: cc::Animation::from_index(rng.random_range(0..cc::Animation::COUNT)).unwrap(),
        animation_frame: rng.random_range(0..=119),
        inventory: (0..items)
            .map(|_| cc::Item {
                item_id: rng.random(),
                kind: cc::ItemKind::from_index(rng.random_range(0..cc::ItemKind::COUNT)).unwrap(),
                count: rng.random_range(1..=99),
                durability: rng.random_range(0.0..=1.0),
            })
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Arena: hand-built valid values (client side), to seed mutations
// ---------------------------------------------------------------------------------------------

/// Valid values of an arena type, client side, beyond `Default`.
pub trait ArenaSamples: Sized {
    /// A few valid values.
    fn samples() -> Vec<Self>;
}

fn v3(x: f32, y: f32, z: f32) -> glam::Vec3 {
    glam::Vec3::new(x, y, z)
}

impl ArenaSamples for ac::PlayerState {
    fn samples() -> Vec<Self> {
        vec![
            ac::PlayerState::default(),
            ac::PlayerState {
                slot: 7,
                team: ac::Team::Blue,
                x: 123.45,
                y: -511.99,
                z: 12.5,
                vx: 3.2,
                vy: -19.98,
                vz: 49.9,
                yaw: 359.9,
                pitch: -45.5,
                health: 150,
                armor: 77,
                weapon: ac::WeaponKind::Railgun,
                ammo: 999,
                stance: ac::Stance::Dead,
                firing: true,
                kills: 200,
                score: -1234,
            },
            ac::PlayerState {
                slot: 15,
                team: ac::Team::Red,
                x: 512.0,
                y: -512.0,
                z: -64.0,
                vx: 20.0,
                vy: -20.0,
                vz: -50.0,
                yaw: 360.0,
                pitch: 90.0,
                health: 200,
                armor: 100,
                weapon: ac::WeaponKind::Shotgun,
                ammo: 3,
                stance: ac::Stance::Sprinting,
                firing: false,
                kills: 255,
                score: i16::MIN,
            },
        ]
    }
}

impl ArenaSamples for ac::Projectile {
    fn samples() -> Vec<Self> {
        vec![
            ac::Projectile::default(),
            ac::Projectile {
                id: 70000,
                owner: 15,
                weapon: ac::WeaponKind::RocketLauncher,
                x: -100.5,
                y: 250.25,
                z: 1.5,
                vx: 399.9,
                vy: -400.0,
                vz: 0.3,
                ttl_ticks: 255,
            },
            ac::Projectile {
                id: u32::MAX,
                owner: 3,
                weapon: ac::WeaponKind::Pistol,
                x: 512.0,
                y: -512.0,
                z: 64.0,
                vx: 0.0,
                vy: 0.1,
                vz: -0.1,
                ttl_ticks: 1,
            },
        ]
    }
}

impl ArenaSamples for ac::ArenaState {
    fn samples() -> Vec<Self> {
        let players = ac::PlayerState::samples();
        let projectiles = ac::Projectile::samples();
        vec![
            ac::ArenaState::default(),
            ac::ArenaState {
                tick: 123_456,
                phase: ac::MatchPhase2::Overtime,
                time_left_s: 5000,
                team_score: [250, 3],
                players: players.clone(),
                projectiles: projectiles.clone(),
                max_players: 12,
                friendly_fire: true,
                time_scale: 0.5,
                map_name: "dust".into(),
                leading_team: ac::Team::Red,
                round_number: 3,
            },
            ac::ArenaState {
                tick: u32::MAX,
                phase: ac::MatchPhase2::Playing,
                time_left_s: 900,
                team_score: [0, 250],
                players: players[1..2].to_vec(),
                projectiles: vec![projectiles[1].clone(); 5],
                max_players: 1,
                friendly_fire: false,
                time_scale: 8.0,
                map_name: "a map name of 24 bytes!!".into(),
                leading_team: ac::Team::Blue,
                round_number: 9,
            },
        ]
    }
}

impl ArenaSamples for ac::JoinResult {
    fn samples() -> Vec<Self> {
        vec![
            ac::JoinResult::default(),
            ac::JoinResult {
                accepted: true,
                slot: Some(15),
                reason: String::new(),
                match_id: u64::MAX,
            },
            ac::JoinResult {
                accepted: false,
                slot: None,
                reason: "server full: try again in a minute".into(),
                match_id: 42,
            },
        ]
    }
}

impl ArenaSamples for ac::PlayerResult {
    fn samples() -> Vec<Self> {
        vec![
            ac::PlayerResult::default(),
            ac::PlayerResult {
                account_id: 0xDEAD_BEEF_0000_0001,
                name: "Zoë".into(),
                team: ac::Team::Blue,
                kills: 31,
                deaths: 7,
                score: -12,
                rating_change: -150_000,
            },
        ]
    }
}

impl ArenaSamples for ac::Welcome {
    fn samples() -> Vec<Self> {
        vec![
            ac::Welcome::default(),
            ac::Welcome {
                your_slot: 3,
                match_id: 0x0123_4567_89AB_CDEF,
                server_name: "eu-1 «ünïcode»".into(),
                server_clock_us: -123_456_789,
                tick_interval_s: 1.0 / 60.0,
                spawn_points: [
                    v3(1.0, 2.0, 3.0),
                    v3(-1.5, 0.0, 7.25),
                    v3(f32::MAX, f32::MIN, f32::EPSILON),
                    v3(0.0, -0.0, 1e-30),
                    v3(100.0, 200.0, 300.0),
                    v3(4.0, 5.0, 6.0),
                    v3(-7.0, -8.0, -9.0),
                    v3(f32::INFINITY, f32::NEG_INFINITY, 0.5),
                ],
            },
        ]
    }
}

impl ArenaSamples for ac::ChatBroadcast {
    fn samples() -> Vec<Self> {
        vec![
            ac::ChatBroadcast::default(),
            ac::ChatBroadcast {
                sender: 2,
                channel: ac::ChatChannel::Whisper,
                text: "gg wp".into(),
            },
            ac::ChatBroadcast {
                sender: 15,
                channel: ac::ChatChannel::TeamOnly,
                text: "x".repeat(200),
            },
        ]
    }
}

fn kill_credit(depth: u8) -> ac::KillCredit {
    ac::KillCredit {
        player: depth % 16,
        damage: 1000 - u16::from(depth),
        assist: (depth > 0).then(|| Box::new(kill_credit(depth - 1))),
    }
}

impl ArenaSamples for ac::KillCredit {
    fn samples() -> Vec<Self> {
        vec![ac::KillCredit::default(), kill_credit(1), kill_credit(5)]
    }
}

impl ArenaSamples for ac::KillFeed {
    fn samples() -> Vec<Self> {
        vec![
            ac::KillFeed::default(),
            ac::KillFeed {
                credit: kill_credit(3),
                victim: 9,
                weapon: ac::WeaponKind::Railgun,
                headshot: true,
            },
        ]
    }
}

impl ArenaSamples for ac::Item {
    fn samples() -> Vec<Self> {
        vec![
            ac::Item::default(),
            ac::Item {
                item_id: 77,
                kind: ac::ItemKind::Key,
                count: 99,
                durability: 1.0,
            },
            ac::Item {
                item_id: u32::MAX,
                kind: ac::ItemKind::Ammo,
                count: 50,
                durability: 0.37,
            },
        ]
    }
}

impl ArenaSamples for ac::LootDrop {
    fn samples() -> Vec<Self> {
        vec![
            ac::LootDrop::default(),
            ac::LootDrop {
                crate_id: 9,
                position: v3(10.0, -20.0, 0.5),
                items: ac::Item::samples(),
            },
        ]
    }
}

impl ArenaSamples for ac::VoiceFrame {
    fn samples() -> Vec<Self> {
        vec![
            ac::VoiceFrame::default(),
            ac::VoiceFrame {
                speaker: 4,
                opus: (0..100u8).collect(),
            },
            ac::VoiceFrame {
                speaker: 15,
                opus: vec![0xA5; 512],
            },
        ]
    }
}

impl ArenaSamples for ac::MatchEnded {
    fn samples() -> Vec<Self> {
        vec![
            ac::MatchEnded::default(),
            ac::MatchEnded {
                winner: ac::Team::Blue,
                red_score: 250,
                blue_score: 3,
                rating_change: -17,
            },
        ]
    }
}

impl ArenaSamples for ac::Join {
    fn samples() -> Vec<Self> {
        vec![
            ac::Join::default(),
            ac::Join {
                name: "player_one".into(),
                client_version: 10203,
                auth_ticket: (0..=255u8).collect(),
                preferred_team: ac::Team::Red,
                region: "us-east".into(),
            },
        ]
    }
}

impl ArenaSamples for ac::Input {
    fn samples() -> Vec<Self> {
        vec![
            ac::Input::default(),
            ac::Input {
                client_tick: 99,
                forward: -128,
                strafe: 127,
                yaw: 359.95,
                pitch: -90.0,
                jump: true,
                crouch: false,
            },
        ]
    }
}

impl ArenaSamples for ac::Fire {
    fn samples() -> Vec<Self> {
        vec![
            ac::Fire::default(),
            ac::Fire {
                client_tick: 100,
                weapon: ac::WeaponKind::Rifle,
                origin: v3(1.0, 2.0, 3.0),
                direction: v3(0.0, 0.0, -1.0),
                shots: 8,
            },
        ]
    }
}

impl ArenaSamples for ac::Say {
    fn samples() -> Vec<Self> {
        vec![
            ac::Say::default(),
            ac::Say {
                channel: ac::ChatChannel::Whisper,
                whisper_to: Some(11),
                text: "meet at B".into(),
            },
        ]
    }
}

impl ArenaSamples for ac::Buy {
    fn samples() -> Vec<Self> {
        vec![
            ac::Buy::default(),
            ac::Buy {
                item_id: 12,
                count: 99,
            },
        ]
    }
}

impl ArenaSamples for ac::ReportPlayer {
    fn samples() -> Vec<Self> {
        vec![
            ac::ReportPlayer::default(),
            ac::ReportPlayer {
                target: 5,
                reason: "wallhack".into(),
            },
        ]
    }
}

impl ArenaSamples for ac::Ping {
    fn samples() -> Vec<Self> {
        vec![
            ac::Ping::default(),
            ac::Ping {
                sent_at_us: u64::MAX,
            },
        ]
    }
}

fn squad(depth: u8) -> ac::Squad {
    ac::Squad {
        tag: format!("SQ{depth}"),
        members: (0..depth * 2).map(|m| m % 16).collect(),
        subsquads: (0..depth.min(2)).map(|_| squad(depth - 1)).collect(),
    }
}

impl ArenaSamples for ac::Squad {
    fn samples() -> Vec<Self> {
        vec![ac::Squad::default(), squad(1), squad(3)]
    }
}

impl ArenaSamples for ac::MatchReport {
    fn samples() -> Vec<Self> {
        vec![
            ac::MatchReport::default(),
            ac::MatchReport {
                match_id: 555,
                duration_s: 1199.5,
                results: ac::PlayerResult::samples(),
                squads: vec![squad(2), squad(0)],
                replay: (0..50u8).collect(),
            },
        ]
    }
}

impl ArenaSamples for glam::Vec3 {
    fn samples() -> Vec<Self> {
        vec![glam::Vec3::ZERO, v3(1.5, -2.5, 1e9)]
    }
}

/// The valid encodings of `T`'s samples in `E`.
pub fn sample_bytes<E: Encoding, T: ArenaSamples + Codec<E>>() -> Vec<Vec<u8>> {
    T::samples()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            idlc_runtime::to_bytes::<E, T>(v).unwrap_or_else(|e| {
                panic!(
                    "sample {i} of {} does not encode in {}: {e}",
                    std::any::type_name::<T>(),
                    E::NAME
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Hostile bytes
// ---------------------------------------------------------------------------------------------

/// A random buffer of length 0..512: uniform bytes, or mostly zeros, or mostly 0xFF.
pub fn random_buffer(rng: &mut impl Rng) -> Vec<u8> {
    let len = rng.random_range(0..512);
    match rng.random_range(0..4) {
        0 | 1 => (0..len).map(|_| rng.random()).collect(),
        2 => (0..len)
            .map(|_| {
                if rng.random_bool(0.9) {
                    0
                } else {
                    rng.random()
                }
            })
            .collect(),
        _ => (0..len)
            .map(|_| {
                if rng.random_bool(0.9) {
                    0xFF
                } else {
                    rng.random()
                }
            })
            .collect(),
    }
}

/// One to three random mutations of `seed`: bit flips, truncation, extension with random bytes,
/// duplication of a byte range, zeroing, setting to 0xFF, random bytes in place.
pub fn mutate(rng: &mut impl Rng, seed: &[u8]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..rng.random_range(1..=3) {
        mutate_once(rng, &mut out);
    }
    out
}

fn range_in(rng: &mut impl Rng, len: usize) -> std::ops::Range<usize> {
    if len == 0 {
        return 0..0;
    }
    let start = rng.random_range(0..len);
    let end = rng.random_range(start..=len.min(start + 16));
    start..end
}

fn mutate_once(rng: &mut impl Rng, out: &mut Vec<u8>) {
    match rng.random_range(0..8) {
        0 | 1 => {
            // bit flips
            if !out.is_empty() {
                for _ in 0..rng.random_range(1..=4) {
                    let bit = rng.random_range(0..out.len() * 8);
                    out[bit / 8] ^= 1 << (bit % 8);
                }
            }
        }
        2 => {
            // truncation
            let len = rng.random_range(0..=out.len());
            out.truncate(len);
        }
        3 => {
            // extension with random bytes
            for _ in 0..rng.random_range(1..=32) {
                out.push(rng.random());
            }
        }
        4 => {
            // duplication of a byte range
            let r = range_in(rng, out.len());
            let copy = out[r.clone()].to_vec();
            let at = rng.random_range(0..=out.len());
            out.splice(at..at, copy);
        }
        5 => {
            // zeroing
            let r = range_in(rng, out.len());
            out[r].fill(0);
        }
        6 => {
            // 0xFF
            let r = range_in(rng, out.len());
            out[r].fill(0xFF);
        }
        _ => {
            // random bytes in place
            let r = range_in(rng, out.len());
            for b in &mut out[r] {
                *b = rng.random();
            }
        }
    }
}

/// The bytes as hex, for failure messages.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One hostile variant of `bytes`, drawn with the interpreter's seeded generator: a bit
/// flipped, cut short, extended with random bytes, a byte replaced, or random bytes instead.
/// The mutations of the differential tests (the interpreter against generated Rust and C++).
pub fn mutate_seeded(rng: &mut idlc::interpret::sample::Rng, bytes: &[u8]) -> Vec<u8> {
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

// ---------------------------------------------------------------------------------------------
// Type-erased codecs
// ---------------------------------------------------------------------------------------------

/// Why bytes did not come back re-encoded: the decoder refused them, or the encoder refused
/// the value they decoded to.
#[derive(Debug)]
pub enum Refused {
    /// The decoder's error on the bytes.
    Decode(DecodeError),
    /// The encoder's error on the decoded value.
    Encode(EncodeError),
}

/// Decodes `bytes` as a `T` in `E` and encodes the value again.
///
/// The thin generic end of the properties over every (encoding, type) pair: their drivers
/// (proptest runners, mutation loops, assertions, messages) take this as a plain `fn` pointer,
/// so that they are compiled once, not once per pair (with the `#[inline]` generated codec
/// compiled again into each).
pub fn reencode<E: Encoding, T: Codec<E>>(bytes: &[u8]) -> Result<Vec<u8>, Refused> {
    let value = from_bytes::<E, T>(bytes).map_err(Refused::Decode)?;
    to_bytes::<E, T>(&value).map_err(Refused::Encode)
}

/// [`reencode`] of `T` in `E`, with the generics erased.
pub type Reencode = fn(&[u8]) -> Result<Vec<u8>, Refused>;

/// Random bytes, or a valid seed with a few bits flipped and some random bytes appended: the
/// inputs of the properties that decode whatever comes.
pub fn mutated_inputs(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let mutated = (
        proptest::sample::select(seeds),
        vec(any::<prop::sample::Index>(), 0..4),
        vec(any::<u8>(), 0..16),
    )
        .prop_map(|(mut bytes, flips, tail)| {
            if !bytes.is_empty() {
                for flip in flips {
                    let bit = flip.index(bytes.len() * 8);
                    bytes[bit / 8] ^= 1 << (bit % 8);
                }
            }
            bytes.extend(tail);
            bytes
        });
    prop_oneof![
        1 => vec(any::<u8>(), 0..256),
        2 => mutated,
    ]
}

/// The v1 (client) Item as a v2 Item.
pub fn v2_item(i: &cc::Item) -> idlc_tests::character_v2_client::Item {
    idlc_tests::character_v2_client::Item {
        item_id: i.item_id,
        kind: idlc_tests::character_v2_client::ItemKind::from_index(i.kind.index()).unwrap(),
        count: i.count,
        durability: i.durability,
    }
}

/// The v2 Character with v1's fields and a wider id and `some_data`.
pub fn v2_of(
    c: &cc::Character,
    character_id: u32,
    some_data: u32,
) -> idlc_tests::character_v2_client::Character {
    idlc_tests::character_v2_client::Character {
        character_id,
        x: c.x,
        y: c.y,
        z: c.z,
        vx: c.vx,
        vy: c.vy,
        vz: c.vz,
        angle: c.angle,
        anim: idlc_tests::character_v2_client::Animation::from_index(c.anim.index()).unwrap(),
        animation_frame: c.animation_frame,
        inventory: c.inventory.iter().map(v2_item).collect(),
        some_data,
    }
}

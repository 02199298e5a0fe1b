//! Values outside their IDL range, NaNs and over-long sequences and strings are an
//! `EncodeError` with the right kind, never a panic and never a silent clamp.

mod common;

use std::fmt::Debug;

use common::ArenaSamples;
use idlc_runtime::{Codec, EncodeErrorKind, Encoding, to_bytes};
use idlc_tests::{arena_client as ac, arena_server as asv, character_client as cc};

/// Encoding `value` in `E` fails with `kind`.
#[track_caller]
fn expect_error<E: Encoding, T: Codec<E> + Debug>(value: &T, kind: EncodeErrorKind, what: &str) {
    match to_bytes::<E, T>(value) {
        Ok(bytes) => panic!(
            "{what} in {}: encoded as {} instead of failing with {kind:?}",
            E::NAME,
            common::hex(&bytes)
        ),
        Err(e) => assert_eq!(e.kind, kind, "{what} in {}: {e}", E::NAME),
    }
}

/// A valid Character with one Item (it encodes in every encoding: checked below).
fn valid() -> cc::Character {
    cc::Character {
        character_id: 7,
        x: 1.5,
        y: -2.25,
        z: 3.0,
        vx: 0.5,
        vy: -0.5,
        vz: 0.0,
        angle: 90.0,
        anim: cc::Animation::Walking,
        animation_frame: 10,
        inventory: vec![cc::Item {
            item_id: 1,
            kind: cc::ItemKind::Medkit,
            count: 3,
            durability: 0.5,
        }],
    }
}

/// Every broken Character, with what it breaks and the error it must give in an encoding that
/// sends `angle` as FIXED_POINT (`angle_fixed`) or as raw FLOAT64.
fn broken_characters(angle_fixed: bool) -> Vec<(&'static str, cc::Character, EncodeErrorKind)> {
    use EncodeErrorKind::{NotANumber, ValueOutOfRange};
    let with = |f: &dyn Fn(&mut cc::Character)| {
        let mut c = valid();
        f(&mut c);
        c
    };
    let item = |f: &dyn Fn(&mut cc::Item)| with(&|c| f(&mut c.inventory[0]));
    let mut cases = vec![
        (
            "animation_frame = 120",
            with(&|c| c.animation_frame = 120),
            ValueOutOfRange,
        ),
        (
            "animation_frame = 255",
            with(&|c| c.animation_frame = 255),
            ValueOutOfRange,
        ),
        ("x = 10000.5", with(&|c| c.x = 10000.5), ValueOutOfRange),
        ("x = -10000.01", with(&|c| c.x = -10000.01), ValueOutOfRange),
        ("x = +inf", with(&|c| c.x = f64::INFINITY), ValueOutOfRange),
        ("z = 100.001", with(&|c| c.z = 100.001), ValueOutOfRange),
        ("vz = -10.5", with(&|c| c.vz = -10.5), ValueOutOfRange),
        ("angle = -1", with(&|c| c.angle = -1.0), ValueOutOfRange),
        ("angle = 360.5", with(&|c| c.angle = 360.5), ValueOutOfRange),
        (
            "x = NaN (FIXED_POINT)",
            with(&|c| c.x = f64::NAN),
            NotANumber,
        ),
        (
            "vy = -NaN (FIXED_POINT)",
            with(&|c| c.vy = -f64::NAN),
            NotANumber,
        ),
        ("item count = 0", item(&|i| i.count = 0), ValueOutOfRange),
        (
            "item count = 100",
            item(&|i| i.count = 100),
            ValueOutOfRange,
        ),
        (
            "item durability = 1.5",
            item(&|i| i.durability = 1.5),
            ValueOutOfRange,
        ),
        (
            "item durability = -0.1",
            item(&|i| i.durability = -0.1),
            ValueOutOfRange,
        ),
        (
            "item durability = NaN (raw FLOAT64)",
            item(&|i| i.durability = f64::NAN),
            NotANumber,
        ),
    ];
    // MYENCODING1 and 2 quantize angle; MYENCODINGA leaves it to the built-in rule, raw FLOAT64.
    let what = if angle_fixed {
        "angle = NaN (FIXED_POINT)"
    } else {
        "angle = NaN (raw FLOAT64)"
    };
    cases.push((what, with(&|c| c.angle = f32::NAN), NotANumber));
    cases
}

fn character_errors<E: Encoding, F: Encoding>(angle_fixed: bool)
where
    cc::Character: Codec<E>,
    idlc_tests::character_server::Character: Codec<F>,
{
    to_bytes::<E, _>(&valid()).expect("the valid Character encodes");
    to_bytes::<F, _>(&common::to_server(&valid())).expect("the valid Character encodes");
    for (what, c, kind) in broken_characters(angle_fixed) {
        expect_error::<E, _>(&c, kind, &format!("client {what}"));
        expect_error::<F, _>(&common::to_server(&c), kind, &format!("server {what}"));
    }
}

#[test]
fn character_myencoding1() {
    character_errors::<cc::MYENCODING1, idlc_tests::character_server::MYENCODING1>(true);
}

#[test]
fn character_myencoding2() {
    character_errors::<cc::MYENCODING2, idlc_tests::character_server::MYENCODING2>(true);
}

#[test]
fn character_myencodinga() {
    character_errors::<cc::MYENCODINGA, idlc_tests::character_server::MYENCODINGA>(false);
}

#[test]
fn character_builtin_and_v2() {
    use idlc_tests::{character_builtin as cb, character_v2_client as v2};
    let b = cb::Character {
        animation_frame: 120,
        ..Default::default()
    };
    expect_error::<cb::BuiltinEncoding, _>(&b, EncodeErrorKind::ValueOutOfRange, "frame 120");
    // The built-in rule for NUMERIC is raw FLOAT64: NaN is refused, not sent.
    let b = cb::Character {
        x: f64::NAN,
        ..Default::default()
    };
    expect_error::<cb::BuiltinEncoding, _>(&b, EncodeErrorKind::NotANumber, "x NaN");
    let v = v2::Character {
        x: 10000.5,
        ..Default::default()
    };
    expect_error::<v2::MYENCODINGA, _>(&v, EncodeErrorKind::ValueOutOfRange, "v2 x");
}

/// A raw FLOAT64 without a range (Welcome's `tick_interval_s`) is any f64, NaN included: it is
/// sent bit for bit, not refused.
#[test]
fn unranged_float64_sends_nan() {
    let nan = f64::from_bits(0x7FF8_0000_DEAD_BEEF);
    let w = ac::Welcome {
        tick_interval_s: nan,
        ..Default::default()
    };
    let bytes = w.to_bytes_with::<ac::S2C>().unwrap();
    let back = ac::Welcome::from_bytes_with::<ac::S2C>(&bytes).unwrap();
    assert_eq!(back.tick_interval_s.to_bits(), nan.to_bits());
    let bytes = w.to_bytes_with::<ac::S2S>().unwrap();
    let back = ac::Welcome::from_bytes_with::<ac::S2S>(&bytes).unwrap();
    assert_eq!(back.tick_interval_s.to_bits(), nan.to_bits());
}

// ---------------------------------------------------------------------------------------------
// Arena: bounded sequences, strings and bytes, ranged parameters
// ---------------------------------------------------------------------------------------------

/// Encoding `value` in `E` fails (`strict`: with `kind`, else with any kind).
#[track_caller]
fn expect_error_kind<E: Encoding, T: Codec<E> + Debug>(
    strict: bool,
    value: &T,
    kind: EncodeErrorKind,
    what: &str,
) {
    if strict {
        expect_error::<E, T>(value, kind, what);
    } else if let Ok(bytes) = to_bytes::<E, T>(value) {
        panic!("{what} in {}: encoded as {}", E::NAME, common::hex(&bytes));
    }
}

/// The longest valid value of each bounded field encodes; one more element or byte is
/// `LengthOverBound` (`strict`), or at least an error.
fn arena_lengths<E: Encoding>(strict: bool)
where
    ac::ArenaState: Codec<E>,
    ac::ChatBroadcast: Codec<E>,
    ac::VoiceFrame: Codec<E>,
    ac::JoinResult: Codec<E>,
    ac::Join: Codec<E>,
    ac::Squad: Codec<E>,
    ac::MatchReport: Codec<E>,
    ac::ReportPlayer: Codec<E>,
{
    use EncodeErrorKind::LengthOverBound;
    // SEQUENCE<PlayerState, MAX_PLAYERS = 16>, SEQUENCE<Projectile, MAX_PROJECTILES = 64>,
    // STRING<24> map_name.
    let state = ac::ArenaState {
        players: vec![ac::PlayerState::default(); 16],
        projectiles: vec![ac::Projectile::default(); 64],
        map_name: "m".repeat(24),
        ..Default::default()
    };
    to_bytes::<E, _>(&state).expect("16 players, 64 projectiles, a 24-byte map name");
    let mut s = state.clone();
    s.players.push(ac::PlayerState::default());
    expect_error_kind::<E, _>(strict, &s, LengthOverBound, "17 players");
    let mut s = state.clone();
    s.projectiles.push(ac::Projectile::default());
    expect_error_kind::<E, _>(strict, &s, LengthOverBound, "65 projectiles");
    let mut s = state.clone();
    s.map_name.push('m');
    expect_error_kind::<E, _>(strict, &s, LengthOverBound, "a 25-byte map name");
    // A STRING bound counts UTF-8 bytes, not chars: 13 two-byte chars are 26 bytes.
    let mut s = state;
    s.map_name = "é".repeat(13);
    expect_error_kind::<E, _>(strict, &s, LengthOverBound, "a 26-byte (13-char) map name");

    // STRING<200> text.
    let chat = |n| ac::ChatBroadcast {
        text: "t".repeat(n),
        ..Default::default()
    };
    to_bytes::<E, _>(&chat(200)).expect("200 bytes of chat");
    expect_error_kind::<E, _>(strict, &chat(201), LengthOverBound, "201 bytes of chat");

    // BYTES<512> opus.
    let voice = |n| ac::VoiceFrame {
        speaker: 1,
        opus: vec![7; n],
    };
    to_bytes::<E, _>(&voice(512)).expect("512 bytes of opus");
    expect_error_kind::<E, _>(strict, &voice(513), LengthOverBound, "513 bytes of opus");

    // STRING<64> reason.
    let refused = |n| ac::JoinResult {
        reason: "r".repeat(n),
        ..Default::default()
    };
    to_bytes::<E, _>(&refused(64)).expect("a 64-byte reason");
    expect_error_kind::<E, _>(strict, &refused(65), LengthOverBound, "a 65-byte reason");

    // PlayerName = STRING<32>, BYTES<256> auth_ticket, STRING<8> region (after the FENCE).
    let join = ac::Join {
        name: "n".repeat(32),
        auth_ticket: vec![1; 256],
        region: "r".repeat(8),
        ..Default::default()
    };
    to_bytes::<E, _>(&join).expect("the longest join");
    let mut j = join.clone();
    j.name.push('n');
    expect_error_kind::<E, _>(strict, &j, LengthOverBound, "a 33-byte name");
    let mut j = join.clone();
    j.auth_ticket.push(1);
    expect_error_kind::<E, _>(strict, &j, LengthOverBound, "a 257-byte auth ticket");
    let mut j = join;
    j.region.push('r');
    expect_error_kind::<E, _>(strict, &j, LengthOverBound, "a 9-byte region");

    // STRING<256> reason, after the protocol's FENCE.
    let report = ac::ReportPlayer {
        target: 1,
        reason: "w".repeat(257),
    };
    expect_error_kind::<E, _>(strict, &report, LengthOverBound, "a 257-byte report reason");

    // Squad: STRING<8> tag, SEQUENCE<PlayerSlot, 16> members, SEQUENCE<Squad, 4> subsquads;
    // nested in MatchReport (SEQUENCE<Squad, 4> squads, SEQUENCE<PlayerResult, 16> results).
    let squad = ac::Squad {
        tag: "t".repeat(8),
        members: vec![3; 16],
        subsquads: vec![ac::Squad::default(); 4],
    };
    to_bytes::<E, _>(&squad).expect("the largest squad");
    let mut q = squad.clone();
    q.tag.push('t');
    expect_error_kind::<E, _>(strict, &q, LengthOverBound, "a 9-byte tag");
    let mut q = squad.clone();
    q.members.push(3);
    expect_error_kind::<E, _>(strict, &q, LengthOverBound, "17 members");
    let mut q = squad.clone();
    q.subsquads.push(ac::Squad::default());
    expect_error_kind::<E, _>(strict, &q, LengthOverBound, "5 subsquads");
    let report = ac::MatchReport {
        results: vec![ac::PlayerResult::default(); 16],
        squads: vec![squad.clone(); 4],
        ..Default::default()
    };
    to_bytes::<E, _>(&report).expect("the largest match report");
    let mut r = report.clone();
    r.results.push(ac::PlayerResult::default());
    expect_error_kind::<E, _>(strict, &r, LengthOverBound, "17 results");
    let mut r = report.clone();
    r.squads.push(ac::Squad::default());
    expect_error_kind::<E, _>(strict, &r, LengthOverBound, "5 squads");
    // Too long deep inside: a sub-squad of a squad of the report.
    let mut r = report;
    r.squads[1].subsquads[2].members = vec![0; 17];
    expect_error_kind::<E, _>(
        strict,
        &r,
        LengthOverBound,
        "17 members of a nested sub-squad",
    );
}

#[test]
fn arena_lengths_s2c() {
    arena_lengths::<ac::S2C>(true);
}

#[test]
fn arena_lengths_s2c_debug() {
    arena_lengths::<ac::S2CDebug>(true);
}

#[test]
fn arena_lengths_s2s() {
    arena_lengths::<ac::S2S>(true);
}

/// Until then: in S2S every over-long value is at least refused.
#[test]
fn arena_lengths_s2s_are_refused() {
    arena_lengths::<ac::S2S>(false);
}

/// Ranged fields and parameters of the arena, on both sides, in every encoding.
fn arena_ranges<E: Encoding, F: Encoding>()
where
    ac::PlayerState: Codec<E>,
    ac::ArenaState: Codec<E>,
    ac::Input: Codec<E>,
    ac::Fire: Codec<E>,
    ac::JoinResult: Codec<E>,
    ac::Say: Codec<E>,
    ac::Item: Codec<E>,
    asv::PlayerState: Codec<F>,
    asv::ArenaState: Codec<F>,
{
    use EncodeErrorKind::{NotANumber, ValueOutOfRange};
    let player = ac::PlayerState::samples()[1].clone();
    to_bytes::<E, _>(&player).unwrap();
    let p = |f: &dyn Fn(&mut ac::PlayerState)| {
        let mut p = player.clone();
        f(&mut p);
        p
    };
    for (what, value, kind) in [
        ("slot 16", p(&|p| p.slot = 16), ValueOutOfRange),
        ("health 201", p(&|p| p.health = 201), ValueOutOfRange),
        ("armor 101", p(&|p| p.armor = 101), ValueOutOfRange),
        (
            "ammo 1000 (u32 on the client)",
            p(&|p| p.ammo = 1000),
            ValueOutOfRange,
        ),
        ("x 512.5", p(&|p| p.x = 512.5), ValueOutOfRange),
        ("vz -50.1", p(&|p| p.vz = -50.1), ValueOutOfRange),
        ("yaw 361", p(&|p| p.yaw = 361.0), ValueOutOfRange),
        ("pitch NaN", p(&|p| p.pitch = f32::NAN), NotANumber),
        ("y NaN", p(&|p| p.y = f32::NAN), NotANumber),
    ] {
        expect_error::<E, _>(&value, kind, &format!("PlayerState {what}"));
    }
    // The server maps health to i32: both ends of i32 are out of INT[0, 200].
    let server = |health: i32| asv::PlayerState {
        health,
        ..Default::default()
    };
    to_bytes::<F, _>(&server(200)).unwrap();
    expect_error::<F, _>(&server(-1), ValueOutOfRange, "server health -1");
    expect_error::<F, _>(&server(201), ValueOutOfRange, "server health 201");
    expect_error::<F, _>(&server(i32::MIN), ValueOutOfRange, "server health i32::MIN");

    let state = |f: &dyn Fn(&mut ac::ArenaState)| {
        let mut s = ac::ArenaState::default();
        f(&mut s);
        s
    };
    to_bytes::<E, _>(&state(&|s| s.time_left_s = 7200)).unwrap();
    for (what, value, kind) in [
        (
            "time_left_s 7201",
            state(&|s| s.time_left_s = 7201),
            ValueOutOfRange,
        ),
        (
            "team_score 251",
            state(&|s| s.team_score = [0, 251]),
            ValueOutOfRange,
        ),
        (
            "max_players 0",
            state(&|s| s.max_players = 0),
            ValueOutOfRange,
        ),
        (
            "max_players 17",
            state(&|s| s.max_players = 17),
            ValueOutOfRange,
        ),
        (
            "round_number 10",
            state(&|s| s.round_number = 10),
            ValueOutOfRange,
        ),
        (
            "time_scale 0",
            state(&|s| s.time_scale = 0.0),
            ValueOutOfRange,
        ),
        (
            "time_scale NaN",
            state(&|s| s.time_scale = f64::NAN),
            NotANumber,
        ),
        (
            "a player with x out of range",
            state(&|s| s.players = vec![p(&|p| p.x = -600.0)]),
            ValueOutOfRange,
        ),
    ] {
        expect_error::<E, _>(&value, kind, &format!("ArenaState {what}"));
    }
    let server_state = asv::ArenaState {
        time_left_s: 7201,
        ..Default::default()
    };
    expect_error::<F, _>(&server_state, ValueOutOfRange, "server time_left_s 7201");

    // INT(-128, 128) strafe is -127..=127; INT(0, 8] shots is 1..=8.
    let input = |strafe| ac::Input {
        strafe,
        ..Default::default()
    };
    to_bytes::<E, _>(&input(-127)).unwrap();
    expect_error::<E, _>(&input(-128), ValueOutOfRange, "strafe -128");
    let fire = |shots| ac::Fire {
        shots,
        ..Default::default()
    };
    to_bytes::<E, _>(&fire(8)).unwrap();
    expect_error::<E, _>(&fire(0), ValueOutOfRange, "shots 0");
    expect_error::<E, _>(&fire(9), ValueOutOfRange, "shots 9");
    // OPTIONAL<PlayerSlot>: the value inside is checked too.
    let joined = ac::JoinResult {
        slot: Some(16),
        ..Default::default()
    };
    expect_error::<E, _>(&joined, ValueOutOfRange, "slot Some(16)");
    let say = ac::Say {
        whisper_to: Some(200),
        ..Default::default()
    };
    expect_error::<E, _>(&say, ValueOutOfRange, "whisper_to Some(200)");
    let item = ac::Item {
        count: 0,
        ..Default::default()
    };
    expect_error::<E, _>(&item, ValueOutOfRange, "item count 0");
}

#[test]
fn arena_ranges_s2c() {
    arena_ranges::<ac::S2C, asv::S2C>();
}

#[test]
fn arena_ranges_s2c_debug() {
    arena_ranges::<ac::S2CDebug, asv::S2CDebug>();
}

#[test]
fn arena_ranges_s2s() {
    arena_ranges::<ac::S2S, asv::S2S>();
}

//! Values outside their IDL range, NaNs and over-long sequences and strings are an
//! `EncodeError` with the right kind, never a panic and never a silent clamp. Both errors name
//! the field path (`ArenaState.players[3].x`) and give the bit offset of the value that failed,
//! in full and delta form, packed runs of fixed-width fields included (last section).

mod common;

use std::fmt::Debug;
use std::path::{Path, PathBuf};

use common::ArenaSamples;
use idlc::interpret::{self, sample};
use idlc_runtime::{
    Codec, DecodeError, DecodeErrorKind, DeltaContext, EncodeError, EncodeErrorKind, Encoding,
    from_bytes, to_bytes,
};
use idlc_tests::{
    arena_client as ac, arena_server as asv, character_client as cc, character_unmerged as cu,
    edge, mk48,
};

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

// ---------------------------------------------------------------------------------------------
// Where: the field path and the bit offset of the value that failed
// ---------------------------------------------------------------------------------------------

/// The error of encoding `value` in `E`: of `kind`, naming `path`, which `Display` shows. Returns
/// the bit offset.
#[track_caller]
fn encode_fails_at<E: Encoding, T: Codec<E> + Debug>(
    value: &T,
    kind: EncodeErrorKind,
    path: &str,
) -> u64 {
    let e = to_bytes::<E, T>(value).expect_err("the value must be refused");
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (kind, Some(path)),
        "in {}: {e}",
        E::NAME
    );
    let shown = format!("{} at bit {} in {path}", kind.as_str(), e.bit_offset);
    assert_eq!(e.to_string(), shown);
    e.bit_offset
}

/// Five valid players of the arena (client side).
fn five_players() -> Vec<ac::PlayerState> {
    let samples = ac::PlayerState::samples();
    (0..5).map(|i| samples[i % samples.len()].clone()).collect()
}

/// Out-of-range values deep inside sequences, arrays and optionals name the element's index and
/// the field inside it, in every arena encoding, on both sides.
fn arena_paths<E: Encoding, F: Encoding>()
where
    ac::ArenaState: Codec<E>,
    ac::MatchReport: Codec<E>,
    ac::JoinResult: Codec<E>,
    ac::KillCredit: Codec<E>,
    asv::ArenaState: Codec<F>,
{
    use EncodeErrorKind::{LengthOverBound, NotANumber, ValueOutOfRange};
    let state = |f: &dyn Fn(&mut ac::ArenaState)| {
        let mut s = ac::ArenaState {
            players: five_players(),
            projectiles: ac::Projectile::samples(),
            ..Default::default()
        };
        f(&mut s);
        s
    };
    to_bytes::<E, _>(&state(&|_| {})).expect("the valid state encodes");
    let x = state(&|s| s.players[3].x = 600.0);
    encode_fails_at::<E, _>(&x, ValueOutOfRange, "ArenaState.players[3].x");
    let pitch = state(&|s| s.players[4].pitch = f32::NAN);
    encode_fails_at::<E, _>(&pitch, NotANumber, "ArenaState.players[4].pitch");
    let ttl = state(&|s| s.projectiles[1].vz = 400.5);
    encode_fails_at::<E, _>(&ttl, ValueOutOfRange, "ArenaState.projectiles[1].vz");
    let score = state(&|s| s.team_score = [0, 251]);
    encode_fails_at::<E, _>(&score, ValueOutOfRange, "ArenaState.team_score[1]");
    // A field after a FENCE, and an over-long string there.
    let name = state(&|s| s.map_name = "m".repeat(25));
    encode_fails_at::<E, _>(&name, LengthOverBound, "ArenaState.map_name");
    // The same on the server's mapping.
    let mut server = asv::ArenaState {
        players: vec![asv::PlayerState::default(); 3],
        ..Default::default()
    };
    server.players[2].health = 201;
    encode_fails_at::<F, _>(&server, ValueOutOfRange, "ArenaState.players[2].health");

    // Recursion through SEQUENCE: an element of a sub-squad of a squad.
    let squad = ac::Squad {
        tag: "t".into(),
        members: vec![3; 4],
        subsquads: vec![ac::Squad::default(); 3],
    };
    let report = |f: &dyn Fn(&mut ac::MatchReport)| {
        let mut r = ac::MatchReport {
            squads: vec![squad.clone(); 2],
            ..Default::default()
        };
        f(&mut r);
        r
    };
    to_bytes::<E, _>(&report(&|_| {})).expect("the valid report encodes");
    let member = report(&|r| r.squads[1].subsquads[2].members = vec![1, 2, 3, 16]);
    encode_fails_at::<E, _>(
        &member,
        ValueOutOfRange,
        "MatchReport.squads[1].subsquads[2].members[3]",
    );
    let members = report(&|r| r.squads[1].subsquads[2].members = vec![0; 17]);
    encode_fails_at::<E, _>(
        &members,
        LengthOverBound,
        "MatchReport.squads[1].subsquads[2].members",
    );
    // OPTIONAL: its value adds nothing to the path, a struct in it its fields.
    let joined = ac::JoinResult {
        slot: Some(16),
        ..Default::default()
    };
    encode_fails_at::<E, _>(&joined, ValueOutOfRange, "JoinResult.slot");
    let credit = ac::KillCredit {
        player: 1,
        damage: 10,
        assist: Some(Box::new(ac::KillCredit {
            player: 2,
            damage: 20,
            assist: Some(Box::new(ac::KillCredit {
                player: 3,
                damage: 1001,
                assist: None,
            })),
        })),
    };
    encode_fails_at::<E, _>(&credit, ValueOutOfRange, "KillCredit.assist.assist.damage");
}

#[test]
fn arena_encode_errors_name_the_field_path() {
    arena_paths::<ac::S2C, asv::S2C>();
    arena_paths::<ac::S2CDebug, asv::S2CDebug>();
    arena_paths::<ac::S2S, asv::S2S>();
}

/// Sequences of sequences, arrays of structs, optionals of recursive structs, Rust prelude names.
#[test]
fn edge_encode_errors_name_the_field_path() {
    fn each<E: Encoding>()
    where
        edge::Nesting: Codec<E>,
        edge::Result: Codec<E>,
    {
        // A count with its own ranged rule (`Odd`) is out of range rather than over its bound.
        #[track_caller]
        fn count_fails_at<E: Encoding, T: Codec<E> + Debug>(value: &T, path: &str) {
            let e = to_bytes::<E, T>(value).unwrap_err();
            assert_eq!(e.field.as_deref(), Some(path), "{e}");
            assert!(
                matches!(
                    e.kind,
                    EncodeErrorKind::LengthOverBound | EncodeErrorKind::ValueOutOfRange
                ),
                "{e}"
            );
        }
        let nesting = |f: &dyn Fn(&mut edge::Nesting)| {
            let mut n = edge::Nesting {
                grid: vec![vec![1, 2], vec![], vec![3; 4]],
                tree: Some(edge::Node {
                    value: 1,
                    children: vec![edge::Node::default(); 2],
                }),
                ..Default::default()
            };
            f(&mut n);
            n
        };
        to_bytes::<E, _>(&nesting(&|_| {})).expect("the valid Nesting encodes");
        let row = nesting(&|n| n.grid[2].push(4));
        count_fails_at::<E, _>(&row, "Nesting.grid[2]");
        let wide = nesting(&|n| n.pair[1].wide = 1000.5);
        encode_fails_at::<E, _>(
            &wide,
            EncodeErrorKind::ValueOutOfRange,
            "Nesting.pair[1].wide",
        );
        let children = nesting(&|n| {
            if let Some(tree) = &mut n.tree {
                tree.children[1].children = vec![edge::Node::default(); 5];
            }
        });
        count_fails_at::<E, _>(&children, "Nesting.tree.children[1].children");
        let result = edge::Result {
            boxes: vec![edge::Box::default(); 3],
            ..Default::default()
        };
        count_fails_at::<E, _>(&result, "Result.boxes");
    }
    each::<edge::Odd>();
    each::<edge::Bytes>();
    each::<edge::SomeEncoding>();
}

/// The bit offset is that of the field that failed: in a packed run of fixed-width fields
/// (PlayerState's first run in S2C: slot 4 bits, team 2, x 17, y 17, z 14), each field reports
/// its own place, as field-by-field code would.
#[test]
fn packed_fields_report_their_own_offset() {
    let player = ac::PlayerState::samples()[1].clone();
    let at = |f: &dyn Fn(&mut ac::PlayerState), path: &str| {
        let mut p = player.clone();
        f(&mut p);
        encode_fails_at::<ac::S2C, _>(&p, EncodeErrorKind::ValueOutOfRange, path)
    };
    assert_eq!(at(&|p| p.slot = 16, "PlayerState.slot"), 0);
    assert_eq!(at(&|p| p.x = 600.0, "PlayerState.x"), 6);
    assert_eq!(at(&|p| p.y = 600.0, "PlayerState.y"), 23);
    assert_eq!(at(&|p| p.z = 65.0, "PlayerState.z"), 40);
    // The second run (vx 11, vy 11, vz 13, yaw 12, pitch 11) follows the first (54 bits).
    assert_eq!(at(&|p| p.vx = 21.0, "PlayerState.vx"), 54);
    assert_eq!(at(&|p| p.pitch = 91.0, "PlayerState.pitch"), 54 + 47);
    // Inside a sequence: the element's first bit plus the field's place, the same for every
    // element of the same size.
    let state = |i: usize, f: &dyn Fn(&mut ac::PlayerState)| {
        let mut s = ac::ArenaState {
            players: vec![player.clone(); 4],
            ..Default::default()
        };
        f(&mut s.players[i]);
        s
    };
    let offset = |i: usize, f: &dyn Fn(&mut ac::PlayerState), field: &str| {
        let path = format!("ArenaState.players[{i}].{field}");
        encode_fails_at::<ac::S2C, _>(&state(i, f), EncodeErrorKind::ValueOutOfRange, &path)
    };
    let (slot, team_x) = (
        offset(2, &|p| p.slot = 16, "slot"),
        offset(2, &|p| p.x = 600.0, "x"),
    );
    assert_eq!(team_x - slot, 6);
    let element = offset(3, &|p| p.slot = 16, "slot") - slot;
    assert_eq!(offset(3, &|p| p.y = 600.0, "y"), slot + element + 23);
}

/// Generated code with packed runs reports every error of the seed's Character exactly as the
/// same encoding generated field by field (`character_unmerged`): kind, path and bit offset.
#[test]
fn packed_and_unpacked_code_report_the_same_error() {
    fn unmerged(c: &cc::Character) -> cu::Character {
        cu::Character {
            character_id: c.character_id,
            x: c.x,
            y: c.y,
            z: c.z,
            vx: c.vx,
            vy: c.vy,
            vz: c.vz,
            angle: c.angle,
            anim: cu::Animation::from_index(c.anim.index()).unwrap_or_default(),
            animation_frame: c.animation_frame,
            inventory: c
                .inventory
                .iter()
                .map(|i| cu::Item {
                    item_id: i.item_id,
                    kind: cu::ItemKind::from_index(i.kind.index()).unwrap_or_default(),
                    count: i.count,
                    durability: i.durability,
                })
                .collect(),
        }
    }
    let mut offsets = Vec::new();
    for (what, c, kind) in broken_characters(true) {
        let packed = to_bytes::<cc::MYENCODING1, _>(&c).expect_err(what);
        let plain = to_bytes::<cu::MYENCODING1, _>(&unmerged(&c)).expect_err(what);
        assert_eq!(packed, plain, "{what}");
        assert_eq!(packed.kind, kind, "{what}");
        assert!(packed.field.is_some(), "{what}: {packed}");
        offsets.push((packed.field.clone(), packed.bit_offset));
    }
    // Different fields, different offsets.
    offsets.sort();
    offsets.dedup();
    for pair in offsets.windows(2) {
        if pair[0].0 != pair[1].0 {
            assert_ne!(pair[0].1, pair[1].1, "{pair:?}");
        }
    }
}

/// The bits of the field at `path` in `bytes` (BITSTREAM), as the interpreter's trace of a
/// decode shows them: `(start, end)`.
fn traced(ir: &idlc::ir::Ir, enc: &str, ty: &str, bytes: &[u8], path: &str) -> (u64, u64) {
    let mut trace = Vec::new();
    interpret::decode_traced(ir, enc, ty, bytes, Some(&mut trace)).expect("valid bytes decode");
    let entry = trace
        .iter()
        .find(|e| e.path == path)
        .unwrap_or_else(|| panic!("no {path} in the trace"));
    (entry.start, entry.end)
}

/// `bytes` with the bits `start..end` (LSB-first) all set.
fn set_bits(bytes: &[u8], start: u64, end: u64) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for bit in start..end {
        out[(bit / 8) as usize] |= 1 << (bit % 8);
    }
    out
}

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
fn ir(idl: &[PathBuf], encodings: &[PathBuf], mapping: Option<(&str, PathBuf)>) -> idlc::ir::Ir {
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

fn arena_ir() -> idlc::ir::Ir {
    ir(
        &[schema("arena.idl")],
        &[schema("arena_s2c.enc"), schema("arena_s2s.enc")],
        Some(("Client", schema("arena_client.map"))),
    )
}

/// The error of decoding `bytes` as `T` in `E`, which must fail.
#[track_caller]
fn decode_error<E: Encoding, T: Codec<E> + Debug>(bytes: &[u8]) -> DecodeError {
    match from_bytes::<E, T>(bytes) {
        Ok(value) => panic!("{} decoded {value:?}", E::NAME),
        Err(e) => e,
    }
}

/// A bad enumerator and a value out of range deep inside a sequence, crafted where the
/// interpreter's trace says the field is: the error names the element and the field, at the
/// field's first bit; two fields of one packed run give two offsets.
#[test]
fn decode_errors_name_the_field_deep_inside() {
    let ir = arena_ir();
    let state = ac::ArenaState {
        players: five_players(),
        ..Default::default()
    };
    let bytes = to_bytes::<ac::S2C, _>(&state).unwrap();
    let team = "ArenaState.players[2].team";
    let (start, end) = traced(&ir, "S2C", "ArenaState", &bytes, team);
    assert_eq!(end - start, 2, "Team: 3 enumerators in 2 bits");
    let e = decode_error::<ac::S2C, ac::ArenaState>(&set_bits(&bytes, start, end));
    assert_eq!(
        (e.kind, e.bit_offset, e.field.as_deref()),
        (DecodeErrorKind::BadEnumerator, start, Some(team))
    );
    assert_eq!(
        e.to_string(),
        format!("unknown enumerator at bit {start} in {team}")
    );
    // x follows team in the same packed word: 17 bits of ones are above its 102,400 steps.
    let x = "ArenaState.players[2].x";
    let (x_start, x_end) = traced(&ir, "S2C", "ArenaState", &bytes, x);
    let e = decode_error::<ac::S2C, ac::ArenaState>(&set_bits(&bytes, x_start, x_end));
    assert_eq!(
        (e.kind, e.bit_offset, e.field.as_deref()),
        (DecodeErrorKind::ValueOutOfRange, x_start, Some(x))
    );
    assert_eq!(x_start, start + 2);

    // A byte that is not UTF-8 in a string of a sequence element, after the FENCE-less part.
    let mut report = ac::MatchReport::samples().pop().unwrap();
    report.results = vec![ac::PlayerResult::default(); 3];
    report.results[1].name = "ann".into();
    let bytes = to_bytes::<ac::S2C, _>(&report).unwrap();
    let name = "MatchReport.results[1].name";
    let (_, end) = traced(&ir, "S2C", "MatchReport", &bytes, name);
    let mut bad = bytes.clone();
    bad[(end / 8 - 1) as usize] = 0xff; // the last byte of "ann"
    let e = decode_error::<ac::S2C, ac::MatchReport>(&bad);
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (DecodeErrorKind::BadUtf8, Some(name))
    );
    let interpreted = interpret::decode(&ir, "S2C", "MatchReport", &bad).unwrap_err();
    assert_eq!(e.bit_offset, interpreted.wire().unwrap().bit_offset);
}

/// Generated decoders and the IR interpreter give the same error for hostile input: same kind,
/// same bit offset, same field path (seeded random values of every IDL range, then mutated).
fn decode_errors_agree<T: Codec<E>, E: Encoding>(ir: &idlc::ir::Ir, name: &str, enc: &str) {
    let mut rng = sample::Rng::new(0x11 ^ (name.len() as u64) << 4 ^ enc.len() as u64);
    let mut named = 0;
    for round in 0..40 {
        let value = sample::random_struct(ir, name, &mut rng).expect("the type exists");
        let bytes = interpret::encode(ir, enc, name, &value).expect("a sample encodes");
        for _ in 0..12 {
            let mut hostile = bytes.clone();
            match rng.below(3) {
                0 if !hostile.is_empty() => {
                    let bit = rng.below(hostile.len() as u64 * 8);
                    hostile[(bit / 8) as usize] ^= 1 << (bit % 8);
                }
                1 => hostile.truncate(rng.below(hostile.len() as u64 + 1) as usize),
                _ if !hostile.is_empty() => {
                    let at = rng.below(hostile.len() as u64) as usize;
                    hostile[at] = rng.next_u64() as u8;
                }
                _ => {}
            }
            let ours = from_bytes::<E, T>(&hostile)
                .err()
                .map(|e| (e.kind, e.bit_offset, e.field.map(String::from)));
            let theirs = interpret::decode(ir, enc, name, &hostile).err().map(|e| {
                let wire = e.wire().expect("a wire error").clone();
                (wire.kind, wire.bit_offset, Some(e.path))
            });
            assert_eq!(
                ours, theirs,
                "{name} in {enc}, round {round}: {hostile:02x?}"
            );
            named += usize::from(ours.is_some());
        }
    }
    assert!(named > 0, "{name} in {enc}: no mutation failed");
}

#[test]
fn decode_errors_agree_with_the_interpreter() {
    let arena = arena_ir();
    decode_errors_agree::<ac::ArenaState, ac::S2C>(&arena, "ArenaState", "S2C");
    decode_errors_agree::<ac::PlayerState, ac::S2C>(&arena, "PlayerState", "S2C");
    decode_errors_agree::<ac::MatchReport, ac::S2C>(&arena, "MatchReport", "S2C");
    decode_errors_agree::<ac::KillCredit, ac::S2C>(&arena, "KillCredit", "S2C");
    decode_errors_agree::<ac::JoinResult, ac::S2C>(&arena, "JoinResult", "S2C");
    decode_errors_agree::<ac::ArenaState, ac::S2CDebug>(&arena, "ArenaState", "S2CDebug");
    decode_errors_agree::<ac::MatchReport, ac::S2S>(&arena, "MatchReport", "S2S");
    let edge_ir = ir(&[schema("edge.idl")], &[schema("edge.enc")], None);
    decode_errors_agree::<edge::Nesting, edge::Odd>(&edge_ir, "Nesting", "Odd");
    decode_errors_agree::<edge::Versioned, edge::Odd>(&edge_ir, "Versioned", "Odd");
    decode_errors_agree::<edge::Result, edge::Odd>(&edge_ir, "Result", "Odd");
    decode_errors_agree::<edge::Nesting, edge::Bytes>(&edge_ir, "Nesting", "Bytes");
    decode_errors_agree::<edge::Result, edge::Bytes>(&edge_ir, "Result", "Bytes");
    decode_errors_agree::<edge::Extremes, edge::SomeEncoding>(&edge_ir, "Extremes", "Some");
    let character = ir(
        &[seed("character.idl"), schema("item.idl")],
        &[seed("myencoding1.enc")],
        Some(("Client", schema("client.map"))),
    );
    decode_errors_agree::<cc::Character, cc::MYENCODING1>(&character, "Character", "MYENCODING1");
    // Packed runs of UINT16s, FLOAT32s, ranged integers and BOOLs.
    let mk48_ir = ir(
        &[schema("mk48.idl")],
        &[schema("mk48.enc")],
        Some(("Game", schema("mk48.map"))),
    );
    decode_errors_agree::<mk48::Contact, mk48::MK48>(&mk48_ir, "Contact", "MK48");
    decode_errors_agree::<mk48::Update, mk48::MK48_LOSSY>(&mk48_ir, "Update", "MK48_LOSSY");
}

/// Delta form: an element of a DELTA SEQUENCE names its index, new (past the baseline) or
/// changed; the error is at the bit before the field, where the encoder checked the value.
#[test]
fn delta_errors_name_the_field_path() {
    let ctx = DeltaContext::default();
    let item = |id: u32| cc::Item {
        item_id: id,
        kind: cc::ItemKind::Ammo,
        count: 5,
        durability: 0.5,
    };
    let baseline = cc::Character {
        inventory: vec![item(1), item(2)],
        ..valid()
    };
    let delta = |c: &cc::Character| -> EncodeError {
        c.to_delta_bytes_with::<cc::MYENCODING1>(&baseline, &ctx)
            .expect_err("the delta must be refused")
    };
    // A changed element (delta-coded against the baseline's) and a new one.
    let mut changed = baseline.clone();
    changed.inventory[1].durability = 1.5;
    let e = delta(&changed);
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (
            EncodeErrorKind::ValueOutOfRange,
            Some("Character.inventory[1].durability")
        )
    );
    let mut new = baseline.clone();
    new.inventory.push(cc::Item {
        count: 0,
        ..item(3)
    });
    let e = delta(&new);
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (
            EncodeErrorKind::ValueOutOfRange,
            Some("Character.inventory[2].count")
        )
    );
    // A field of the struct itself, checked before its changed-bit is written: two fields, two
    // offsets (x in the DELTA block before angle).
    let x = delta(&cc::Character {
        x: 20000.0,
        ..baseline.clone()
    });
    let angle = delta(&cc::Character {
        angle: 400.0,
        ..baseline.clone()
    });
    assert_eq!(x.field.as_deref(), Some("Character.x"));
    assert_eq!(angle.field.as_deref(), Some("Character.angle"));
    // character_id 7 is one VLQ group (8 bits); x is checked before the block's changed-bit,
    // angle after that bit (the block is unchanged: 0).
    assert_eq!((x.bit_offset, angle.bit_offset), (8, 9), "{x} / {angle}");

    // Decoding: every truncation of a valid delta that fails names a field of Character, one
    // inside the changed item names it with its index.
    let mut moved = baseline.clone();
    moved.inventory[1].count = 9;
    moved.x = 12.5;
    let bytes = moved
        .to_delta_bytes_with::<cc::MYENCODING1>(&baseline, &ctx)
        .unwrap();
    let mut inside_item = false;
    for len in 0..bytes.len() {
        let Err(e) =
            cc::Character::from_delta_bytes_with::<cc::MYENCODING1>(&baseline, &ctx, &bytes[..len])
        else {
            continue; // what is missing was the open end's bit
        };
        let path = e.field.as_deref().unwrap_or_else(|| panic!("{e}"));
        assert!(path.starts_with("Character"), "{e}");
        assert!(e.bit_offset <= len as u64 * 8, "{e}");
        inside_item |= path.starts_with("Character.inventory[1].");
    }
    assert!(inside_item, "no truncation inside inventory[1]");
}

/// An error of the arena's delta: a player's field in the DELTA SEQUENCE `players`.
#[test]
fn arena_delta_errors_name_the_player() {
    let ctx = DeltaContext::default();
    let baseline = ac::ArenaState {
        players: five_players(),
        ..Default::default()
    };
    let mut state = baseline.clone();
    state.players[3].health = 201;
    let e = state
        .to_delta_bytes_with::<ac::S2C>(&baseline, &ctx)
        .unwrap_err();
    assert_eq!(e.field.as_deref(), Some("ArenaState.players[3].health"));
    let mut state = baseline.clone();
    state.players[1].x = 600.0;
    let e = state
        .to_delta_bytes_with::<ac::S2C>(&baseline, &ctx)
        .unwrap_err();
    assert_eq!(
        (e.kind, e.field.as_deref()),
        (
            EncodeErrorKind::ValueOutOfRange,
            Some("ArenaState.players[1].x")
        )
    );
    // The players are checked before the runtime writes the field's changed-bit: the error is
    // at that bit, one before the count (which 17 players overflow).
    let mut many = baseline.clone();
    many.players = vec![ac::PlayerState::default(); 17];
    let count = many
        .to_delta_bytes_with::<ac::S2C>(&baseline, &ctx)
        .unwrap_err();
    assert_eq!(
        (count.kind, count.field.as_deref()),
        (EncodeErrorKind::LengthOverBound, Some("ArenaState.players"))
    );
    assert_eq!(e.bit_offset + 1, count.bit_offset, "{e} / {count}");
    // What arrives (`quantized_with`, no bits written) names the field too.
    let e = state.quantized_with::<ac::S2C>().unwrap_err();
    assert_eq!(e.field.as_deref(), Some("ArenaState.players[1].x"));
}

/// `quantized_with` fails where `to_bytes_with` does, with its error: an integer outside its
/// range (held in a wider Rust type), a sequence over its bound, not only a NUMERIC.
#[test]
fn quantized_with_fails_where_encoding_fails() {
    let mut player = ac::PlayerState {
        slot: 16,
        ..Default::default()
    };
    let encoding = player.to_bytes_with::<ac::S2C>().unwrap_err();
    let quantized = player.quantized_with::<ac::S2C>().unwrap_err();
    assert_eq!(quantized, encoding);
    assert_eq!(
        (quantized.kind, quantized.field.as_deref()),
        (EncodeErrorKind::ValueOutOfRange, Some("PlayerState.slot"))
    );
    player.slot = 15;
    assert_eq!(
        player.quantized_with::<ac::S2C>().unwrap(),
        from_bytes::<ac::S2C, _>(&player.to_bytes_with::<ac::S2C>().unwrap()).unwrap()
    );
    let state = ac::ArenaState {
        players: vec![ac::PlayerState::default(); 17],
        ..Default::default()
    };
    assert_eq!(
        state.quantized_with::<ac::S2C>().unwrap_err(),
        state.to_bytes_with::<ac::S2C>().unwrap_err()
    );
}

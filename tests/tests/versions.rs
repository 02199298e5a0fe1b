//! One schema in three versions (schemas/versions/squad_v1..3.idl), each a fenced extension of
//! the one before, with a nested struct (Member, a SEQUENCE element and an OPTIONAL) that grows
//! in each: code generated from every version reads what every other version writes, in a bit
//! stream and a byte stream. A newer reader gets the older writer's values plus the DEFAULTs; an
//! older reader gets the newer writer's values as it can hold them (hp saturated into its range,
//! the tag's low 8 bits, the start of a longer nickname, badge or member list), and never an
//! error.

use idlc_runtime::{Codec, Encoding, from_bytes, to_bytes};
use idlc_tests::{squad_v1 as v1, squad_v2 as v2, squad_v3 as v3};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A member as version 3 knows it: every field of every version.
#[derive(Debug, Clone, PartialEq)]
struct Member {
    id: u16,
    hp: u16,
    armor: u8,
    nick: String,
    xp: u32,
}

/// A squad as version 3 knows it.
#[derive(Debug, Clone, PartialEq)]
struct Squad {
    members: Vec<Member>,
    leader: Option<Member>,
    tag: u16,
    badge: Vec<u8>,
    ranked: bool,
    region: u8,
}

fn random_member(rng: &mut ChaCha8Rng) -> Member {
    Member {
        id: rng.random(),
        hp: rng.random_range(0..=1000),
        armor: rng.random_range(0..=50),
        nick: [
            "",
            "x",
            "zed",
            "éclair",
            "12345678",
            "a much longer nickname",
            "ééééééééé",
        ][rng.random_range(0..7)]
        .to_string(),
        xp: rng.random(),
    }
}

fn random_squad(rng: &mut ChaCha8Rng) -> Squad {
    Squad {
        members: (0..rng.random_range(0..=16))
            .map(|_| random_member(rng))
            .collect(),
        leader: rng.random_bool(0.5).then(|| random_member(rng)),
        tag: rng.random(),
        badge: (0..rng.random_range(0..=64))
            .map(|_| rng.random())
            .collect(),
        ranked: rng.random(),
        region: rng.random_range(1..=9),
    }
}

/// What a reader of `version` holds of `s` (written by any newer version): the fields it does
/// not know at their DEFAULTs, hp saturated into 0..=100 and the tag cut to 8 bits where it
/// knows the old types only.
fn as_seen_by(s: &Squad, version: u8) -> Squad {
    let member = |m: &Member| Member {
        id: m.id,
        hp: if version < 3 { m.hp.min(100) } else { m.hp },
        armor: if version < 2 { 5 } else { m.armor },
        nick: match version {
            1 => "anon".into(),
            2 => idlc_runtime::truncate_utf8(&m.nick, 8).into(),
            _ => m.nick.clone(),
        },
        xp: if version < 3 { 0 } else { m.xp },
    };
    let (members, badge) = if version < 3 { (8, 4) } else { (16, 64) };
    Squad {
        members: s.members.iter().take(members).map(member).collect(),
        leader: s.leader.as_ref().map(member),
        tag: if version < 2 { s.tag & 0xff } else { s.tag },
        badge: s.badge.iter().copied().take(badge).collect(),
        ranked: version >= 2 && s.ranked,
        region: if version < 3 { 3 } else { s.region },
    }
}

/// A squad of one version, to and from the version-3 view.
trait Version: Codec<Self::Bits> + Codec<Self::Bytes> + Sized {
    type Bits: Encoding;
    type Bytes: Encoding;
    const VERSION: u8;
    fn from_view(s: &Squad) -> Self;
    fn view(&self) -> Squad;
}

macro_rules! member_conversions {
    ($m:ident, $v:ident, |$x:ident| $to:expr, |$y:ident| $from:expr) => {
        fn $m($x: &Member) -> $v::Member {
            $to
        }
        fn $v($y: &$v::Member) -> Member {
            $from
        }
    };
}

member_conversions!(
    to_v1,
    v1,
    |m| v1::Member {
        id: m.id,
        hp: m.hp as u8,
    },
    |m| Member {
        id: m.id,
        hp: u16::from(m.hp),
        armor: 5,
        nick: "anon".into(),
        xp: 0,
    }
);
member_conversions!(
    to_v2,
    v2,
    |m| v2::Member {
        id: m.id,
        hp: m.hp as u8,
        armor: m.armor,
        nick: m.nick.clone(),
    },
    |m| Member {
        id: m.id,
        hp: u16::from(m.hp),
        armor: m.armor,
        nick: m.nick.clone(),
        xp: 0,
    }
);
member_conversions!(
    to_v3,
    v3,
    |m| v3::Member {
        id: m.id,
        hp: m.hp,
        armor: m.armor,
        nick: m.nick.clone(),
        xp: m.xp,
    },
    |m| Member {
        id: m.id,
        hp: m.hp,
        armor: m.armor,
        nick: m.nick.clone(),
        xp: m.xp,
    }
);

impl Version for v1::Squad {
    type Bits = v1::SquadBits;
    type Bytes = v1::SquadBytes;
    const VERSION: u8 = 1;
    fn from_view(s: &Squad) -> Self {
        v1::Squad {
            members: s.members.iter().map(to_v1).collect(),
            leader: s.leader.as_ref().map(to_v1),
            tag: s.tag as u8,
            badge: s.badge.clone(),
        }
    }
    fn view(&self) -> Squad {
        Squad {
            members: self.members.iter().map(v1).collect(),
            leader: self.leader.as_ref().map(v1),
            tag: u16::from(self.tag),
            badge: self.badge.clone(),
            ranked: false,
            region: 3,
        }
    }
}

impl Version for v2::Squad {
    type Bits = v2::SquadBits;
    type Bytes = v2::SquadBytes;
    const VERSION: u8 = 2;
    fn from_view(s: &Squad) -> Self {
        v2::Squad {
            members: s.members.iter().map(to_v2).collect(),
            leader: s.leader.as_ref().map(to_v2),
            tag: s.tag,
            badge: s.badge.clone(),
            ranked: s.ranked,
        }
    }
    fn view(&self) -> Squad {
        Squad {
            members: self.members.iter().map(v2).collect(),
            leader: self.leader.as_ref().map(v2),
            tag: self.tag,
            badge: self.badge.clone(),
            ranked: self.ranked,
            region: 3,
        }
    }
}

impl Version for v3::Squad {
    type Bits = v3::SquadBits;
    type Bytes = v3::SquadBytes;
    const VERSION: u8 = 3;
    fn from_view(s: &Squad) -> Self {
        v3::Squad {
            members: s.members.iter().map(to_v3).collect(),
            leader: s.leader.as_ref().map(to_v3),
            tag: s.tag,
            badge: s.badge.clone(),
            ranked: s.ranked,
            region: s.region,
        }
    }
    fn view(&self) -> Squad {
        Squad {
            members: self.members.iter().map(v3).collect(),
            leader: self.leader.as_ref().map(v3),
            tag: self.tag,
            badge: self.badge.clone(),
            ranked: self.ranked,
            region: self.region,
        }
    }
}

/// A writer of version W holding `truth` (as W can hold it) sends it; a reader of version R
/// decodes it, in both streams, and holds `truth` as R sees it.
fn cross<W: Version, R: Version>(truth: &Squad) -> Result<(), TestCaseError> {
    let written = W::from_view(&as_seen_by(truth, W::VERSION));
    let expected = as_seen_by(&written.view(), R::VERSION.min(W::VERSION));
    let expected = as_seen_by(&expected, R::VERSION);
    let bits = to_bytes::<W::Bits, W>(&written).expect("a valid value encodes");
    let read = from_bytes::<R::Bits, R>(&bits).map_err(|e| {
        TestCaseError::fail(format!("v{} reads v{} bits: {e}", R::VERSION, W::VERSION))
    })?;
    prop_assert_eq!(
        read.view(),
        expected.clone(),
        "v{} -> v{}, bits",
        W::VERSION,
        R::VERSION
    );
    let bytes = to_bytes::<W::Bytes, W>(&written).expect("a valid value encodes");
    let read = from_bytes::<R::Bytes, R>(&bytes).map_err(|e| {
        TestCaseError::fail(format!("v{} reads v{} bytes: {e}", R::VERSION, W::VERSION))
    })?;
    prop_assert_eq!(
        read.view(),
        expected,
        "v{} -> v{}, bytes",
        W::VERSION,
        R::VERSION
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_version_reads_every_other(seed in any::<u64>()) {
        let truth = random_squad(&mut ChaCha8Rng::seed_from_u64(seed));
        cross::<v1::Squad, v1::Squad>(&truth)?;
        cross::<v1::Squad, v2::Squad>(&truth)?;
        cross::<v1::Squad, v3::Squad>(&truth)?;
        cross::<v2::Squad, v1::Squad>(&truth)?;
        cross::<v2::Squad, v2::Squad>(&truth)?;
        cross::<v2::Squad, v3::Squad>(&truth)?;
        cross::<v3::Squad, v1::Squad>(&truth)?;
        cross::<v3::Squad, v2::Squad>(&truth)?;
        cross::<v3::Squad, v3::Squad>(&truth)?;
    }
}

/// A member whose hp exceeds version 1's range, inside a sequence of three: the old reader sees
/// 100 and the members after it stay in place.
#[test]
fn old_reader_skips_a_grown_member_in_place() {
    let members = vec![
        v3::Member {
            id: 1,
            hp: 700,
            armor: 9,
            nick: "big".into(),
            xp: 12,
        },
        v3::Member {
            id: 2,
            hp: 50,
            ..Default::default()
        },
    ];
    let squad = v3::Squad {
        members,
        tag: 0x1234,
        region: 9,
        ..Default::default()
    };
    let bytes = squad.to_bytes().unwrap();
    let old = v1::Squad::from_bytes(&bytes).unwrap();
    assert_eq!(
        old.members,
        [v1::Member { id: 1, hp: 100 }, v1::Member { id: 2, hp: 50 }]
    );
    assert_eq!(old.tag, 0x34);
    let v2 = v2::Squad::from_bytes(&bytes).unwrap();
    assert_eq!(v2.members[0].nick, "big");
}

/// A v3 nickname of 12 bytes ending in a two-byte character: a v2 reader sees its first 8
/// bytes, cut on a character boundary; a v3 reader sees it whole.
#[test]
fn a_longer_string_reads_as_its_start() {
    let member = v3::Member {
        id: 1,
        nick: "abcdefgé".into(), // 9 bytes
        ..Default::default()
    };
    let squad = v3::Squad {
        leader: Some(member),
        ..Default::default()
    };
    let bytes = squad.to_bytes().unwrap();
    let old = v2::Squad::from_bytes(&bytes).unwrap();
    assert_eq!(old.leader.unwrap().nick, "abcdefg");
    let new = v3::Squad::from_bytes(&bytes).unwrap();
    assert_eq!(new.leader.unwrap().nick, "abcdefgé");
}
